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
    ray_address: Annotated[Optional[str], typer.Option(help="Give the image to every node of this Ray cluster that offers "
                                                            "sandbox slots (auto, ray://host:port).")] = None,
    registry: Annotated[Optional[str], typer.Option(help="Push the image to REGISTRY/REPO[:TAG]; with --ray-address the "
                                                         "nodes pull it from there instead of building it.")] = None,
) -> None:
    """Build the sandbox image; without a registry, bootstrap a Debian base offline (debootstrap).

    With --ray-address every node that offers sandbox slots builds it from this installation's image sources (shipped with
    the task), or pulls it from --registry; each node's outcome is printed, exit 3 if one failed.
    """
    from ..sandbox._image import build_image, push_image, split_reference

    def log(line: str) -> None:
        status.print(line, highlight=False, markup=False)

    if registry is not None:
        split_reference(registry)  # refused before anything is built
    if ray_address is None:
        build_image(base, force=force, log=log)
        if registry is not None:
            log(f"pushed {push_image(registry, log=log)}")
        return
    from ..sandbox._ray import distribute_image

    reports = distribute_image(ray_address, base=base, force=force, registry=registry, log=log)
    for report in reports:
        console.print(Text.assemble(("ok", "green") if report.problem is None else ("FAIL", "red"),
                                    f"  ray node {report.node}: " + ("image ready" if report.problem is None else report.problem)),
                      highlight=False)
    if any(report.problem is not None for report in reports):
        raise typer.Exit(EXIT_REFUSED)


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
