"""`codebench puzzles play` and `show` for games: PuzzlePlex's games between built-in strategies, for a human or as JSON.

Parsing and printing only; the games and their strategies live in `puzzles.games`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console

from puzzles.games import GAMES, Game, GameRecord, Setup, StrategyPlayer, get_game

from ..errors import InputError, SandboxUnavailableError
from ..files import FILE, check_outputs, open_output, read_text
from ..games.match import play_seated, void
from ..keys import program_key
from ..run.spec import player_limits
from ..sandbox import BACKENDS, check_sandbox, open_sandbox
from ..types import Program, Status, harmless
from ._interrupt import interruptible
from ._text import shown

console = Console(soft_wrap=True)  # a record line or a board row never wraps
status = Console(stderr=True, soft_wrap=True)


def play(
    name: Annotated[str, typer.Argument(help="Game name (see `codebench puzzles list`).")],
    level: Annotated[int, typer.Option("--level", "-l", help="1 easy, 2 normal, 3+ harder.")] = 1,
    seed: Annotated[int, typer.Option("--seed", "-s")] = 0,
    players: Annotated[str, typer.Option(help="One player per seat, comma-separated: ref, random, or a program file "
                                              "(PATH.py, whose Strategy plays in the sandbox).")] = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole game record as JSON.")] = False,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the JSON record here.")] = None,
    png: Annotated[Optional[Path], typer.Option("--png", help="Also write the final board as a PNG image (games with a board "
                                                "picture: sudokill, superply and their M variants).")] = None,
    backend: Annotated[str, typer.Option(help=f"Sandbox for program players: {' or '.join(BACKENDS)}.")] = "docker",
    game_cpu: Annotated[float, typer.Option(help="CPU seconds a program may spend over the game (PuzzlePlex's 300).")] = 300.0,
    move_cpu: Annotated[float, typer.Option(help="CPU seconds a program may spend on one move (or on its setup).")] = 10.0,
    memory: Annotated[int, typer.Option(help="Memory MiB of a program player.")] = 512,
) -> None:
    """Play one game between built-in strategies and programs: the moves, the final state and the outcome."""
    game = get_game(name)
    names = [part.strip() for part in players.split(",")] if players else ["ref", "random"][: game.players]
    if len(names) != game.players or not all(names):
        raise InputError(f"--players {players!r}: {game.name} has {game.players} seat(s); give {game.players} of "
                         f"{', '.join(game.strategies)} or a program file, comma-separated")
    unknown = [player for player in names if player not in game.strategies and not player.endswith(".py")]
    if unknown:
        raise InputError(f"--players: unknown strategy {unknown[0]!r}; choose from {', '.join(game.strategies)}, "
                         f"or give a program file (PATH.py)")
    programs = {player: read_text(Path(player)) for player in names if player not in game.strategies}
    if png is not None and not _pictured(game):
        pictured = ", ".join(g.name for g in GAMES if _pictured(g))
        raise InputError(f"--png: {game.name} has no board picture; games with one: {pictured}")
    check_outputs([("-o", output, FILE), ("--png", png, FILE)], [Path(player) for player in programs])
    check_sandbox(backend)  # checked whoever plays: a typo is a typo with built-in players too
    game_limits, limits = player_limits(game_cpu, move_cpu, memory)
    setup = game.setup(level, seed)
    if programs:
        with interruptible("the game was not finished; nothing was written"), \
                open_sandbox(backend, limits, len(names)) as sandbox:
            players = [(player, Program(program_key(programs[player]), programs[player], "Strategy")) if player in programs
                       else StrategyPlayer(player, game.strategies[player]) for player in names]
            record = play_seated(game, setup, players, sandbox, game_limits)
        if void(record):
            raise SandboxUnavailableError("the sandbox failed during the game (sandbox_error): check it with "
                                          "codebench sandbox doctor, then play again")
    else:
        record = play_seated(game, setup, [StrategyPlayer(player, game.strategies[player]) for player in names], None, game_limits)
    if png is not None:
        _write_png(png, game.render_png(record.final))
    text = json.dumps(record.to_json(), sort_keys=True)  # ASCII: a program's surrogates, controls and bidi overrides escaped
    if output is not None:
        with open_output(output, option="-o") as out:
            out.write(text + "\n")
        status.print(harmless(f"game record written: {output}"), highlight=False, markup=False)
    elif as_json:
        console.print(text, highlight=False, markup=False, soft_wrap=True)
    if output is None and not as_json:
        _print_game(game, record)


def _pictured(game: Game) -> bool:
    """Whether the game draws its board (overrides `render_png`)."""
    return type(game).render_png is not Game.render_png


def _write_png(path: Path, image: bytes) -> None:
    """Write the picture whole (`open_output`: a regular file is renamed over, a device or pipe written directly)."""
    with open_output(path, binary=True, option="--png") as out:
        out.write(image)
    status.print(harmless(f"board picture written: {path}"), highlight=False, markup=False)


def show_game(game: Game, level: int | None, seed: int) -> None:
    """The starting position of a game, as `codebench puzzles show` renders an instance."""
    if level is None:
        raise InputError(f"give --level L ({min(game.levels)}-{max(game.levels)}) for the game {game.name}")
    _print_setup(game, game.setup(level, seed))


def _print_setup(game: Game, setup: Setup) -> None:
    console.print(f"[bold]{shown(setup.id)}[/]  {game.title}  params {shown(json.dumps(setup.params))}", highlight=False)
    console.print(f"complexity {json.dumps(setup.meta.get('complexity'))}", highlight=False, markup=False)
    known = {key: value for key, value in setup.meta.items() if key not in ("version", "complexity")}
    if known:  # the absolute references: a proven optimum or bound, the clairvoyant score, the game's value
        console.print(f"known {json.dumps(known)}", highlight=False, markup=False)
    console.print(game.render(setup.state), highlight=False, markup=False)


def _move_text(move: dict[str, Any]) -> str:
    """A recorded move for the terminal; a move the record clipped, as its head, size and digest."""
    if "move_head" in move:
        return f"{harmless(move['move_head'][:200])}… ({move['move_chars']} characters, sha256 {move['move_sha256'][:16]})"
    return harmless(json.dumps(move["move"]))


def _print_game(game: Game, record: GameRecord) -> None:
    _print_setup(game, record.setup)
    for seat, (state, detail) in enumerate(zip(record.statuses, record.details)):
        if state != Status.LEGAL and not any(move["player"] == seat for move in record.moves):  # it never got to move
            console.print(f"   -  player {seat} ({harmless(record.seats[seat])}): {state} {harmless(detail)}", highlight=False,
                          markup=False)
    for turn, move in enumerate(record.moves):
        seat = f"player {move['player']} ({harmless(record.seats[move['player']])})"
        if "status" in move:  # the program failed before it gave a move
            shown = f"{move['status']} {harmless(move['detail'])}"
        else:
            verdict = "" if move["ok"] else f"  illegal: {move['issue']['code']}: {harmless(move['issue']['message'])}"
            shown = _move_text(move) + verdict
        console.print(f"{turn + 1:>4}  {seat}: {shown}", highlight=False, markup=False)
    console.print(game.render(record.final), highlight=False, markup=False)
    for seat, kept in enumerate(record.kept):
        if kept.get("stdout") or kept.get("stderr"):
            console.print(f"player {seat} printed (ignored): {harmless(kept.get('stdout', '') + kept.get('stderr', ''))[:2000]}",
                          highlight=False, markup=False)
    outcome = record.outcome
    results = "" if outcome.results is None else "  " + ", ".join(
        f"player {seat} ({harmless(record.seats[seat])}) {result}" for seat, result in enumerate(outcome.results))
    console.print(f"outcome: scores {list(outcome.scores)}{results}", highlight=False, markup=False)
