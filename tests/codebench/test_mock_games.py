"""The mock model on games: code mode's oracle program plays the reference strategy where `puzzles` is not installed
(a bare interpreter here, the unsafe-local sandbox too); the other behaviours' programs fail as named; instruction
mode answers the reference move of the last turn, in the seat the opening gives, through the real `ChatSeat`."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codebench.errors import SandboxUnavailableError
from codebench.games.chat import MOVE_REMINDER, ChatOptions, ChatSeat, render_strategy_prompt
from codebench.games.match import play_seated
from codebench.keys import program_key
from codebench.model import mock_games
from codebench.model.client import ModelClient
from codebench.model.mock_server import MockServer, start_mock_server
from codebench.model.presets import Endpoint
from codebench.modes import FORMAT_RETRIES
from codebench.modes._extract import extract_program
from codebench.sandbox import _guard, open_sandbox
from codebench.types import GameLimits, Limits, Program, Sampling, Status
from puzzles import read_answer
from puzzles.games import GAMES, Game, StrategyPlayer, get_game, play, player_view

JSON_BLOCK = re.compile(r"```json\n(.*?)\n```", re.DOTALL)
DRIVER = r"""
import json, signal, sys, types
signal.alarm(60)  # a stuck program must not hang the test
try:
    import puzzles
except ImportError:
    print(json.dumps({"puzzles": None}), flush=True)
else:
    print(json.dumps({"puzzles": puzzles.__file__}), flush=True)
module = types.ModuleType("__solver__")  # as the sandbox's supervisor runs a program
sys.modules[module.__name__] = module
exec(compile(json.loads(sys.stdin.readline()), "solver.py", "exec"), module.__dict__)
strategy = None
for line in sys.stdin:
    request = json.loads(line)
    if "setup" in request:
        strategy = module.Strategy(request["setup"])
        print(json.dumps({"ok": True}), flush=True)
    else:
        print(json.dumps({"move": strategy.act(request["observation"])}), flush=True)
"""


def names(game: Game) -> str:
    return game.name


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with start_mock_server() as running:
        yield running


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop in a thread of its own, as a run's: seats call the model client on it from the match thread."""
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join()
    running.close()


@pytest.fixture(scope="module")
def client(server: MockServer, loop: asyncio.AbstractEventLoop) -> Iterator[Any]:
    """client(behaviour): a ModelClient of the mock server for that behaviour, made and closed on the loop."""
    made: dict[str, ModelClient] = {}

    async def make(model: str) -> ModelClient:
        return ModelClient(Endpoint(model, server.url, "k"))

    def get(model: str) -> ModelClient:
        if model not in made:
            made[model] = asyncio.run_coroutine_threadsafe(make(model), loop).result()
        return made[model]

    yield get
    for opened in made.values():
        asyncio.run_coroutine_threadsafe(opened.aclose(), loop).result()


def code_reply(client: Any, loop: asyncio.AbstractEventLoop, behavior: str, game: Game) -> str:
    messages = [{"role": role, "content": text} for role, text in render_strategy_prompt(game, GameLimits(), Limits()).messages]
    completion = asyncio.run_coroutine_threadsafe(
        client(behavior).complete(messages, temperature=0.0, max_tokens=None, seed=0), loop).result()
    assert completion.error is None and completion.finish_reason == "stop"
    return completion.text


def seat_of(client: Any, loop: asyncio.AbstractEventLoop, behavior: str, options: ChatOptions | None = None) -> ChatSeat:
    return ChatSeat(behavior, client(behavior), Sampling(0.0, None, 0), options or ChatOptions(), loop, threading.Event())


def with_own_rng(game: Game) -> Any:
    """The reference strategy with the oracle program's RNG (seeded 0), whatever RNG `play` hands it."""
    rng = random.Random(0)
    return lambda g, observation, player, _: g.reference_move(g, observation, player, rng)


def expected_record(game: Game, seed: int, seat: int, strategy: Any) -> Any:
    """`play`'s record with `strategy` in `seat` against the random strategy (seeded as `play` and BuiltinSeat do)."""
    seats = [("random", game.random_move)] * game.players
    seats[seat] = ("mock", strategy)
    return play(game, game.setup(1, seed), seats)


class Driver:
    """The program in a bare interpreter (no site-packages, so no `puzzles`): a Strategy per game, a move per line."""

    def __init__(self, source: str, cwd: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-I", "-S", "-c", DRIVER], cwd=cwd, text=True, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        self.puzzles = self.receive()["puzzles"]
        self.send(source)

    def send(self, value: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(value) + "\n")
        self.process.stdin.flush()

    def receive(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the program's interpreter ended early"
        return json.loads(line)

    def start(self, setup: dict[str, Any]) -> None:
        self.send({"setup": setup})
        assert self.receive() == {"ok": True}

    def act(self, observation: Any) -> Any:
        self.send({"observation": observation})
        return self.receive()["move"]

    def close(self) -> None:
        """End the interpreter (it ends when its input does) and close the pipes; its exit status must be 0."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        try:
            code = self.process.wait(timeout=30)
        finally:
            self.process.kill()
            self.process.stdout.close()
        assert code == 0


@pytest.mark.parametrize("game", GAMES, ids=names)
def test_the_oracle_program_plays_the_reference_strategy_without_puzzles_installed(game: Game, server: MockServer, client: Any,
                                                                                   loop: asyncio.AbstractEventLoop,
                                                                                   tmp_path: Path) -> None:
    extraction = extract_program(code_reply(client, loop, "oracle", game), "Strategy")
    assert extraction.status is None and extraction.source == mock_games.strategy_program(game.name)
    assert _guard.check(extraction.source) is None  # the unsafe-local backend's static guard lets it run
    driver = Driver(extraction.source, tmp_path)
    try:
        assert driver.puzzles is None  # it imports the bundled copy, nothing installed
        for seed in (0, 1):
            seat, setup = seed % game.players, game.setup(1, seed)
            expected = expected_record(game, seed, seat, with_own_rng(game))
            driver.start({key: value for key, value in player_view(game, setup, seat).items() if key != "id"})
            state, moves = setup.state, []
            rngs = [random.Random(f"{setup.id}|seat{index}|random") for index in range(game.players)]
            while (player := game.to_move(state)) is not None:
                observation = game.observe(state, player)
                move = driver.act(observation) if player == seat else game.random_move(game, observation, player, rngs[player])
                assert game.legal(state, player, move).ok, (game.name, seed, move)
                moves.append(move)
                state = game.apply(state, player, move)
            assert moves == [entry["move"] for entry in expected.moves] and expected.failed is None
            assert game.outcome(state) == expected.outcome
    finally:
        driver.close()


@pytest.mark.parametrize("name", ["cardnim", "superplym"])
def test_the_oracle_program_plays_in_the_unsafe_local_sandbox(name: str) -> None:
    game = get_game(name)
    source = mock_games.strategy_program(name)
    try:
        sandbox = open_sandbox("unsafe-local", Limits(memory_mib=256), 1)
    except SandboxUnavailableError as exc:
        pytest.skip(str(exc))
    with sandbox:
        record = play_seated(game, game.setup(1, 0), [("mock", Program(program_key(source), source, "Strategy")),
                                                      StrategyPlayer("random", game.random_move)], sandbox, GameLimits())
    expected = expected_record(game, 0, 0, with_own_rng(game))
    assert record.statuses == ("legal", "legal"), record.details
    assert [entry["move"] for entry in record.moves] == [entry["move"] for entry in expected.moves]
    assert record.outcome == expected.outcome


def test_the_other_code_mode_behaviours_fail_as_they_are_named(client: Any, loop: asyncio.AbstractEventLoop) -> None:
    for game in GAMES:
        setup = game.setup(1, 1)
        wrong = extract_program(code_reply(client, loop, "wrong", game), "Strategy")
        assert wrong.status is None and wrong.source is not None
        namespace: dict[str, Any] = {}
        exec(compile(wrong.source, "solver.py", "exec"), namespace)  # our own three-line program
        strategy = namespace["Strategy"](player_view(game, setup, 0))
        move = strategy.act(game.observe(setup.state, 0))
        assert not game.legal(setup.state, 0, move).ok and move != {}, (game.name, move)
        assert extract_program(code_reply(client, loop, "syntax_error", game), "Strategy").status == Status.SYNTAX_ERROR
        prose = code_reply(client, loop, "no_code", game)
        assert extract_program(prose, "Strategy").status == Status.NO_CODE and "```" not in prose
    game = get_game("cardnim")
    view = player_view(game, game.setup(1, 0), 0)
    crash = extract_program(code_reply(client, loop, "crash", game), "Strategy").source
    namespace = {}
    exec(compile(str(crash), "solver.py", "exec"), namespace)
    with pytest.raises(IndexError):
        namespace["Strategy"](view).act(view["observation"])
    endless = extract_program(code_reply(client, loop, "timeout", game), "Strategy").source
    script = f"{endless}\nStrategy({view!r}).act({view['observation']!r})\nprint('returned')\n"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", script], timeout=0.5, capture_output=True)


def first_turn(seat: ChatSeat, game: Game, player: int = 0) -> tuple[Any, Any, dict[str, Any]]:
    """`seat` as `player` on its first turn of level 1, seed 0 (player 1 after player 0's reference move)."""
    setup = game.setup(1, 0)
    state, since = setup.state, []
    if player == 1:
        move = game.reference_move(game, game.observe(state, 0), 0, random.Random(0))
        since, state = [{"player": 0, "move": move}], game.apply(state, 0, move)
    seat.begin(game, setup, player)
    return seat.move(game.observe(state, player), since), state, seat.turns[-1]


@pytest.mark.parametrize("game", GAMES, ids=names)
def test_instruction_mode_answers_the_first_turn_by_behaviour(game: Game, client: Any, loop: asyncio.AbstractEventLoop) -> None:
    turn, state, record = first_turn(seat_of(client, loop, "oracle"), game)
    [reply] = record["replies"]
    assert turn.forfeit is None and JSON_BLOCK.findall(reply["text"])[-1] == turn.text
    move, verdict = game.legal_json(state, 0, turn.text)
    assert verdict.ok and move == mock_games.reference_move(game, game.observe(state, 0), 0)
    if game.players == 2:  # the seat comes from the opening: player 1 answers for player 1
        turn, state, record = first_turn(seat_of(client, loop, "oracle"), game, player=1)
        assert game.legal_json(state, 1, turn.text)[1].ok and "As player 1 of" in record["replies"][0]["text"]
    turn, state, _ = first_turn(seat_of(client, loop, "wrong"), game)
    assert turn.text is not None and not game.legal_json(state, 0, turn.text)[1].ok
    turn, state, record = first_turn(seat_of(client, loop, "format_retry"), game)
    first, second = record["replies"]
    assert read_answer(first["text"]).text is None and game.legal_json(state, 0, turn.text) == (move, verdict)
    turn, state, record = first_turn(seat_of(client, loop, "syntax_error"), game)
    assert turn.forfeit is not None and turn.forfeit.status == Status.NO_ANSWER
    assert len(record["replies"]) == FORMAT_RETRIES + 1
    assert all("```json" not in reply["text"] and read_answer(reply["text"]).text is None for reply in record["replies"])


@pytest.mark.parametrize("game", GAMES, ids=names)
def test_the_instruction_oracle_plays_whole_games_from_the_last_turn_shown(game: Game, client: Any,
                                                                           loop: asyncio.AbstractEventLoop) -> None:
    """With the whole history in the conversation, the reply is the reference move of the newest observation."""
    def mock(g: Game, observation: Any, player: int, _: random.Random) -> Any:
        return mock_games.reference_move(g, {k: v for k, v in observation.items() if k != "image"}, player)

    for seed in (0, 1) if game.players == 2 else (1,):  # alone, seed 1: ExclusivityProbes' seed 0 takes 189 probes
        seat = seed % game.players
        seats: list[Any] = [StrategyPlayer("random", game.random_move) for _ in range(game.players)]
        seats[seat] = seat_of(client, loop, "oracle")
        record = play(game, game.setup(1, seed), seats)
        expected = expected_record(game, seed, seat, mock)
        assert set(record.statuses) == {"legal"} and record.failed is None, record.details
        assert [entry["move"] for entry in record.moves] == [entry["move"] for entry in expected.moves]
        assert record.outcome == expected.outcome


def test_without_history_and_with_the_legal_hint_the_oracle_still_plays(client: Any, loop: asyncio.AbstractEventLoop) -> None:
    game = get_game("largertarget")
    record = play(game, game.setup(2, 0), [seat_of(client, loop, "oracle", ChatOptions(history=False, legal_hint=True)),
                                                 StrategyPlayer("random", game.random_move)])
    assert record.statuses == ("legal", "legal") and len(record.moves) > 4


def post(server: MockServer, model: str, messages: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"{server.url}/chat/completions", method="POST", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"model": model, "messages": messages}).encode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def conversation(game: Game, player: int = 0, reminded: bool = False) -> list[dict[str, Any]]:
    """The opening and first turn as ChatSeat sends them (built without a model), then a retry if `reminded`."""
    seat = ChatSeat("mock", None, Sampling(0.0, None, 0), ChatOptions(), None, threading.Event())  # type: ignore[arg-type]
    setup = game.setup(1, 0)
    seat.begin(game, setup, player)
    messages = [*seat.opening, seat._turn_message(game.observe(setup.state, player), [])]
    return [*messages, {"role": "assistant", "content": "Thinking."}, {"role": "user", "content": MOVE_REMINDER}] if reminded \
        else messages


def test_the_other_instruction_behaviours_and_determinism(server: MockServer) -> None:
    game = get_game("sudokillm")  # its turn messages carry an image part too
    messages = conversation(game)
    assert isinstance(messages[-1]["content"], list)
    state = game.setup(1, 0).state
    status, oracle = post(server, "oracle", messages)
    assert status == 200 and post(server, "oracle", messages)[1]["choices"] == oracle["choices"]  # same request, same reply
    move = json.loads(JSON_BLOCK.findall(oracle["choices"][0]["message"]["content"])[-1])
    _, thinking = post(server, "reasoning", messages)
    message = thinking["choices"][0]["message"]
    assert message["reasoning_content"] and json.loads(str(read_answer(message["content"]).text)) == move
    _, cut = post(server, "timeout", messages)
    assert cut["choices"][0]["finish_reason"] == "length" and read_answer(cut["choices"][0]["message"]["content"]).text is None
    _, crash = post(server, "crash", messages)
    wrapped = json.loads(str(read_answer(crash["choices"][0]["message"]["content"]).text))
    assert wrapped == {"move": move} and not game.legal(state, 0, wrapped).ok
    _, prose = post(server, "no_code", messages)
    assert read_answer(prose["choices"][0]["message"]["content"]).text is None
    _, retried = post(server, "format_retry", conversation(game, reminded=True))
    assert json.loads(str(read_answer(retried["choices"][0]["message"]["content"]).text)) == move
    history = [*messages, {"role": "assistant", "content": oracle["choices"][0]["message"]["content"]}, messages[-1]]
    _, again = post(server, "format_retry", history)  # an assistant reply before a new turn is no reminder
    assert read_answer(again["choices"][0]["message"]["content"]).text is None
    _, mixed = post(server, "mixed", messages)
    assert "choices" in mixed
    opening = messages[1]["content"]
    assert "\ncodebench-mode: instruction\ncodebench-seat: 0\n" in opening
    unseated = [messages[0], {"role": "user", "content": opening.replace("codebench-seat: 0\n", "")}, *messages[2:]]
    status, refused = post(server, "oracle", unseated)
    assert status == 400 and "codebench-seat" in refused["error"]["message"]


def test_strategy_programs_built_from_many_server_threads_at_once_all_come_out_whole() -> None:
    """The server answers in threads; CPython 3.11's ast.parse fails when two threads run it at once."""
    from concurrent.futures import ThreadPoolExecutor

    mock_games._strategy_program.cache_clear()
    names = [game.name for game in GAMES] * 2
    with ThreadPoolExecutor(max_workers=8) as pool:
        built = list(pool.map(mock_games.strategy_program, names))
    assert all(program == mock_games.strategy_program(name) and "class Strategy" in program for name, program in zip(names, built))
