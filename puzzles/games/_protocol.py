"""The game protocol (`kind = "interactive"`), beside the single-answer puzzles: PuzzlePlex's games as pure state
machines over JSON-compatible state.

A `Game` draws a `Setup` for (level, seed) from its own RNG, seeded by them and by a run's secret if one is given
(`salted` says why that keeps hidden state hidden). Seeds are codebench's own: seed s is not PuzzlePlex's seed s
(PuzzlePlex seeds `random.seed(s)`; here the RNG is seeded by "<game>|L<level>|<s>"), so the same number is another
setup, and results compare with PuzzlePlex's over setups, never seed by seed. Players see only `observe(state, player)`, a fresh
copy holding what that player may see; `legal` judges any JSON value as a move and never raises (a precise issue
code); `apply` returns a new state; randomness during play (Superply's hints) comes from `env_rng(state)`, derived
from the setup's seed and the turn, which no player can touch. `play` is the one turn loop, for strategies here and
for codebench's programs and models (any `Player`): it returns the record: seed, seats, moves (each clipped to
MOVE_KEPT characters with its digest), a digest of every observation given, each seat's status, the outcome. The
failure rule is PuzzlePlex's: an illegal move or a forfeit (a program that crashed, a model with no move) ends the
game, and that player loses (two players) or gets the game's worst score (one player: 0, or for ExclusivityProbes,
where fewer probes are better, more probes than any finished game can count).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from .._errors import ParamError
from .._json import StrictJSONError, dumps_canonical, loads_strict
from .._protocol import MAX_SEED, IssueCode, Verdict, clip, is_int, json_shape_problem, reject, with_repeated_keys

JSON = Any
State = dict[str, JSON]  # the whole truth of a game in progress: never shown to a player as it is
MAX_TURNS = 100_000  # a game that has not ended by then is a bug in its engine, not a long game
WIN, DRAW, LOSS = "win", "draw", "loss"


@dataclass(frozen=True)
class Setup:
    """A game's starting point with its provenance, as `Record` is for the single-answer puzzles."""

    id: str
    game: str
    level: int
    seed: int
    params: dict[str, JSON]
    state: State
    meta: dict[str, JSON] = field(default_factory=dict)  # `complexity` (λ) and what is known of the optimum
    secret: str = field(default="", repr=False)  # what salted it ("": nothing); never in `to_json`, never shown a player

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "game": self.game, "level": self.level, "seed": self.seed, "params": self.params,
                "state": self.state, "meta": self.meta}


@dataclass(frozen=True)
class GameOutcome:
    """How a game ended: the raw score per seat, and for two-player games win, draw or loss per seat."""

    scores: tuple[float, ...]
    results: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, JSON]:
        return {"scores": list(self.scores), "results": list(self.results) if self.results is not None else None}


Strategy = Callable[["Game", JSON, int, random.Random], JSON]  # (game, observation, seat, its own rng) -> move


class Game(ABC):
    """One PuzzlePlex game. Subclasses define the parameters of each level and the rules over their state."""

    kind: ClassVar[str] = "interactive"
    name: ClassVar[str]
    title: ClassVar[str]
    version: ClassVar[int] = 1
    players: ClassVar[int]  # 1 or 2; seat 0 moves first
    stochastic: ClassVar[bool] = False  # PuzzlePlex's kind: hidden or dealt information (True) or none (False)
    levels: ClassVar[Mapping[int, Mapping[str, object]]]  # 1 = PuzzlePlex's easy, 2 = normal, 3+ harder
    higher_is_better: ClassVar[bool] = True  # single-player score direction (ExclusivityProbes counts probes)
    moves_seen: ClassVar[bool] = True  # False: a move is hidden from the opponent until the observation reveals it
    reference: ClassVar[str | float | None] = None  # one player: the best score, or the setup's meta field that knows it
    move_schema: ClassVar[dict[str, JSON]]

    # -- setup ----------------------------------------------------------------------------------------------------
    def setup(self, level: int, seed: int, secret: str = "") -> Setup:
        """The game for (level, seed), salted by `secret` (see `salted`): same inputs, same bytes, in any process and
        under any PYTHONHASHSEED. Without a secret, seed s is the same setup for everyone (`codebench puzzles play`).

        Raises:
            ParamError: an unknown level or a seed outside 0..2^64 − 1.
        """
        if not is_int(level) or level not in self.levels:
            raise ParamError(f"{self.name}: level {clip(level)} does not exist; levels are {min(self.levels)}-{max(self.levels)}")
        if not is_int(seed) or not 0 <= seed <= MAX_SEED:
            raise ParamError(f"seed {clip(seed)}: expected an integer 0..2^64-1")
        origin = salted(f"{self.name}|L{level}|{seed}", secret)
        rng = random.Random(origin)
        params = {key: rng.randint(*band) if isinstance(band, tuple) else band for key, band in sorted(self.levels[level].items())}
        state, meta = self._initial(params, rng)
        state = {**state, "turn": 0, "over": False, "env": origin}
        return Setup(f"{self.name}/L{level}/s{seed}", self.name, level, seed, params, state, {"version": self.version, **meta},
                     secret)

    @abstractmethod
    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        """The starting state (with `to_move`) and meta (`complexity`), drawn from `rng` only."""

    # -- what a player sees and may do ----------------------------------------------------------------------------
    def observe(self, state: State, player: int) -> JSON:
        """What `player` may see now: a fresh copy, never the state itself, never a hidden field."""
        return copy.deepcopy(self._observe(state, player))

    @abstractmethod
    def _observe(self, state: State, player: int) -> JSON:
        """The player's view (it may share objects with `state`: `observe` copies it)."""

    def legal(self, state: State, player: int, move: JSON) -> Verdict:
        """Judge any JSON value as `player`'s move now. Never raises."""
        problem = json_shape_problem(move)
        if problem is not None:
            return reject(IssueCode.MALFORMED, f"move {problem}")
        if state.get("over"):
            return reject(IssueCode.ILLEGAL_MOVE, "the game is over")
        if self.to_move(state) != player:
            return reject(IssueCode.ILLEGAL_MOVE, f"it is not player {player}'s turn")
        return self._legal(state, player, move)

    def legal_json(self, state: State, player: int, text: str | bytes) -> tuple[JSON, Verdict]:
        """Judge move text as it arrives from a program: strict JSON, no repeated keys. (The move, or None when the
        text is not JSON; its verdict.) Never raises."""
        try:
            move, repeated = loads_strict(text)
        except StrictJSONError as exc:
            return None, reject(IssueCode.INVALID_JSON, f"move is not valid JSON: {exc}")
        return move, with_repeated_keys(self.legal(state, player, move), repeated)

    @abstractmethod
    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        """Judge a move of the player to move in a game not over, no deeper than MAX_DEPTH. Never raises."""

    def apply(self, state: State, player: int, move: JSON) -> State:
        """The state after `player`'s legal move (a new object; `state` is left as it was).

        Raises:
            ValueError: the move is not legal (`legal` says why).
        """
        verdict = self.legal(state, player, move)
        if not verdict.ok:
            raise ValueError(f"illegal move {clip(move)}: {verdict.issues[0].message}")
        after = self._apply(copy.deepcopy(state), player, move)
        after["turn"] = state["turn"] + 1
        after["over"] = self._is_over(after)
        return after

    @abstractmethod
    def _apply(self, state: State, player: int, move: JSON) -> State:
        """Apply a legal move to `state` (a copy the method may change) and return it."""

    def to_move(self, state: State) -> int | None:
        """The seat to move, or None once the game is over."""
        return None if state.get("over") else int(state["to_move"])

    def is_over(self, state: State) -> bool:
        return bool(state.get("over"))

    @abstractmethod
    def _is_over(self, state: State) -> bool:
        """Whether the game has ended (by its own rules) in this state."""

    @abstractmethod
    def outcome(self, state: State) -> GameOutcome:
        """The outcome of a finished game (by its rules; a failed move is `play`'s to score)."""

    def reference_score(self, setup: Setup) -> float | None:
        """The absolute reference a one-player score is normalized by: the best score there is or is known (the
        fewest probes where lower is better); None for two-player games, whose scores are already 1, ½ or 0."""
        value = setup.meta.get(self.reference) if isinstance(self.reference, str) else self.reference
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def failure_score(self, state: State) -> float:
        """A one-player game's score when its player made an illegal move: the worst there is (0 where higher is better)."""
        return 0.0

    def env_rng(self, state: State) -> random.Random:
        """The environment's randomness at this turn: from the setup's (salted) seed and the turn only, never a player's."""
        return random.Random(f"{state['env']}|turn{state['turn']}")

    def render(self, state: State) -> str:
        """Text for `codebench puzzles play/show`; games override with boards."""
        return dumps_canonical({k: v for k, v in state.items() if k != "env"})

    def render_png(self, state: State) -> bytes | None:
        """The board as a PNG image, for games that have one (the M variants show it to the players); else None."""
        return None

    # -- strategies ------------------------------------------------------------------------------------------------
    @property
    def strategies(self) -> dict[str, Strategy]:
        """Built-in players by name: `ref` (the reference strategy) and `random` (a uniformly random legal move)."""
        return {"ref": self.reference_move, "random": self.random_move}

    @abstractmethod
    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """The reference strategy's move, from the observation alone."""

    def random_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A uniformly random legal move, from the observation alone."""
        moves = self.legal_moves(observation, player)
        return rng.choice(moves) if moves else None

    @abstractmethod
    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        """Every legal move the observation allows (empty: none; any move then loses)."""


class WinnerTakesAll(Game):
    """A two-player game that ends as soon as its rules name a winner (`state["winner"]`): no draws."""

    players: ClassVar[int] = 2

    def _is_over(self, state: State) -> bool:
        return state["winner"] is not None

    def outcome(self, state: State) -> GameOutcome:
        return two_player_outcome(state["winner"])


LEGAL, RULE_VIOLATION = "legal", "rule_violation"  # a seat's status in a record, as codebench names statuses
MOVE_KEPT = 4096  # characters of a move's JSON a record keeps; a longer move is kept as its head, size and digest


@dataclass(frozen=True)
class Forfeit:
    """Why a seat cannot go on (its program crashed or ran out of time, a model's reply held no move): it loses as an
    illegal move would. `status` names the failure in codebench's words (timeout, runtime_error, no_answer, …)."""

    status: str
    detail: str = ""


@dataclass(frozen=True)
class Answer:
    """A seat's answer for one turn: a move, or the move as its player wrote it (judged as strict JSON), or a forfeit."""

    move: JSON = None
    text: str | bytes | None = None  # None: `move` is the value
    forfeit: Forfeit | None = None
    cpu_s: float = 0.0
    wall_s: float = 0.0


class Player(Protocol):
    """One seat of a game, whatever plays it: a strategy here, or (in codebench) a program in a sandbox or a model."""

    name: str

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        """Get ready for a new game in `seat` (a player outside this process sees only `player_view`)."""

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Answer:
        """This turn's answer; `since`: the moves recorded since this seat last moved (none where the game hides moves)."""

    def finish(self) -> dict[str, JSON]:
        """The game is over (or was abandoned): what the seat kept of it for the record."""


class StrategyPlayer:
    """A `Strategy` on this process with an RNG of its own, from the setup and the seat: the same record every time."""

    def __init__(self, name: str, strategy: Strategy) -> None:
        self.name, self.strategy = name, strategy

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        self.game, self.seat = game, seat
        self.rng = random.Random(salted(f"{setup.id}|seat{seat}|{self.name}", setup.secret))
        return None

    def move(self, observation: JSON, since: list[dict[str, JSON]]) -> Answer:
        return Answer(_portable(self.strategy(self.game, observation, self.seat, self.rng)))

    def finish(self) -> dict[str, JSON]:
        return {}


@dataclass(frozen=True)
class GameRecord:
    """One whole game: enough to replay it and to audit what each player was shown and how each seat ended."""

    setup: Setup
    seats: tuple[str, ...]
    moves: tuple[dict[str, JSON], ...]  # {"player", "move", "observation": digest, "ok", "issue", "cpu_s", "wall_s"}
    final: State
    outcome: GameOutcome
    failed: int | None  # the seat whose illegal move or forfeit ended the game
    statuses: tuple[str, ...]  # per seat: legal (played by the rules to the end), rule_violation, or its forfeit's status
    details: tuple[str, ...]
    kept: tuple[dict[str, JSON], ...]  # per seat: what it kept of the game (a program's output excerpts, a model's replies)

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.setup.id, "game": self.setup.game, "level": self.setup.level, "seed": self.setup.seed,
                "seats": list(self.seats), "moves": list(self.moves), "final": {k: v for k, v in self.final.items() if k != "env"},
                "outcome": self.outcome.to_json(), "failed": self.failed, "statuses": list(self.statuses),
                "details": list(self.details), "kept": list(self.kept)}


def salted(origin: str, secret: str) -> str:
    """What seeds a setup's RNG (and is its `env`) or a built-in player's: the public origin (game, level and seed; or
    the setup's id, the seat and the player) salted by the run's secret as the hex SHA-256 of "origin|secret"; with no
    secret, the origin itself, so seed s is one setup for everyone.

    Why the salt is enough: `random.Random(text)` (version 2 seeding, the default) seeds MT19937 with the integer of
    all of the text's UTF-8 bytes followed by their SHA-512, so the generator depends on the whole digest, and through
    it on the whole secret. A program carrying a copy of the generator and the public seeds must guess the secret
    (2^128 candidates for `new_secret`'s); an observation fits setups of countless secrets, so it cannot name one; and
    MT19937, not cryptographic, cannot be rebuilt from what a game shows either (its state is 624 words; a game with
    hidden state draws a few hundred at most and shows part of them), nor would one rebuilt give away the secret,
    only that game's digest. The digest also keeps the secret out of `env`."""
    return hashlib.sha256(f"{origin}|{secret}".encode()).hexdigest() if secret else origin  # a state's `env` too


def new_secret() -> str:
    """A run's secret: 128 random bits, as hex."""
    return secrets.token_hex(16)


def digest(value: JSON) -> str:
    return hashlib.sha256(dumps_canonical(value).encode()).hexdigest()[:16]


def player_view(game: Game, setup: Setup, seat: int) -> dict[str, JSON]:
    """What a seat outside this process learns when a game begins: never the seed or the setup's id, from which it
    could rebuild the hidden state."""
    return {"game": game.name, "level": setup.level, "player": seat, "players": game.players,
            "observation": game.observe(setup.state, seat)}


def play(game: Game, setup: Setup, seats: Sequence[Player | tuple[str, Strategy]]) -> GameRecord:
    """Play `setup` to the end, or until a seat makes an illegal move or forfeits (PuzzlePlex's failure rule: it loses,
    or alone gets the game's worst score). Each seat sees only its observation; every seat is finished whatever happens.
    A (name, strategy) pair plays as a `StrategyPlayer`.

    Raises:
        ParamError: the number of seats is not the game's number of players.
    """
    if len(seats) != game.players:
        raise ParamError(f"{game.name} is a {game.players}-player game: give {game.players} player(s), not {len(seats)}")
    players = [StrategyPlayer(*seat) if isinstance(seat, tuple) else seat for seat in seats]
    so_far = _GameSoFar(setup.state, [LEGAL] * len(players), [""] * len(players))
    try:
        for seat, player in enumerate(players):
            forfeit = player.begin(game, setup, seat)
            if forfeit is not None:
                so_far.fail(seat, forfeit.status, forfeit.detail)
                break
        if so_far.failed is None:
            _play_turns(game, players, so_far)
    finally:
        kept = tuple(player.finish() for player in players)
    return GameRecord(setup, tuple(player.name for player in players), tuple(so_far.moves), so_far.state,
                      failed_outcome(game, so_far.state, so_far.failed), so_far.failed, tuple(so_far.statuses),
                      tuple(so_far.details), kept)


@dataclass
class _GameSoFar:
    state: State
    statuses: list[str]
    details: list[str]
    moves: list[dict[str, JSON]] = field(default_factory=list)
    failed: int | None = None

    def fail(self, seat: int, status: str, detail: str) -> None:
        self.failed, self.statuses[seat], self.details[seat] = seat, status, detail


def _play_turns(game: Game, players: Sequence[Player], so_far: _GameSoFar) -> None:
    """Ask the seat to move until the game ends or a seat fails."""
    last_moved = [0] * len(players)  # per seat: how many moves were recorded when it last moved
    for _ in range(MAX_TURNS):
        seat = game.to_move(so_far.state)
        if seat is None:
            return
        observation = game.observe(so_far.state, seat)
        since = so_far.moves[last_moved[seat]:] if game.moves_seen else []  # a hidden move stays hidden
        last_moved[seat] = len(so_far.moves) + 1
        answer = players[seat].move(observation, since)
        entry: dict[str, JSON] = {"player": seat, "observation": digest(observation), "cpu_s": round(answer.cpu_s, 4),
                                  "wall_s": round(answer.wall_s, 4)}
        if answer.forfeit is not None:
            so_far.moves.append({**entry, "move": None, "ok": False, "issue": None, "status": answer.forfeit.status,
                                 "detail": answer.forfeit.detail})
            so_far.fail(seat, answer.forfeit.status, answer.forfeit.detail)
            return
        move, verdict = (game.legal_json(so_far.state, seat, answer.text) if answer.text is not None
                         else (answer.move, game.legal(so_far.state, seat, answer.move)))
        so_far.moves.append({**entry, **kept_move(move), "ok": verdict.ok,
                             "issue": verdict.issues[0].to_json() if verdict.issues else None})
        if not verdict.ok:
            so_far.fail(seat, RULE_VIOLATION, str(verdict.issues[0].code))
            return
        so_far.state = game.apply(so_far.state, seat, move)
    raise RuntimeError(f"{game.name}: no end after {MAX_TURNS} turns (an engine bug)")


def kept_move(move: JSON) -> dict[str, JSON]:
    """The move as a record keeps it: whole up to MOVE_KEPT characters of JSON; longer, its head (`move_head`), size
    (`move_chars`) and SHA-256 (`move_sha256`), so a program cannot fill the store or a report with one move."""
    try:
        text = json.dumps(move, sort_keys=True)  # ASCII: a lone surrogate or a control character is written escaped
    except (TypeError, ValueError, RecursionError):
        return {"move": None}  # not JSON at all: the verdict says why
    if len(text) <= MOVE_KEPT:
        return {"move": move}
    return {"move": None, "move_head": text[:MOVE_KEPT], "move_chars": len(text),
            "move_sha256": hashlib.sha256(text.encode()).hexdigest()}


def failed_outcome(game: Game, state: State, failed: int | None) -> GameOutcome:
    """The game's own outcome, or PuzzlePlex's failure rule: the failing seat loses, or alone gets the worst score."""
    if failed is None:
        return game.outcome(state)
    if game.players == 1:
        return GameOutcome((game.failure_score(state),))
    return GameOutcome(tuple(0.0 if seat == failed else 1.0 for seat in range(2)),
                   tuple(LOSS if seat == failed else WIN for seat in range(2)))


def two_player_outcome(winner: int | None) -> GameOutcome:
    """Scores 1/0 (½ each for a draw) and win/draw/loss for a two-player game's winner (None: a draw)."""
    if winner is None:
        return GameOutcome((0.5, 0.5), (DRAW, DRAW))
    return GameOutcome(tuple(1.0 if seat == winner else 0.0 for seat in range(2)),
                   tuple(WIN if seat == winner else LOSS for seat in range(2)))


def _portable(move: JSON) -> JSON:
    """The move as JSON carries it (tuples become lists); a value JSON cannot carry stays as it is, for `legal` to refuse."""
    try:
        return json.loads(json.dumps(move))
    except (TypeError, ValueError, RecursionError):
        return move
