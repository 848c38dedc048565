"""One game between seats that may fail, played by `puzzles.games.play` (the one turn loop): built-in strategies on the
host, programs in the sandbox (`ProgramSeat`), models in a chat (`chat.ChatSeat`).

The engine runs here, on the host. Each turn the seat to move gets only the observation its player may see and
answers a move, or forfeits: a program's timeout, crash, missing `Strategy` or syntax error comes from the sandbox's
own records (`judge_player`); a move the engine refuses is that seat's `rule_violation`. Either way the seat loses
(or, alone, gets the game's worst score): PuzzlePlex's failure rule. Only a `sandbox_error` (a fault no program can
cause) voids the game: the match is stored void and played again on resume, a bounded number of times. What a
program prints is kept as excerpts for the record and never consulted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from puzzles.games import Answer, Forfeit, Game, GameRecord, Player, Setup, play, player_view

from ..errors import SandboxError
from ..judge import judge_player
from ..sandbox import HeldWorker, SandboxBackend
from ..types import GameLimits, ModeName, Outcome, Program, SampleUsage, Status

JSON = Any


def forfeit(outcome: Outcome | None) -> Forfeit | None:
    """A judged outcome as the turn loop takes it (None: the seat plays on)."""
    return None if outcome is None else Forfeit(str(outcome.status), outcome.detail)


class ProgramSeat:
    """A program's `Strategy` in its seat, run by a sandbox worker held for it (`HeldWorker`), under the game's limits."""

    def __init__(self, name: str, worker: HeldWorker, game_limits: GameLimits) -> None:
        self.name, self.worker, self.game_limits = name, worker, game_limits

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        return forfeit(judge_player(self.worker.start(player_view(game, setup, seat), self.game_limits), self.game_limits))

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Answer:
        facts = self.worker.act(observation, self.game_limits)
        return Answer(forfeit=forfeit(judge_player(facts, self.game_limits)), text=facts.result.get("answer", b""),
                      cpu_s=facts.cpu_s, wall_s=facts.wall_s)

    def finish(self) -> dict[str, JSON]:
        facts = self.worker.end()
        return {"stdout": facts.stdout, "stderr": facts.stderr, "game_cpu_s": facts.game_cpu_s,
                **({"infra_error": facts.infra_error} if facts.infra_error else {})}


class ForfeitSeat:
    """A player that cannot play at all (a model's reply held no usable program): it loses before its first move."""

    def __init__(self, name: str, ended: Outcome) -> None:
        self.name, self.ended = name, ended

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        return forfeit(self.ended)

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Answer:
        raise AssertionError("a forfeit seat never gets to move")

    def finish(self) -> dict[str, JSON]:
        return {}


def void(record: GameRecord) -> bool:
    """The sandbox or the endpoint failed on a seat's turn: the game says nothing about the players. A failure while a
    program's seat was cleared after the game (`infra_error` in what the seat kept) changes no move already judged, so
    the game stands: a program that breaks its clean-up cannot void a game it has lost."""
    return any(Status(status).is_infrastructure for status in record.statuses)


@dataclass(frozen=True)
class SeatEntry:
    """Who sat in a seat, as the record stores it: no label is parsed back."""

    player: str  # the name it is rated under
    model: str | None  # None: a built-in strategy
    mode: str  # "" for a built-in; code or instruction
    sample: int

    def usage(self, game: str, kept: dict[str, JSON]) -> SampleUsage | None:
        """An instruction-mode seat's tokens over every reply it kept (retries included); a code-mode seat spent its
        tokens on its strategy's request, counted with the samples."""
        return SampleUsage.of_seat(self.model, game, kept) if self.mode == ModeName.INSTRUCTION and self.model is not None else None


@dataclass(frozen=True)
class MatchRecord:
    """A game as a run stores it: the game's record, who sat where, and the one-player score's reference."""

    game: GameRecord
    entries: tuple[SeatEntry, ...]
    reference: float | None  # a one-player game's absolute reference score
    higher_is_better: bool
    reference_kind: str | None = None  # what the reference is, where the game says (OptimalTouring: optimum or upper_bound)

    @property
    def void(self) -> bool:
        return void(self.game)

    def usage(self) -> list[SampleUsage | None]:
        """Per seat, its tokens (instruction mode) or None."""
        return [entry.usage(self.game.setup.game, kept) for entry, kept in zip(self.entries, self.game.kept)]

    def to_json(self) -> dict[str, JSON]:
        return {**self.game.to_json(), "players": [entry.player for entry in self.entries],
                "entries": [asdict(entry) for entry in self.entries],
                "usage": [asdict(usage) if usage else None for usage in self.usage()],
                "reference": self.reference, "reference_kind": self.reference_kind, "higher_is_better": self.higher_is_better}


def play_seated(game: Game, setup: Setup, players: Sequence[Player | tuple[str, Program]], sandbox: SandboxBackend | None,
                game_limits: GameLimits) -> GameRecord:
    """`puzzles.games.play`, where a (name, program) player plays in a sandbox worker of its own, held for the game.

    Raises:
        SandboxError: a program player, without a sandbox or with a closed one.
    """
    held: list[HeldWorker] = []
    try:
        seats: list[Player] = []
        for player in players:
            if isinstance(player, tuple):
                if sandbox is None:
                    raise SandboxError("a program player needs a sandbox, and none was started")
                held.append(sandbox.reserve(player[1]))
                seats.append(ProgramSeat(player[0], held[-1], game_limits))
            else:
                seats.append(player)
        return play(game, setup, seats)
    finally:
        for seat in held:
            seat.release()
