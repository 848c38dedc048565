"""The public API is what the README documents: the package roots' `__all__`, pinned, and every name loads."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import codebench
import puzzles

CODEBENCH = ["LoadedRun", "RunResult", "RunSpec", "__version__", "compare", "evaluate", "load_run", "report"]
PUZZLES = ["LEVELS", "MAX_SEED", "PUZZLES", "ConfigError", "InstanceFormatError", "Issue", "IssueCode", "Puzzle", "PuzzleError",
           "Record", "ReplyAnswer", "StrictJSONError", "UnknownPuzzleError", "Verdict", "dumps_canonical", "get_puzzle",
           "instruction_prompt", "loads_strict", "puzzle_names", "read_answer", "with_repeated_keys"]


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
