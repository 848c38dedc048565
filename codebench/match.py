"""One game between seats that may fail: built-in strategies on the host, programs in the sandbox, models in a chat.

The engine runs here, on the host. Each turn the seat to move gets only the observation its player may see and
answers a move, or the outcome that ends its game: a program's timeout, crash, missing `Strategy` or syntax error,
from the sandbox's own records (`judge_player`); a move the engine refuses is that seat's `rule_violation`. Either
way the seat loses (or, alone, gets the game's worst score): PuzzlePlex's failure rule. A `sandbox_error` voids the
game instead, never a player's fault: the match is recorded as void and played again on resume. What a program
prints is kept as excerpts for the record and never consulted.

A program's `Strategy(setup)` gets the game's name, the level, its seat, the number of players and its first
observation, never the seed or the setup's id: from those a program could rebuild the hidden state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from puzzles.games import Game, Setup, Strategy
from puzzles.games import Outcome as GameOutcome
from puzzles.games._protocol import MAX_TURNS, digest, failed_outcome

from .errors import SandboxError
from .judge import judge_player
from .sandbox import PlayerSeat, SandboxBackend
from .types import GameLimits, Outcome, Program, Status

JSON = Any


@dataclass(frozen=True)
class Turn:
    """A seat's answer for one turn: a move to judge, or (`ended`) the outcome that ends its game."""

    move: JSON = None
    ended: Outcome | None = None
    text: str | bytes | None = None  # the move as a program wrote it, for strict parsing (None: `move` is the value)
    cpu_s: float = 0.0
    wall_s: float = 0.0


class Seat(Protocol):
    """One player of a game, whatever plays it."""

    label: str

    def begin(self, game: Game, view: dict[str, JSON]) -> Outcome | None:
        """Get ready for a new game (`view`: what `Strategy(setup)` gets); an outcome when the seat cannot play."""

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Turn:
        """This turn's answer; `since`: the moves recorded since this seat last moved (none where the game hides moves)."""

    def finish(self) -> dict[str, JSON]:
        """The game is over: what the seat kept of it for the record (a program's output excerpts, its CPU)."""


class BuiltinSeat:
    """A strategy of `puzzles.games` (`ref`, `random`), on the host, with its own RNG."""

    def __init__(self, label: str, strategy: Strategy) -> None:
        self.label, self.strategy = label, strategy

    def begin(self, game: Game, view: dict[str, JSON]) -> Outcome | None:
        self.game, self.player = game, view["player"]
        self.rng = random.Random(f"{view['id']}|seat{self.player}|{self.label}")
        return None

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Turn:
        """The strategy's move, untimed: a game between built-in strategies gives the same record every time."""
        return Turn(self.strategy(self.game, observation, self.player, self.rng))

    def finish(self) -> dict[str, JSON]:
        return {}


class ProgramSeat:
    """A program's `Strategy`, in a sandbox worker held for the seat (`PlayerSeat`), under the game's budgets."""

    def __init__(self, label: str, seat: PlayerSeat, budgets: GameLimits) -> None:
        self.label, self.seat, self.budgets = label, seat, budgets

    def begin(self, game: Game, view: dict[str, JSON]) -> Outcome | None:
        program_view = {key: value for key, value in view.items() if key != "id"}
        return judge_player(self.seat.start(program_view, self.budgets), self.budgets)

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Turn:
        facts = self.seat.act(observation, self.budgets)
        ended = judge_player(facts, self.budgets)
        return Turn(ended=ended, text=facts.result.get("answer", b""), cpu_s=facts.cpu_s, wall_s=facts.wall_s)

    def finish(self) -> dict[str, JSON]:
        facts = self.seat.end()
        return {"stdout": facts.stdout, "stderr": facts.stderr, "game_cpu_s": facts.game_cpu_s,
                **({"infra_error": facts.infra_error} if facts.infra_error else {})}


class ForfeitSeat:
    """A player that cannot play at all (a model's reply held no usable program): it loses before its first move."""

    def __init__(self, label: str, ended: Outcome) -> None:
        self.label, self.ended = label, ended

    def begin(self, game: Game, view: dict[str, JSON]) -> Outcome | None:
        return self.ended

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Turn:
        raise AssertionError("a forfeit seat never gets to move")

    def finish(self) -> dict[str, JSON]:
        return {}


@dataclass(frozen=True)
class MatchRecord:
    """One game played by seats: every move with its timing, each seat's status, the outcome by the failure rule."""

    setup: Setup
    seats: tuple[str, ...]
    moves: tuple[dict[str, JSON], ...]  # {"player", "move", "observation": digest, "ok", "issue", "cpu_s", "wall_s"}
    final: dict[str, JSON]
    outcome: GameOutcome  # scores, and win/draw/loss per seat for two players
    statuses: tuple[str, ...]  # per seat: legal (played by the rules to the end), or the status that ended its game
    details: tuple[str, ...]
    failed: int | None  # the seat whose failure ended the game
    kept: tuple[dict[str, JSON], ...]  # per seat: what it kept of the game (output excerpts)

    @property
    def void(self) -> bool:
        """The sandbox failed somewhere: the game says nothing about the players and is played again."""
        return any(Status(status).is_infrastructure for status in self.statuses) or any("infra_error" in kept for kept in self.kept)

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.setup.id, "game": self.setup.game, "level": self.setup.level, "seed": self.setup.seed,
                "seats": list(self.seats), "moves": list(self.moves), "final": self.final, "outcome": self.outcome.to_json(),
                "failed": self.failed, "statuses": list(self.statuses), "details": list(self.details), "kept": list(self.kept)}


def player_view(game: Game, setup: Setup, player: int) -> dict[str, JSON]:
    """What a seat learns when a game begins (`id` is for host-side seeding only: programs never get it)."""
    return {"id": setup.id, "game": game.name, "level": setup.level, "player": player, "players": game.players,
            "observation": game.observe(setup.state, player)}


def play_seated(game: Game, setup: Setup, players: Sequence[Seat | tuple[str, Program]], sandbox: SandboxBackend | None,
                budgets: GameLimits) -> MatchRecord:
    """`play_match`, where a (label, program) player plays in a sandbox worker of its own, held for the game.

    Raises:
        SandboxError: a program player, without a sandbox or with a closed one.
    """
    held: list[PlayerSeat] = []
    try:
        seats: list[Seat] = []
        for player in players:
            if isinstance(player, tuple):
                if sandbox is None:
                    raise SandboxError("a program player needs a sandbox, and none was started")
                held.append(sandbox.reserve(player[1]))
                seats.append(ProgramSeat(player[0], held[-1], budgets))
            else:
                seats.append(player)
        return play_match(game, setup, seats)
    finally:
        for seat in held:
            seat.release()


def play_match(game: Game, setup: Setup, seats: Sequence[Seat]) -> MatchRecord:
    """Play `setup` to the end, or until a seat fails; every seat is finished whatever happens.

    Raises:
        ValueError: the number of seats is not the game's number of players.
    """
    if len(seats) != game.players:
        raise ValueError(f"{game.name} is a {game.players}-player game: {len(seats)} seats given")
    game_over = _GameSoFar(setup.state, [str(Status.LEGAL)] * len(seats), [""] * len(seats))
    try:
        for player, seat in enumerate(seats):
            ended = seat.begin(game, player_view(game, setup, player))
            if ended is not None:
                game_over.fail(player, str(ended.status), ended.detail)
                break
        if game_over.failed is None:
            _play_turns(game, seats, game_over)
    finally:
        kept = tuple(seat.finish() for seat in seats)
    final = {key: value for key, value in game_over.state.items() if key != "env"}
    return MatchRecord(setup, tuple(seat.label for seat in seats), tuple(game_over.moves), final,
                       failed_outcome(game, game_over.state, game_over.failed), tuple(game_over.statuses),
                       tuple(game_over.details), game_over.failed, kept)


@dataclass
class _GameSoFar:
    state: dict[str, JSON]
    statuses: list[str]
    details: list[str]
    moves: list[dict[str, JSON]] = field(default_factory=list)
    failed: int | None = None

    def fail(self, player: int, status: str, detail: str) -> None:
        self.failed, self.statuses[player], self.details[player] = player, status, detail


def _play_turns(game: Game, seats: Sequence[Seat], so_far: _GameSoFar) -> None:
    """Ask the seat to move until the game ends or a seat fails."""
    last_moved = [0] * len(seats)  # per seat: how many moves were recorded when it last moved
    for _ in range(MAX_TURNS):
        player = game.to_move(so_far.state)
        if player is None:
            return
        observation = game.observe(so_far.state, player)
        since = so_far.moves[last_moved[player]:] if game.moves_seen else []  # a hidden move stays hidden
        last_moved[player] = len(so_far.moves) + 1
        turn = seats[player].move(observation, since)
        entry: dict[str, JSON] = {"player": player, "observation": digest(observation), "cpu_s": round(turn.cpu_s, 4),
                                  "wall_s": round(turn.wall_s, 4)}
        if turn.ended is not None:
            so_far.moves.append({**entry, "move": None, "ok": False, "issue": None, "status": str(turn.ended.status),
                                 "detail": turn.ended.detail})
            so_far.fail(player, str(turn.ended.status), turn.ended.detail)
            return
        move, verdict = (game.legal_json(so_far.state, player, turn.text) if turn.text is not None
                         else (turn.move, game.legal(so_far.state, player, turn.move)))
        so_far.moves.append({**entry, "move": move, "ok": verdict.ok,
                             "issue": verdict.issues[0].to_json() if verdict.issues else None})
        if not verdict.ok:
            so_far.fail(player, str(Status.RULE_VIOLATION), str(verdict.issues[0].code))
            return
        so_far.state = game.apply(so_far.state, player, move)
    raise RuntimeError(f"{game.name}: no end after {MAX_TURNS} turns (an engine bug)")
