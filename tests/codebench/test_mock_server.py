"""The mock model server: behaviours (through the real openai client), faults, injected failures, streaming as
OpenAI's API streams (and the settings that refuse or stall it, the slow thinker), loopback only."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

import jsonschema
import pytest

import puzzles
from codebench.errors import InputError
from codebench.model.client import ModelClient
from codebench.model.mock_behaviors import BEHAVIORS, INSTRUCTION_WEIGHTS, MIXED_WEIGHTS, NO_CODE, PLAN_FLAWS, mixed_choice, reply_text
from codebench.model.mock_server import THINKER, MockServer, start_mock_server
from codebench.model.presets import THINK_TAGS, Endpoint
from codebench.oracles import ORACLES, oracle_source

FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)


def prompt(puzzle: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Solve this.\ncodebench-puzzle: {puzzle}\nReply with one fenced block."}]


def replies(url: str, model: str, conversations: list[list[dict[str, str]]], seed: int = 0) -> list[str]:
    """The reply text to each conversation, through ModelClient."""
    async def go() -> list[str]:
        client = ModelClient(Endpoint(model, url, "k"))
        try:
            done = await asyncio.gather(*(client.complete(m, temperature=0.0, max_tokens=None, seed=seed) for m in conversations))
        finally:
            await client.aclose()
        assert all(c.error is None and c.finish_reason == "stop" for c in done)
        return [c.text for c in done]

    return asyncio.run(go())


def program(text: str) -> str:
    blocks = FENCE.findall(text)
    assert len(blocks) == 1
    return blocks[0]


def solve_function(source: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(source, "solver.py", "exec"), namespace)
    return namespace["solve"]


def post(url: str, body: dict[str, Any] | bytes, key: str | None = None) -> tuple[int, dict[str, str], Any]:
    """(status, headers, decoded JSON body) of a raw POST to /chat/completions."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    request = urllib.request.Request(f"{url}/chat/completions", data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), json.loads(error.read())


@pytest.fixture
def server() -> Any:
    with start_mock_server() as running:
        yield running


def test_oracle_answers_each_puzzle_with_its_oracle_program(server: MockServer) -> None:
    texts = replies(server.url, "oracle", [prompt(name) for name in ORACLES])
    for name, text in zip(ORACLES, texts):
        assert text.startswith(f"Here is a program that solves any {name} instance.")
        assert program(text) == oracle_source(name)


def test_wrong_programs_return_well_formed_answers_the_validator_rejects(server: MockServer) -> None:
    texts = replies(server.url, "wrong", [prompt(name) for name in ORACLES])
    for name, text in zip(ORACLES, texts):
        puzzle, solve = puzzles.get_puzzle(name), solve_function(program(text))
        for level in range(1, 7):
            for seed in range(2):
                instance = puzzle.generate(level=level, seed=seed).instance
                answer = solve(instance)
                jsonschema.validate(answer, puzzle.answer_schema)
                assert not puzzle.validate(instance, answer).ok, (name, level, seed)


def test_syntax_error_crash_and_no_code_replies(server: MockServer) -> None:
    [broken], [crash], [prose] = (replies(server.url, model, [prompt("sudoku")]) for model in ("syntax_error", "crash", "no_code"))
    with pytest.raises(SyntaxError):
        compile(program(broken), "solver.py", "exec")
    instance = puzzles.get_puzzle("sudoku").generate(level=1, seed=0).instance
    with pytest.raises(IndexError):
        solve_function(program(crash))(instance)
    assert prose == NO_CODE and "```" not in prose and "def " not in prose


def test_the_timeout_program_never_returns(server: MockServer) -> None:
    [text] = replies(server.url, "timeout", [prompt("hanoi")])
    script = program(text) + "\nsolve({'n': 3})\nprint('returned')\n"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", script], timeout=0.5, capture_output=True)


def test_the_server_default_behaviour_applies_when_the_model_names_none() -> None:
    with start_mock_server(behavior="no_code") as server:
        assert replies(server.url, "gpt-4o", [prompt("hanoi")]) == [NO_CODE]
        assert program(replies(server.url, "oracle", [prompt("hanoi")])[0]) == oracle_source("hanoi")


def test_mixed_draws_the_flaws_of_a_plan_on_instruction_prompts_of_puzzles_only_and_keeps_them_through_retries() -> None:
    asked = [{"role": "user", "content": "codebench-mode: instruction\ncodebench-puzzle: hanoi\nThe instance as JSON:\n```json\n{}\n```"}]
    game = [{"role": "user", "content": "codebench-mode: instruction\ncodebench-puzzle: cardnim\ncodebench-seat: 0"}]
    assert set(INSTRUCTION_WEIGHTS) - set(MIXED_WEIGHTS) == {*PLAN_FLAWS, "format_retry"}
    assert {mixed_choice(0, seed, asked) for seed in range(400)} == set(INSTRUCTION_WEIGHTS)
    assert {mixed_choice(0, seed, game) for seed in range(400)} == set(MIXED_WEIGHTS)  # a game's prompt: none of them
    retried = [*asked, {"role": "assistant", "content": "no JSON here"}, {"role": "user", "content": "End with a json block."}]
    assert all(mixed_choice(0, seed, retried) == mixed_choice(0, seed, asked) for seed in range(100))  # kept through retries
    turns = [*game, {"role": "assistant", "content": "3"}, {"role": "user", "content": "Your move."}]
    assert any(mixed_choice(0, seed, turns) != mixed_choice(0, seed, game) for seed in range(100))  # a game's turns draw anew


def test_mixed_is_a_fixed_function_of_seeds_and_messages_with_oracle_most_frequent() -> None:
    picks = Counter(mixed_choice(0, seed, prompt("sat")) for seed in range(400))
    assert set(picks) == set(MIXED_WEIGHTS) and picks.most_common(1)[0][0] == "oracle"
    share = MIXED_WEIGHTS["oracle"] / sum(MIXED_WEIGHTS.values())
    assert abs(picks["oracle"] / 400 - share) < 0.08
    conversations = [prompt(name) for name in ORACLES]
    with start_mock_server(behavior="mixed", seed=3) as server:
        first = replies(server.url, "any-model", conversations, seed=11)
        assert replies(server.url, "mixed", conversations, seed=11) == first  # same request, same answer
    with start_mock_server(behavior="mixed", seed=3) as again:
        assert replies(again.url, "any-model", conversations, seed=11) == first  # a restarted server agrees (resumed runs)
    expected = [reply_text(mixed_choice(3, 11, c), name) for c, name in zip(conversations, ORACLES)]
    assert first == expected
    assert [mixed_choice(4, 11, c) for c in conversations] != [mixed_choice(3, 11, c) for c in conversations]


def test_max_tokens_truncates_and_reports_length(server: MockServer) -> None:
    body = {"model": "oracle", "messages": prompt("hanoi"), "max_completion_tokens": 5}
    status, _, answer = post(server.url, body)
    assert status == 200
    assert answer["choices"][0]["finish_reason"] == "length"
    assert answer["choices"][0]["message"]["content"] == reply_text("oracle", "hanoi")[:20]
    assert answer["usage"] == {"prompt_tokens": (len(prompt("hanoi")[0]["content"]) + 3) // 4, "completion_tokens": 5,
                               "total_tokens": (len(prompt("hanoi")[0]["content"]) + 3) // 4 + 5}


def test_every_kth_request_fails_with_429_or_500_by_a_counter() -> None:
    body = {"model": "no_code", "messages": prompt("hanoi")}
    with start_mock_server(fail_429_every=2, fail_500_every=3) as server:
        answers = [post(server.url, body) for _ in range(6)]
        assert server.hits == 6
    assert [status for status, _, _ in answers] == [200, 429, 500, 429, 200, 429]  # 429 wins where both are due (6)
    assert answers[1][1]["Retry-After"] == "0" and answers[1][2]["error"]["code"] == "rate_limit_exceeded"
    assert answers[2][2]["error"]["type"] == "server_error"


def test_auth_missing_model_and_bad_requests_answer_openai_error_json() -> None:
    with start_mock_server(api_key="secret") as server:
        assert post(server.url, {"model": "oracle", "messages": prompt("sat")}, key="nope")[0] == 401
        assert post(server.url, {"model": "oracle", "messages": prompt("sat")})[2]["error"]["code"] == "invalid_api_key"
        status, _, missing = post(server.url, {"model": "missing", "messages": prompt("sat")}, key="secret")
        assert (status, missing["error"]["code"]) == (404, "model_not_found")
        for bad, message in [({"model": "oracle", "messages": []}, "messages must be a non-empty list"),
                             ({"model": "oracle", "messages": prompt("sat"), "n": 2}, "the mock answers n=1 only"),
                             ({"model": "oracle", "messages": prompt("sat"), "temperature": 3}, "temperature must be"),
                             ({"model": "oracle", "messages": prompt("sat"), "max_tokens": 0}, "max_tokens must be"),
                             ({"model": "wrong", "messages": prompt("chess")}, "behaviour wrong needs a prompt line"),
                             (b"[1, 2", "the body is not a JSON object")]:
            status, _, answer = post(server.url, bad, key="secret")
            assert status == 400 and answer["error"]["message"].startswith(message), (bad, answer)


def test_models_route_lists_the_behaviours(server: MockServer) -> None:
    with urllib.request.urlopen(f"{server.url}/models", timeout=10) as response:
        names = [model["id"] for model in json.loads(response.read())["data"]]
    assert names[: len(BEHAVIORS)] == list(BEHAVIORS) and "missing" in names


def test_the_server_listens_on_127_0_0_1_only(server: MockServer) -> None:
    host, port = server._server.server_address[:2]
    assert host == "127.0.0.1" and server.url == f"http://127.0.0.1:{port}/v1"
    with pytest.raises(ConnectionRefusedError):  # another loopback address reaches a 0.0.0.0 listener, not this one
        socket.create_connection(("127.0.0.2", port), timeout=5).close()


def test_bad_settings_and_a_taken_port_are_input_errors(server: MockServer) -> None:
    with pytest.raises(InputError, match="behaviour 'genius' is unknown: choose one of oracle, slow, wrong"):
        start_mock_server(behavior="genius")
    with pytest.raises(InputError, match="--latency -1: give seconds from 0 to 3600"):
        start_mock_server(latency_s=-1)
    for setting, value, message in [("think_s", float("nan"), "--think nan: give seconds"),
                                    ("think_per_kchar_s", -1.0, "--think-per-kchar -1.0: give seconds"),
                                    ("chunk_interval_s", 0.0, "--chunk-interval 0.0: give seconds from 0.001"),
                                    ("stall_s", 4000.0, "--stall 4000.0: give seconds from 0 to 3600"),
                                    ("stall_after", -1, "--stall-after -1: give a number of chunks"),
                                    ("streaming", "sometimes", "--streaming sometimes: choose on, reject, ignore"),
                                    ("reasoning_field", "not a field", "--reasoning-field not a field: give a field name")]:
        with pytest.raises(InputError, match=re.escape(message)):
            start_mock_server(**{setting: value})
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(InputError, match=f"cannot listen on 127.0.0.1:{port}: .*pick another --port"):
        start_mock_server(port=port)


def test_the_command_serves_until_interrupted() -> None:
    script = "import typer; from codebench.cli._mock import mock_server_command; typer.run(mock_server_command)"
    with subprocess.Popen([sys.executable, "-c", script, "--port", "0", "--behavior", "wrong"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) as process:  # as a terminal's child
        try:
            assert process.stdout is not None
            url = re.search(r"listening on (\S+)", process.stdout.readline()).group(1)  # type: ignore[union-attr]
            status, _, answer = post(url, {"model": "gpt", "messages": prompt("coloring")})
            assert status == 200 and "one colour for all" in answer["choices"][0]["message"]["content"]
        finally:
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=10)
    assert process.returncode == 130, err  # Ctrl-C ends it as it ends every command
    assert '"POST /v1/chat/completions HTTP/1.1" 200' in err


def events(url: str, body: dict[str, Any]) -> tuple[dict[str, str], list[tuple[float, Any]]]:
    """(headers, [(seconds since the request, decoded event)]) of a streamed POST; `[DONE]` stays a string."""
    request = urllib.request.Request(f"{url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    started, found = time.perf_counter(), []
    with urllib.request.urlopen(request, timeout=30) as response:
        headers = dict(response.headers)
        for line in response:
            if line.startswith(b"data: "):
                data = line[len(b"data: "):].strip().decode()
                found.append((time.perf_counter() - started, data if data == "[DONE]" else json.loads(data)))
            else:
                assert line.strip() == b"", line  # nothing but data lines and the blank lines between events
    return headers, found


def streamed(chunks: list[Any], name: str) -> str:
    return "".join(c["choices"][0]["delta"].get(name) or "" for c in chunks if c.get("choices"))


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_a_streamed_request_is_answered_as_openai_streams(field: str) -> None:
    asked = {"model": THINKER, "messages": prompt("hanoi"), "stream": True, "stream_options": {"include_usage": True}}
    with start_mock_server(think_s=0.3, chunk_interval_s=0.1, reasoning_field=field) as server:
        headers, found = events(server.url, asked)
        assert server.last_request == asked
        status, _, plain = post(server.url, {**asked, "stream": False})
        _, unasked = events(server.url, {**asked, "stream_options": None})
    assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
    *chunks, done = [event for _, event in found]
    assert done == "[DONE]" and all(c["object"] == "chat.completion.chunk" and c["id"] == chunks[0]["id"] for c in chunks)
    *answer, last = chunks
    assert last["choices"] == [] and last["usage"] == plain["usage"]  # usage in a last chunk without choices
    assert answer[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert [c["choices"][0]["finish_reason"] for c in answer] == [None] * (len(answer) - 1) + ["stop"]
    message = plain["choices"][0]["message"]
    assert streamed(answer, "content") == message["content"] and streamed(answer, field) == message[field]
    assert message[field].startswith("Step 1 of 3: ") and plain["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0
    assert [event for _, event in unasked][-2]["choices"][0]["finish_reason"] == "stop"  # no usage chunk unless asked
    thinking = [at for at, event in found if event != "[DONE]" and event["choices"] and event["choices"][0]["delta"].get(field)]
    assert thinking[-1] - thinking[0] >= 0.15  # the reasoning chunks come 0.1 s apart, not at once


@pytest.mark.parametrize(("field", "where"), [(THINK_TAGS, "content"), ("", "nowhere")])
def test_reasoning_can_come_inside_the_content_or_not_at_all(field: str, where: str) -> None:
    asked = {"model": THINKER, "messages": prompt("hanoi"), "stream": True}
    with start_mock_server(think_s=0.2, chunk_interval_s=0.1, reasoning_field=field) as server:
        _, found = events(server.url, asked)
        message = post(server.url, {**asked, "stream": False})[2]["choices"][0]["message"]
    chunks = [event for _, event in found[:-1]]
    assert not any(name in c["choices"][0]["delta"] for c in chunks for name in ("reasoning_content", "reasoning"))
    assert set(message) == {"role", "content"} and streamed(chunks, "content") == message["content"]
    assert message["content"].startswith("<think>Step 1 of 2: ") == (where == "content")
    assert "</think>\n\nHere is a program" in message["content"] or where == "nowhere"
    if where == "nowhere":  # it thinks in silence: nothing is sent until the answer
        assert found[1][0] >= 0.15 and message["content"].startswith("Here is a program")


def test_the_thinker_thinks_longer_on_a_longer_prompt() -> None:
    def steps(server: MockServer, padding: int) -> tuple[int, float]:
        asked = [{"role": "user", "content": "codebench-puzzle: sat\n" + "x" * padding}]
        started = time.perf_counter()
        reasoning = post(server.url, {"model": THINKER, "messages": asked})[2]["choices"][0]["message"]["reasoning_content"]
        return int(re.match(r"Step 1 of (\d+):", reasoning).group(1)), time.perf_counter() - started  # type: ignore[union-attr]

    with start_mock_server(think_s=0.1, think_per_kchar_s=0.2, chunk_interval_s=0.05) as server:
        (short, short_s), (long, long_s) = steps(server, 478), steps(server, 2978)  # 500 and 3000 prompt characters
    assert (short, long) == (4, 14)  # ceil((0.1 + 0.2 * 0.5) / 0.05), ceil((0.1 + 0.2 * 3) / 0.05)
    assert 0.2 <= short_s < long_s and long_s >= 0.7  # a plain answer waits the thinking out too


def test_a_stall_pauses_the_stream_after_its_chunks() -> None:
    with start_mock_server(stall_s=0.6, stall_after=3) as server:
        _, found = events(server.url, {"model": "oracle", "messages": prompt("hanoi"), "stream": True})
    gaps = [later - earlier for (earlier, _), (later, _) in zip(found, found[1:])]
    assert gaps[2] >= 0.55 and max(gaps[:2] + gaps[3:]) < 0.3  # between the 3rd and the 4th chunk only


@pytest.mark.parametrize("streaming", ["reject", "ignore"])
def test_streaming_can_be_refused_or_answered_plainly(streaming: str) -> None:
    with start_mock_server(streaming=streaming) as server:
        status, headers, answer = post(server.url, {"model": "oracle", "messages": prompt("sat"), "stream": True})
    if streaming == "reject":  # as servers that cannot stream answer
        assert status == 400 and answer["error"]["message"] == "streaming is not supported"
    else:
        assert status == 200 and headers["Content-Type"] == "application/json" and answer["object"] == "chat.completion"


def test_the_command_checks_the_streaming_settings(capsys: pytest.CaptureFixture[str]) -> None:
    from .cli import run_cli

    for flag, value in [("--think", "-1"), ("--chunk-interval", "0"), ("--stall-after", "-2"), ("--streaming", "maybe")]:
        code, out, err = run_cli(capsys, "mock-server", "--port", "0", flag, value)
        assert code == 2 and out == "" and err.startswith(f"error: {flag} ") and len(err.strip().splitlines()) == 1, err


def test_every_instruction_reply_is_the_same_in_every_process() -> None:
    """A reply's text keys its answer's execution: a set's order (a string's hash) must not reach it, or two runs of
    one spec store different answers (cryptarithm's `wrong` mapping did)."""
    script = ("import json, puzzles\nfrom codebench.model.mock_behaviors import BEHAVIORS, instruction_reply\n"
              "print(json.dumps([instruction_reply(b, n, puzzles.get_puzzle(n).generate(3, 0).instance, True).text "
              "for n in puzzles.puzzle_names() for b in BEHAVIORS]))")
    replies = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")]
    assert replies[0] == replies[1] == replies[2] and json.loads(replies[0])
