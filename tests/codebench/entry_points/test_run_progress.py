"""`codebench run`'s progress: it says "reused from the store" only when something was, and counts the tokens the way
--max-tokens-total does (prompt + completion, game turns included), saying so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store

from ..cli import run_cli

RUN = ["run", "--model", "oracle", "--mode", "instruction", "--puzzles", "hanoi,sat", "--games", "cardnim", "--opponents", "ref",
       "--levels", "1", "--instances-per-level", "1", "--samples", "2", "--max-connections", "2"]


def spent(err: str) -> tuple[int, int | None]:
    """(tokens this run, the budget's count or None) from the last progress frame."""
    found = re.findall(r"spent: ([\d,]+) tokens \(prompt \+ completion\)(?:; ([\d,]+) of --max-tokens-total)?", err)
    assert found, err
    tokens, budgeted = found[-1]
    return int(tokens.replace(",", "")), int(budgeted.replace(",", "")) if budgeted else None


def test_progress_counts_what_the_budget_counts_and_says_reused_only_when_something_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # models and built-ins only: no sandbox
    monkeypatch.setenv("COLUMNS", "200")
    with start_mock_server(behavior="oracle") as server:
        command = [*RUN, "--base-url", server.url, "--out", str(tmp_path)]
        code, _, err = run_cli(capsys, *command)
        assert code == 0, err
        assert "reused" not in err  # a brand-new run reuses nothing
        store = Store.for_reading(tmp_path / "run.sqlite")
        try:
            usage = store.usage()
        finally:
            store.close()
        assert any(u.puzzle == "cardnim" for u in usage)  # the games' turns are in the count too
        assert spent(err) == (sum(u.prompt_tokens + u.completion_tokens for u in usage), None)

        code, _, err = run_cli(capsys, *command, "--max-tokens-total", "100000000")
        assert code == 0, err
        for bar in ("samples", "executions", "games"):  # everything was stored by the first run
            assert re.search(rf"^{bar} +\S+ (\d+)/\1 \1 reused from the store ", err, re.MULTILINE), err
        assert spent(err) == (0, sum(u.prompt_tokens + u.completion_tokens for u in usage))  # earlier runs' too, budgeted
