"""Errors the harness raises.

CodebenchError
 └── InputError   bad user input (file, line, option): the CLI prints one line and exits 2
"""

from __future__ import annotations


class CodebenchError(Exception):
    """Base of every error codebench raises."""


class InputError(CodebenchError):
    """The user gave input codebench cannot use; the message says where and what to do."""
