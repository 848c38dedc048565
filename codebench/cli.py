"""The `codebench` command line: parsing and printing only; the work lives in the library modules.

Exit codes: 0 success, 1 something failed validation, 2 bad input or usage.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from puzzles import PuzzleError

from ._errors import InputError
from ._mock_server import mock_server_command
from ._puzzles_cli import puzzles_app
from ._run_cli import demo, report, run
from ._sandbox_cli import check, sandbox_app

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
    """Run the CLI; user mistakes become one `error:` line on stderr and exit status 2."""
    try:
        app(args=argv, prog_name="codebench")
    except (InputError, PuzzleError) as exc:
        Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
        sys.exit(2)
