"""The package's shape, checked on the source: which layer may import which, where third-party code may appear,
and that the status words are spelled in one module only."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codebench.types import Status

ROOT = Path(__file__).resolve().parents[2]
# Lower layers never import higher ones; a package's own modules are in its layer.
LAYERS = {
    "puzzles": 0,
    "codebench.types": 1, "codebench.errors": 1, "codebench.keys": 1,
    "codebench.judge": 2, "codebench.records": 2, "codebench.selftest": 2, "codebench.oracles": 2, "codebench.model": 2,
    "codebench.sandbox": 2, "codebench.modes": 2, "codebench.analysis": 2,
    "codebench.run": 3, "codebench.games": 3,
    "codebench.cli": 4, "codebench.__main__": 4,
}
CONFINED = {  # third-party package -> the only modules (or packages) that may import it
    "openai": ("codebench.model.client",),
    "docker": ("codebench.sandbox",),
    "sqlite3": ("codebench.run.store",),
    "RestrictedPython": ("codebench.sandbox",),
    "psutil": ("codebench.sandbox",),
    "typer": ("codebench.cli",),
    "rich": ("codebench.cli",),
}


def modules() -> Iterator[tuple[str, Path]]:
    for package in ("codebench", "puzzles"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "oracles" in path.parts and path.name != "__init__.py":
                continue  # oracle programs are data: standalone programs, never imported
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


def imports(name: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module) for every import in the file, function-local ones included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield node.lineno, module
            if node.module is None:  # from . import x: x may be a module
                yield from ((node.lineno, f"{module}.{alias.name}") for alias in node.names)


def layer(module: str) -> int | None:
    if module == "codebench":
        return 1  # the package's own __init__: its version, nothing else
    matches = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return LAYERS[max(matches, key=len)] if matches else None


def within(module: str, owners: tuple[str, ...]) -> bool:
    return any(module == owner or module.startswith(owner + ".") for owner in owners)


ALL = list(modules())


def test_every_module_has_a_layer() -> None:
    assert [name for name, _ in ALL if layer(name) is None] == []


def test_no_module_imports_a_higher_layer() -> None:
    upward = [f"{path.relative_to(ROOT)}:{line} ({name}, layer {layer(name)}) imports {target} (layer {layer(target)})"
              for name, path in ALL for line, target in imports(name, path)
              if layer(target) is not None and layer(target) > layer(name)]  # type: ignore[operator]
    assert upward == []


TURN_LOOP = {"play", "Player", "Answer", "Forfeit"}  # what playing a game needs of puzzles.games


def test_games_are_played_in_the_games_package_alone_by_the_one_turn_loop() -> None:
    """Seats, matches and the match stage live in codebench.games, and puzzles.games.play is the only turn loop: no other
    codebench module takes the loop's names, and no module but puzzles' protocol asks a game whose move it is."""
    takers = [f"{path.relative_to(ROOT)}:{node.lineno}" for name, path in ALL
              if name.startswith("codebench") and not within(name, ("codebench.games",))
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.ImportFrom) and node.module == "puzzles.games"
              and {alias.name for alias in node.names} & TURN_LOOP]
    askers = [f"{path.relative_to(ROOT)}:{node.lineno}" for name, path in ALL if name != "puzzles.games._protocol"
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.Attribute) and node.attr == "to_move" and isinstance(node.ctx, ast.Load)
              and not (isinstance(node.value, ast.Name) and node.value.id == "self")]
    assert takers == [] and askers == []
    assert layer("codebench.games.table") == layer("codebench.run.pipeline")


def test_puzzles_imports_nothing_of_codebench() -> None:
    assert [(name, target) for name, path in ALL if name.startswith("puzzles")
            for _, target in imports(name, path) if target.startswith("codebench")] == []


@pytest.mark.parametrize("package", sorted(CONFINED))
def test_third_party_code_stays_where_it_belongs(package: str) -> None:
    strays = [f"{path.relative_to(ROOT)}:{line}" for name, path in ALL for line, target in imports(name, path)
              if (target == package or target.startswith(package + ".")) and not within(name, CONFINED[package])]
    assert strays == []


def test_status_words_are_spelled_only_in_the_types_module() -> None:
    words = {str(status) for status in Status}
    spelled = [f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}" for name, path in ALL
               if name.startswith("codebench") and name != "codebench.types"
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.Constant) and node.value in words]
    assert spelled == []


HEAVY = ("pysat", "ortools", "kociemba", "numpy", "pandas", "openai", "docker", "jinja2", "jsonschema", "yaml", "pydantic",
         "sqlite3", "psutil", "RestrictedPython")


@pytest.mark.parametrize("argv", [["--help"], ["puzzles", "list"], ["run", "--help"], ["check", "--help"]])
def test_the_command_line_starts_without_solver_or_engine_libraries(argv: list[str]) -> None:
    script = ("import json, sys\nfrom codebench.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
              f"print(json.dumps(sorted({{m.partition('.')[0] for m in sys.modules}} & {set(HEAVY)!r})), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
