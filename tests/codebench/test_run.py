"""`codebench run` end to end: real HTTP with the real openai client against the mock server, Docker sandbox."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import docker
import pytest

from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store

from .cli import kill_midway, run_cli, run_command, stored_count

pytestmark = pytest.mark.docker
SMALL = ["--levels", "1", "--instances-per-level", "1", "--samples", "1", "--cpu", "1"]


def rows(out: Path) -> list[tuple[str, str, str, int, str, int, str]]:
    store = Store.for_reading(out / "run.sqlite")
    try:
        return sorted((r.model, r.mode, r.puzzle, r.level, r.instance_id, r.sample, r.status) for r in store.report_rows())
    finally:
        store.close()


def report_json(capsys: pytest.CaptureFixture[str], out: Path) -> dict:
    code, text, _ = run_cli(capsys, "report", str(out), "--format", "json")
    assert code == 0
    return json.loads(text)


def test_every_status_appears_where_expected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server() as server:
        models = "oracle,wrong,syntax_error,timeout,crash,no_code"
        code, _, _ = run_cli(capsys, "run", "--base-url", server.url, "--model", models, "--puzzles", "hanoi,sudoku",
                             *SMALL, "--out", str(tmp_path))
    assert code == 0
    statuses = {(model, puzzle): status for model, _, puzzle, _, _, _, status in rows(tmp_path)}
    expected = {"oracle": "legal", "wrong": "rule_violation", "syntax_error": "syntax_error", "timeout": "timeout",
                "crash": "runtime_error", "no_code": "no_code"}
    assert statuses == {(model, puzzle): status for model, status in expected.items() for puzzle in ("hanoi", "sudoku")}


def test_slow_programs_collapse_at_high_levels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server() as server:
        code, _, _ = run_cli(capsys, "run", "--base-url", server.url, "--model", "slow", "--puzzles", "sudoku", "--levels", "1,6",
                             "--instances-per-level", "2", "--samples", "1", "--cpu", "1", "--out", str(tmp_path))
    assert code == 0
    assert {(level, status) for _, _, _, level, _, _, status in rows(tmp_path)} == {(1, "legal"), (6, "timeout")}
    threshold = report_json(capsys, tmp_path)["thresholds"][0]
    assert 9 < threshold["lambda_star"] < 64  # between the mean empties of L1 and L6


def test_pass_at_k_in_the_report_is_the_unbiased_estimate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server(seed=3) as server:
        code, _, _ = run_cli(capsys, "run", "--base-url", server.url, "--model", "mixed", "--puzzles", "waterjug",
                             "--levels", "1", "--instances-per-level", "1", "--samples", "6", "--cpu", "1", "--out", str(tmp_path))
    assert code == 0
    statuses = [status for *_, status in rows(tmp_path)]
    n, c = len(statuses), statuses.count("legal")
    assert n == 6 and 0 < c < 6  # the seeded mix gives some legal and some failing programs
    cell = report_json(capsys, tmp_path)["cells"][0]
    assert cell["pass_at"]["1"] == pytest.approx(c / n)
    assert cell["pass_at"]["2"] == pytest.approx(1 - math.comb(n - c, 2) / math.comb(n, 2))
    assert cell["oracle_best_of_n"] == 1.0


def test_429_and_500_are_retried_and_the_run_completes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server(fail_429_every=2, fail_500_every=3) as server:
        # one request at a time: concurrent ones can starve one of them (five 429s in a row) on a busy machine
        code, _, err = run_cli(capsys, "run", "--base-url", server.url, "--model", "oracle", "--puzzles", "hanoi,checkers",
                               "--levels", "1", "--instances-per-level", "1", "--samples", "2", "--max-connections", "1",
                               "--out", str(tmp_path))
        hits = server.hits
    # hits 1 ok; 2 (429), 3 (500), 4 (429), 5 ok; 6 (429), 7 ok; 8 (429), 9 (500), 10 (429), 11 ok
    assert code == 0 and hits == 11, err
    assert [status for *_, status in rows(tmp_path)] == ["legal"] * 4


@pytest.mark.parametrize(("model", "key", "message"), [("oracle", "wrong-key", "401"), ("missing", "secret", "404")])
def test_auth_and_unknown_model_end_the_run_with_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, model: str, key: str, message: str) -> None:
    monkeypatch.setenv("CODEBENCH_TEST_KEY", key)
    with start_mock_server(api_key="secret") as server:
        code, _, err = run_cli(capsys, "run", "--base-url", server.url, "--api-key-env", "CODEBENCH_TEST_KEY", "--model", model,
                               "--puzzles", "hanoi", *SMALL, "--out", str(tmp_path))
    assert code == 3 and "refused the run" in err and message in err


def test_malformed_and_empty_responses_never_crash_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server() as server:
        code, _, err = run_cli(capsys, "run", "--base-url", server.url, "--model", "malformed,empty,not_json", "--puzzles", "hanoi",
                               *SMALL, "--out", str(tmp_path))
    assert code == 5 and "the run is partial" in err and "run the same `codebench run` command again" in err
    assert {status for *_, status in rows(tmp_path)} == {"api_error"}
    report = report_json(capsys, tmp_path)
    assert report["partial"] is True
    assert all(cell["executions"] == 0 and cell["infra_counts"] == {"api_error": 1} for cell in report["cells"])


def _stored_executions(out: Path) -> int:
    return stored_count(out, "SELECT COUNT(*) FROM executions")


@pytest.mark.parametrize(("mode", "executor"), [("code", "local"), ("both", "local"), ("code", "ray")])
def test_a_run_killed_midway_resumes_to_exactly_the_rows_of_an_uninterrupted_run(tmp_path: Path, mode: str, executor: str) -> None:
    """Also when the killed driver ran its sandbox on a Ray instance it had started (gone with it)."""
    args = ["--model", "mixed", "--mode", mode, "--puzzles", "hanoi,waterjug,river", "--levels", "1-3",
            "--instances-per-level", "2", "--samples", "3", "--cpu", "1", "--max-connections", "2", "--executor", executor,
            "--workers", "2"]
    with start_mock_server(latency_s=0.4, seed=1) as server:
        command = [sys.executable, "-m", "codebench", "run", "--base-url", server.url, *args]
        env = {**os.environ, "COLUMNS": "120"}
        run_command([*command, "--out", str(tmp_path / "whole")], env)
        kill_midway(command, tmp_path / "resumed", env, _stored_executions, 5)  # some samples and executions stored, others not
        partial = rows(tmp_path / "resumed")
        run_command([*command, "--out", str(tmp_path / "resumed")], env)
    whole, resumed = rows(tmp_path / "whole"), rows(tmp_path / "resumed")
    assert 0 < len(partial) < len(whole)  # it really was interrupted
    # distinct instances (Hanoi's L1-L3: one each; water jug's and river's: two each) × samples × modes
    assert resumed == whole and len(whole) == (3 + 6 + 6) * 3 * (2 if mode == "both" else 1)
    assert max(Counter(whole).values()) == 1  # no duplicates


def test_both_modes_run_on_exactly_the_same_instances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server() as server:
        code, _, _ = run_cli(capsys, "run", "--mode", "both", "--base-url", server.url, "--model", "oracle",
                             "--puzzles", "hanoi,sudoku", "--levels", "1,2", "--instances-per-level", "2", "--samples", "1",
                             "--cpu", "1", "--out", str(tmp_path))
    assert code == 0
    store = Store.for_reading(tmp_path / "run.sqlite")
    try:
        by_mode: dict[str, set[tuple[str, str]]] = {}
        for row in store.report_rows():
            assert row.status == "legal", row
            by_mode.setdefault(row.mode, set()).add((row.puzzle, row.instance_id))
    finally:
        store.close()
    assert sorted(by_mode) == ["code", "instruction"] and by_mode["code"] == by_mode["instruction"]
    assert len(by_mode["code"]) == 2 + 2 * 2  # distinct instances: Hanoi's L1 and L2 one each, Sudoku's two each


@pytest.mark.parametrize(("sent", "code", "word"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_or_sigterm_say_how_to_resume_and_leave_no_container(tmp_path: Path, sent: int, code: int, word: str) -> None:
    args = ["--model", "slow", "--puzzles", "sudoku", "--levels", "5,6", "--instances-per-level", "2", "--samples", "2", "--cpu", "2"]
    with start_mock_server(seed=1) as server:
        interrupted = subprocess.Popen([sys.executable, "-m", "codebench", "run", "--base-url", server.url, *args, "--out",
                                        str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal's child
        deadline = time.monotonic() + 120
        while _stored_executions(tmp_path) < 1 and time.monotonic() < deadline and interrupted.poll() is None:
            time.sleep(0.05)
        interrupted.send_signal(sent)
        _, err = interrupted.communicate(timeout=60)
    assert interrupted.returncode == code
    assert f"{word}: what finished is stored in" in err and "run the same command again to resume" in err
    assert "Traceback" not in err
    client = docker.from_env()  # the containers of that process are gone with it
    owner = f"{os.uname().nodename}:{interrupted.pid}"
    assert [c for c in client.containers.list(all=True, filters={"label": f"org.codebench.owner={owner}"})] == []
    client.close()
