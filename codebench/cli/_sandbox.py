"""`codebench sandbox build|doctor|cleanup`: parsing and printing only; exit 3 when the engine is unavailable."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.text import Text

from ..errors import EXIT_REFUSED

sandbox_app = typer.Typer(help="Build, diagnose and clean the solver sandbox.", no_args_is_help=True)
console = Console()
status = Console(stderr=True, soft_wrap=True)  # a path or a message in a log stays on one line


@sandbox_app.command()
def build(
    base: Annotated[Optional[str], typer.Option(help="FROM image (default python:3.11-slim, else an offline Debian base).")] = None,
    force: Annotated[bool, typer.Option(help="Rebuild even if the image is up to date.")] = False,
) -> None:
    """Build the sandbox image; without a registry, bootstrap a Debian base offline (debootstrap)."""
    from ..sandbox._image import build_image

    build_image(base, force=force, log=lambda line: status.print(line, highlight=False, markup=False))


@sandbox_app.command()
def doctor() -> None:
    """Check the engine, the image and the limits a worker container gets; print fixes."""
    from ..sandbox._image import doctor as run_doctor

    checks = run_doctor()
    for name, passed, detail in checks:
        verdict = ("ok", "green") if passed else ("FAIL", "red")
        console.print(Text.assemble(verdict, f"  {name}: {detail}"), highlight=False)  # engine text is no markup
    raise typer.Exit(0 if all(passed for _, passed, _ in checks) else EXIT_REFUSED)


@sandbox_app.command()
def cleanup(
    every: Annotated[bool, typer.Option("--all", help="Remove every codebench container, not only orphans.")] = False,
) -> None:
    """Remove containers this tool left behind (orphans of dead processes, or --all)."""
    from ..sandbox._image import cleanup as run_cleanup

    removed = run_cleanup(every)
    console.print(f"removed {removed} container(s)")
