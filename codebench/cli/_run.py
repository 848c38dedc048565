"""`codebench run`, `codebench report`, `codebench compare` and `codebench demo`: parsing and printing only.

Exit codes: 0 done, 2 usage error, 3 the endpoint or the sandbox refuses the run (finished work stays stored),
4 a budget stopped it (resumable with a larger one), 5 it ended partial (results unresolved after every retry: an
endpoint's errors or timeouts, a broken sandbox; re-running retries them), 130 interrupted. The pipeline, the store
and the model client are imported inside the commands.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from ..analysis.report import REGISTRY, check_rendering
from ..errors import InputError
from ..records import FILE, FOLDER, check_outputs, open_output
from ..reports import compare as compare_runs
from ..reports import stores_report
from ..run.results import DATABASE, opened, store_files
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


def run(
    model: Annotated[Optional[str], typer.Option(help="Model name(s), comma-separated.")] = None,
    mode: Annotated[Optional[str], typer.Option(help="code (a solver program), instruction (the answer itself) or both.")] = None,
    format_retries: Annotated[Optional[int], typer.Option(help="Instruction mode: follow-ups when no answer can be read.")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible endpoint URL.")] = None,
    api_key_env: Annotated[Optional[str], typer.Option(help="Environment variable holding the API key.")] = None,
    preset: Annotated[Optional[str], typer.Option(help="Default URL, key variable and request shape: openai, vllm, sglang, "
                                                       "ollama, llamacpp, lmstudio, openrouter, together, deepseek, groq, "
                                                       "anthropic, gemini or mock.")] = None,
    puzzles: Annotated[Optional[str], typer.Option(help="Comma-separated puzzle names (default: all nine, or none with "
                                                       "--games).")] = None,
    games: Annotated[Optional[str], typer.Option(help="Comma-separated game names, or all: PuzzlePlex's games, played "
                                                     "in both seats against --opponents.")] = None,
    opponents: Annotated[Optional[str], typer.Option(help="Whom a model meets in two-player games: ref, random, models "
                                                         "(each other), comma-separated (default: all three).")] = None,
    history: Annotated[Optional[bool], typer.Option("--history/--no-history", help="Instruction-mode games: send the whole "
                                                    "conversation each turn (default), or only the rules and this turn.")] = None,
    legal_hint: Annotated[Optional[bool], typer.Option("--legal-hint", help="Instruction-mode games: list the legal moves "
                                                       "each turn.")] = None,
    game_cpu: Annotated[Optional[float], typer.Option(help="Code-mode games: CPU seconds a strategy may spend over a game "
                                                      "(default 300, PuzzlePlex's).")] = None,
    move_cpu: Annotated[Optional[float], typer.Option(help="Code-mode games: CPU seconds per move (default 10).")] = None,
    game_secret_file: Annotated[Optional[Path], typer.Option(help="Games: a file holding the secret that salts every setup "
                                                              "and built-in player (16+ characters); give runs to be "
                                                              "pooled or compared the same file. Default: a new secret "
                                                              "per run, kept in its database.")] = None,
    levels: Annotated[Optional[str], typer.Option(help="Levels, e.g. 1-6.")] = None,
    instances_per_level: Annotated[Optional[int], typer.Option(help="Instances per level.")] = None,
    samples: Annotated[Optional[int], typer.Option(help="Programs drawn per model and puzzle (n of pass@k).")] = None,
    temperature: Annotated[Optional[float], typer.Option()] = None,
    max_tokens: Annotated[Optional[int], typer.Option()] = None,
    max_connections: Annotated[Optional[int], typer.Option(help="Concurrent model requests.")] = None,
    idle_timeout: Annotated[Optional[float], typer.Option(help="Seconds a request may go without a byte before it is "
                                                          "retried (default 600: reasoning models can think in silence).")] = None,
    request_timeout: Annotated[Optional[float], typer.Option(help="Seconds one attempt may take in all, the streamed reply "
                                                             "included (default 3600); 0: no deadline.")] = None,
    max_retries: Annotated[Optional[int], typer.Option(help="Retries of a request that timed out, was cut off or got "
                                                       "429/5xx (default 4).")] = None,
    workers: Annotated[Optional[int], typer.Option(help="Sandbox workers (default one per core).")] = None,
    backend: Annotated[Optional[str], typer.Option(help="docker, local (bubblewrap) or unsafe-local (trusted code only).")] = None,
    executor: Annotated[Optional[str], typer.Option(help="local, or ray: the backend on every node of a Ray cluster.")] = None,
    ray_address: Annotated[Optional[str], typer.Option(help="With --executor ray: auto or ray://host:port (default: "
                                                            "start Ray here).")] = None,
    cpu: Annotated[Optional[float], typer.Option(help="CPU seconds per instance.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Base seed for instances and sampling.")] = None,
    param: Annotated[Optional[list[str]], typer.Option(
        "--param", "-p", help="PUZZLE.KEY=VALUE presentation parameter, e.g. rubik.reveal_scramble=true (repeatable).")] = None,
    price: Annotated[Optional[list[str]], typer.Option(
        "--price", help="MODEL=INPUT/OUTPUT: US dollars per million prompt / completion tokens (repeatable; none assumed).")] = None,
    max_cost: Annotated[Optional[float], typer.Option(help="Stop asking once the run's requests cost this many dollars "
                                                      "(needs a --price for every model).")] = None,
    max_tokens_total: Annotated[Optional[int], typer.Option(help="Stop asking once the run's requests hold this many "
                                                            "prompt + completion tokens.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Run directory (re-running the same command resumes).")] = None,
    config: Annotated[Optional[Path], typer.Option(help="YAML file of these options; flags override it.")] = None,
    dry_run: Annotated[bool, typer.Option(help="Print the plan without calling anything or writing a file.")] = False,
) -> None:
    """Ask models for solver programs (code) or answers (instruction), judge them on every level's instances, report."""
    from ..costs import parse_price
    from ..errors import BudgetReached, RunPartial
    from ..evaluation import evaluate, plan_of
    from ..run.options import spec_from_options
    from ..run.pipeline import plan_summary
    from ..run.spec import load_config
    from ..run.store import Store

    options = {"model": model, "mode": mode, "base_url": base_url, "api_key_env": api_key_env, "preset": preset,
               "puzzles": puzzles, "levels": levels, "instances_per_level": instances_per_level, "samples": samples,
               "temperature": temperature, "max_tokens": max_tokens, "max_connections": max_connections,
               "idle_timeout": idle_timeout, "request_timeout": request_timeout, "max_retries": max_retries,
               "workers": workers, "backend": backend, "executor": executor, "ray_address": ray_address, "cpu": cpu,
               "seed": seed, "out": out, "format_retries": format_retries, "params": puzzle_params(param) if param else None,
               "games": games, "opponents": opponents, "history": history, "legal_hint": legal_hint, "game_cpu": game_cpu,
               "move_cpu": move_cpu, "game_secret_file": game_secret_file, "max_cost": max_cost, "max_tokens_total": max_tokens_total,
               "prices": {label: asdict(given) for label, given in map(parse_price, price)} if price else None}
    spec = spec_from_options(options, load_config(config), config)
    database = spec.out / DATABASE
    if dry_run:  # reads an existing run to count what is stored; never creates one
        plan = plan_of(spec)
        reader = Store.for_reading(database) if database.exists() else None
        try:
            console.print_json(json.dumps({"out": str(spec.out), **plan_summary(plan, reader)}))
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
                         note=_notes(_reused(t.samples_cached), f"{t.samples_held} held by the budget" if t.samples_held else ""))
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
        """The tokens of every reply received (prompt + completion, game turns included), and under a budget what it
        counts: earlier runs into the directory included."""
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
                               "cpu": cpu, "out": out, "price": [f"{behavior}={DEMO_PRICE}"]}
    spec_from_options({**options, "price": None, "base_url": "http://127.0.0.1/v1"}, {})  # refuse bad options before serving
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
