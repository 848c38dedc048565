"""Streamed requests: long replies that arrive whole, the idle timeout and the deadline, streams cut off mid-answer,
servers that refuse streaming, odd chunks, and each preset's request shape and reasoning field. The client through
real HTTP (the real `openai` SDK) against the mock server or a scripted one, and `codebench run` end to end."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from codebench.errors import ModelConfigError
from codebench.model import client as client_module
from codebench.model.client import DEFAULT_PATIENCE, REASONING_FIELDS, ModelClient
from codebench.model.mock_server import THINKER, start_mock_server
from codebench.model.presets import PRESETS, THINK_TAGS, Endpoint, Patience, Preset, resolve_endpoint
from codebench.oracles import oracle_source
from codebench.run.options import spec_from_options
from codebench.run.store import Store
from codebench.types import Completion

from .cli import run_cli
from .hostile_server import QuietServer, serving

PROMPT = "codebench-puzzle: hanoi\nWrite solve(instance)."
MESSAGES = [{"role": "user", "content": PROMPT}]
ORACLE_REPLY = f"Here is a program that solves any hanoi instance.\n\n```python\n{oracle_source('hanoi')}```\n"
STEP = re.compile(r"Step (\d+) of (\d+): checking the rules once more\.\n")


def ask(url: str, model: str = THINKER, *, patience: Patience = DEFAULT_PATIENCE, seeds: tuple[int, ...] = (0,),
        notes: list[str] | None = None, max_tokens: int | None = None, **endpoint: Any) -> tuple[list[Completion], float]:
    """The completions of one request per seed (all at once), and the seconds they took."""
    async def go() -> list[Completion]:
        client = ModelClient(Endpoint(model, url, "k", **endpoint), patience=patience,
                             on_note=None if notes is None else notes.append)
        try:
            return list(await asyncio.gather(*(client.complete(MESSAGES, temperature=0.0, max_tokens=max_tokens, seed=seed)
                                               for seed in seeds)))
        finally:
            await client.aclose()

    started = time.perf_counter()
    done = asyncio.run(go())
    return done, time.perf_counter() - started


def steps(reasoning: str | None) -> list[tuple[int, int]]:
    return [(int(k), int(n)) for k, n in STEP.findall(reasoning or "")]


def test_a_reply_that_streams_for_ten_seconds_arrives_whole_under_a_two_second_idle_timeout() -> None:
    with start_mock_server(think_s=10.0, chunk_interval_s=0.5) as server:
        [completion], elapsed = ask(server.url, patience=Patience(idle_timeout=2.0, max_retries=0))
        assert server.hits == 1
    assert completion.error is None and elapsed >= 10.0 and completion.latency_s >= 10.0
    assert steps(completion.reasoning) == [(k, 20) for k in range(1, 21)] and completion.text == ORACLE_REPLY
    assert (completion.finish_reason, completion.truncated, completion.server_model) == ("stop", False, THINKER)
    thought = (len(completion.reasoning or "") + 3) // 4  # the usage of the last chunk, as the mock counts
    assert (completion.prompt_tokens, completion.reasoning_tokens) == ((len(PROMPT) + 3) // 4, thought)
    assert completion.completion_tokens == (len(ORACLE_REPLY) + 3) // 4 + thought


@pytest.mark.parametrize(("model", "max_tokens"), [("oracle", None), ("oracle", 10), (THINKER, None), ("no_code", None),
                                                   ("malformed", None), ("empty", None), ("not_json", None)])
def test_a_streamed_reply_makes_the_very_completion_a_plain_one_does(model: str, max_tokens: int | None) -> None:
    with start_mock_server(think_s=0.2, chunk_interval_s=0.1) as streams, \
            start_mock_server(think_s=0.2, chunk_interval_s=0.1, streaming="ignore") as plain:
        [streamed], _ = ask(streams.url, model, max_tokens=max_tokens)
        [answered], _ = ask(plain.url, model, max_tokens=max_tokens)
        assert streams.last_request is not None and streams.last_request["stream"] is True
        assert plain.last_request is not None and ("stream" in plain.last_request) == (model == "not_json")  # re-asked
        # plainly after its JSON body; an HTML page is no JSON body: a malformed reply, not a server that cannot stream
    assert replace(streamed, latency_s=0.0) == replace(answered, latency_s=0.0)


def test_a_stall_longer_than_the_idle_timeout_cuts_the_stream_off_and_keeps_what_arrived() -> None:
    with start_mock_server(think_s=10.0, chunk_interval_s=0.5, stall_s=3.0, stall_after=4) as server:
        [completion], elapsed = ask(server.url, patience=Patience(idle_timeout=2.0, max_retries=0))
    assert 3.0 <= elapsed < 5.0  # three chunks 0.5 s apart, then 2 s of silence
    assert steps(completion.reasoning) == [(1, 20), (2, 20), (3, 20)] and completion.text == ""
    received = len(completion.reasoning or "")
    assert completion.error == f"stream cut off after {received} characters: no byte for 2 s (idle timeout)"
    assert completion.finish_reason is None and not completion.truncated


def test_a_cut_off_attempt_is_retried_and_the_last_one_is_reported() -> None:
    with start_mock_server(think_s=0.3, chunk_interval_s=0.1, stall_s=1.0, stall_after=2) as server:
        [completion], _ = ask(server.url, patience=Patience(idle_timeout=0.3, max_retries=2))
        assert server.hits == 3
    assert completion.error is not None and re.fullmatch(
        r"stream cut off after \d+ characters: no byte for 0\.3 s \(idle timeout\) after 3 attempts", completion.error)


def test_a_deadline_shorter_than_the_reply_is_honoured() -> None:
    with start_mock_server(think_s=10.0, chunk_interval_s=0.5) as server:
        [completion], elapsed = ask(server.url, patience=Patience(idle_timeout=2.0, request_timeout=1.5, max_retries=0))
    assert 1.5 <= elapsed < 2.5 and 1.5 <= completion.latency_s < 2.5  # the deadline, not the 10 s of the reply
    assert completion.error == f"stream cut off after {len(completion.reasoning or '')} characters: the 1.5 s deadline " \
                               "passed (request timeout)"
    assert len(steps(completion.reasoning)) in (2, 3)
    with start_mock_server(latency_s=5.0) as silent:  # nothing at all before the deadline, on every attempt
        [completion], elapsed = ask(silent.url, "oracle", patience=Patience(request_timeout=0.4, max_retries=1))
        assert silent.hits == 2
    assert completion == Completion("", None, False, None, None, 0.0, None,
                                    "the 0.4 s deadline passed (request timeout) after 2 attempts")
    assert elapsed < 2.0


@pytest.mark.parametrize(("streaming", "why"), [("reject", "refused streaming"),
                                                ("ignore", "answered a streamed request with a JSON body")])
def test_a_server_that_does_not_stream_is_asked_plainly_and_the_run_is_told_once(streaming: str, why: str) -> None:
    notes: list[str] = []
    with start_mock_server(streaming=streaming) as server:
        first, _ = ask(server.url, "oracle", seeds=(0, 1, 2), notes=notes)  # at once: each may find out for itself
        asked = server.hits
        later, _ = ask(server.url, "oracle", seeds=(3,), notes=notes)  # a new client finds out anew, and says so anew
        assert server.hits == asked + 2 and server.last_request is not None and "stream" not in server.last_request
    assert all(c.error is None and c.text == ORACLE_REPLY for c in [*first, *later])
    assert 3 < asked <= 6  # each refused at most once, then answered plainly
    note = (f"note: {server.url} {why}; its requests go unstreamed (the idle timeout then covers the whole reply)")
    assert notes == [note, note]  # one per client: the CLI prints each endpoint's line once


class Scripted(BaseHTTPRequestHandler):
    """Answers every POST with the server's `events` (JSON values, "[DONE]", or bytes sent as they are) as a chunked
    event stream; `complete=False` drops the connection before the end."""

    protocol_version = "HTTP/1.1"
    server: Any

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in self.server.events:
            data = event if isinstance(event, bytes) else f"data: {event if event == '[DONE]' else json.dumps(event)}\n\n".encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        if self.server.complete:
            self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def scripted(events: list[Any], *, complete: bool = True) -> Iterator[str]:
    server = QuietServer(("127.0.0.1", 0), Scripted)
    server.events, server.complete = events, complete  # type: ignore[attr-defined]
    with serving(server) as url:
        yield url


def delta(**fields: Any) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": fields}]}


def test_unknown_fields_and_odd_types_in_chunks_break_nothing() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 7, "completion_tokens_details": {"reasoning_tokens": 3}}
    events = [
        {**delta(role="assistant", content="", weird={"nested": [1]}), "provider": "elsewhere", "x_trace": [1, 2]},
        {"id": "x", "object": "chat.completion.chunk", "choices": "not a list"},
        {"id": "x", "object": "chat.completion.chunk", "choices": [7]},
        {"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": 5}]},
        delta(content=12), delta(reasoning_content={"not": "text"}), delta(reasoning="thinks "), delta(reasoning_content="hard"),
        delta(content="Hello ", reasoning_details=[{"type": "reasoning.text"}], refusal=None),
        {**delta(content="world"), "model": 42, "usage": "lots"},
        [1, 2, 3], "a JSON string", None, 17, {}, {"choices": None},
        {**delta(), "choices": [{"index": 0, "delta": {}, "finish_reason": 7}]},
        {**delta(), "choices": [{"index": 0, "delta": {}, "finish_reason": "stop", "logprobs": "odd"}]},
        {"id": "x", "object": "chat.completion.chunk", "model": "m", "choices": [], "usage": usage},
        "[DONE]",
    ]
    with scripted(events) as url:
        [completion], _ = ask(url, "m", patience=Patience(max_retries=0))
    assert completion == Completion("Hello world", "stop", False, 5, 7, completion.latency_s, "m", None, "thinks hard", 3)


def test_a_data_line_that_is_not_json_is_a_malformed_reply_that_keeps_what_came_before() -> None:
    with scripted([delta(role="assistant", content="Half"), b"data: {not json\n\n", "[DONE]"]) as url:
        [completion], _ = ask(url, "m", patience=Patience(max_retries=0))
    assert completion.text == "Half" and completion.error is not None and completion.error.startswith(
        "stream cut off after 4 characters: malformed response: JSONDecodeError: ")


def test_a_stream_without_choices_or_text_is_an_error_as_a_plain_reply_would_be() -> None:
    with scripted([{"id": "x", "object": "chat.completion.chunk", "choices": []}, "[DONE]"]) as url:
        [nothing], _ = ask(url, "m")
    with scripted([delta(role="assistant"), {**delta(), "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]},
                   "[DONE]"]) as url:
        [empty], _ = ask(url, "m")
    assert (nothing.error, nothing.text) == ("malformed response: no choices", "")
    assert (empty.error, empty.truncated) == ("empty response: the message has no text content (finish_reason length)", True)


def test_a_connection_dropped_mid_stream_keeps_the_partial_reply_as_an_error_of_the_sample() -> None:
    with scripted([delta(role="assistant", content=""), delta(reasoning_content="So "), delta(content="the answer is")],
                  complete=False) as url:
        [completion], _ = ask(url, "m", patience=Patience(max_retries=1))
    assert (completion.text, completion.reasoning) == ("the answer is", "So ")
    assert completion.error is not None and completion.error.startswith(
        "stream cut off after 16 characters: the connection dropped (") and completion.error.endswith(") after 2 attempts")


def test_an_error_event_mid_stream_is_a_cut_off_reply() -> None:
    with scripted([delta(role="assistant", content="Part"), {"error": {"message": "provider overloaded", "code": 502}}]) as url:
        [completion], _ = ask(url, "m", patience=Patience(max_retries=0))
    assert completion.text == "Part" and completion.error == "stream cut off after 4 characters: the server sent an error: " \
                                                             "provider overloaded"


PLACES = [(preset, place) for preset in PRESETS.values() for place in preset.reasoning or ("",)]


@pytest.mark.parametrize(("preset", "place"), PLACES, ids=[f"{p.name}-{place or 'none'}" for p, place in PLACES])
def test_each_preset_asks_in_its_shape_and_reads_its_reasoning_back(preset: Preset, place: str) -> None:
    assert place in (THINK_TAGS, "", *REASONING_FIELDS)  # every field a preset names is one the client reads
    with start_mock_server(think_s=0.0, reasoning_field=place) as server:
        [completion], _ = ask(server.url, max_tokens=4000, preset=preset, request={"reasoning_effort": "high"})
        body = server.last_request
    assert body is not None and body[preset.tokens_field] == 4000
    assert not {"max_tokens", "max_completion_tokens"} - {preset.tokens_field} & set(body)
    assert (body["stream"], body["stream_options"], body["n"], body["seed"], body["reasoning_effort"]) == (
        True, {"include_usage": True}, 1, 0, "high")
    assert completion.error is None and completion.text.endswith(ORACLE_REPLY) and completion.reasoning_tokens
    if place in REASONING_FIELDS:
        assert steps(completion.reasoning) == [(1, 1)] and completion.text == ORACLE_REPLY
    elif place == THINK_TAGS:  # kept in the text, as today: the modes read the answer after it
        assert completion.reasoning is None and completion.text.startswith("<think>Step 1 of 1: ")
    else:
        assert completion.reasoning is None and completion.text == ORACLE_REPLY


@pytest.mark.parametrize("preset", [p for p in PRESETS.values() if p.key_env is not None], ids=lambda p: p.name)
def test_a_hosted_preset_reads_its_own_key_variable(preset: Preset, monkeypatch: pytest.MonkeyPatch) -> None:
    assert preset.key_env is not None
    monkeypatch.delenv(preset.key_env, raising=False)
    with pytest.raises(ModelConfigError, match=f"environment variable {preset.key_env} is not set"):
        resolve_endpoint("m", None, None, preset.name)
    monkeypatch.setenv(preset.key_env, "sk-x")
    endpoint = resolve_endpoint("m", None, None, preset.name)
    assert (endpoint.base_url, endpoint.api_key, endpoint.key_env, endpoint.preset) == (preset.base_url, "sk-x", preset.key_env,
                                                                                      preset)


def run_instruction(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, out: Path, *argv: str) -> tuple[int, str]:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # instruction mode runs no program
    code, _, err = run_cli(capsys, "run", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
                           "--instances-per-level", "1", "--samples", "1", "--out", str(out), *argv)
    return code, err


def stored(out: Path) -> tuple[list[str], list[tuple[str, str | None, str | None]]]:
    """(statuses of the report rows, (response, reasoning, error) of each stored sample)."""
    store = Store.for_reading(out / "run.sqlite")
    try:
        statuses = sorted(row.status for row in store.report_rows())
    finally:
        store.close()
    with closing(sqlite3.connect(out / "run.sqlite")) as db:
        samples = db.execute("SELECT response, reasoning, error FROM samples ORDER BY key").fetchall()
    return statuses, samples


def test_a_long_thinker_through_codebench_run_is_stored_whole_and_judged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    with start_mock_server(think_s=3.0, chunk_interval_s=0.25) as server:
        code, err = run_instruction(capsys, monkeypatch, tmp_path / "run", "--base-url", server.url, "--model", THINKER,
                                    "--idle-timeout", "1", "--max-retries", "0")
    assert code == 0, err
    statuses, [(response, reasoning, error)] = stored(tmp_path / "run")
    assert statuses == ["legal"] and error is None
    assert steps(reasoning) == [(k, 12) for k in range(1, 13)] and response is not None and response.rstrip().endswith("```")


def test_a_stalled_stream_through_codebench_run_is_an_api_error_with_its_partial_reply(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # events: the role, 2 paced thinking steps, 2 pieces of the reasoning, then the text in 64-character pieces
    with start_mock_server(think_s=0.5, chunk_interval_s=0.25, stall_s=2.0, stall_after=6) as server:
        code, err = run_instruction(capsys, monkeypatch, tmp_path / "run", "--base-url", server.url, "--model", THINKER,
                                    "--idle-timeout", "0.5", "--max-retries", "0")
    assert code == 5 and "the run is partial" in err, err  # it ended with an unresolved result
    statuses, [(response, reasoning, error)] = stored(tmp_path / "run")
    assert statuses == ["api_error"] and response is not None and len(response) == 64  # the first piece of the answer
    assert response.startswith("```json\n{\"moves\": [[1, ") and "```" not in response[3:]  # its block never closed
    assert steps(reasoning) == [(1, 2), (2, 2)] and reasoning is not None and reasoning.endswith("checking each rule, gives this answer.")
    assert error == f"stream cut off after {64 + len(reasoning)} characters: no byte for 0.5 s (idle timeout)"


def test_a_refused_stream_is_noted_once_per_endpoint_in_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with start_mock_server(streaming="reject") as server:
        config = tmp_path / "run.yaml"
        config.write_text(f"base_url: {server.url}\nmodels: [oracle, {{name: oracle, label: again}}, reasoning]\n")
        code, err = run_instruction(capsys, monkeypatch, tmp_path / "run", "--config", str(config), "--samples", "3")
    assert code == 0, err
    assert err.count("refused streaming") == 1 and f"note: {server.url} refused streaming; its requests go unstreamed" in err
    statuses, _ = stored(tmp_path / "run")
    assert statuses == ["legal"] * 9


def test_the_timeout_options_reach_each_models_client(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    made: dict[str, Patience] = {}

    class Recorded(ModelClient):
        def __init__(self, endpoint: Endpoint, *, patience: Patience = DEFAULT_PATIENCE, **options: Any) -> None:
            made[endpoint.model] = patience
            super().__init__(endpoint, patience=patience, **options)

    monkeypatch.setattr(client_module, "ModelClient", Recorded)
    with start_mock_server() as server:
        config = tmp_path / "run.yaml"
        config.write_text(f"base_url: {server.url}\nidle_timeout: 30\nmax_retries: 1\nmodels:\n  - oracle\n"
                          "  - {name: reasoning, idle_timeout: 7, request_timeout: 0, max_retries: 0}\n")
        code, err = run_instruction(capsys, monkeypatch, tmp_path / "run", "--config", str(config), "--request-timeout", "9",
                                    "--max-retries", "2")
    assert code == 0, err
    assert made == {"oracle": Patience(idle_timeout=30.0, request_timeout=9.0, max_retries=2),  # config, flags over it
                    "reasoning": Patience(idle_timeout=7.0, request_timeout=None, max_retries=0)}  # its entry's own win


def test_the_defaults_let_a_thirty_minute_generation_finish_and_a_deadline_can_be_switched_off() -> None:
    spec = spec_from_options({"model": "m", "base_url": "http://h/v1"}, {})
    patience = spec.patience(spec.model_specs[0])
    assert patience == DEFAULT_PATIENCE and patience.idle_timeout >= 600 and (patience.request_timeout or 0) >= 1800
    off = spec_from_options({"model": "m", "base_url": "http://h/v1", "request_timeout": 0.0}, {})
    assert off.patience(off.model_specs[0]).request_timeout is None


@pytest.mark.parametrize(("argv", "config", "wrong"), [
    (("--idle-timeout", "0"), "", "--idle-timeout 0: give a number above 0, at most 86400"),
    (("--idle-timeout", "-5"), "", "--idle-timeout -5: give a number above 0"),
    (("--idle-timeout", "nan"), "", "--idle-timeout nan: give a number above 0"),
    (("--request-timeout", "-1"), "", "--request-timeout -1: give a number from 0 to 86400"),
    (("--request-timeout", "100000"), "", "--request-timeout 100000: give a number from 0 to 86400"),
    (("--max-retries", "-1"), "", "--max-retries -1: give a whole number from 0 to 20"),
    (("--max-retries", "21"), "", "--max-retries 21: give a whole number from 0 to 20"),
    ((), "idle_timeout: soon\n", "idle_timeout (in {config}) 'soon': give a number above 0"),
    ((), "max_retries: 2.5\n", "max_retries (in {config}) 2.5: give a whole number from 0 to 20"),
    ((), "models: [{name: m, idle_timeout: 0}]\n", "models entry 1 (m) in {config}: idle_timeout 0: give a number above 0"),
    ((), "models: [{name: m, request_timeout: -1}]\n", "models entry 1 (m) in {config}: request_timeout -1: give a number"),
    ((), "models: [{name: m, max_retries: 99}]\n", "models entry 1 (m) in {config}: max_retries 99: give a whole number from 0 to 20"),
])
def test_bad_timeout_options_exit_2_with_one_error_line(argv: tuple[str, ...], config: str, wrong: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run.yaml").write_text(config or "{}\n")
    model: tuple[str, ...] = () if "models" in config else ("--model", "m")
    code, out, err = run_cli(capsys, "run", "--dry-run", "--base-url", "http://127.0.0.1:9/v1", "--config",
                             str(tmp_path / "run.yaml"), "--out", str(tmp_path / "run"), *model, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"error: {wrong.format(config=tmp_path / 'run.yaml')}"), err

