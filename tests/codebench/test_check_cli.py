"""`codebench check` through main(argv) on the Docker backend: exit codes, baseline, JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from .cli import run_cli

GOOD = '''
def solve(instance):
    moves = []
    def go(k, a, b, c):
        if k:
            go(k - 1, a, c, b); moves.append([k, a, b]); go(k - 1, c, b, a)
    start, goal = instance["start"], instance["goal"]
    go(instance["n"], start, goal, next(p for p in instance["pegs"] if p not in (start, goal)))
    return {"moves": moves}
'''
WORSE = GOOD.replace('    return {"moves": moves}', '    return {"moves": moves if instance["n"] <= 3 else moves[:-1]}')




@pytest.fixture
def programs(tmp_path: Path) -> tuple[Path, Path]:
    good, worse = tmp_path / "good.py", tmp_path / "worse.py"
    good.write_text(GOOD)
    worse.write_text(WORSE)
    return good, worse


@pytest.mark.docker
def test_baseline_workflow_and_junit(tmp_path: Path, programs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    good, worse = programs
    baseline, junit = tmp_path / "baseline.json", tmp_path / "junit.xml"
    common = ["--puzzle", "hanoi", "--levels", "1-2", "--seeds", "1-2", "--cpu", "2"]
    code, out, _ = run_cli(capsys, "check", str(good), *common, "--baseline", str(baseline), "--update-baseline")
    assert code == 0 and "4 passed, 0 failed" in out
    assert json.loads(baseline.read_text())["results"] == {f"hanoi/L{lv}/s{s}": "legal" for lv in (1, 2) for s in (1, 2)}
    code, out, _ = run_cli(capsys, "check", str(worse), *common, "--baseline", str(baseline), "--junit", str(junit))
    assert code == 1 and "2 regressions" in out and "regression hanoi/L2/s1: rule_violation goal_not_reached" in out
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "4" and suite.get("failures") == "2"
    failure = suite.find("testcase[@name='hanoi/L2/s2']/failure")
    assert failure is not None and failure.get("type") == "rule_violation"
    code, out, _ = run_cli(capsys, "check", str(worse), *common, "--levels", "1", "--baseline", str(baseline))
    assert code == 0  # L1 is still legal; L2 was not run


@pytest.mark.docker
def test_without_baseline_any_failure_exits_1_and_json_lists_it(programs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, worse = programs
    code, out, _ = run_cli(capsys, "check", str(worse), "--puzzle", "hanoi", "--levels", "2", "--seeds", "1", "--json")
    report = json.loads(out)
    assert code == 1 and [r["status"] for r in report["results"]] == ["rule_violation"]
    assert report["results"][0]["issues"][0]["code"] == "goal_not_reached"


SPOOF = '''
Spoof = type("[green]legal[/green] 1 passed, 0 failed\\x1b[8m", (Exception,), {})

def solve(instance):
    import sys
    sys.stderr.write("\\x1b[2J\\x00<junit/>\\r")
    raise Spoof("\\x1b[8m[bold]ok[/bold]")
'''


@pytest.mark.docker
def test_a_program_cannot_spoof_the_report_the_json_or_the_junit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spoof, junit = tmp_path / "spoof.py", tmp_path / "junit.xml"
    spoof.write_text(SPOOF)
    common = ["--puzzle", "hanoi", "--levels", "1", "--seeds", "1", "--cpu", "2"]
    code, out, _ = run_cli(capsys, "check", str(spoof), *common, "--junit", str(junit))
    assert code == 1 and "\x1b" not in out and "0 passed, 1 failed" in out
    assert "exception:[green]legal[/green] 1 passed, 0 failed\\x1b[8m" in " ".join(out.split())  # shown as text
    failure = ElementTree.parse(junit).getroot().find("testsuite/testcase/failure")  # valid XML despite NUL and ESC
    assert failure is not None and "\\x1b[8m" in failure.get("message", "") and "\\x00<junit/>\\r" in (failure.text or "")
    code, out, _ = run_cli(capsys, "check", str(spoof), *common, "--json")
    assert code == 1 and json.loads(out)["results"][0]["detail"].endswith("\\x1b[8m")
