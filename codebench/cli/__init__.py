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
from . import _interrupt
from ._check import check
from ._mock import mock_server_command
from ._puzzles import puzzles_app
from ._run import demo, report, run
from ._sandbox import sandbox_app

app = typer.Typer(
    help="Benchmark reasoning on puzzles of controllable difficulty.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
app.add_typer(puzzles_app, name="puzzles")
app.add_typer(sandbox_app, name="sandbox")
app.command()(check)
app.command()(run)
app.command()(report)
app.command()(demo)
app.command("mock-server")(mock_server_command)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; an expected failure becomes one `error:` line on stderr and its exit code, never a traceback."""
    _interrupt.install()
    try:
        app(args=argv, prog_name="codebench")
    except SystemExit as exc:
        raise SystemExit(_interrupt.exit_code(exc.code)) from None
    except CodebenchError as exc:
        _fail(f"{exc.summary}: {exc}" if exc.summary else str(exc), exc.exit_code)
    except PuzzleError as exc:
        _fail(str(exc), EXIT_USAGE)


def _fail(message: str, code: int) -> None:
    Console(stderr=True, soft_wrap=True).print(Text.assemble(("error:", "bold red"), " ", message), highlight=False)
    sys.exit(code)
