"""`codebench run` and `codebench report`: parsing and printing only.

Exit codes: 0 done, 2 usage error, 3 the endpoint or the sandbox refuses the run (finished work stays stored).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
import yaml
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from ._check import parse_range
from ._errors import InputError
from ._mock_server import start_mock_server
from ._pipeline import Tracker, execute_plan, execution_rows, plan_summary, record_plan
from ._plan import RunSpec, make_plan
from ._report import build_report, render_report
from ._store import Store, StoreError
from .model import ModelClient, ModelConfigError, ModelFatalError, resolve_endpoint
from .sandbox import Limits, SandboxUnavailableError, get_backend

console = Console()
status = Console(stderr=True)
EXIT_REFUSED = 3
DATABASE = "run.sqlite"


def _config(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read --config {path}: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"--config {path}: expected a mapping of option names to values")
    return data


def _spec(options: dict[str, Any], config: dict[str, Any]) -> RunSpec:
    """Config file values, overridden by the flags given on the command line.

    Raises:
        InputError: an unknown option or a value of the wrong type (the message names it).
    """
    merged = {**config, **{k: v for k, v in options.items() if v is not None}}
    allowed = (set(RunSpec.__dataclass_fields__) - {"limits"}) | {"cpu", "memory", "model"}
    unknown = sorted(set(merged) - allowed)
    if unknown:
        raise InputError(f"unknown run option(s) {', '.join(unknown)}; known: {', '.join(sorted(allowed))}")
    flag_models, config_models = merged.pop("model", None), merged.pop("models", None)
    models = flag_models or config_models or ()
    if isinstance(models, str):
        models = [m.strip() for m in models.split(",") if m.strip()]
    parsers = {"puzzles": lambda v: tuple(p.strip() for p in v.split(",")), "levels": lambda v: tuple(parse_range(v, "--levels"))}
    try:
        for name, parse in parsers.items():
            if isinstance(merged.get(name), str):
                merged[name] = parse(merged[name])
            elif name in merged:
                merged[name] = tuple(merged[name])
        limits = Limits(cpu_s=float(merged.pop("cpu", 10.0)), memory_mib=int(merged.pop("memory", 512)))
        if "out" in merged:
            merged["out"] = Path(merged["out"])
        return RunSpec(models=tuple(models), limits=limits, **merged)
    except (TypeError, ValueError) as exc:
        raise InputError(f"bad run option: {exc}") from None


def run(
    model: Annotated[Optional[str], typer.Option(help="Model name(s), comma-separated.")] = None,
    mode: Annotated[Optional[str], typer.Option(help="code (instruction mode comes later).")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible endpoint URL.")] = None,
    api_key_env: Annotated[Optional[str], typer.Option(help="Environment variable holding the API key.")] = None,
    preset: Annotated[Optional[str], typer.Option(help="openai, vllm, ollama, llamacpp or mock: default URL and key.")] = None,
    puzzles: Annotated[Optional[str], typer.Option(help="Comma-separated puzzle names (default: all nine).")] = None,
    levels: Annotated[Optional[str], typer.Option(help="Levels, e.g. 1-6.")] = None,
    instances_per_level: Annotated[Optional[int], typer.Option(help="Instances per level.")] = None,
    samples: Annotated[Optional[int], typer.Option(help="Programs drawn per model and puzzle (n of pass@k).")] = None,
    temperature: Annotated[Optional[float], typer.Option()] = None,
    max_tokens: Annotated[Optional[int], typer.Option()] = None,
    max_connections: Annotated[Optional[int], typer.Option(help="Concurrent model requests.")] = None,
    workers: Annotated[Optional[int], typer.Option(help="Sandbox workers (default one per core).")] = None,
    backend: Annotated[Optional[str], typer.Option(help="Sandbox backend: docker or local.")] = None,
    cpu: Annotated[Optional[float], typer.Option(help="CPU seconds per instance.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Base seed for instances and sampling.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Run directory (re-running the same command resumes).")] = None,
    config: Annotated[Optional[Path], typer.Option(help="YAML file of these options; flags override it.")] = None,
    dry_run: Annotated[bool, typer.Option(help="Print the plan without calling anything.")] = False,
) -> None:
    """Ask models for solver programs, run them on every level's instances, and report."""
    options = {"model": model, "mode": mode, "base_url": base_url, "api_key_env": api_key_env, "preset": preset,
               "puzzles": puzzles, "levels": levels, "instances_per_level": instances_per_level, "samples": samples,
               "temperature": temperature, "max_tokens": max_tokens, "max_connections": max_connections,
               "workers": workers, "backend": backend, "cpu": cpu, "seed": seed, "out": out}
    spec = _spec(options, _config(config))
    try:
        endpoints = [resolve_endpoint(m, spec.base_url, spec.api_key_env, spec.preset) for m in spec.models]
    except ModelConfigError as exc:
        raise InputError(str(exc)) from None
    base_url_used = endpoints[0].base_url
    plan = make_plan(spec, base_url_used)
    store = _open_store(spec.out)
    try:
        if dry_run:
            console.print_json(json.dumps({"out": str(spec.out), **plan_summary(plan, store)}))
            return
        record_plan(store, spec, plan, base_url_used)
        asyncio.run(_execute(spec, plan, store, endpoints))
        _print_report(store, spec.samples, "table", None)
    finally:
        store.close()


async def _execute(spec: RunSpec, plan: Any, store: Store, endpoints: list[Any]) -> None:
    tracker = Tracker()
    clients = {e.model: ModelClient(e, max_connections=spec.max_connections) for e in endpoints}
    display = RunDisplay(tracker)
    try:
        with get_backend(spec.backend, spec.limits, spec.workers) as sandbox, \
                Live(display.render(), console=status, refresh_per_second=4, transient=False) as live:
            task = asyncio.ensure_future(execute_plan(spec, plan, store, clients, sandbox, tracker))
            while not task.done():
                live.update(display.render())
                await asyncio.wait({task}, timeout=0.25)
            live.update(display.render())
            task.result()
    except ModelFatalError as exc:
        status.print(f"[bold red]the model endpoint refused the run:[/] {exc}", soft_wrap=True)
        raise typer.Exit(EXIT_REFUSED) from None
    except SandboxUnavailableError as exc:
        status.print(f"[bold red]sandbox unavailable:[/] {exc}", soft_wrap=True)
        raise typer.Exit(EXIT_REFUSED) from None
    finally:
        for client in clients.values():
            await client.aclose()


class RunDisplay:
    """Two progress bars (samples, executions) and the status mix, drawn from the tracker's counters."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker
        self.bars = Progress(TextColumn("{task.description:<11}"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("{task.fields[note]}"), TimeElapsedColumn())
        self.samples = self.bars.add_task("samples", total=None, note="")
        self.executions = self.bars.add_task("executions", total=None, note="")

    def render(self) -> Group:
        t = self.tracker
        self.bars.update(self.samples, total=t.samples_total or None, completed=t.samples_done,
                         note=f"{t.samples_cached} stored, {t.tokens} tokens")
        self.bars.update(self.executions, total=t.executions_total or None, completed=t.executions_done,
                         note=f"{t.executions_cached} stored")
        mix = "  ".join(f"{name} {count}" for name, count in sorted(t.statuses.items()))
        return Group(self.bars, Text(mix or "no results yet", style="dim"))


def _open_store(out: Path) -> Store:
    try:
        return Store(out / DATABASE)
    except StoreError as exc:
        raise InputError(str(exc)) from None


def _print_report(store: Store, samples: int, fmt: str, output: Path | None) -> None:
    ks = sorted({1, samples, *(k for k in (2, 5, 10, 20, 32) if k <= samples)})
    text = render_report(build_report(execution_rows(store), ks), fmt)
    if output is None:
        console.print(text, highlight=False, markup=False, soft_wrap=True)
    else:
        output.write_text(text, encoding="utf-8")
        status.print(f"report written: {output}")


def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holds run.sqlite).")],
    fmt: Annotated[str, typer.Option("--format", help="table, md, csv or json.")] = "table",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
) -> None:
    """Metrics of a run, computed from its stored rows only."""
    if fmt not in ("table", "md", "csv", "json"):
        raise InputError(f"--format {fmt!r}: choose table, md, csv or json")
    if not (run_dir / DATABASE).exists():
        raise InputError(f"{run_dir} holds no {DATABASE}: give the --out directory of a run")
    store = _open_store(run_dir)
    try:
        spec = store.meta("spec") or {}
        _print_report(store, int(spec.get("samples", 1)), fmt, output)
    finally:
        store.close()


def demo(
    behavior: Annotated[str, typer.Option(help="Mock model behaviour: mixed, oracle, wrong, …")] = "mixed",
    samples: Annotated[int, typer.Option(help="Programs per puzzle.")] = 5,
    instances_per_level: Annotated[int, typer.Option(help="Instances per level.")] = 2,
    cpu: Annotated[float, typer.Option(help="CPU seconds per instance.")] = 2.0,
    out: Annotated[Path, typer.Option(help="Run directory.")] = Path("runs/demo"),
) -> None:
    """The whole job on built-in defaults: a mock model on loopback, code mode on all nine puzzles × six levels."""
    with start_mock_server(behavior=behavior) as server:
        status.print(f"mock model server ({behavior}) at {server.url}", highlight=False)
        run(model=behavior, base_url=server.url, samples=samples, instances_per_level=instances_per_level, cpu=cpu, out=out)
