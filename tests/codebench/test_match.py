"""One game between seats (`codebench.match`), without Docker: built-in seats play exactly as `puzzles.games.play`;
program seats on the fake backend move through facts, whose every failure ends the game for that seat; a broken
sandbox voids the game; the pool holds a worker per seat and gives it back."""

from __future__ import annotations

import json
import threading

import pytest

from codebench.errors import SandboxError
from codebench.games.match import ProgramSeat, void
from codebench.keys import program_key
from codebench.sandbox._fake import FakeBackend
from codebench.types import Facts, GameLimits, Program, ResultKind
from puzzles.games import GAMES, GameRecord, StrategyPlayer, get_game, play, player_view

CARDNIM = get_game("cardnim")
PROGRAM = Program(program_key("strategy"), "strategy", "Strategy")


def no_runs(source: str, instance: dict) -> Facts:
    raise AssertionError("games never run instances")


def answer(move: object) -> Facts:
    return Facts("move", {"kind": ResultKind.ANSWER.value, "answer": json.dumps(move).encode()}, cpu_s=0.01)


def greedy(source: str, setup: dict) -> object:
    """A fake player: the largest playable card (what a program's Strategy would answer)."""
    def move(observation: dict) -> Facts:
        return answer({"card": max(c for c in observation["my_cards"] if c <= observation["stones"])})
    return move


def program_first(held: object, level: int = 1, seed: int = 0) -> GameRecord:
    """The held program in seat 0 against the reference."""
    seats = [ProgramSeat("p", held, GameLimits()), StrategyPlayer("ref", CARDNIM.reference_move)]
    return play(CARDNIM, CARDNIM.setup(level, seed), seats)


@pytest.mark.parametrize("game", [g for g in GAMES if g.players == 2][:4], ids=lambda g: g.name)
def test_builtin_seats_play_exactly_as_the_puzzle_library(game: object) -> None:
    for seed in range(3):
        setup = game.setup(1, seed)
        expected = play(game, setup, [("ref", game.reference_move), ("random", game.random_move)]).to_json()
        record = play(game, setup, [StrategyPlayer("ref", game.reference_move), StrategyPlayer("random", game.random_move)])
        assert [(m["player"], m["move"], m["observation"]) for m in record.moves] == \
            [(m["player"], m["move"], m["observation"]) for m in expected["moves"]]
        assert list(record.outcome.scores) == expected["outcome"]["scores"] and record.statuses == ("legal", "legal")


def test_a_program_seat_plays_through_the_sandbox_and_sees_no_seed() -> None:
    seen: list[dict] = []

    def player(source: str, setup: dict) -> object:
        seen.append(setup)
        return greedy(source, setup)

    with FakeBackend(no_runs, workers=2, player=player) as sandbox:
        held = sandbox.reserve(PROGRAM)
        try:
            record = program_first(held, 2, 3)
        finally:
            held.release()
    assert record.statuses == ("legal", "legal") and not void(record) and sum(record.outcome.scores) == 1.0
    assert set(seen[0]) == {"game", "level", "player", "players", "observation"}  # no id, no seed
    assert seen[0]["observation"] == player_view(CARDNIM, CARDNIM.setup(2, 3), 0)["observation"]
    assert all(move["cpu_s"] == 0.01 for move in record.moves if move["player"] == 0)


@pytest.mark.parametrize(("facts", "status", "detail"), [
    (answer({"card": 99}), "rule_violation", "illegal_move"),
    (Facts("move", {"kind": "answer", "answer": b'{"card": 1, "card": 2}'}), "rule_violation", "duplicate_key"),
    (Facts("move", {"kind": "answer", "answer": b"[1"}), "rule_violation", "invalid_json"),
    (Facts("move", {"kind": "exception", "type": "KeyError"}), "runtime_error", "exception:KeyError"),
    (Facts("move", {"kind": "none"}, killed="wall_limit"), "timeout", "wall_limit"),
    (Facts("move", {"kind": "none"}, killed="game_cpu_limit"), "timeout", "game_cpu_limit"),
    (Facts("move", {"kind": "none"}, cpu_s=0.5, game_cpu_s=300.0), "timeout", "game_cpu_limit"),
])
def test_a_failing_move_is_the_seats_loss_with_its_status(facts: Facts, status: str, detail: str) -> None:
    with FakeBackend(no_runs, player=lambda source, setup: lambda observation: facts) as sandbox:
        held = sandbox.reserve(PROGRAM)
        try:
            record = play(CARDNIM, CARDNIM.setup(1, 0), [StrategyPlayer("ref", CARDNIM.reference_move),
                                                              ProgramSeat("p", held, GameLimits())])
        finally:
            held.release()
    assert (record.statuses, record.details, record.failed, record.outcome.results) == (("legal", status), ("", detail), 1, ("win", "loss"))


def test_a_broken_sandbox_voids_the_game() -> None:
    broken = Facts.infrastructure("move", "SessionBroken: supervisor exited")
    with FakeBackend(no_runs, player=lambda source, setup: lambda observation: broken) as sandbox:
        held = sandbox.reserve(PROGRAM)
        try:
            record = program_first(held)
        finally:
            held.release()
    assert record.statuses[0] == "sandbox_error" and void(record)


def test_a_failure_while_clearing_a_program_after_the_game_does_not_void_it() -> None:
    """What a program does to break its own clean-up changes no move already judged: the game it lost stands."""
    class Unclean:
        def __init__(self, held: object) -> None:
            self.held = held

        def __getattr__(self, name: str) -> object:
            return getattr(self.held, name)

        def end(self) -> Facts:
            return Facts.infrastructure("end", "SessionBroken: supervisor exited")

    with FakeBackend(no_runs, player=lambda source, setup: lambda observation: answer({"card": 99})) as sandbox:
        held = sandbox.reserve(PROGRAM)
        try:
            record = program_first(Unclean(held))
        finally:
            held.release()
    assert record.statuses == ("rule_violation", "legal") and record.kept[0]["infra_error"] and not void(record)


def test_a_program_that_did_not_load_loses_at_setup() -> None:
    def syntax(source: str) -> Facts:
        return Facts("load", {"kind": "syntax_error", "message": "SyntaxError: invalid syntax (line 1)"})

    with FakeBackend(no_runs, loader=syntax, player=greedy) as sandbox:
        held = sandbox.reserve(PROGRAM)
        try:
            record = program_first(held)
        finally:
            held.release()
    assert record.statuses == ("syntax_error", "legal") and record.moves == () and record.outcome.results == ("loss", "win")


def test_a_held_worker_is_given_back_and_a_closed_pool_refuses() -> None:
    with FakeBackend(no_runs, workers=1, player=greedy) as sandbox:
        first = sandbox.reserve(PROGRAM)
        granted = threading.Event()

        def second() -> None:
            sandbox.reserve(PROGRAM).release()
            granted.set()

        waiter = threading.Thread(target=second)
        waiter.start()
        assert not granted.wait(0.3)  # the only worker is held
        first.release()
        assert granted.wait(5)
        waiter.join()
    with pytest.raises(SandboxError, match="closed"):
        sandbox.reserve(PROGRAM)


def test_closing_the_pool_wakes_a_waiting_reservation() -> None:
    sandbox = FakeBackend(no_runs, workers=1, player=greedy)
    held = sandbox.reserve(PROGRAM)
    failures: list[Exception] = []

    def wait() -> None:
        try:
            sandbox.reserve(PROGRAM)
        except SandboxError as exc:
            failures.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    sandbox.close()
    waiter.join(5)
    held.release()
    assert not waiter.is_alive() and len(failures) == 1
