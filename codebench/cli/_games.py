"""`codebench puzzles play` and `show` for games: PuzzlePlex's games between built-in strategies, for a human or as JSON.

Parsing and printing only; the games and their strategies live in `puzzles.games`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from puzzles.games import GAMES, Game, GameRecord, Setup, get_game
from puzzles.games import play as play_game

from ..errors import InputError
from ..records import check_output, open_output

console = Console()
status = Console(stderr=True, soft_wrap=True)


def play(
    name: Annotated[str, typer.Argument(help="Game name (see `codebench puzzles list`).")],
    level: Annotated[int, typer.Option("--level", "-l", help="1 easy, 2 normal, 3+ harder.")] = 1,
    seed: Annotated[int, typer.Option("--seed", "-s")] = 0,
    players: Annotated[str, typer.Option(help="One strategy per seat, comma-separated: ref, random.")] = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole game record as JSON.")] = False,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the JSON record here.")] = None,
    png: Annotated[Optional[Path], typer.Option("--png", help="Also write the final board as a PNG image (games with a board "
                                                "picture: sudokill, superply and their M variants).")] = None,
) -> None:
    """Play one game between built-in strategies: the moves, the final state and the outcome."""
    game = get_game(name)
    names = [part.strip() for part in players.split(",")] if players else ["ref", "random"][: game.players]
    if len(names) != game.players or not all(names):
        raise InputError(f"--players {players!r}: {game.name} has {game.players} seat(s); give {game.players} of "
                         f"{', '.join(game.strategies)}, comma-separated")
    unknown = [player for player in names if player not in game.strategies]
    if unknown:
        raise InputError(f"--players: unknown strategy {unknown[0]!r}; choose from {', '.join(game.strategies)}")
    if output is not None:
        check_output(output)
    if png is not None:
        _check_png(game, png, output)
    setup = game.setup(level, seed)
    record = play_game(game, setup, [(player, game.strategies[player]) for player in names])
    if png is not None:
        _write_png(png, game.render_png(record.final))
    text = json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False)
    if output is not None:
        with open_output(output) as out:
            out.write(text + "\n")
        status.print(f"game record written: {output}", highlight=False, markup=False)
    elif as_json:
        console.print(text, highlight=False, markup=False, soft_wrap=True)
    if output is None and not as_json:
        _print_game(game, record)


def _pictured(game: Game) -> bool:
    """Whether the game draws its board (overrides `render_png`)."""
    return type(game).render_png is not Game.render_png


def _check_png(game: Game, png: Path, output: Path | None) -> None:
    if not _pictured(game):
        pictured = ", ".join(g.name for g in GAMES if _pictured(g))
        raise InputError(f"--png: {game.name} has no board picture; games with one: {pictured}")
    check_output(png, option="--png")
    if output is not None and png.absolute() == output.absolute():
        raise InputError(f"--png {png} is also the -o file: give each its own name")


def _write_png(path: Path, image: bytes) -> None:
    """Write the picture whole: beside the target, then renamed over it."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(image)
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    status.print(f"board picture written: {path}", highlight=False, markup=False)


def show_game(game: Game, level: int | None, seed: int) -> None:
    """The starting position of a game, as `codebench puzzles show` renders an instance."""
    if level is None:
        raise InputError(f"give --level L ({min(game.levels)}-{max(game.levels)}) for the game {game.name}")
    _print_setup(game, game.setup(level, seed))


def _print_setup(game: Game, setup: Setup) -> None:
    console.print(f"[bold]{escape(setup.id)}[/]  {game.title}  params {escape(json.dumps(setup.params))}", highlight=False)
    console.print(f"complexity {json.dumps(setup.meta.get('complexity'))}", highlight=False, markup=False)
    known = {key: value for key, value in setup.meta.items() if key not in ("version", "complexity")}
    if known:  # the absolute references: a proven optimum or bound, the clairvoyant score, the game's value
        console.print(f"known {json.dumps(known)}", highlight=False, markup=False)
    console.print(game.render(setup.state), highlight=False, markup=False)


def _print_game(game: Game, record: GameRecord) -> None:
    _print_setup(game, record.setup)
    for turn, move in enumerate(record.moves):
        seat = f"player {move['player']} ({record.seats[move['player']]})"
        verdict = "" if move["ok"] else f"  illegal: {move['issue']['code']}: {move['issue']['message']}"
        console.print(f"{turn + 1:>4}  {seat}: {json.dumps(move['move'])}{verdict}", highlight=False, markup=False)
    console.print(game.render(record.final), highlight=False, markup=False)
    outcome = record.outcome
    results = "" if outcome.results is None else "  " + ", ".join(
        f"player {seat} ({record.seats[seat]}) {result}" for seat, result in enumerate(outcome.results))
    console.print(f"outcome: scores {list(outcome.scores)}{results}", highlight=False, markup=False)
