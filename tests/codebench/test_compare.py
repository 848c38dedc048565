"""`codebench compare`: the paired difference, the exact McNemar test and Holm's correction against hand-computed
values on a small fixed fixture; the command on a stored run; and the refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codebench.analysis.compare import Side, compare, holm, mcnemar_exact
from codebench.types import ExecutionRow

from .cli import run_cli
from .entry_points.refusal import refused

V1 = Path(__file__).parent / "data" / "v1_run"


def rows(mode: str, legal: list[bool], level: int = 1, puzzle: str = "hanoi") -> list[ExecutionRow]:
    return [ExecutionRow("m", mode, puzzle, level, f"{puzzle}/L{level}/s{i}", 0, "legal" if ok else "rule_violation", "", 3.0)
            for i, ok in enumerate(legal)]


def test_a_hand_computed_fixture() -> None:
    # ten instances: A legal on 8, B on 3; A only on 6 of them, B only on 1
    a = [True, True, True, True, True, True, True, True, False, False]
    b = [False, False, False, False, False, False, True, True, True, False]
    result = compare([rows("instruction", a) + rows("code", b)], Side("m", "instruction"), Side("m", "code"), boot=500)
    cell = result.cells[0]
    assert (cell.pairs, cell.a_only, cell.b_only) == (10, 6, 1)
    assert cell.difference == pytest.approx(0.5) and (cell.a_rate, cell.b_rate) == (0.8, 0.3)
    assert cell.p_value == pytest.approx(2 * (1 + 7) / 2 ** 7)  # 2 · P[Bin(7, 1/2) ≤ 1] = 0.125
    assert cell.low is not None and cell.high is not None and cell.low <= 0.5 <= cell.high
    assert [(f.instance_id, f.a_status, f.b_status) for f in result.flips][-1] == ("hanoi/L1/s8", "rule_violation", "legal")
    assert len(result.flips) == 7 and result.overall.pairs == 10


def test_mcnemar_and_holm_by_hand() -> None:
    assert mcnemar_exact(0, 0) == 1.0 and mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(9, 1) == pytest.approx(2 * (1 + 10) / 2 ** 10)  # 0.021484375
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_cells_per_level_are_holm_corrected_and_infrastructure_is_left_out() -> None:
    a = rows("instruction", [True] * 6, 1) + rows("instruction", [True] * 6, 2)
    b = rows("code", [False] * 6, 1) + rows("code", [True] * 5 + [False], 2)
    b[0] = ExecutionRow("m", "code", "hanoi", 1, "hanoi/L1/s0", 0, "sandbox_error", "", 3.0)
    result = compare([a + b], Side("m", "instruction"), Side("m", "code"), boot=100)
    first, second = result.cells
    assert first.pairs == 5 and first.p_value == pytest.approx(2 / 2 ** 5)  # the sandbox_error pair is not a pair
    assert first.p_holm == pytest.approx(min(1.0, 2 * first.p_value)) and second.p_holm == pytest.approx(1.0)


def test_the_command_on_a_stored_run_and_its_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "compare", str(V1), "--a", "mixed:code", "--b", "wrong:code", "--format", "json")
    result = json.loads(out)
    # distinct instances (Hanoi's L1 and L2: one each; water jug's: two each) × samples
    assert code == 0 and result["overall"]["pairs"] == (2 + 4) * 3 and result["overall"]["b_rate"] == 0.0
    refused(capsys, "compare", str(V1), "--a", "mixed:code", "--b", "nobody:code", inputs=(V1,),
            contains="--b nobody:code: no run holds nobody in code mode (sides found: crash:code, empty:code, mixed:code")
    refused(capsys, "compare", str(V1), inputs=(V1,), contains="name the sides with --a and --b (sides found: crash:code")
    refused(capsys, "compare", str(V1), "--a", "mixed", "--b", "wrong:code", contains="--a 'mixed': expected MODEL:MODE")
    refused(capsys, "compare", str(V1), "--a", "3/mixed:code", "--b", "wrong:code", contains="only 1 run(s)")
