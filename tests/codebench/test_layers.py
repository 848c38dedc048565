"""The package's shape, checked on the source: which layer may import which (the real layers: each part one above the
highest it imports), no import cycle, where third-party code may appear, that `run` needs nothing of `analysis`, that
the store reads no label, and that the status words are spelled in one module only."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codebench.types import ModeName, Status

ROOT = Path(__file__).resolve().parents[2]
# Lower layers never import higher ones; a package's own modules are in its layer, and each part is one layer above the
# highest part it imports (or in its layer: `run` and `games` import each other), so the table is the real one.
LAYERS = {
    "puzzles": 0, "codebench.errors": 0, "codebench.version": 0,
    "codebench.adaptive": 0,  # the adaptive search's statistics (numpy only): `run` chooses λ with it, reports read its posterior
    "codebench.types": 1, "codebench.selftest": 1, "codebench.oracles": 1,
    "codebench.keys": 2, "codebench.judge": 2, "codebench.files": 2, "codebench.costs": 2, "codebench.model": 2,
    "codebench.protocols": 2,  # published settings as data: the run's options and the report's table read them
    "codebench.sandbox": 3, "codebench.modes": 3, "codebench.analysis": 3,
    "codebench.run": 4, "codebench.games": 4,
    "codebench.reports": 5, "codebench.integrations": 5,  # inspect_ai, lm-eval and reasoning-gym: planned and scored as a run
    "codebench.evaluation": 6,
    "codebench.cli": 7, "codebench": 7,  # the package's own __init__: the public API, loaded on first use
    "codebench.__main__": 8,
}
CONFINED = {  # third-party package -> the only modules (or packages) that may import it
    "openai": ("codebench.model.client",),
    "docker": ("codebench.sandbox",),
    "sqlite3": ("codebench.run.store", "codebench.run.cache"),  # the run database; the response cache shared across runs
    "RestrictedPython": ("codebench.sandbox",),
    "psutil": ("codebench.sandbox",),
    "typer": ("codebench.cli",),
    "rich": ("codebench.cli",),
    "inspect_ai": ("codebench.run.export", "codebench.integrations.inspect_tasks"),
    "lm_eval": (),  # lm-eval loads codebench's task folder, never the other way round
    "datasets": ("codebench.integrations.lm_eval",),
    "reasoning_gym": ("codebench.integrations.reasoning_gym",),
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


def part(module: str) -> str:
    """The entry of LAYERS a module belongs to (the package's own `__init__`: itself)."""
    entries = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return max(entries, key=len) if entries else module


def test_each_part_sits_right_above_what_it_imports() -> None:
    """No part is placed higher or lower than it must be (a flattened table hides what depends on what): its layer is one
    above the highest layer it imports (0 if it imports none), or that layer itself where every part there that it
    imports imports it back (`run` and `games`)."""
    imported: dict[str, set[str]] = {}
    for name, path in ALL:
        for _, target in imports(name, path):
            if layer(target) is not None and part(target) != part(name):
                imported.setdefault(part(name), set()).add(part(target))

    def fits(entry: str, level: int) -> bool:
        top = max((layer(other) for other in imported.get(entry, ())), default=-1)  # type: ignore[type-var]
        peers = [other for other in imported.get(entry, ()) if layer(other) == level]
        return level == top + 1 or (level == top and all(entry in imported.get(peer, ()) for peer in peers))

    assert {entry: sorted(imported.get(entry, ())) for entry, level in LAYERS.items() if not fits(entry, level)} == {}


def graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (function-local imports included; `from package import name` counts the
    package, and the module `name` where it is one)."""
    names = {name for name, _ in ALL}
    edges: dict[str, set[str]] = {}
    for name, path in ALL:
        targets = set()
        for _, target in imports(name, path):
            while target and target not in names:  # a name imported from a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
        edges[name] = targets
    return edges


def test_no_two_modules_import_each_other_even_through_others() -> None:
    """No import cycle between modules of codebench or puzzles, through function-local imports too. A package's
    `__init__` loading one of its own modules (a backend or a mode by name) is not counted: Python imports a package
    before any of its modules, so each of them depends on it anyway; any other cycle is."""
    edges = {name: {target for target in targets if not target.startswith(name + ".")} for name, targets in graph().items()}
    cycles: list[list[str]] = []
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> None:
        if module in path:
            cycles.append(path[path.index(module):] + [module])
            return
        if module in done:
            return
        for target in sorted(edges.get(module, ())):
            walk(target, [*path, module])
        done.add(module)

    for module in sorted(edges):
        walk(module, [])
    assert [" -> ".join(cycle) for cycle in cycles] == []


def test_run_needs_nothing_of_analysis() -> None:
    """A run prices and budgets its requests with `codebench.costs`, below both: no module of `run`, nor any module it
    imports (function-local imports included, `games` too), is a module of `analysis`."""
    edges, seen = graph(), set()
    stack = [name for name, _ in ALL if within(name, ("codebench.run",))]
    while stack:
        module = stack.pop()
        if module not in seen:
            seen.add(module)
            stack.extend(edges.get(module, ()))
    assert sorted(name for name in seen if within(name, ("codebench.analysis",))) == []


TAKING_APART = {"partition", "rpartition", "split", "rsplit", "removeprefix", "removesuffix"}  # how a label is taken apart


def test_the_store_reads_no_label() -> None:
    """What the store hands its readers is stored as data (a game seat's model, mode and tokens: the record's entries
    and usage): no reader takes a name apart. The one place that may is a migration, which reads this once what an
    older schema kept only in a label (schema 5's "MODEL (MODE)" players) and stores it as data."""
    found = []
    for name, path in ALL:
        if name not in ("codebench.run.store", "codebench.run._fields"):
            continue
        found += [f"{path.relative_to(ROOT)}:{line} imports re" for line, target in imports(name, path) if target == "re"]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        migrations = {node for function in ast.walk(tree) if isinstance(function, ast.FunctionDef)
                      and function.name.startswith("_migrate") for node in ast.walk(function)}
        found += [f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}" for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and node.attr in TAKING_APART and node not in migrations]
    assert found == []


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


def _spelled(words: set[str], fields_too: bool) -> list[str]:
    """Where a codebench module outside the types module writes one of `words` as a string constant; with `fields_too`,
    a word read or written as a JSON field (`x["code"]`, `x.get("code")`, a dict literal's key) is another concept."""
    found = []
    for name, path in ALL:
        if not name.startswith("codebench") or name == "codebench.types":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        fields = {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
        fields |= {id(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
                   and isinstance(node.func, ast.Attribute) and node.func.attr == "get"}
        fields |= {id(key) for node in ast.walk(tree) if isinstance(node, ast.Dict) for key in node.keys}
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value in words and not (fields_too and id(node) in fields)]
    return found


def test_status_words_are_spelled_only_in_the_types_module() -> None:
    assert _spelled({str(status) for status in Status}, fields_too=False) == []


def test_mode_words_are_spelled_only_in_the_types_module() -> None:
    """A mode is decided by `ModeName`; "code" is also an issue's and a JSON reply's field, which is not a mode."""
    assert _spelled({str(mode) for mode in ModeName}, fields_too=True) == []


HEAVY = ("pysat", "ortools", "kociemba", "numpy", "pandas", "openai", "docker", "jinja2", "jsonschema", "yaml", "pydantic",
         "sqlite3", "psutil", "RestrictedPython")


@pytest.mark.parametrize("argv", [["--help"], ["puzzles", "list"], ["run", "--help"], ["check", "--help"]])
def test_the_command_line_starts_without_solver_or_engine_libraries(argv: list[str]) -> None:
    script = ("import json, sys\nfrom codebench.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
              f"print(json.dumps(sorted({{m.partition('.')[0] for m in sys.modules}} & {set(HEAVY)!r})), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
