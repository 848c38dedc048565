"""Correct programs come back legal on every family and level; wrong and non-JSON answers are rule violations."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import puzzles
from codebench.judge import judge_execution as judge
from codebench.oracles import oracle_source
from codebench.sandbox import SandboxBackend, get_backend
from codebench.types import Limits, Status

LIMITS = Limits(cpu_s=10, wall_s=30)
pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxBackend]:
    with get_backend("docker", LIMITS, workers=2) as pool:
        yield pool


@pytest.mark.parametrize("name", puzzles.puzzle_names())
def test_oracle_program_is_legal_on_every_level(sandbox: SandboxBackend, name: str) -> None:
    puzzle = puzzles.get_puzzle(name)
    records = [puzzle.generate(level, seed) for level in puzzles.LEVELS for seed in (0, 1)]
    facts = sandbox.run(oracle_source(name), [record.instance for record in records])
    outcomes = [judge(fact, puzzle, record.instance, LIMITS) for fact, record in zip(facts, records)]
    assert [(r.id, o.status, o.detail) for r, o in zip(records, outcomes)] == [(r.id, Status.LEGAL, "") for r in records]


def test_wrong_answer_is_a_rule_violation_with_the_validators_issue(sandbox: SandboxBackend) -> None:
    sudoku = puzzles.get_puzzle("sudoku")
    record = sudoku.generate(3, 0)
    wrong = oracle_source("sudoku") + "\n_right = solve\ndef solve(instance):\n    grid = _right(instance)['grid']\n" \
        "    grid[0][0], grid[0][1] = grid[0][1], grid[0][0]\n    return {'grid': grid}\n"
    grid = sudoku.solve(record.instance)["grid"]
    grid[0][0], grid[0][1] = grid[0][1], grid[0][0]
    expected = sudoku.validate(record.instance, {"grid": grid})
    outcome = judge(sandbox.run(wrong, [record.instance])[0], sudoku, record.instance, LIMITS)
    assert outcome.status == Status.RULE_VIOLATION and not expected.ok
    assert outcome.issues == expected.issues
    assert outcome.detail == str(expected.issues[0].code)


@pytest.mark.parametrize(("returned", "kind"), [("{1, 2}", "set"), ("float('nan')", "float"), ("object()", "object")])
def test_non_json_return_is_a_rule_violation(sandbox: SandboxBackend, returned: str, kind: str) -> None:
    hanoi = puzzles.get_puzzle("hanoi")
    instance = hanoi.generate(1, 0).instance
    outcome = judge(sandbox.run(f"def solve(instance):\n    return {returned}\n", [instance])[0], hanoi, instance, LIMITS)
    assert (outcome.status, outcome.detail) == (Status.RULE_VIOLATION, "not_json")
    assert f"returned a {kind} value, which is not JSON" in outcome.issues[0].message


@pytest.mark.parametrize("size", [10, 3 << 20])
def test_an_instance_of_any_size_reaches_the_program_whole(sandbox: SandboxBackend, size: int) -> None:
    """The task travels to a child made ahead of it over a pipe that holds 64 KiB: a larger one is written as the child
    reads, and a large and a small one alternate on the same worker."""
    instances = [{"text": "x" * size, "n": n} for n in range(2)] + [{"text": "y", "n": 2}]
    facts = sandbox.run("def solve(instance):\n    return [len(instance['text']), instance['n']]\n", instances)
    assert [f.result.get("answer") for f in facts] == [f"[{size}, 0]".encode(), f"[{size}, 1]".encode(), b"[1, 2]"], facts
