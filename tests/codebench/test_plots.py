"""`codebench report --plots DIR`: every figure in PNG and SVG from a report holding both modes, the Wilson
interval by hand, and the refusal of a plots path that is a file."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from codebench.analysis.plots import wilson, write_plots
from codebench.analysis.report import build_report
from codebench.types import ExecutionRow

from .cli import run_cli
from .entry_points.refusal import refused

V1 = Path(__file__).parent / "data" / "v1_run"


def test_wilson_by_hand() -> None:
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0) and wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0


def test_the_wilson_interval_holds_its_proportion_at_every_count() -> None:
    """Rounding once left 1.0 a hair above the upper bound of an all-legal cell (n = 4, 10, 14, …): error bars failed."""
    for trials in range(1, 200):
        for successes in range(trials + 1):
            low, high = wilson(successes, trials)
            assert 0.0 <= low <= successes / trials <= high <= 1.0, (successes, trials)


def test_every_figure_is_written_for_a_run_in_both_modes(tmp_path: Path) -> None:
    rows = [ExecutionRow("m", mode, puzzle, level, f"{puzzle}/L{level}/s{i}", 0,
                         "legal" if i < (4 - level if mode == "code" else 4 - 2 * level + 1) else "rule_violation", "", float(level))
            for mode in ("code", "instruction") for puzzle in ("hanoi", "sudoku") for level in (1, 2, 3) for i in range(4)]
    files = write_plots(build_report(rows, [1], boot=50), tmp_path / "plots")
    names = sorted(path.name for path in files)
    # no tokens, prices or minimal lengths in these rows: no token, cost or optimality figure
    assert names == sorted(f"{figure}.{fmt}" for figure in ("legal_rate_vs_lambda", "status_mix", "collapse_heatmap",
                                                            "instruction_vs_code", "failure_modes", "global_curve",
                                                            "cross_task_correlation") for fmt in ("png", "svg"))
    for path in files:
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
        else:
            assert ElementTree.parse(path).getroot().tag.endswith("svg")


def test_the_command_draws_a_stored_run_and_refuses_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "report", str(V1), "--plots", str(tmp_path / "figures"))
    assert code == 0 and "plots written: 16 files" in err  # one mode only: no instruction-vs-code figure
    taken = tmp_path / "taken.png"
    taken.write_bytes(b"keep me")
    refused(capsys, "report", str(V1), "--plots", str(taken), contains="--plots", inputs=(tmp_path, V1))
