"""A run's games are played under a secret of its own: drawn once, kept in its database, never in its spec, a prompt or
a report; a resume keeps it and refuses another; runs that share a secret file (on purpose) pool into one report, and
a report refuses to pool games played under different secrets (seed s is another setup under another secret)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codebench.keys import secret_fingerprint
from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store

from .cli import run_cli

GAME_ARGS = ["--mode", "instruction", "--puzzles", "", "--games", "largertarget", "--levels", "1", "--instances-per-level",
             "3", "--samples", "1", "--opponents", "ref"]


def run(capsys: pytest.CaptureFixture[str], url: str, out: Path, *extra: str, model: str = "oracle") -> tuple[int, str, str]:
    return run_cli(capsys, "run", "--model", model, "--base-url", url, *GAME_ARGS, "--out", str(out), *extra)


def stored(out: Path) -> tuple[str | None, list[dict[str, object]], str]:
    """The run's secret, its games' starting states as replayed, and every text the run stored besides the secret."""
    store = Store.for_reading(out / "run.sqlite")
    try:
        rows = store.game_rows()
        texts = json.dumps([store.document("spec"), [row.record for row in rows],
                            [detail.sample.prompt for detail in store.sample_details()]])
        return store.games_secret(), [row.record["moves"][0]["observation"] for row in rows], texts
    finally:
        store.close()


def test_each_run_draws_its_own_secret_keeps_it_on_resume_and_never_shows_it(capsys: pytest.CaptureFixture[str],
                                                                               tmp_path: Path) -> None:
    with start_mock_server() as server:
        assert run(capsys, server.url, tmp_path / "a")[0] == 0 and run(capsys, server.url, tmp_path / "b")[0] == 0
        secret_a, seen_a, texts = stored(tmp_path / "a")
        secret_b, seen_b, _ = stored(tmp_path / "b")
        assert secret_a and secret_b and len({secret_a, secret_b}) == 2 and secret_a not in texts
        assert seen_a != seen_b  # the same public seeds, other setups: the first observations differ
        code, out, _ = run(capsys, server.url, tmp_path / "a")  # resumed: the same secret, nothing played again
        assert code == 0 and stored(tmp_path / "a")[0] == secret_a
        (tmp_path / "other").write_text("y" * 32)
        code, _, err = run(capsys, server.url, tmp_path / "a", "--game-secret-file", str(tmp_path / "other"))
        assert code == 2 and "another secret" in err and secret_fingerprint(secret_a) in err
        code, _, err = run_cli(capsys, "report", str(tmp_path / "a"), str(tmp_path / "b"))
        assert code == 2 and "different secrets" in err and secret_fingerprint(secret_b) in err
        assert secret_a not in out + err


def test_runs_given_one_secret_file_play_the_same_setups_and_pool(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s" * 32 + "\n")
    with start_mock_server() as server:
        for name, model in (("a", "oracle"), ("b", "wrong")):  # one model's runs would hold the same samples
            assert run(capsys, server.url, tmp_path / name, "--game-secret-file", str(secret), model=model)[0] == 0
    (secret_a, seen_a, _), (secret_b, seen_b, _) = stored(tmp_path / "a"), stored(tmp_path / "b")
    assert secret_a == secret_b == "s" * 32 and seen_a == seen_b
    code, out, _ = run_cli(capsys, "report", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json")
    assert code == 0 and json.loads(out)["games"]
    short = tmp_path / "short"
    short.write_text("too short")
    code, _, err = run(capsys, "http://127.0.0.1:9/v1", tmp_path / "c", "--game-secret-file", str(short))
    assert code == 2 and "16 or more" in err
