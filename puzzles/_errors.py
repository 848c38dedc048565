"""Errors raised by the puzzle library.

PuzzleError
 ├── ParamError          bad parameters or level (names the field and value)
 ├── UnknownPuzzleError   no puzzle with that name
 ├── PluginError          an installed plugin's puzzle or game cannot be used (names its distribution and the fix)
 └── InstanceFormatError  an instance file (DIMACS …) cannot be read, or `solve` refuses an instance:
                          malformed, inconsistent, past the family's stated bounds, or unsolvable
Answers never raise: a malformed answer is a Verdict, not an exception.
"""

from __future__ import annotations


class PuzzleError(Exception):
    """Base of every error this package raises."""


class ParamError(PuzzleError, ValueError):
    """A level or parameter value is out of range or of the wrong type."""


class UnknownPuzzleError(PuzzleError, KeyError):
    """No puzzle is registered under the requested name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class PluginError(PuzzleError):
    """A puzzle or game registered by another installed package cannot be used; the message names the distribution
    and what to do (reinstall, rename or uninstall it)."""


class InstanceFormatError(PuzzleError, ValueError):
    """An instance (an external file, or a record given to `solve`) breaks a rule; the message names it."""
