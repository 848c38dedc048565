"""Every stored game, move by move, for the HTML report's replay viewer: the board, what the mover saw, its move or
reply, and how the turn was judged.

A record keeps the moves, not the boards: the boards are rebuilt here by replaying the moves on the game's own setup
(same game version, level and seed: same states, since the environment's randomness comes from the seed and the turn).
A record of another version of the game (its setup's id differs), or of a game, level or seed this codebench does not
have, is shown without boards. Pure: imports `puzzles.games` and the shared types.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from typing import Any

from puzzles import PuzzleError
from puzzles.games import Game, Setup, get_game

from ..types import GameRow, Status

GAME_FIELDS = ("game", "level", "seed", "players", "seats", "statuses", "details", "scores", "results", "start", "turns")
TURN_FIELDS = ("player", "move", "verdict", "observation", "board", "replies", "cpu_s", "wall_s")
Strings = Callable[[str | None], int | None]


def replay_rows(rows: Sequence[GameRow], strings: Strings, clip: Callable[[str], str]) -> list[list[Any]]:
    """Each game as a row of GAME_FIELDS (its turns as rows of TURN_FIELDS), strings by index into `strings`."""
    return [_game_row(row, strings, clip) for row in rows]


def _game_row(row: GameRow, strings: Strings, clip: Callable[[str], str]) -> list[Any]:
    record = row.record
    try:
        game, setup = get_game(row.game), _setup(row.game, row.level, row.seed, row.secret)
    except PuzzleError:  # a game, level or seed this codebench does not have (a newer one's, or an edited record)
        game, setup = None, None
    boards: list[tuple[str, str]] = []
    start = None
    if game is not None and setup is not None and record.get("id") == setup.id:  # else another version of the game: no boards
        boards, start = _boards(game, setup.state, record["moves"]), game.render(setup.state)
    turns = []
    mover_turns = [0] * len(row.players)  # per seat: its turns so far (a chat seat keeps its replies per turn)
    for index, move in enumerate(record["moves"]):
        player = move["player"]
        kept = record["kept"][player] if player < len(record["kept"]) else {}
        chat = kept.get("turns") or []
        replies = chat[mover_turns[player]]["replies"] if mover_turns[player] < len(chat) else []
        mover_turns[player] += 1
        observation, board = boards[index] if index < len(boards) else (None, None)
        turns.append({
            "player": player, "move": strings(_move_text(move)),
            "verdict": strings(_verdict(move)), "observation": strings(observation), "board": strings(board),
            "replies": [strings(clip(reply.get("text") or reply.get("error") or "")) for reply in replies],
            "cpu_s": move.get("cpu_s"), "wall_s": move.get("wall_s"),
        })
    values = {
        "game": strings(row.game), "level": row.level, "seed": row.seed, "players": [strings(p) for p in row.players],
        "seats": [strings(seat) for seat in record["seats"]], "statuses": [strings(s) for s in record["statuses"]],
        "details": [strings(clip(d)) for d in record.get("details", ())], "scores": record["outcome"]["scores"],
        "results": record["outcome"]["results"], "start": strings(start),
        "turns": [[turn[name] for name in TURN_FIELDS] for turn in turns],
    }
    return [values[name] for name in GAME_FIELDS]


def _move_text(move: dict[str, Any]) -> str | None:
    """The move as JSON; one the record clipped, as its head, size and digest."""
    if "move_head" in move:
        return f"{move['move_head']}… ({move['move_chars']} characters in all, sha256 {move['move_sha256']})"
    return None if move.get("move") is None else json.dumps(move["move"])


def _verdict(move: dict[str, Any]) -> str:
    if "status" in move:  # the seat failed before it gave a move
        return f"{move['status']}: {move.get('detail', '')}"
    if move.get("ok"):
        return str(Status.LEGAL)
    issue = move.get("issue") or {}
    return f"illegal: {issue.get('code')}: {issue.get('message')}"


@functools.lru_cache(maxsize=256)
def _setup(name: str, level: int, seed: int, secret: str) -> Setup:
    """A game's setup under its run's secret, made once for every record of it (some take a second to make)."""
    return get_game(name).setup(level, seed, secret)


def _boards(game: Game, state: dict[str, Any], moves: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Per move: (the mover's observation as JSON, its picture left out; the board after the move)."""
    found = []
    for move in moves:
        observation = game.observe(state, move["player"])
        if isinstance(observation, dict):
            observation = {key: value for key, value in observation.items() if key != "image"}
        if move.get("ok") and ("move_head" in move or not game.legal(state, move["player"], move.get("move")).ok):
            break  # a legal move too long to keep whole, or one that is not legal here (a record edited by hand or another
            # tool): the boards after it cannot be drawn
        if move.get("ok"):
            state = game.apply(state, move["player"], move["move"])
        found.append((json.dumps(observation, ensure_ascii=False), game.render(state)))
    return found
