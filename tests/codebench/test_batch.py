"""Batch mode (`--batch`): a run's requests go through the Batch API (the mock's files and batches), a round at a time;
a run killed while its batch is pending polls that batch when re-run, submitting no request twice, and ends with the
rows a plain run has; batch requests are priced at their own rate."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import openai
import pytest

import codebench
from codebench.model.client import BatchState, ModelClient
from codebench.model.mock_server import MockServer, start_mock_server
from codebench.model.presets import resolve_endpoint

from .cli import run_cli
from .entry_points.refusal import refused

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTION = ["run", "--model", "oracle,format_retry,malformed,empty", "--mode", "instruction", "--puzzles", "hanoi,sudoku",
               "--levels", "1,4", "--instances-per-level", "1", "--samples", "2", "--max-retries", "0"]


def rows(out: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The run's executions and samples as `codebench.load_run` reads them: who, where, and what became of it."""
    run = codebench.load_run(out)
    executions = sorted((r.model, r.mode, r.puzzle, r.instance_id, r.sample, r.status, r.detail, r.not_counted)
                        for r in run.executions)
    samples = sorted((s.model, s.mode, s.puzzle, s.instance_id or "", s.sample, s.read_status or "", s.error or "",
                      s.response or "", s.format_retries) for s in run.samples)
    return executions, samples


def submitted(server: MockServer) -> list[list[str]]:
    """The request keys (custom_ids) of every batch the mock was given, oldest first, read through its own API."""
    client = openai.OpenAI(api_key="none", base_url=server.url)
    keys = []
    for batch in sorted(client.batches.list(limit=100).data, key=lambda batch: batch.id.rsplit("_", 1)[1].zfill(6)):
        text = client.files.content(batch.input_file_id).text
        keys.append([json.loads(line)["custom_id"] for line in text.splitlines()])
    client.close()
    return keys


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "codebench", *argv]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}


def test_a_batch_run_killed_while_its_batch_is_pending_polls_it_again_and_ends_as_a_plain_run(tmp_path: Path) -> None:
    with start_mock_server(batch_delay_s=6.0) as server:
        argv = [*INSTRUCTION, "--base-url", server.url, "--batch", "--out", str(tmp_path / "batch")]
        log = tmp_path / "stderr"
        with log.open("w") as err:
            running = subprocess.Popen(command(*argv), stdout=subprocess.DEVNULL, stderr=err, env=env())
            deadline = time.monotonic() + 60
            while log.read_text().count("submitted") < 4:  # round one: a batch per model, each stored as it was created
                assert running.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
            running.send_signal(signal.SIGKILL)
            running.wait(timeout=60)
        assert server.batches_created == 4 and server.hits == 0

        again = subprocess.run(command(*argv), capture_output=True, text=True, env=env(), timeout=120)
        assert again.returncode == 5, again.stderr[-3000:]  # malformed and empty: api_error, as in a plain run
        assert again.stderr.count("polling batch") == 4 and server.hits == 0
        # round two: format_retry's reminders, in one new batch; no request was ever in two batches
        batches = submitted(server)
        assert server.batches_created == len(batches) == 5
        keys = [key for batch in batches for key in batch]
        assert len(keys) == len(set(keys)) == 4 * 8 + 8

        plain = subprocess.run(command(*INSTRUCTION, "--base-url", server.url, "--out", str(tmp_path / "plain")),
                               capture_output=True, text=True, env=env(), timeout=120)
        assert plain.returncode == 5, plain.stderr[-3000:]
    assert rows(tmp_path / "batch") == rows(tmp_path / "plain")
    executions, samples = rows(tmp_path / "batch")
    assert {row[5] for row in executions} == {"legal", "api_error"} and any(row[-1] == 1 for row in samples)
    errors = {row[0]: row[6] for row in samples if row[6]}  # the client's own words on a bad reply, batch or not
    assert errors == {"malformed": "malformed response: no choices",
                      "empty": "empty response: the message has no text content (finish_reason stop)"}


def test_a_batch_that_ended_without_replies_has_its_requests_submitted_again(tmp_path: Path,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server(batch_delay_s=3.0) as server:
        argv = ["run", "--model", "oracle", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1,4",
                "--instances-per-level", "1", "--samples", "1", "--base-url", server.url, "--batch", "--out", str(tmp_path)]
        running = subprocess.Popen(command(*argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env())
        deadline = time.monotonic() + 60
        while server.batches_created < 1:
            assert running.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # its id stored
        running.send_signal(signal.SIGKILL)
        running.wait(timeout=60)
        client = openai.OpenAI(api_key="none", base_url=server.url)
        client.batches.cancel(client.batches.list().data[0].id)
        client.close()
        code, _, err = run_cli(capsys, *argv)
        assert code == 0 and "cancelled" in err, err
        first, second = submitted(server)
        assert first == second  # the cancelled batch's requests, asked again in a new one
    assert {row[5] for row in rows(tmp_path)[0]} == {"legal"}


def test_code_mode_batches_the_programs_and_the_strategies(tmp_path: Path) -> None:
    secret = tmp_path / "secret"  # the same setups in both runs
    secret.write_text("0123456789abcdef0123")
    common = ["run", "--model", "oracle,wrong", "--mode", "code", "--puzzles", "hanoi,waterjug", "--levels", "1,2",
              "--instances-per-level", "1", "--samples", "2", "--games", "cardnim", "--opponents", "ref",
              "--game-secret-file", str(secret), "--backend", "local", "--workers", "2"]
    with start_mock_server(batch_delay_s=0.2) as server:
        batch = subprocess.run(command(*common, "--base-url", server.url, "--batch", "--out", str(tmp_path / "batch")),
                               capture_output=True, text=True, env=env(), timeout=600)
        assert batch.returncode == 0, batch.stderr[-3000:]
        assert server.hits == 0 and server.batches_created == 2  # one round: each model's programs and strategies
        assert [len(keys) for keys in submitted(server)] == [2 * 2 + 2] * 2
        plain = subprocess.run(command(*common, "--base-url", server.url, "--out", str(tmp_path / "plain")),
                               capture_output=True, text=True, env=env(), timeout=600)
        assert plain.returncode == 0, plain.stderr[-3000:]
    assert rows(tmp_path / "batch") == rows(tmp_path / "plain")
    games = [codebench.load_run(tmp_path / out).games for out in ("batch", "plain")]
    assert [(g.key, g.statuses, g.scores) for g in games[0]] == [(g.key, g.statuses, g.scores) for g in games[1]]


def test_batch_requests_are_priced_at_the_batch_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server(batch_delay_s=0.0) as server:
        code, _, err = run_cli(capsys, "run", "--model", "oracle", "--mode", "instruction", "--puzzles", "hanoi", "--levels",
                               "1,4", "--instances-per-level", "1", "--samples", "1", "--base-url", server.url, "--batch",
                               "--price", "oracle=2/8/1/4", "--out", str(tmp_path))
    assert code == 0, err
    code, out, err = run_cli(capsys, "report", str(tmp_path), "--format", "json", "--section", "cost")
    run = json.loads(out)["records"][0]
    assert run["requests"] == run["batched"] == 2 and run["cached"] == 0
    assert run["cost"] == pytest.approx((run["prompt_tokens"] * 1 + run["completion_tokens"] * 4) / 1e6)
    code, out, err = run_cli(capsys, "report", str(tmp_path), "--format", "json", "--section", "cost", "--price", "oracle=2/8")
    assert json.loads(out)["records"][0]["cost"] is None  # a price without a batch rate: no cost assumed


class _NoBatchAPI(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self._not_found()

    def do_POST(self) -> None:
        self._not_found()

    def _not_found(self) -> None:
        body = b'{"error": {"message": "no such route", "type": "invalid_request_error"}}'
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def no_batch_api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NoBatchAPI)
    thread = Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_what_batch_mode_cannot_do_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     no_batch_api: str) -> None:
    base = ["run", "--model", "m", "--base-url", no_batch_api, "--batch", "--out", str(tmp_path / "out")]
    refused(capsys, *base, "--mode", "instruction", "--games", "cardnim",
            contains="--batch: instruction-mode games are played a request per move")
    refused(capsys, *base, "--mode", "instruction", "--puzzles", "hanoi", "--price", "m=1/2",
            contains="--batch: the price of m has no batch rate: give --price m=INPUT/OUTPUT/BATCH_INPUT/BATCH_OUTPUT")
    code, _, err = run_cli(capsys, *base, "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
                           "--instances-per-level", "1", "--samples", "1")
    last = err.strip().splitlines()[-1]
    assert code == 3 and last.startswith("error: ") and f"{no_batch_api} has no Batch API (GET /batches answered HTTP 404" in last
    assert "Traceback" not in err and "drop --batch" in last


def test_the_mock_answers_a_batch_as_it_answers_each_request_and_fails_a_bad_file() -> None:
    with start_mock_server(batch_delay_s=0.3) as server:
        client = openai.OpenAI(api_key="none", base_url=server.url, max_retries=0)
        body = {"model": "oracle", "messages": [{"role": "user", "content": "codebench-puzzle: hanoi"}], "seed": 1}
        lines = [{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": body},
                 {"custom_id": "b", "method": "POST", "url": "/v1/chat/completions", "body": {**body, "n": 2}}]
        uploaded = client.files.create(file=("in.jsonl", "".join(json.dumps(line) + "\n" for line in lines).encode()),
                                       purpose="batch")
        batch = client.batches.create(input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h")
        assert batch.status == "in_progress" and client.batches.retrieve(batch.id).status == "in_progress"
        time.sleep(0.4)
        done = client.batches.retrieve(batch.id)
        assert done.status == "completed" and done.request_counts and done.request_counts.total == 2
        replies = [json.loads(line) for line in client.files.content(str(done.output_file_id)).text.splitlines()]
        errors = [json.loads(line) for line in client.files.content(str(done.error_file_id)).text.splitlines()]
        reply = client.chat.completions.create(model="oracle", messages=body["messages"], seed=1)  # the same request, alone
        assert [(r["custom_id"], r["response"]["body"]["choices"][0]["message"]["content"]) for r in replies] == [
            ("a", reply.choices[0].message.content)]
        with pytest.raises(openai.BadRequestError) as refusal:
            client.chat.completions.create(model="oracle", messages=body["messages"], seed=1, n=2)
        assert [(e["custom_id"], e["response"]["status_code"], e["response"]["body"]["error"]["message"]) for e in errors] == [
            ("b", 400, refusal.value.body["message"])] and refusal.value.body["message"] == "the mock answers n=1 only"  # type: ignore[index]
        twice = client.files.create(file=("in.jsonl", (json.dumps(lines[0]) + "\n") * 2), purpose="batch")
        failed = client.batches.create(input_file_id=twice.id, endpoint="/v1/chat/completions", completion_window="24h")
        assert failed.status == "failed" and failed.errors and "not unique" in str(failed.errors.data[0].message)
        client.close()
        assert server.batches_created == 2 and server.hits == 2
        with urllib.request.urlopen(server.url.removesuffix("/v1") + "/mock/stats") as answer:
            assert json.load(answer) == {"chat_completions": 2, "batches_created": 2, "files": 2 + 2}  # in, out, errors, in


def test_a_batch_reply_is_made_sane_as_a_direct_reply_is() -> None:
    """The client reads a batch's lines through the same `_Reply` as a direct reply: a lone surrogate becomes U+FFFD, a
    count that is no count is unknown, each change noted; a line without a key is skipped, an error line is an error."""

    body = {"id": "x", "object": "chat.completion", "model": "m", "usage": {"prompt_tokens": -3, "completion_tokens": 7},
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "a\ud800b"}}]}
    lines = [json.dumps({"custom_id": "ok", "response": {"status_code": 200, "body": body}}),
             json.dumps({"custom_id": "refused", "response": {"status_code": 400, "body": {"error": {"message": "no \x1b[2J"}}}}),
             json.dumps({"response": {"status_code": 200, "body": body}}), "not json", "[" * 100_000]
    with start_mock_server() as server:
        uploaded = openai.OpenAI(api_key="none", base_url=server.url).files.create(
            file=("out.jsonl", "\n".join(lines).encode()), purpose="batch")

        async def read() -> dict[str, Any]:
            client = ModelClient(resolve_endpoint("m", server.url, None, None))
            try:
                return await client.batch_replies(BatchState("b", "completed", uploaded.id, None, 2, 2, ""))
            finally:
                await client.aclose()

        replies = asyncio.run(read())
    assert set(replies) == {"ok", "refused"}
    ok = replies["ok"]
    assert (ok.text, ok.prompt_tokens, ok.completion_tokens, ok.error, ok.reply_source) == ("a\ufffdb", None, 7, None, "batch")
    assert any("surrogate" in note for note in ok.notes) and any("prompt_tokens -3" in note for note in ok.notes)
    assert replies["refused"].error == "the batch answered this request with HTTP 400: no \\x1b[2J"
