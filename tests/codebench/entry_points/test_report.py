"""`codebench report`: a reader never writes. Folders without a run, files that are not codebench run stores,
damaged stores, and outputs that would destroy the database are refused, and the run directory is left as it was."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from codebench.cli import main
from codebench.errors import StoreError
from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store

from ..cli import run_cli
from .refusal import refused


def test_a_folder_without_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "report", str(tmp_path), contains=f"{tmp_path} holds no run.sqlite: give the --out directory of a run",
            inputs=(tmp_path,))
    refused(capsys, "report", str(tmp_path / "nope"), contains="holds no run.sqlite", inputs=(tmp_path,))


@pytest.mark.parametrize(("content", "message"), [
    (b"", "holds no codebench run yet"),
    (b"garbage, not a database" * 100, "run.sqlite"),
    ("foreign", "run.sqlite"),
])
def test_files_that_are_not_codebench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | str,
                                           message: str) -> None:
    path = tmp_path / "run.sqlite"
    if content == "foreign":
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE notes (body TEXT)")
    else:
        path.write_bytes(content)  # type: ignore[arg-type]
    refused(capsys, "report", str(tmp_path), contains=message, inputs=(tmp_path,))
    if content != b"":  # an empty file is where a run may start: only a writer may use it
        with pytest.raises(StoreError):
            Store(path)


@pytest.mark.parametrize("value", ["not json", '{"base_url": 1}', '{"base_url": "x", "limits": {"cpu_s": "fast"}}', "[1, 2]"])
def test_a_run_document_of_the_wrong_shape_is_a_damaged_store(run_dir: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    Store(run_dir / "run.sqlite").close()
    with closing(sqlite3.connect(run_dir / "run.sqlite")) as db, db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (value,))
    refused(capsys, "report", str(run_dir), contains="is damaged", inputs=(run_dir,))


@pytest.mark.parametrize(("target", "message"), [
    ("database", "is also an input"), ("folder", "is a directory"), ("/dev/full", "No space left on device")])
def test_outputs_that_would_destroy_or_cannot_be_written(run_dir: Path, capsys: pytest.CaptureFixture[str], target: str,
                                                         message: str) -> None:
    output = {"database": str(run_dir / "run.sqlite"), "folder": str(run_dir)}.get(target, target)
    refused(capsys, "report", str(run_dir), "-o", output, contains=message, inputs=(run_dir,))


def test_an_unknown_format(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "report", str(run_dir), "--format", "xml", contains="--format 'xml': choose table, md, csv, json",
            inputs=(run_dir,))


# -- joined reports: the same run or the same sample twice is refused, shared built-in games count once -----------------
GAMES = ["--mode", "instruction", "--puzzles", "", "--games", "largertarget", "--levels", "1", "--instances-per-level", "2",
         "--samples", "1", "--opponents", "ref,random"]


def cli(*argv: str) -> None:
    """Run the CLI in-process outside a test's capture (module fixtures): it must succeed."""
    with pytest.raises(SystemExit) as done:
        main(list(argv))
    assert not done.value.code, argv


@pytest.fixture(scope="module")
def games_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Games-only runs under one secret file: a (oracle) and b (wrong) share their built-in-only games (ref against
    random), a2 asks a's very requests again (so it holds a's samples under another directory)."""
    folder = tmp_path_factory.mktemp("games")
    secret = folder / "secret"
    secret.write_text("s" * 32)
    with start_mock_server() as server:
        for name, model in (("a", "oracle"), ("b", "wrong"), ("a2", "oracle")):
            cli("run", "--model", model, "--base-url", server.url, *GAMES, "--game-secret-file", str(secret),
                "--out", str(folder / name))
    return folder


def games_of(capsys: pytest.CaptureFixture[str], *run_dirs: Path) -> dict[str, object]:
    code, out, err = run_cli(capsys, "report", *map(str, run_dirs), "--format", "json")
    assert code == 0, err
    games = json.loads(out)["games"]
    return {"games": games["games"], **{s["player"]: s["games"] for s in games["scores"]}}


def test_a_games_run_given_twice_by_path_or_as_a_copy_is_refused(games_runs: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    a, copy = games_runs / "a", tmp_path / "copy"
    shutil.copytree(a, copy)
    refused(capsys, "report", str(a), str(a), contains=f"{a} is given twice: give each run once", inputs=(a,))
    refused(capsys, "report", str(tmp_path / ".." / tmp_path.name / "copy"), str(copy),
            contains=f"{tmp_path / '..' / tmp_path.name / 'copy'} and {copy} are one run directory given twice", inputs=(a,))
    for other in (copy, games_runs / "a2"):  # a copy, or the same requests asked again in another directory
        refused(capsys, "report", str(a), str(games_runs / "b"), str(other), inputs=(a, other),
                contains=f"{a} and {other} hold the same samples (8 content keys in common")


def test_runs_of_other_models_pool_their_shared_built_in_games_once(games_runs: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    a, b = games_of(capsys, games_runs / "a"), games_of(capsys, games_runs / "b")
    assert a == {"games": 12, "oracle (instruction)": 8, "ref": 8, "random": 8}
    assert b == {"games": 12, "wrong (instruction)": 8, "ref": 8, "random": 8}
    # ref against random on 2 setups in both seats: the same 4 games in each run (one secret), counted once
    assert games_of(capsys, games_runs / "a", games_runs / "b") == {
        "games": 20, "oracle (instruction)": 8, "wrong (instruction)": 8, "ref": 12, "random": 12}


def test_a_puzzle_run_and_its_copy_hold_the_same_samples(run_dir: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    refused(capsys, "report", str(run_dir), str(copy), inputs=(run_dir, copy),
            contains=f"{run_dir} and {copy} hold the same samples (")


# -- prices: a --price names a model of the runs; a stored price table of the wrong shape is one error line ------------------
def test_a_price_for_a_model_the_runs_do_not_hold_is_refused(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "report", str(run_dir), "--price", "mixd=1/2", inputs=(run_dir,),
            contains="--price mixd: no model of these runs is called that (models: crash, empty, mixed, no_code, syntax_error, wrong)")


@pytest.mark.parametrize(("spec", "blamed"), [
    ("[1, 2]", "its price table"), ('"text"', "its price table"), ('{"prices": [1]}', "its price table"),
    ('{"prices": {"mixed": 3}}', "its price for mixed"), ('{"prices": {"mixed": {"input_per_mtok": "x"}}}', "its price for mixed"),
    ('{"prices": {"mixed": {"input_per_mtok": -1, "output_per_mtok": 1}}}', "its price for mixed")])
def test_a_stored_price_table_of_the_wrong_shape_asks_for_prices(run_dir: Path, capsys: pytest.CaptureFixture[str], spec: str,
                                                                  blamed: str) -> None:
    with closing(sqlite3.connect(run_dir / "run.sqlite")) as db, db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'spec'", (spec,))
    err = refused(capsys, "report", str(run_dir), inputs=(run_dir,),
                  contains=f"{run_dir}: {blamed} is not what codebench writes: give --price")
    assert "--price mixed=INPUT/OUTPUT" in err if "mixed" in blamed else "(crash, empty, mixed, no_code, syntax_error, wrong)" in err
    models = ("crash", "empty", "mixed", "no_code", "syntax_error", "wrong")  # the prices given replace the stored ones
    code, out, err = run_cli(capsys, "report", str(run_dir), *(f"--price={model}=1/2" for model in models), "--section",
                             "cost", "--format", "json")
    assert code == 0 and json.loads(out)["records"][0]["cost"] > 0, err


# -- a run resumed under a renamed label: the earlier label's requests stay in the cost table, at their own price ------------
def test_requests_made_under_a_renamed_label_are_still_costed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"

    def resume(label: str, *price: str, code: int = 0) -> None:
        config = tmp_path / f"{label}.yaml"
        config.write_text(f"models:\n  - {{name: oracle, label: {label}}}\n")
        done, _, err = run_cli(capsys, "run", "--config", str(config), "--base-url", server.url, "--mode", "instruction",
                               "--puzzles", "waterjug", "--levels", "1", "--instances-per-level", "2", "--samples", "1",
                               *price, "--out", str(out))
        assert done == code, err

    def costs(*price: str) -> dict[str, tuple[int, float | None]]:
        code, text, err = run_cli(capsys, "report", str(out), *price, "--section", "cost", "--format", "json")
        assert code == 0, err
        return {line["model"] or "*": (line["requests"], line["cost"]) for line in json.loads(text)["records"]
                if line["scope"] in ("run", "model")}

    with start_mock_server() as server:
        resume("first", "--price", "first=1/2")
        alone = costs()["first"]
        resume("second", "--price", "second=10/20")  # asks every request again under the new label
        resume("third")  # and again, with no price
        # a budget counts what the directory's earlier labels spent, at their stored prices: nothing is asked
        resume("fourth", "--price", "fourth=1/2", "--max-cost", str(11 * alone[1]), code=4)
    found = costs()
    assert "fourth" not in found
    assert found["first"] == alone and alone[0] == 2 and alone[1] > 0  # at the price stored for it
    assert found["second"][0] == 2 and found["second"][1] == pytest.approx(10 * alone[1])
    assert found["third"] == (2, None) and found["*"] == (6, None)  # unpriced: no total either, none assumed
    found = costs("--price", "third=1/2")
    assert found["third"] == alone and found["*"] == (6, pytest.approx(12 * alone[1]))


def test_game_turns_played_under_a_renamed_label_are_still_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    with start_mock_server() as server:
        for label in ("first", "second"):  # the second plan's games are other games: their seats name another label
            config = tmp_path / f"{label}.yaml"
            config.write_text(f"models:\n  - {{name: oracle, label: {label}}}\n")
            code, _, err = run_cli(capsys, "run", "--config", str(config), "--base-url", server.url, *GAMES, "--out", str(out))
            assert code == 0, err
    code, text, err = run_cli(capsys, "report", str(out), "--section", "cost", "--format", "json")
    lines = {line["model"]: line for line in json.loads(text)["records"] if line["scope"] == "model"}
    assert code == 0 and lines.keys() == {"first", "second"}, err
    assert lines["first"]["requests"] == lines["second"]["requests"] > 0
