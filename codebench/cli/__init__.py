"""The `codebench` command line: parsing and printing only; the work lives in the library packages.

Every error codebench raises on purpose (`codebench.errors`) and every puzzle error ends as one
`error:` line on stderr and its exit code (2 usage, 3 refused); Ctrl-C exits 130 and SIGTERM 143 (`_interrupt`).
Subcommand modules import their heavy machinery inside the commands, so `--help` and `puzzles` start fast.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.text import Text

from puzzles import PuzzleError

from ..errors import EXIT_USAGE, CodebenchError
from ..types import one_line
from . import _interrupt
from ._check import check
from ._export import export
from ._games import play
from ._mock import mock_server_command
from ._puzzles import puzzles_app
from ._run import compare, demo, report, run
from ._sandbox import sandbox_app

app = typer.Typer(
    help="Benchmark reasoning on puzzles of controllable difficulty.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
puzzles_app.command()(play)
app.add_typer(puzzles_app, name="puzzles")
app.add_typer(sandbox_app, name="sandbox")
app.command()(check)
app.command()(run)
app.command()(report)
app.command()(compare)
app.command()(demo)
app.command()(export)
app.command("mock-server")(mock_server_command)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; an expected failure becomes one `error:` line on stderr and its exit code, never a traceback."""
    _interrupt.install()
    try:
        code = app(args=argv, prog_name="codebench", standalone_mode=False)
    except SystemExit as exc:
        raise SystemExit(_interrupt.exit_code(exc.code)) from None
    except typer.TyperException as exc:  # an unknown option, a missing argument, a value of the wrong type
        if type(exc).__name__ == "NoArgsIsHelpError":  # the help is already printed
            sys.exit(EXIT_USAGE)
        _fail(_usage_line(exc), EXIT_USAGE)
    except CodebenchError as exc:
        _fail(f"{exc.summary}: {exc}" if exc.summary else str(exc), exc.exit_code)
    except PuzzleError as exc:
        _fail(str(exc), EXIT_USAGE)
    sys.exit(_interrupt.exit_code(code) if isinstance(code, int) else 0)


def _usage_line(exc: typer.TyperException) -> str:
    """typer's usage error as one line that names the command's help, instead of its framed box."""
    message = exc.format_message().rstrip(".")
    context = getattr(exc, "ctx", None)
    return f"{message}; see '{context.command_path} --help'" if context is not None else message


def _fail(message: str, code: int) -> None:
    """The one `error:` line; its text made harmless and one line here, whatever it quotes (a server's message, a path, a
    name)."""
    Console(stderr=True, soft_wrap=True).print(Text.assemble(("error:", "bold red"), " ", one_line(message)), highlight=False)
    sys.exit(code)
