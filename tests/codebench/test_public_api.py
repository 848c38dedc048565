"""The public API is what the README documents: the package roots' `__all__`, pinned, and every name loads."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import codebench
import puzzles

ROOT = Path(__file__).resolve().parents[2]
CODEBENCH = ["LoadedRun", "RunResult", "RunSpec", "__version__", "compare", "evaluate", "load_run", "report"]
PUZZLES = ["LEVELS", "MAX_SEED", "PUZZLES", "ComplexityAxis", "InstanceFormatError", "Issue", "IssueCode", "ParamError", "Prompting",
           "Puzzle", "PuzzleError", "Record", "ReplyAnswer", "StrictJSONError", "UnknownPuzzleError", "Verdict", "dumps_canonical",
           "get_puzzle", "instruction_prompt", "loads_strict", "puzzle_names", "read_answer", "with_repeated_keys"]


def test_the_roots_export_exactly_the_documented_names() -> None:
    assert codebench.__all__ == CODEBENCH  # a change here is a change of the public API: the README's "From Python" too
    assert puzzles.__all__ == PUZZLES
    assert sorted(dir(codebench)) == sorted(CODEBENCH)


@pytest.mark.parametrize("name", CODEBENCH)
def test_every_codebench_name_loads_from_its_home(name: str) -> None:
    found = getattr(codebench, name)
    assert found is not None
    if callable(found):
        assert found.__module__.startswith("codebench.") and found.__doc__, f"{name} needs a docstring: it is public"


@pytest.mark.parametrize("name", PUZZLES)
def test_every_puzzles_name_loads(name: str) -> None:
    assert getattr(puzzles, name) is not None


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'evaluated'"):
        codebench.evaluated  # noqa: B018


def test_importing_the_root_loads_no_run() -> None:
    """A sandbox worker imports codebench's types: the root must not pull in the run, the store or the reports."""
    code = "import sys, codebench; print(sorted(m for m in sys.modules if m.startswith('codebench')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert ast.literal_eval(loaded) == ["codebench", "codebench.version"]


def test_a_public_class_name_means_one_thing() -> None:
    """No two public classes of codebench and puzzles share a name (two `Outcome`s, two `Seat`s, two `ConfigError`s
    were three concepts under three names too few)."""
    found: dict[str, list[str]] = {}
    for package in ("codebench", "puzzles"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    found.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in found.items() if len(paths) > 1} == {}
