"""`import puzzles` stays cheap: solver libraries load when a solver first runs, never on import or lookup."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pysat", "ortools", "kociemba", "numpy", "pandas", "jsonschema")
REPORT = f"print(json.dumps(sorted({{m.partition('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"


def loaded_after(*steps: str) -> list[list[str]]:
    """The heavy packages in sys.modules of a fresh interpreter after each step (run in order)."""
    code = "\n".join(["import json, sys", *(f"{step}\n{REPORT}" for step in steps)])
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return [json.loads(line) for line in output.splitlines()]


def test_import_lookup_and_schemas_load_no_solver_library() -> None:
    steps = (
        "import puzzles",
        'puzzles.get_puzzle("sudoku"); names = puzzles.puzzle_names()',
        "[(p.levels, p.instance_schema, p.answer_schema) for p in map(puzzles.get_puzzle, names)]",
        "import pkgutil, importlib; [importlib.import_module(f'puzzles.{m.name}') for m in pkgutil.iter_modules(puzzles.__path__)]",
    )
    assert loaded_after(*steps) == [[]] * len(steps)


@pytest.mark.parametrize(("puzzle", "level", "library"), [("cryptarithm", 1, "ortools"), ("sat", 1, "pysat"),
                                                          ("rubik", 6, "kociemba")])
def test_generating_and_solving_loads_the_solver_library(puzzle: str, level: int, library: str) -> None:
    solve = f'p = puzzles.get_puzzle("{puzzle}"); assert p.validate(i := p.generate({level}, 0).instance, p.solve(i)).ok'
    before, after = loaded_after("import puzzles", solve)
    assert library not in before and library in after
