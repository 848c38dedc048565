"""The response cache (`--cache DIR`): a request asked in any earlier run is answered from the cache, free, and counted as
a hit; a reply is reused only for the identical request; the file is shared by processes and survives a crash."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from codebench.keys import request_key, sample_key
from codebench.model.mock_server import MockServer, start_mock_server
from codebench.run.cache import FILE, ReplyCache
from codebench.types import Completion, ReplySource, Sampling

from .cli import run_cli
from .entry_points.refusal import refused

PRICES = ("--price", "oracle=1/2", "--price", "format_retry=3/4")
RUN = ["run", "--model", "oracle,format_retry", "--mode", "instruction", "--puzzles", "hanoi,sudoku", "--levels", "1,4",
       "--instances-per-level", "1", "--samples", "2", *PRICES]


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with start_mock_server() as running:
        yield running


def asked(capsys: pytest.CaptureFixture[str], server: MockServer, *argv: str) -> int:
    """Run `codebench run ARGV` against the mock; the requests it sent to the server."""
    before = server.hits
    code, _, err = run_cli(capsys, *argv, "--base-url", server.url)
    assert code == 0, err
    return server.hits - before


def report(capsys: pytest.CaptureFixture[str], out: Path, fmt: str) -> str:
    code, text, err = run_cli(capsys, "report", str(out), "--format", fmt)
    assert code == 0, err
    return text.replace(str(out), "RUN")


def cost_lines(capsys: pytest.CaptureFixture[str], out: Path) -> list[dict[str, object]]:
    lines = json.loads(report(capsys, out, "json"))["costs"]
    assert lines
    return lines


def stored_sources(out: Path) -> list[object]:
    with closing(sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True)) as db:
        return [json.loads(text) if text else None for (text,) in db.execute("SELECT reply_sources FROM samples ORDER BY key")]


def test_a_second_run_with_the_same_spec_asks_nothing_and_reports_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                          server: MockServer) -> None:
    cache, first, second = tmp_path / "cache", tmp_path / "first", tmp_path / "second"
    # format_retry answers only once reminded: each of its samples is a conversation of two requests
    assert asked(capsys, server, *RUN, "--cache", str(cache), "--out", str(first)) == 8 * 1 + 8 * 2
    assert asked(capsys, server, *RUN, "--cache", str(cache), "--out", str(second)) == 0

    before, after = cost_lines(capsys, first), cost_lines(capsys, second)
    assert [line["cached"] for line in before] == [0] * len(before)
    assert [line["cached"] for line in after] == [line["requests"] for line in after] and after[0]["requests"] == 24
    assert [line["cost"] for line in after] == [0.0] * len(after) and before[0]["cost"] > 0
    kept = ("requests", "prompt_tokens", "completion_tokens", "reasoning_tokens")  # a hit's tokens are shown, not paid
    assert [{k: line[k] for k in kept} for line in after] == [{k: line[k] for k in kept} for line in before]
    # every other section of the report is the same, cell for cell, in JSON and in markdown
    strip = {"costs"}
    assert ({k: v for k, v in json.loads(report(capsys, second, "json")).items() if k not in strip}
            == {k: v for k, v in json.loads(report(capsys, first, "json")).items() if k not in strip})
    assert _without_costs(report(capsys, second, "md")) == _without_costs(report(capsys, first, "md"))
    # the store says which replies came from the cache: every request of every sample of the second run
    assert all(sources is None for sources in stored_sources(first))
    assert all(isinstance(s, list) and [part["reply_source"] for part in s] == ["cache"] for s in stored_sources(second))


def _without_costs(markdown: str) -> str:
    """The markdown report without its cost section (its heading to the next)."""
    head, found, rest = markdown.partition("\n## cost\n")
    assert found, "no cost section"
    return head + rest[rest.index("\n## "):]


def test_no_cache_asks_afresh_though_the_config_names_a_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               server: MockServer) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(f"cache: {tmp_path / 'cache'}\n")
    small = ["run", "--model", "oracle", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
             "--instances-per-level", "1", "--samples", "1", "--config", str(config)]
    assert asked(capsys, server, *small, "--out", str(tmp_path / "a")) == 1
    assert asked(capsys, server, *small, "--out", str(tmp_path / "b")) == 0
    assert asked(capsys, server, *small, "--no-cache", "--out", str(tmp_path / "c")) == 1
    assert [line["cached"] for line in cost_lines(capsys, tmp_path / "c")] == [0] * 4


@pytest.mark.parametrize(("change", "expected"), [
    (["--temperature", "0.5"], 2), (["--seed", "1"], 2), (["--max-tokens", "100000"], 2),
    (["--samples", "2"], 2),  # sample 0's two requests are found, sample 1's are new
    (["--model", "twin"], 1),  # the mock answers a name it does not know as its default, oracle: at once
    (["--format-retries", "1"], 0)])  # not part of any request: the same two are found
def test_a_reply_is_reused_only_for_the_identical_request(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         server: MockServer, change: list[str], expected: int) -> None:
    """A field that can change a reply keys it: the sampling, its seed (Hanoi's level 1 is one instance whatever the seed:
    the prompt is the same), the sample index, the model."""
    base = ["run", "--model", "format_retry", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
            "--instances-per-level", "1", "--samples", "1", "--cache", str(tmp_path / "cache")]
    assert asked(capsys, server, *base, "--out", str(tmp_path / "a")) == 2
    assert asked(capsys, server, *base, *change, "--out", str(tmp_path / "b")) == expected


def test_the_key_holds_the_endpoint_the_served_name_and_the_request_fields() -> None:
    sampling = Sampling(0.7, None, 0)
    keys = {sample_key("m", "http://a/v1", "p", sampling, 0),
            sample_key("m", "http://b/v1", "p", sampling, 0),
            sample_key("m", "http://a/v1", "p", sampling, 0, served="other"),
            sample_key("m", "http://a/v1", "p", sampling, 0, request={"reasoning_effort": "high"}),
            sample_key("m", "http://a/v1", "p", sampling, 1)}
    assert len(keys) == 5
    messages = [{"role": "user", "content": "p"}]
    longer = [*messages, {"role": "assistant", "content": "r"}, {"role": "user", "content": "again"}]
    assert len({request_key(key, conversation, seed) for key in keys for conversation in (messages, longer)
                for seed in (0, 1)}) == 5 * 2 * 2


def test_an_api_error_is_never_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str], server: MockServer) -> None:
    base = ["run", "--model", "malformed", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
            "--instances-per-level", "1", "--samples", "1", "--max-retries", "0", "--cache", str(tmp_path / "cache")]
    for out in ("a", "b"):
        before = server.hits
        code, _, err = run_cli(capsys, *base, "--base-url", server.url, "--out", str(tmp_path / out))
        assert code == 5 and server.hits == before + 1, err  # api_error: the run is partial, and asked again
    with closing(sqlite3.connect(tmp_path / "cache" / FILE)) as db:
        assert db.execute("SELECT COUNT(*) FROM replies").fetchone() == (0,)


def test_instruction_games_replay_from_the_cache_under_one_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   server: MockServer) -> None:
    secret = tmp_path / "secret"
    secret.write_text("0123456789abcdef0123")
    base = ["run", "--model", "format_retry", "--mode", "instruction", "--games", "cardnim", "--opponents", "ref",
            "--levels", "1", "--instances-per-level", "2", "--samples", "1", "--game-secret-file", str(secret),
            "--cache", str(tmp_path / "cache"), "--price", "format_retry=1/1"]
    assert asked(capsys, server, *base, "--out", str(tmp_path / "a")) > 0
    assert asked(capsys, server, *base, "--out", str(tmp_path / "b")) == 0
    games_a, games_b = (json.loads(report(capsys, tmp_path / out, "json"))["games"] for out in ("a", "b"))
    assert games_a == games_b and games_a
    first, second = (cost_lines(capsys, tmp_path / out)[0] for out in ("a", "b"))
    assert second["cached"] == second["requests"] == first["requests"] > 0 and second["cost"] == 0.0 < first["cost"]
    assert second["prompt_tokens"] == first["prompt_tokens"]


def test_a_damaged_entry_is_a_miss_and_another_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = ReplyCache(tmp_path)
    reply = Completion("answer", "stop", False, 3, 4, 0.5, "m", None, notes=("a note",))
    cache.put("k", reply)
    cache.put("e", Completion("", None, False, None, None, 0.0, None, "HTTP 400: no"))
    assert cache.get("k") == Completion("answer", "stop", False, 3, 4, 0.5, "m", None, notes=("a note",),
                                        reply_source=ReplySource.CACHE)
    assert cache.get("e") is None
    cache.db.execute("UPDATE replies SET reply = ? WHERE key = 'k'", ('{"text": 5}',))
    assert cache.get("k") is None
    cache.close()
    other = tmp_path / "other"
    other.mkdir()
    with closing(sqlite3.connect(other / FILE)) as db:
        db.execute("CREATE TABLE t (x)")
    refused(capsys, "run", "--model", "m", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
            "--base-url", "http://127.0.0.1:9/v1", "--cache", str(other), "--out", str(tmp_path / "out"),
            contains=f"cannot use {other / FILE} as a response cache (it is not a codebench response cache")


WRITER = """
import sys, time
from pathlib import Path
from codebench.run.cache import ReplyCache
from codebench.types import Completion
cache = ReplyCache(Path(sys.argv[1]))
print("open", flush=True)
for index in range(int(sys.argv[3])):
    cache.put(f"{sys.argv[2]}-{index}", Completion("x" * 2000, "stop", False, 1, 2, 0.1, None, None))
"""


def _writer(folder: Path, name: str, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(folder), name, str(count)], stdout=subprocess.PIPE, text=True,
                            env=env)


def test_processes_share_the_cache_and_a_killed_writer_leaves_whole_records(tmp_path: Path) -> None:
    writers = [_writer(tmp_path, name, 300) for name in ("a", "b")]
    for writer in writers:
        writer.communicate(timeout=120)
        assert writer.returncode == 0
    killed = _writer(tmp_path, "k", 10**6)
    assert killed.stdout is not None and killed.stdout.readline().strip() == "open"
    time.sleep(0.5)
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=60)
    killed.stdout.close()
    cache = ReplyCache(tmp_path)
    assert cache.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    keys = [key for (key,) in cache.db.execute("SELECT key FROM replies")]
    assert sum(key.startswith(("a-", "b-")) for key in keys) == 600 and any(key.startswith("k-") for key in keys)
    assert all(cache.get(key) is not None for key in keys)
    cache.close()


def test_a_cached_reply_costs_nothing_and_counts_toward_no_budget() -> None:
    from codebench.analysis.usage import cost_lines
    from codebench.costs import Price, spent, total_usage
    from codebench.types import SampleUsage

    paid = SampleUsage("m", "code", "hanoi", 1_000_000, 1_000_000, 0)
    free = SampleUsage("m", "code", "hanoi", 2_000_000, 3_000_000, 0, requests=2, reply_source=ReplySource.CACHE)
    prices = {"m": Price(1.0, 2.0)}
    assert spent([paid, free], prices).cost == 3.0 and spent([paid, free], prices).prompt_tokens == 3_000_000
    assert total_usage([paid, free], prices) == (2_000_000, 3.0)
    run = cost_lines([paid, free], prices)[0]
    assert (run.requests, run.cached, run.prompt_tokens, run.completion_tokens, run.cost) == (3, 2, 3_000_000, 4_000_000, 3.0)
