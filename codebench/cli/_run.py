"""`codebench run`, `codebench report`, `codebench compare` and `codebench demo`: parsing and printing only.

Exit codes: 0 done, 2 usage error, 3 the endpoint or the sandbox refuses the run (finished work stays stored),
4 a budget stopped it (resumable with a larger one), 5 it ended partial (results unresolved after every retry: an
endpoint's errors or timeouts, a broken sandbox; re-running retries them), 130 interrupted. The pipeline, the store
and the model client are imported inside the commands.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, get_args

import typer
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from ..analysis.report import REGISTRY, check_rendering
from ..errors import InputError
from ..files import FILE, FOLDER, check_outputs, open_output
from ..reports import compare as compare_runs
from ..reports import stores_report
from ..run.results import DATABASE, opened, store_files
from ..run.spec import OPTIONS, RunOption
from ..types import harmless
from ._interrupt import interruptible
from ._params import puzzle_params

if TYPE_CHECKING:
    from ..analysis.report import Report
    from ..costs import Price
    from ..run.pipeline import Tracker
    from ..run.store import Store

console = Console()
status = Console(stderr=True, soft_wrap=True)  # a path or a message in a log stays on one line
SECTION_HELP = "Print one section only: " + "; ".join(f"{entry.name} ({entry.help})" for entry in REGISTRY) + "."
DEMO_PRICE = "1/4"  # the demo's mock model: $1 per million prompt tokens, $4 per million completion tokens (illustrative)


def run(**given: Any) -> None:
    """Ask models for solver programs (code) or answers (instruction), judge them on every level's instances, report."""
    from ..errors import BudgetReached, RunPartial
    from ..evaluation import evaluate, plan_of
    from ..run.options import spec_from_options
    from ..run.pipeline import plan_summary, protocol_summary, search_summary
    from ..run.spec import load_config
    from ..run.store import Store

    config, dry_run = given.get("config"), given.get("dry_run", False)
    options = {option.name: _read_flag(option.name, given.get(option.name)) for option in OPTIONS if not option.config_only}
    spec = spec_from_options(options, load_config(config), config)
    database = spec.out / DATABASE
    if dry_run:  # reads an existing run to count what is stored; never creates one
        plan = plan_of(spec)
        reader = Store.for_reading(database) if database.exists() else None
        try:
            prompts = spec.prompt_options()
            planned = search_summary(spec, plan, reader) if spec.adaptive else plan_summary(plan, reader)
            console.print_json(json.dumps({"out": str(spec.out), **planned,
                                           **({"prompts": prompts} if prompts else {}), **protocol_summary(spec, plan)}))
        finally:
            if reader is not None:
                reader.close()
        return
    with interruptible(f"what finished is stored in {database}: run the same command again to resume"):
        result = evaluate(spec, watcher=RunDisplay(spec.max_tokens_total, spec.max_cost))
    console.print(result.report.render("table", brief=True), highlight=False, markup=False, soft_wrap=True)
    if result.held is not None:
        raise BudgetReached(result.held)
    if result.partial is not None:
        raise RunPartial(result.partial)


def _read_flag(name: str, value: Any) -> Any:
    """A flag's value as the config file would give it (a repeated --param or --price as its mapping)."""
    from ..costs import parse_price

    if value is None or name not in ("params", "prices"):
        return value
    return puzzle_params(value) if name == "params" else {label: asdict(price) for label, price in map(parse_price, value)}


def _run_parameters() -> inspect.Signature:
    """`run`'s flags, made from the declared options (`OPTIONS`), then the command's own: --config and --dry-run. Every
    option is None until given, so the config file's value stands where no flag overrides it."""

    def flag(option: RunOption) -> inspect.Parameter:
        kind = option.flag_kind or next(k for k in get_args(option.kind) or (option.kind,) if k is not type(None))
        typed = Annotated[Optional[kind], typer.Option(*option.flags, help=option.help_text())]
        return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=typed)

    own = [inspect.Parameter("config", inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=Annotated[Optional[Path], typer.Option(help="YAML file of these options (their "
                                                                                    "names with underscores); flags override it.")]),
           inspect.Parameter("dry_run", inspect.Parameter.KEYWORD_ONLY, default=False,
                             annotation=Annotated[bool, typer.Option(help="Print the plan without calling anything or "
                                                                          "writing a file.")])]
    return inspect.Signature([*(flag(option) for option in OPTIONS if not option.config_only), *own])


run.__signature__ = _run_parameters()  # type: ignore[attr-defined]


class RunDisplay:
    """The run's progress drawn on stderr: bars (samples, executions, games), what the run has spent as its budgets
    count it, and the status mix, from the run's counters; its notes printed above. Work found stored is named only
    when there is some. A sandbox that cannot start leaves its one error line alone: nothing is drawn before `start`."""

    def __init__(self, max_tokens_total: int | None, max_cost: float | None) -> None:
        self.max_tokens_total, self.max_cost = max_tokens_total, max_cost
        self.tracker: Tracker | None = None  # the run's counters, once it starts
        self.bars = Progress(TextColumn("{task.description:<11}"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("{task.fields[note]}"), TimeElapsedColumn())
        self.samples = self.bars.add_task("samples", total=None, note="")
        self.executions = self.bars.add_task("executions", total=None, note="")
        self.games = self.bars.add_task("games", total=None, note="", visible=False)
        self.live = Live(console=status, refresh_per_second=4, transient=False)

    def note(self, line: str) -> None:
        status.print(line, highlight=False, markup=False)

    def start(self, progress: Tracker) -> None:
        self.tracker = progress
        self.live.start()
        self.update()

    def update(self) -> None:
        self.live.update(self.render())

    def stop(self) -> None:
        self.live.stop()
        if not status.is_terminal:
            status.print()  # rich leaves the last frame of a Live drawn to a file or pipe without its line end

    def render(self) -> Group:
        from ..games.table import MAX_ATTEMPTS  # the run has imported it already

        t = self.tracker
        assert t is not None, "drawn before the run started"
        self.bars.update(self.samples, total=t.samples_total or None, completed=t.samples_done,
                         note=_notes(_reused(t.samples_cached), f"{t.samples_held} held by the budget" if t.samples_held else "",
                                     f"{t.replies_cached} replies from the cache" if t.replies_cached else ""))
        self.bars.update(self.executions, total=t.executions_total or None, completed=t.executions_done,
                         note=_reused(t.executions_cached))
        self.bars.update(self.games, total=t.games_total or None, completed=t.games_done,
                         note=_notes(_reused(t.games_cached),
                                     f"{t.games_void} void (played again on resume, {MAX_ATTEMPTS} times at most)" if t.games_void else "",
                                     f"{t.games_held} held by the budget" if t.games_held else ""),
                         visible=t.games_total > 0)
        mix = "  ".join(f"{name} {count}" for name, count in sorted(t.statuses.items()))
        return Group(self.bars, Text(self.spent(), style="dim"), Text(mix or "no results yet", style="dim"))

    def spent(self) -> str:
        """The tokens of every reply paid for (prompt + completion, game turns included; the cache's replies are free),
        and under a budget what it counts: earlier runs into the directory included."""
        t = self.tracker
        assert t is not None, "drawn before the run started"
        earlier = " with earlier runs" if t.tokens_before else ""
        tokens = (f"; {t.tokens + t.tokens_before:,} of --max-tokens-total {self.max_tokens_total:,}{earlier}"
                  if self.max_tokens_total is not None else "")
        cost = f"; ${t.cost:.4f} of --max-cost {self.max_cost:g}{earlier}" if self.max_cost is not None else ""
        return f"spent: {t.tokens:,} tokens (prompt + completion){tokens}{cost}"


def _reused(count: int) -> str:
    return f"{count} reused from the store" if count else ""


def _notes(*notes: str) -> str:
    return ", ".join(note for note in notes if note)


def _print_report(stores: Sequence[Store], fmt: str | None, output: Path | None, plots: Path | None = None,
                  html: Path | None = None, *, section: str | None = None, prices: dict[str, Price] | None = None,
                  brief: bool = False) -> Report:
    """The report of `stores` as text in `fmt` (None: none) on stdout or into `output`, and the figures and the HTML
    page where asked for; returned. Costs use each run's stored price table, `prices` (label → Price) over it; `brief`:
    the table `codebench run` prints after a run."""
    # the page's samples are read with the rest, before anything is written: a damaged store refuses the report whole
    found = stores_report(stores, prices=prices, samples=html is not None)
    inputs = [store.path for store in stores]
    asked = [f"{option} {path}" for option, path in (("-o", output if fmt else None), ("--plots", plots), ("--html", html))
             if path is not None]
    left, said = list(asked), []  # what is not written yet; what was, said once all is (an error stays one line)
    try:
        if fmt is not None:
            text = found.render(fmt, section, brief=brief)
            if output is None:
                console.print(text, highlight=False, markup=False, soft_wrap=True)
            else:
                with open_output(output, inputs, option="-o") as out:
                    out.write(text)
                said.append(f"report written: {output}")
                left.pop(0)
        if plots is not None:
            from ..analysis.plots import write_plots

            left[0] += " (in part)"  # each figure is whole, the new or the old
            try:
                files = write_plots(found.report, plots)
            except OSError as exc:
                raise InputError(f"cannot write the plots into {plots}: {exc.strerror or exc}") from None
            said.append(f"plots written: {len(files)} files in {plots}")
            left.pop(0)
        if html is not None:
            page = found.html()
            with open_output(html, inputs, option="--html") as out:
                out.write(page)
            said.append(f"html report written: {html}")
    except KeyboardInterrupt:
        if not left:
            raise
        with interruptible(f"not written: {', '.join(left)}; no file is left cut short: run the report again"):
            raise
    except InputError as exc:  # a device that refuses its bytes (/dev/full): known only once written
        done = asked[: len(asked) - len(left)]
        raise InputError(f"{exc}; written before it: {', '.join(done)}" if done else str(exc)) from None
    for line in said:
        status.print(harmless(line), highlight=False, markup=False)
    return found.report


def compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (each holds run.sqlite).")],
    a: Annotated[Optional[str], typer.Option("--a", help="Side A: MODEL:MODE, or N/MODEL:MODE for the N-th run.")] = None,
    b: Annotated[Optional[str], typer.Option("--b", help="Side B, as --a.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
) -> None:
    """Paired comparison of two sides on their shared instances: difference, bootstrap interval, McNemar, flips."""
    from ..analysis.compare import check_format

    check_format(fmt)
    inputs = store_files(run_dirs)
    check_outputs([("-o", output, FILE)], inputs)
    text = compare_runs(run_dirs, a, b, format=fmt)
    if output is None:
        console.print(text, highlight=False, markup=False, soft_wrap=True)
        return
    with open_output(output, inputs) as out:
        out.write(text)
    status.print(f"comparison written: {output}", highlight=False, markup=False)


def report(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (each holds run.sqlite), reported together.")],
    fmt: Annotated[str, typer.Option("--format", help="table, md, csv or json.")] = "table",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
    plots: Annotated[Optional[Path], typer.Option(help="Also draw the figures (PNG and SVG) into this folder.")] = None,
    html: Annotated[Optional[Path], typer.Option(help="Also write one self-contained HTML page, every sample included.")] = None,
    section: Annotated[Optional[str], typer.Option(help=SECTION_HELP)] = None,
    price: Annotated[Optional[list[str]], typer.Option(
        "--price", help="MODEL=INPUT/OUTPUT: US dollars per million tokens, over the run's own (repeatable).")] = None,
) -> None:
    """Metrics of one or more runs, computed from their stored rows only (the run directories are only read)."""
    from ..costs import parse_price

    check_rendering(fmt, section)
    prices = dict(map(parse_price, price or ()))
    check_outputs([("-o", output, FILE), ("--plots", plots, FOLDER), ("--html", html, FILE)], store_files(run_dirs))
    with opened(run_dirs) as stores:
        _print_report(stores, fmt, output, plots, html, section=section, prices=prices)


def demo(
    behavior: Annotated[str, typer.Option(help="Mock model behaviour: mixed, oracle, wrong, …")] = "mixed",
    samples: Annotated[int, typer.Option(help="Samples per prompt (programs per puzzle; answers per instance).")] = 5,
    instances_per_level: Annotated[int, typer.Option(help="Instances per level.")] = 2,
    cpu: Annotated[float, typer.Option(help="CPU seconds per instance.")] = 2.0,
    out: Annotated[Path, typer.Option(help="Run directory.")] = Path("runs/demo"),
) -> None:
    """The whole job on built-in defaults: a mock model on loopback, both modes on all nine puzzles × six levels; the
    report, its figures (OUT/plots) and its HTML page (OUT/report.html). Its cost is at an illustrative price
    (DEMO_PRICE); a real run assumes none."""
    from ..model.mock_server import start_mock_server
    from ..run.options import spec_from_options
    from ..run.store import Store

    options: dict[str, Any] = {"model": behavior, "mode": "both", "samples": samples, "instances_per_level": instances_per_level,
                               "cpu": cpu, "out": out, "prices": [f"{behavior}={DEMO_PRICE}"]}
    spec_from_options({**options, "prices": None, "base_url": "http://127.0.0.1/v1"}, {})  # refuse bad options before serving
    if out.is_dir():  # a new --out is made by the run, empty; an existing one must take the figures and the page
        check_outputs([("--out", out / "plots", FOLDER), ("--out", out / "report.html", FILE)])
    with start_mock_server(behavior=behavior) as server:
        status.print(f"mock model server ({behavior}) at {server.url}", highlight=False, markup=False)
        run(**options, base_url=server.url)
    store = Store.for_reading(out / DATABASE)
    try:
        _print_report([store], None, None, out / "plots", out / "report.html")
    finally:
        store.close()
