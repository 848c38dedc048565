"""`codebench puzzles …`: list, generate, import, solve, validate, show and selftest puzzle instances."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from puzzles import (
    MAX_SEED,
    PUZZLES,
    Issue,
    IssueCode,
    Puzzle,
    PuzzleError,
    StrictJSONError,
    Verdict,
    get_puzzle,
    loads_strict,
    with_repeated_keys,
)
from puzzles._catalog import PLUGINS as PUZZLE_PLUGINS
from puzzles.dimacs import dimacs_record
from puzzles.games import GAMES, game_names, get_game
from puzzles.games._catalog import PLUGINS as GAME_PLUGINS

from ..errors import InputError
from ..files import open_output, read_lines, read_records, read_text, write_records
from ..run.spec import MAX_COUNT
from ..selftest import SelftestRow, run_selftest
from ..types import one_line
from ._games import show_game
from ._interrupt import Stopping
from ._params import parse_params
from ._text import shown

puzzles_app = typer.Typer(help="Generate, solve, validate and inspect puzzle instances.", no_args_is_help=True)
console = Console()
status = Console(stderr=True, soft_wrap=True)  # a path or a message in a log stays on one line

OutputOption = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write JSONL here instead of stdout.")]
ComplexityOption = Annotated[Optional[int], typer.Option(
    "--complexity", "-c", help="λ on the puzzle's complexity axis instead of a level (its range: `codebench puzzles list`).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
BUILT_IN = "built-in"  # where a puzzle or game that codebench ships comes from


def _band_text(band: dict[str, object]) -> str:
    return ", ".join(f"{k}={v[0]}–{v[1]}" if isinstance(v, tuple) else f"{k}={v}" for k, v in band.items())


def _axis_text(puzzle: Puzzle[Any]) -> str:
    """The complexity axis as `name lowest–highest`, or — when the puzzle declares none."""
    axis = puzzle.axis
    return "—" if axis is None else f"{axis.name}={axis.lowest}–{axis.highest}"


@puzzles_app.command("list")
def list_puzzles(as_json: JsonOption = False) -> None:
    """List the puzzle families and the games, with their levels, each puzzle's complexity axis λ (the range
    --complexity takes) and where each comes from (built-in, or the distribution that registers it); a plugin that
    cannot be used is left out with a warning."""
    plugins = [*PUZZLE_PLUGINS.every(), *GAME_PLUGINS.every()]
    for plugin in plugins:
        if plugin.problem is not None:
            status.print(Text.assemble(("warning:", "bold yellow"), " ", one_line(plugin.problem)), highlight=False)
    found = [(p, BUILT_IN) for p in (*PUZZLES, *GAMES)] + [(plugin.found, plugin.origin) for plugin in plugins if plugin.problem is None]
    if as_json:
        rows = [{"name": p.name, "title": p.title, "kind": p.kind, "version": p.version, "origin": origin,
                 **({"players": p.players} if p.kind == "interactive" else {"axis": p.axis and p.axis.to_json()}),
                 "levels": {str(k): {f: list(v) if isinstance(v, tuple) else v for f, v in band.items()}
                            for k, band in p.levels.items()}} for p, origin in found]
        console.print_json(json.dumps(rows))
        return
    table = Table(title="puzzle families")
    table.add_column("name", no_wrap=True)  # what a user types: never cut
    table.add_column("title")
    for level in range(1, 7):
        table.add_column(f"L{level}")
    table.add_column("λ")
    table.add_column("from", no_wrap=True)
    for p, origin in found:
        if p.kind != "interactive":
            table.add_row(p.name, p.title, *(_band_text(dict(p.levels[level])) if level in p.levels else "—" for level in range(1, 7)),
                          _axis_text(p), origin)
    console.print(table)
    playable = [(g, origin) for g, origin in found if g.kind == "interactive"]
    levels = range(1, max(max(g.levels) for g, _ in playable) + 1)
    games = Table(title="games (codebench puzzles play)")
    games.add_column("name", no_wrap=True)  # what a user types: never cut
    games.add_column("players")
    for level in levels:
        games.add_column(f"L{level}", overflow="fold")
    games.add_column("from", no_wrap=True)
    for g, origin in playable:
        games.add_row(g.name, str(g.players), *(_band_text(dict(g.levels[level])) if level in g.levels else "—" for level in levels),
                      origin)
    console.print(games)


def _need_choice(level: int | None, complexity: int | None, param: list[str] | None) -> None:
    if level is None and complexity is None and not param:
        raise InputError("give --level L, --complexity λ, or --param KEY=VALUE for any complexity (see `codebench puzzles list`)")


@puzzles_app.command()
def generate(
    name: Annotated[str, typer.Argument(help="Puzzle name (see `codebench puzzles list`).")],
    level: Annotated[Optional[int], typer.Option("--level", "-l", help="Named level 1–6.")] = None,
    complexity: ComplexityOption = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="First seed.")] = 0,
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="Instances: seeds SEED … SEED+COUNT−1.")] = 1,
    param: Annotated[Optional[list[str]], typer.Option(
        "--param", "-p", help="KEY=VALUE: any complexity without --level; with it, presentation only (rubik reveal_scramble).")] = None,
    output: OutputOption = None,
) -> None:
    """Generate instances as JSONL records {id, puzzle, level, seed, params, instance, meta}."""
    puzzle = get_puzzle(name)
    _need_choice(level, complexity, param)
    if seed + count - 1 > MAX_SEED >= seed:
        raise InputError(f"--seed {seed} --count {count} runs past the last seed 2^64-1: give a smaller --count")
    params = parse_params(param) if param else None
    records = (puzzle.generate(level, s, params=params, complexity=complexity).to_json() for s in range(seed, seed + count))
    with Stopping() as stop, open_output(output, option="-o") as out:
        write_records(records, out, stop)


@puzzles_app.command()
def solve(
    file: Annotated[Path, typer.Argument(help="JSONL records from `generate`.")],
    output: OutputOption = None,
) -> None:
    """Solve every record with the reference solver; records gain an "answer" field."""
    def solved() -> Any:
        for record, _ in read_records(file):
            try:
                answer = get_puzzle(record["puzzle"]).solve(record["instance"])
            except PuzzleError as exc:
                raise InputError(f"{file}: record {record['id']!r} will not be solved: {exc}") from None
            yield {**record, "answer": answer}

    with Stopping() as stop, open_output(output, inputs=[file], option="-o") as out:
        count = write_records(solved(), out, stop)
    status.print(f"solved {count} instances", highlight=False)


def _answers_by_id(path: Path) -> dict[str, tuple[Any, list[str]]]:
    answers: dict[str, tuple[Any, list[str]]] = {}
    for where, line in read_lines(path):
        try:
            row, repeated = loads_strict(line)
        except StrictJSONError as exc:
            raise InputError(f"{where}: not valid JSON ({exc})") from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or "answer" not in row:
            raise InputError(f'{where}: expected {{"id": "<record id>", "answer": ...}}')
        if row["id"] in answers:
            raise InputError(f"{where}: a second answer for {row['id']!r}: keep one answer per record id")
        answers[row["id"]] = (row["answer"], [p.removeprefix("/answer") or "/" for p in repeated if p.startswith("/answer")])
    return answers


def _judge(puzzle: Puzzle[Any], instance: dict[str, Any], answer: tuple[Any, list[str]] | None) -> Verdict:
    if answer is None:
        return Verdict(False, (Issue(IssueCode.MISSING, "no answer for this record"),))
    return with_repeated_keys(puzzle.validate(instance, answer[0]), answer[1])


@puzzles_app.command()
def validate(
    file: Annotated[Path, typer.Argument(help="JSONL records (with an \"answer\" field unless --answers is given).")],
    answers: Annotated[Optional[Path], typer.Option("--answers", "-a", help="JSONL of {id, answer} to judge.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Validate answers; exit 1 if any answer is invalid or missing."""
    external = _answers_by_id(answers) if answers else None
    failures = total = 0
    for record, repeated in read_records(file):
        puzzle = get_puzzle(record["puzzle"])
        if external is not None:
            answer = external.get(record["id"])
        else:
            answer = (record["answer"], repeated) if "answer" in record else None
        verdict = _judge(puzzle, record["instance"], answer)
        total += 1
        failures += not verdict.ok
        if as_json:
            console.print(json.dumps({"id": record["id"], **verdict.to_json()}), soft_wrap=True, highlight=False, markup=False)
        elif not verdict.ok:
            first = verdict.issues[0]
            console.print(f"[red]✘[/] {shown(record['id'])}: {first.code} — {shown(first.message)}"
                          + (f" (+{len(verdict.issues) - 1} more)" if len(verdict.issues) > 1 else ""), highlight=False)
    if not as_json:
        console.print(f"{total - failures} valid, {failures} invalid", highlight=False)
    raise typer.Exit(1 if failures else 0)


@puzzles_app.command("import")
def import_files(
    files: Annotated[list[Path], typer.Argument(help="DIMACS files: .cnf (e.g. SATLIB uf20-91) → sat, .col → coloring.")],
    colors: Annotated[Optional[int], typer.Option("--colors", "-k", help="Palette for .col files (default: chromatic number).")] = None,
    output: OutputOption = None,
) -> None:
    """Turn published instance files into records that solve/validate (and runs) accept."""
    def records() -> Any:
        for path in files:
            text = read_text(path)
            try:
                yield dimacs_record(path.name, text, colors).to_json()
            except PuzzleError as exc:
                raise InputError(f"{path}: {exc}") from None

    with Stopping() as stop, open_output(output, inputs=files, option="-o") as out:
        count = write_records(records(), out, stop)
    status.print(f"imported {count} instances", highlight=False)


@puzzles_app.command()
def show(
    name: Annotated[str, typer.Argument(help="Puzzle name.")],
    level: Annotated[Optional[int], typer.Option("--level", "-l")] = None,
    complexity: ComplexityOption = None,
    seed: Annotated[int, typer.Option("--seed", "-s")] = 0,
    param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="KEY=VALUE, as for generate.")] = None,
) -> None:
    """Render one instance for a human: board, grid, equation or cube net (for a game: its starting position)."""
    if name in game_names(plugins=True):
        if complexity is not None:
            raise InputError(f"the game {name} has no complexity axis: give --level L")
        show_game(get_game(name), level, seed)
        return
    puzzle = get_puzzle(name)
    _need_choice(level, complexity, param)
    record = puzzle.generate(level, seed, params=parse_params(param) if param else None, complexity=complexity)
    console.print(f"[bold]{shown(record.id)}[/]  {puzzle.title}  params {shown(json.dumps(record.params))}", highlight=False)
    console.print(f"complexity {json.dumps(record.meta.get('complexity'))}", highlight=False, markup=False)
    console.print(puzzle.render(record.instance), highlight=False, markup=False)


def _span(values: list[Any]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low}–{high}"


@puzzles_app.command()
def selftest(
    seeds: Annotated[int, typer.Option("--seeds", min=1, max=MAX_COUNT, help="Seeds per level.")] = 3,
    only: Annotated[Optional[list[str]], typer.Option("--puzzle", help="Restrict to these puzzles.")] = None,
) -> None:
    """Generate, solve and validate every family × level × seed; exit 1 if any fails."""
    chosen = [get_puzzle(name) for name in only] if only else list(PUZZLES)
    table = Table("puzzle", "level", "λ", "solution", "gen max s", "solve max s", "validate max s", "passed",
                  title=f"puzzle selftest: {seeds} seeds per level")
    groups: dict[tuple[str, int], list[SelftestRow]] = {}
    with Stopping() as stop, status.status("selftest …") as spinner:
        for row in run_selftest(chosen, range(seeds)):
            if stop():
                break  # leaving Stopping exits 130 (or 143) before any table is printed
            spinner.update(f"selftest: {row.record_id}")
            groups.setdefault((row.puzzle, row.level), []).append(row)
    failed = [row for rows in groups.values() for row in rows if not row.verdict.ok]
    for (puzzle, level), rows in groups.items():
        sizes = [row.solution_size for row in rows if row.solution_size is not None]
        passed = sum(row.verdict.ok for row in rows)
        table.add_row(puzzle, f"L{level}",
                      " ".join(f"{key}={_span([row.complexity[key] for row in rows])}" for key in rows[0].complexity),
                      _span(sizes) if sizes else "—",
                      f"{max(row.generate_s for row in rows):.3f}", f"{max(row.solve_s for row in rows):.3f}",
                      f"{max(row.validate_s for row in rows):.4f}",
                      f"[green]{passed}/{len(rows)}[/]" if passed == len(rows) else f"[red]{passed}/{len(rows)}[/]")
    console.print(table)
    for row in failed:
        console.print(f"[red]✘[/] {shown(row.record_id)}: {shown(row.verdict.issues[0].message)}", highlight=False)
    total = sum(len(rows) for rows in groups.values())
    console.print(f"{total - len(failed)} passed, {len(failed)} failed", highlight=False)
    raise typer.Exit(1 if failed else 0)
