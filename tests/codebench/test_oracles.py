"""The oracle programs: standard library only, and legal answers on every family × level 1–6 × seeds 0–4.

Each case runs the program text as the sandbox does, in a fresh namespace (module code and any
start-up tables included in the CPU time), then calls solve() and asks the puzzle's own validator.
"""

from __future__ import annotations

import ast
import sys
import time
from typing import Any

import pytest

import puzzles
from codebench.errors import InputError
from codebench.oracles import ORACLES, oracle_names, oracle_source

LEVELS = range(1, 7)
SEEDS = range(5)
CPU_BUDGET_S = 3.0  # generous: the sandbox allows 10 s; every oracle needs well under 1 s


def run_oracle(name: str, instance: dict[str, Any]) -> tuple[Any, float]:
    """(answer, CPU seconds for loading the program and solving) — what one sandbox run costs."""
    code = compile(oracle_source(name), f"oracle_{name}.py", "exec")
    started = time.process_time()
    namespace: dict[str, Any] = {"__name__": "__solver__"}
    exec(code, namespace)  # our own trusted program text
    answer = namespace["solve"](instance)
    return answer, time.process_time() - started


def test_every_puzzle_has_an_oracle() -> None:
    assert oracle_names() == puzzles.puzzle_names() == list(ORACLES)


@pytest.mark.parametrize("name", ORACLES)
def test_oracle_is_a_standalone_stdlib_program(name: str) -> None:
    tree = ast.parse(oracle_source(name))
    assert ast.get_docstring(tree), "each oracle starts with a module docstring"
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            imported.add((node.module or "").split(".")[0])
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
    assert any(isinstance(node, ast.FunctionDef) and node.name == "solve" for node in tree.body)


def test_unknown_oracle_is_a_clear_error() -> None:
    for bad in ("nope", "../puzzles/hanoi", "__init__", ""):
        with pytest.raises(InputError, match="no oracle program"):
            oracle_source(bad)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", ORACLES)
def test_oracle_answers_are_legal(name: str, level: int, seed: int) -> None:
    puzzle = puzzles.get_puzzle(name)
    instance = puzzle.generate(level, seed).instance
    answer, cpu = run_oracle(name, instance)
    verdict = puzzle.validate(instance, answer)
    assert verdict.ok, verdict.issues[:3]
    assert puzzle.validate_json(instance, puzzles.dumps_canonical(answer)).ok  # survives the JSON round trip
    assert cpu < CPU_BUDGET_S, f"{name} L{level} seed {seed}: {cpu:.2f} s CPU"


def test_rubik_oracle_solves_towards_a_scrambled_target() -> None:
    puzzle = puzzles.get_puzzle("rubik")
    for seed in range(3):
        instance = puzzle.generate(params={"scramble_length": 20, "random_target": True}, seed=seed).instance
        answer, cpu = run_oracle("rubik", instance)
        assert puzzle.validate(instance, answer).ok and cpu < CPU_BUDGET_S
