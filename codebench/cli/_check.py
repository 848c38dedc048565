"""`codebench check`: parsing and printing only; the engine is `codebench.run.check`.

Exit codes: 0 all good, 1 a regression (or any failure without a baseline), 2 usage error,
3 the sandbox is unavailable (the message says how to fix it).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from puzzles import get_puzzle

from ..errors import InputError, SandboxUnavailableError
from ..files import FILE, check_outputs, open_output, read_text
from ..run.check import CheckResult, baseline_json, check_program, junit_xml, load_baseline, regressions
from ..run.spec import MAX_SEED, limits_from, parse_range
from ..sandbox import BACKENDS, check_sandbox, open_sandbox
from ..types import Status
from ._interrupt import interruptible
from ._text import shown

console = Console()
status = Console(stderr=True, soft_wrap=True)  # a path or a message in a log stays on one line


def _summary_table(puzzle: str, results: list[CheckResult]) -> Table:
    statuses = [s for s in Status if any(r.outcome.status == s for r in results)]
    table = Table("level", *[str(s) for s in statuses], "cpu mean s", "cpu max s", "peak MiB", title=f"codebench check: {puzzle}")
    for level in sorted({r.level for r in results}):
        rows = [r for r in results if r.level == level]
        counts = Counter(r.outcome.status for r in rows)
        cpu = [r.outcome.cpu_s for r in rows]
        table.add_row(f"L{level}", *[str(counts.get(s, 0)) for s in statuses], f"{sum(cpu) / len(cpu):.3f}",
                      f"{max(cpu):.3f}", f"{max(r.outcome.peak_mib for r in rows):.0f}")
    return table


def check(
    solver: Annotated[Path, typer.Argument(help="Python file defining solve(instance) -> answer.")],
    puzzle_name: Annotated[str, typer.Option("--puzzle", "-p", help="Puzzle the program solves.")],
    levels: Annotated[str, typer.Option(help="Levels, e.g. 1-6 or 2,4.")] = "1-6",
    seeds: Annotated[str, typer.Option(help="Seeds per level, e.g. 1-10.")] = "1-10",
    backend: Annotated[str, typer.Option(help=f"Sandbox: {' or '.join(BACKENDS)}.")] = "docker",
    cpu: Annotated[float, typer.Option(help="CPU seconds per instance.")] = 10.0,
    memory: Annotated[int, typer.Option(help="Memory MiB per instance.")] = 512,
    workers: Annotated[Optional[int], typer.Option(help="Parallel workers (default one per core).")] = None,
    executor: Annotated[str, typer.Option(help="local, or ray: the backend on every node of a Ray cluster.")] = "local",
    ray_address: Annotated[Optional[str], typer.Option(help="With --executor ray: auto or ray://host:port (default: "
                                                            "start Ray here).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
    junit: Annotated[Optional[Path], typer.Option(help="Write a JUnit XML report here.")] = None,
    baseline: Annotated[Optional[Path], typer.Option(help="Compare with this baseline (a legal instance must stay legal).")] = None,
    update_baseline: Annotated[bool, typer.Option(help="Write the results to --baseline instead of comparing.")] = False,
) -> None:
    """Regression-test a solver program on every level × seed; exit 1 on a regression."""
    puzzle = get_puzzle(puzzle_name)
    check_sandbox(backend, executor, workers, ray_address)
    if update_baseline and baseline is None:
        raise InputError("--update-baseline needs --baseline FILE")
    source = read_text(solver)
    check_outputs([("--junit", junit, FILE), ("--baseline", baseline if update_baseline else None, FILE)],
                  [solver, *([baseline] if baseline and not update_baseline else [])])
    if baseline is not None and not update_baseline and not baseline.is_file():
        raise InputError(f"--baseline {baseline} does not exist: write it first with --update-baseline")
    expected = load_baseline(baseline, puzzle.name) if baseline is not None and not update_baseline else None
    limits = limits_from(cpu, memory)
    level_list = parse_range(levels, "--levels", min(puzzle.levels), max(puzzle.levels))
    seed_list = parse_range(seeds, "--seeds", 0, MAX_SEED)
    with interruptible("nothing was written (no report, JUnit or baseline): run the check again"), \
            open_sandbox(backend, limits, workers, executor=executor, ray_address=ray_address) as sandbox:
        for note in sandbox.notes:  # where a Ray executor's workers run (unsafe-local announces that it does not isolate)
            status.print(note, highlight=False, markup=False)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=status, transient=True, disable=not status.is_terminal) as progress:  # a log gets no bar
            task = progress.add_task(f"{puzzle.name} {solver.name}", total=len(level_list) * len(seed_list))
            results = check_program(source, puzzle, level_list, seed_list, sandbox, lambda result: progress.advance(task))
    _report(puzzle.name, results, expected, as_json, junit)
    if update_baseline and baseline is not None:
        with open_output(baseline, option="--baseline") as out:
            out.write(baseline_json(puzzle.name, results))
        status.print(f"baseline written: {baseline}", highlight=False)
    if any(r.outcome.status == Status.SANDBOX_ERROR for r in results):
        raise SandboxUnavailableError("some instances could not be run (sandbox_error) even after a retry: "
                                      "check the engine with codebench sandbox doctor, then run the check again")
    if update_baseline:
        raise typer.Exit(0)
    failed = regressions(expected, results) if expected is not None else [r for r in results if r.outcome.status != Status.LEGAL]
    raise typer.Exit(1 if failed else 0)


def _report(puzzle: str, results: list[CheckResult], expected: dict[str, str] | None, as_json: bool, junit: Path | None) -> None:
    worse = regressions(expected, results) if expected is not None else []
    if junit is not None:
        with open_output(junit, option="--junit") as out:  # checked before the run, with every other output
            out.write(junit_xml(puzzle, results).decode("utf-8"))
    if as_json:
        console.print_json(json.dumps({"puzzle": puzzle, "results": [r.to_json() for r in results],
                                       "regressions": [r.record_id for r in worse]}))
        return
    console.print(_summary_table(puzzle, results))
    for result in results:
        if result.outcome.status != Status.LEGAL:
            mark = "[red]regression[/] " if result in worse else ""
            console.print(f"{mark}{shown(result.record_id)}: {result.outcome.status} {shown(result.outcome.detail)}",
                          highlight=False)
    legal = sum(r.outcome.status == Status.LEGAL for r in results)
    console.print(f"{legal} passed, {len(results) - legal} failed" + (f", {len(worse)} regressions" if expected is not None else ""),
                  highlight=False)
