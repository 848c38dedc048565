"""Every error codebench raises on purpose, in one tree; the CLI prints the message and exits with `exit_code`.

CodebenchError
 ├── InputError               a file, line, argument or option codebench cannot use          exit 2
 ├── ConfigError              a run option or config value of the wrong name, type or range   exit 2
 │    └── ModelConfigError    model options that cannot work (unknown preset, unset key)      exit 2
 ├── StoreError               the run database cannot be used (not one, corrupt)              exit 2
 │    └── SchemaVersionError  written by a newer codebench                                    exit 2
 ├── ModelError               the model endpoint refuses the run (key, model, quota, down)    exit 3
 ├── SandboxError             the sandbox infrastructure failed; never the program's fault    exit 3
 │    └── SandboxUnavailableError  the backend cannot run here                                exit 3
 ├── BudgetReached            --max-cost or --max-tokens-total stopped the run (resumable)    exit 4
 └── RunPartial               the run ended with results unresolved after every retry        exit 5

Every message says what happened and what to do. Imports nothing.
"""

from __future__ import annotations

from typing import ClassVar

EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_BUDGET = 4
EXIT_PARTIAL = 5
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # SIGTERM: 128 + 15


class CodebenchError(Exception):
    """Base of every error codebench raises; `summary` (if set) prefixes the message when it is printed."""

    exit_code: ClassVar[int] = EXIT_REFUSED
    summary: ClassVar[str] = ""


class InputError(CodebenchError):
    """The user gave input codebench cannot use; the message says where and what to do."""

    exit_code = EXIT_USAGE


class ConfigError(CodebenchError):
    """A run option or config-file value has an unknown name, the wrong type or an impossible value."""

    exit_code = EXIT_USAGE


class ModelConfigError(ConfigError):
    """The model options cannot work (unknown preset, unset key variable, bad URL); the message says the fix."""


class StoreError(CodebenchError):
    """The run database cannot be used (not a codebench database, corrupt, unreadable)."""

    exit_code = EXIT_USAGE


class SchemaVersionError(StoreError):
    """The run database was written by a newer codebench than this one."""


class ModelError(CodebenchError):
    """The endpoint refuses the whole run (bad key, no such model, exhausted quota, unreachable)."""

    summary = "the model endpoint refused the run"


class SandboxError(CodebenchError):
    """The sandbox infrastructure failed (engine, container, supervisor); never the program's fault."""


class SandboxUnavailableError(SandboxError):
    """The backend cannot run at all; the message says how to fix it."""

    summary = "sandbox unavailable"


class BudgetReached(CodebenchError):
    """A run budget was used up: what was asked is stored and judged; a larger budget resumes the rest."""

    exit_code = EXIT_BUDGET
    summary = "budget reached"


class RunPartial(CodebenchError):
    """A run ended with planned results it could not judge (an endpoint's errors or timeouts, a broken sandbox, after
    every retry): its rates stand on the rest, so a script must not take it for done. Re-running resumes them."""

    exit_code = EXIT_PARTIAL
    summary = "the run is partial"
