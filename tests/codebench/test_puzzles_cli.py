"""`codebench puzzles …` end to end through main(argv): outputs, exit codes and error lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .cli import run_cli


def test_list_json_names_every_family(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "list", "--json")
    rows = json.loads(out)
    assert code == 0 and [row["kind"] == "interactive" for row in rows].count(False) == 9
    assert rows[0]["name"] == "hanoi" and rows[0]["levels"]["3"] == {"n": [5, 6]}
    cardnim = next(row for row in rows if row["name"] == "cardnim")
    assert cardnim["players"] == 2 and cardnim["levels"]["1"] == {"stones": [20, 40]} and "axis" not in cardnim
    axis = rows[0]["axis"]
    assert (axis["name"], axis["lowest"], axis["highest"], axis["levels"]["3"]) == ("n", 1, 24, [5, 6])
    sudoku = next(row for row in rows if row["name"] == "sudoku")
    assert sudoku["axis"]["levels"] == {"3": [36, 45], "4": [49, 53], "5": [55, 58], "6": [62, 65]}
    assert set(sudoku["axis"]["disagree"]) == {"1", "2"}


def test_generate_and_show_at_a_complexity_and_past_the_axis(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "generate", "hanoi", "--complexity", "17", "--seed", "3")
    record = json.loads(out)
    assert code == 0 and record["id"] == "hanoi/c17/s3" and record["level"] is None and record["meta"]["lambda"] == 17
    code, out, _ = run_cli(capsys, "puzzles", "show", "waterjug", "-c", "3")
    assert code == 0 and "waterjug/c3/s0" in out and '"max_steps": 6' in out
    for argv, message in ((("show", "hanoi", "-c", "25"), "cannot go past n=24 because the reference answer has 2^n"),
                          (("generate", "hanoi", "-c", "3", "--level", "2"), "a level or a complexity, not both"),
                          (("show", "cardnim", "-c", "3"), "the game cardnim has no complexity axis")):
        code, out, err = run_cli(capsys, "puzzles", *argv)
        assert code == 2 and err.startswith("error: ") and message in err and err.count("\n") == 1 and not out


def test_generate_solve_validate_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    instances, solved = tmp_path / "i.jsonl", tmp_path / "s.jsonl"
    assert run_cli(capsys, "puzzles", "generate", "hanoi", "--level", "2", "--seed", "7", "--count", "3", "-o", str(instances))[0] == 0
    records = [json.loads(line) for line in instances.read_text().splitlines()]
    assert [r["id"] for r in records] == ["hanoi/L2/s7", "hanoi/L2/s8", "hanoi/L2/s9"]
    assert set(records[0]) == {"id", "puzzle", "level", "seed", "params", "instance", "meta"}
    assert run_cli(capsys, "puzzles", "solve", str(instances), "-o", str(solved))[0] == 0
    code, out, _ = run_cli(capsys, "puzzles", "validate", str(solved))
    assert code == 0 and "3 valid, 0 invalid" in out
    code, out, _ = run_cli(capsys, "puzzles", "validate", str(instances))
    assert code == 1 and "0 valid, 3 invalid" in out


def test_validate_separate_answers_reports_repeated_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    instances, answers = tmp_path / "i.jsonl", tmp_path / "a.jsonl"
    run_cli(capsys, "puzzles", "generate", "hanoi", "--level", "1", "-o", str(instances))
    answers.write_text('{"id": "hanoi/L1/s0", "answer": {"moves": [[1, "A", "C"]], "moves": []}}\n')
    code, out, _ = run_cli(capsys, "puzzles", "validate", str(instances), "--answers", str(answers), "--json")
    verdict = json.loads(out)
    assert code == 1 and verdict["id"] == "hanoi/L1/s0" and not verdict["ok"]
    assert [issue["code"] for issue in verdict["issues"]] == ["duplicate_key", "goal_not_reached"]


def test_params_generate_beyond_named_levels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "generate", "hanoi", "--param", "n=17", "--param", "random_pegs=true")
    record = json.loads(out)
    assert code == 0 and record["level"] is None and record["params"] == {"n": 17, "random_pegs": True}
    assert record["meta"]["min_solution_length"] == 2**17 - 1


def test_level_with_presentation_param_keeps_the_same_cube(capsys: pytest.CaptureFixture[str]) -> None:
    _, hidden, _ = run_cli(capsys, "puzzles", "generate", "rubik", "--level", "3", "--seed", "2")
    _, shown, _ = run_cli(capsys, "puzzles", "generate", "rubik", "--level", "3", "--seed", "2", "--param", "reveal_scramble=true")
    hidden_record, shown_record = json.loads(hidden), json.loads(shown)
    assert shown_record["id"] == "rubik/L3/s2+reveal_scramble=true"
    assert shown_record["instance"]["state"] == hidden_record["instance"]["state"]
    assert hidden_record["instance"]["scramble"] is None
    assert shown_record["instance"]["scramble"] == hidden_record["meta"]["scramble"]


def test_show_renders_and_selftest_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "show", "hanoi", "--level", "1", "--seed", "0")
    assert code == 0 and "hanoi/L1/s0" in out and "move all 3 disks from peg A to peg C" in out
    code, out, _ = run_cli(capsys, "puzzles", "selftest", "--puzzle", "hanoi", "--seeds", "1")
    assert code == 0 and "6 passed, 0 failed" in out


def test_import_dimacs_files_then_solve_and_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = Path(__file__).parents[1] / "puzzles" / "data"
    imported, solved = tmp_path / "imported.jsonl", tmp_path / "solved.jsonl"
    code, _, _ = run_cli(capsys, "puzzles", "import", str(data / "uf20-91-codebench.cnf"), str(data / "myciel3.col"), "-o", str(imported))
    records = [json.loads(line) for line in imported.read_text().splitlines()]
    assert code == 0 and [r["id"] for r in records] == ["sat/file/uf20-91-codebench", "coloring/file/myciel3"]
    assert records[1]["meta"]["complexity"] == {"n": 11, "m": 20, "k": 4, "avg_degree": 3.636}
    run_cli(capsys, "puzzles", "solve", str(imported), "-o", str(solved))
    assert run_cli(capsys, "puzzles", "validate", str(solved))[0] == 0
    code, _, err = run_cli(capsys, "puzzles", "import", str(data / "myciel3.col"), "--colors", "3")
    assert code == 2 and "cannot be coloured" in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, "puzzles", "import", str(tmp_path / "imported.jsonl"))
    assert code == 2 and "not .jsonl" in err
