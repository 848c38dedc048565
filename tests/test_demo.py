"""The README's first command, `make demo`, end to end (into a fresh run directory), so CI catches a broken demo."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import puzzles
from codebench.analysis.failures import FailureMode

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.docker


def test_make_demo_runs_the_main_job_and_prints_the_report(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    done = subprocess.run([shutil.which("make") or "make", "-C", str(ROOT), "demo", f"DEMO_OUT={out}"], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = done.stdout
    # both modes × 100 distinct instances (9 puzzles × 6 levels × 2 seeds; Hanoi's L1-L3, L5, L6 and checkers' L1-L3 draw
    # one instance for both seeds) × 5 samples; complete: nothing left unresolved
    assert report.count("codebench report: 1000 executions") == 1 and "PARTIAL" not in report
    assert "fewer distinct instances than seeds (each counted once): checkers L1 1 of 2" in report
    assert "mixed · code" in report and "mixed · instruction" in report
    for name in puzzles.puzzle_names():
        assert f"\n{name} " in report
    for status in ("legal", "rule_violation", "runtime_error", "syntax_error", "timeout", "no_code", "no_answer"):
        assert f"{status}:" in report or status == "legal"
    assert "collapse: λ*" in report and (out / "run.sqlite").is_file()
    page = (out / "report.html").read_text(encoding="utf-8")  # the page people look at, its figures inline
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 4 and 'id="codebench-data"' in page
    for analysis in ("collapse", "levels", "failures", "traces", "cross-task", "correlations", "tokens", "token-correlation",
                     "cost", "optimality", "difficulty"):  # each analysis on the mock model's run, as a table ...
        assert f'<section id="analysis-{analysis}">' in page, analysis
    for figure in ("failure_modes", "global_curve", "cross_task_correlation", "tokens_pass_fail", "cost", "optimality"):
        assert f'id="plot-{figure}"' in page, figure  # ... and as a figure
    assert sorted(path.name for path in (out / "plots").iterdir()) == sorted(
        f"{name}.{fmt}" for name in ("legal_rate_vs_lambda", "status_mix", "collapse_heatmap", "instruction_vs_code",
                                     "failure_modes", "global_curve", "cross_task_correlation", "tokens_pass_fail", "cost",
                                     "optimality") for fmt in ("png", "svg"))
    assert f"html report written: {out / 'report.html'}" in done.stderr
    assert "Traceback" not in done.stderr
    failures = subprocess.run([str(ROOT / ".venv" / "bin" / "codebench"), "report", str(out), "--section", "failures", "--format",
                               "json"], capture_output=True, text=True, timeout=300, check=True).stdout
    seen: dict[str, set[str]] = {"code": set(), "instruction": set()}
    for record in json.loads(failures)["records"]:
        seen[record["mode"]] |= {key.removeprefix("counts.") for key, n in record.items() if key.startswith("counts.") and n}
    assert set(FailureMode) <= seen["instruction"]  # the mock's flaws reach every category of the first seed's taxonomy
    assert {"runtime_error", "syntax_error", "timeout", "no_code"} <= seen["code"]
