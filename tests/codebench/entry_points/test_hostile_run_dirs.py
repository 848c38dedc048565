"""`codebench report` and `compare` over a hostile shared run directory: names with escape sequences are shown as
visible escapes (and can be typed back as shown), a field of the wrong type or shape is one `error:` line naming the
run, the table, the row and the column, and a run whose every request failed still gets its page and figures.

Each case edits a copy of one real run (the mock model, two models in both modes, two puzzles and a game)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from codebench.run.store import SCHEMA_VERSION

from ..cli import run_cli
from ..test_hostile_stores import DEEP, assert_harmless, assert_page_harmless, make_run
from .refusal import refused

ESCAPE = "\x1b[2J\x1b]0;pwned\x07\x9b6n\u202e"
SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07\\x9b6n\\u202e"  # `harmless(ESCAPE)`: what a reader sees, and can type back


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("clean") / "run", "mixed,oracle", games=True)


@pytest.fixture
def run(clean: Path, tmp_path: Path) -> Path:
    """A copy of the clean run, to edit."""
    return Path(shutil.copytree(clean, tmp_path / "run"))


def edit(run: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    with closing(sqlite3.connect(run / "run.sqlite")) as db, db:
        for sql, values in statements:
            db.execute(sql, values)


def answers(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run `codebench ARGV`, which must succeed; its stdout, with nothing raw in it or in stderr."""
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert_harmless(out + err, f"codebench {' '.join(argv)}", json_text="json" in argv)
    return out


def test_a_model_named_with_escape_sequences_is_shown_as_escapes_in_every_report_format_and_in_compare(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(run, *((f"UPDATE {table} SET model = ? WHERE model = 'mixed'", (f"mixed{ESCAPE}",)) for table in ("plan_samples", "samples")))
    for fmt in ("table", "md", "csv", "json"):
        assert f"mixed{SHOWN}" in answers(capsys, "report", str(run), "--format", fmt).replace("\\\\", "\\")
    answers(capsys, "report", str(run), "--html", str(tmp_path / "page.html"), "--plots", str(tmp_path / "plots"))
    assert_page_harmless(tmp_path.joinpath("page.html").read_text(), "the page")
    for figure in tmp_path.joinpath("plots").glob("*.svg"):
        assert_harmless(figure.read_text(), str(figure))
    compared = answers(capsys, "compare", str(run), "--a", f"mixed{SHOWN}:code", "--b", f"mixed{SHOWN}:instruction")
    assert f"A = mixed{SHOWN}:code" in compared
    err = refused(capsys, "compare", str(run), contains=f"sides found: mixed{SHOWN}:code, mixed{SHOWN}:instruction")
    assert_harmless(err, "compare's error line")


def test_instance_ids_and_game_players_with_escape_sequences_are_shown_as_escapes(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(run, *((f"UPDATE {table} SET {column} = {column} || ?", (ESCAPE,)) for table, column in (
        ("instances", "id"), ("plan_instances", "instance_id"), ("plan_samples", "instance_id"), ("samples", "instance_id"))),
         ("UPDATE plan_matches SET players = replace(players, '\"ref\"', ?)", (json.dumps(f"ref{ESCAPE}"),)))
    games = answers(capsys, "report", str(run), "--html", str(tmp_path / "page.html"), "--section", "games")
    assert f"ref{SHOWN}" in games
    page = tmp_path.joinpath("page.html").read_text()
    assert_page_harmless(page, "the page")
    assert SHOWN.replace("\\", "\\\\") in page  # the ids and the player, as the page's JSON holds them


@pytest.mark.parametrize(("table", "column", "value", "what"), [
    ("executions", "status", f"legal{ESCAPE}", "is not a status"),
    ("instances", "meta", "[1, 2]", "is a list, not an object"),
    ("executions", "issues", '[{"code": 7}]', "[0].code is a number, not text"),
    ("instances", "level", "one", "is text, not an integer"),
    ("instances", "lambda", "high", "is text, not a number"),
    ("instances", "lambda", 1e308, "is 1e+308, beyond ±1e+15"),
    ("samples", "prompt_tokens", -6_000_000, "is -6000000, not a count"),
    ("samples", "completion_tokens", "many", "is text, not an integer"),
    ("executions", "cpu_s", "fast", "is text, not a number"),
    ("samples", "params", '["temperature"]', "is a list, not an object"),
    ("samples", "reasoning", b"\x1b[2J\xff", "is a blob, not text"),
    ("matches", "record", DEEP, "is JSON nested deeper than 64 levels"),
    ("matches", "record", '{"outcome": {"scores": [NaN], "results": ["win"]}}', "holds a number that is not finite"),
    ("plan_matches", "players", '"ref"', "is text, not a list"),
])
def test_a_field_of_the_wrong_type_or_shape_is_one_error_line_naming_the_run_table_row_and_column(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, column: str, value: object,
        what: str) -> None:
    edit(run, (f"UPDATE {table} SET {column} = ? WHERE rowid = (SELECT MAX(rowid) FROM {table})", (value,)))
    damaged = f"{run / 'run.sqlite'} is damaged: the {column} of {table} row"
    outputs = (tmp_path / "report.md", tmp_path / "plots", tmp_path / "page.html")
    err = refused(capsys, "report", str(run), "-o", str(outputs[0]), "--plots", str(outputs[1]), "--html", str(outputs[2]),
                  contains=damaged, inputs=(run,))
    assert what in err and not any(path.exists() for path in outputs)  # refused before anything is written
    assert_harmless(err, "the error line")
    for argv in (("report", str(run), "--format", "json"), ("compare", str(run), "--a", "oracle:code", "--b", "oracle:instruction")):
        code, _, err = run_cli(capsys, *argv)  # each reader checks what it reads: the field, or nothing of it
        assert code == 0 or err.startswith(f"error: {damaged}") and what in err and len(err.splitlines()) == 1, err


def test_a_run_whose_every_request_failed_gets_its_report_page_and_figures(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    failed = make_run(tmp_path / "failed", "malformed,empty", games=False)
    out = answers(capsys, "report", str(failed), "--html", str(tmp_path / "page.html"), "--plots", str(tmp_path / "plots"))
    assert "PARTIAL: " in out and "api_error:32" in out
    assert "PARTIAL" in tmp_path.joinpath("page.html").read_text()
    assert sorted(path.name for path in tmp_path.joinpath("plots").iterdir()) == ["cost.png", "cost.svg"]


def test_a_prompt_of_json_nested_100000_deep_is_shown_as_text(run: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    edit(run, ("UPDATE samples SET prompt = ? WHERE rowid = 1", (DEEP,)))
    answers(capsys, "report", str(run), "--html", str(tmp_path / "page.html"))
    assert DEEP[:1000] in tmp_path.joinpath("page.html").read_text()


def test_a_game_record_whose_legal_moves_do_not_replay_is_shown_without_the_boards_after_them(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with closing(sqlite3.connect(run / "run.sqlite")) as db, db:
        for key, text in db.execute("SELECT key, record FROM matches").fetchall():
            record = json.loads(text)
            for move in record["moves"]:
                move.update(ok=True, move={"card": f"x{ESCAPE}"})
            db.execute("UPDATE matches SET record = ? WHERE key = ?", (json.dumps(record), key))
    answers(capsys, "report", str(run), "--html", str(tmp_path / "page.html"))
    assert_page_harmless(tmp_path.joinpath("page.html").read_text(), "the page")


def test_games_of_a_game_or_level_this_codebench_does_not_have_are_reported_and_shown_without_boards(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(run, ("UPDATE plan_matches SET game = ? WHERE position % 2 = 0", (f"cardnim{ESCAPE}",)),
         ("UPDATE plan_matches SET level = 99 WHERE position % 2 = 1", ()))
    assert f"cardnim{SHOWN}" in answers(capsys, "report", str(run), "--html", str(tmp_path / "page.html"))
    assert_page_harmless(tmp_path.joinpath("page.html").read_text(), "the page")


@pytest.mark.parametrize("plan", ["[1]", '{"mode": "code", "samples": [[1]]}', DEEP])
def test_an_older_run_whose_plan_is_not_what_codebench_wrote_is_one_error_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], plan: str) -> None:
    old = Path(shutil.copytree(Path(__file__).parents[1] / "data" / "v1_run", tmp_path / "old"))
    edit(old, ("UPDATE meta SET value = ? WHERE key = 'plan'", (plan,)))
    refused(capsys, "report", str(old), contains=f"its rows cannot be brought to schema {SCHEMA_VERSION}", inputs=(old,))


def test_a_plan_asking_for_one_sample_twice_is_one_error_line(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(run, ("INSERT INTO plan_samples SELECT 1000, key, model, mode, puzzle, instance_id, sample FROM plan_samples "
               "WHERE position = 0", ()))
    refused(capsys, "report", str(run), contains="its plan_samples ask for sample 0 of mixed (code) on hanoi twice", inputs=(run,))


def test_tokens_spent_outside_stored_replies_under_an_escaped_label_are_shown_as_escapes(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spent = [{"model": f"mixed{ESCAPE}", "mode": "code", "puzzle": "hanoi", "prompt_tokens": 5, "completion_tokens": 7,
              "reasoning_tokens": 0, "requests": 1}]
    edit(run, ("INSERT OR REPLACE INTO meta VALUES ('spent', ?)", (json.dumps(spent),)))
    assert f"mixed{SHOWN}" in answers(capsys, "report", str(run), "--section", "cost")


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
def test_a_partial_run_in_a_directory_named_with_escape_sequences_is_named_as_escapes(run: Path, fmt: str,
                                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A report names each partial run by its directory: a shared folder's name is shown escaped like any stored name."""
    edit(run, ("DELETE FROM executions WHERE rowid = (SELECT min(rowid) FROM executions)", ()))
    named = run.rename(run.parent / f"run{ESCAPE}")
    out = answers(capsys, "report", str(named), "--format", fmt)
    assert "PARTIAL" in out.upper() and "run" + (SHOWN.replace("\\", "\\\\") if fmt == "json" else SHOWN) in out, out[:800]
