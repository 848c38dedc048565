"""Two small distributions registering puzzles and games through entry points, written out for the plugin test.

`codebench-tinyplug` is a plugin as the README describes it: a puzzle (addup: the sum of some integers) and a
one-player game (pile: empty a pile taking 1-3 stones a move, in as few moves as can be), each with its templates in
`templates/` beside the module (and two decoys named as built-in templates, never used), and the oracle program the
mock model answers addup's code mode with. `codebench-brokenplug` registers what cannot be used: a module that does not import,
an object that is no Puzzle, a built-in's name, a name tinyplug takes too, and a puzzle without its templates.
"""

from __future__ import annotations

from pathlib import Path

TINY_PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "codebench-tinyplug"
version = "0.1.0"
dependencies = ["codebench-puzzles"]

[project.entry-points."codebench.puzzles"]
addup = "tinyplug:AddUp"
twin = "tinyplug:Twin"

[project.entry-points."codebench.games"]
pile = "tinyplug:Pile"

[tool.setuptools]
packages = ["tinyplug"]

[tool.setuptools.package-data]
tinyplug = ["templates/*/*.md.j2", "oracles/*.py"]
"""

TINY_MODULE = '''"""A plugin's puzzle and game."""

import math
import random
from dataclasses import dataclass

from puzzles import InstanceFormatError, Issue, IssueCode, Puzzle, Verdict
from puzzles.games import Game, GameOutcome


@dataclass(frozen=True)
class Params:
    count: int


class AddUp(Puzzle[Params]):
    name = "addup"
    version = 1
    title = "Add up"
    params_type = Params
    levels = {level: {"count": (level, 2 * level)} for level in range(1, 7)}
    instance_schema = {"type": "object", "required": ["numbers"],
                       "properties": {"numbers": {"type": "array", "items": {"type": "integer"}}}}
    answer_schema = {"type": "object", "required": ["total"], "additionalProperties": False,
                     "properties": {"total": {"type": "integer"}}}

    def build(self, params, rng):
        return {"numbers": [rng.randint(-50, 50) for _ in range(params.count)]}, {"complexity": {"count": params.count}}

    def _check_instance(self, instance):
        numbers = instance.get("numbers")
        if type(numbers) is not list or not all(type(n) is int for n in numbers):
            raise InstanceFormatError("addup: numbers must be a list of integers")

    def _solve(self, instance):
        return {"total": sum(instance["numbers"])}

    def _validate(self, instance, answer):
        if answer == self._solve(instance) and type(answer["total"]) is int:
            return Verdict(True)
        return Verdict(False, (Issue(IssueCode.CONFLICT, "that is not the sum"),))


class Twin(AddUp):
    name = "twin"


class Pile(Game):
    name = "pile"
    title = "Pile"
    players = 1
    reference = 1.0
    levels = {1: {"stones": (4, 8)}, 2: {"stones": (9, 15)}}
    move_schema = {"type": "object", "required": ["take"], "additionalProperties": False,
                   "properties": {"take": {"type": "integer", "minimum": 1, "maximum": 3}}}

    def _initial(self, params, rng):
        return {"stones": params["stones"], "start": params["stones"], "moves": 0, "to_move": 0}, \\
            {"complexity": {"stones": params["stones"]}}

    def _observe(self, state, player):
        return {"stones": state["stones"], "moves": state["moves"]}

    def _legal(self, state, player, move):
        if type(move) is not dict or set(move) != {"take"} or type(move["take"]) is not int:
            return Verdict(False, (Issue(IssueCode.MALFORMED, 'a move is an object {"take": k}'),))
        if not 1 <= move["take"] <= min(3, state["stones"]):
            return Verdict(False, (Issue(IssueCode.ILLEGAL_MOVE, "take 1, 2 or 3 stones, and no more than are left"),))
        return Verdict(True)

    def _apply(self, state, player, move):
        state["stones"] -= move["take"]
        state["moves"] += 1
        return state

    def _is_over(self, state):
        return state["stones"] == 0

    def outcome(self, state):
        return GameOutcome((math.ceil(state["start"] / 3) / state["moves"],))

    def legal_moves(self, observation, player):
        return [{"take": k} for k in range(1, min(3, observation["stones"]) + 1)]

    def reference_move(self, game, observation, player, rng):
        return {"take": min(3, observation["stones"])}
'''

TINY_TEMPLATES = {
    "rules/addup.md.j2": "Add up every number of the instance's `numbers`; the answer is the sum, as `total`.\n",
    "instruction/addup.md.j2": '{% extends "instruction/_base.md.j2" %}\n',
    "code/addup.md.j2": '{% extends "code/_base.md.j2" %}\n{% block rules %}\n{% include "rules/addup.md.j2" %}\n{% endblock %}\n',
    "rules/twin.md.j2": "As addup.\n",
    "instruction/twin.md.j2": '{% extends "instruction/_base.md.j2" %}\n',
    "code/twin.md.j2": '{% extends "code/_base.md.j2" %}\n{% block rules %}\nAs addup.\n{% endblock %}\n',
    "rules/pile.md.j2": "A pile of stones; each move takes 1, 2 or 3 of them. Empty the pile in as few moves as you can.\n",
    "instruction/_base.md.j2": "DECOY: a plugin never replaces a built-in template\n",
    "games/opening.md.j2": "DECOY: a plugin never replaces a built-in template\n",
}
ORACLE = "def solve(instance):\n    return {\"total\": sum(instance[\"numbers\"])}\n"  # what the mock answers code mode with

BROKEN_PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "codebench-brokenplug"
version = "2.0.0"

[project.entry-points."codebench.puzzles"]
broken = "brokenplug.missing:Nothing"
notapuzzle = "brokenplug:NOT_A_PUZZLE"
hanoi = "brokenplug:Bare"
twin = "brokenplug:Bare"
bare = "brokenplug:Bare"

[tool.setuptools]
packages = ["brokenplug"]
"""

BROKEN_MODULE = '''"""What no plugin should register."""

from tinyplug import AddUp

NOT_A_PUZZLE = 42


class Bare(AddUp):  # a puzzle without templates
    name = "bare"
'''


def write_packages(folder: Path) -> tuple[Path, Path]:
    """The two distributions' source folders, written under `folder`: (tinyplug, brokenplug)."""
    tiny, broken = folder / "tinyplug", folder / "brokenplug"
    (tiny / "tinyplug").mkdir(parents=True)
    (tiny / "pyproject.toml").write_text(TINY_PYPROJECT)
    (tiny / "tinyplug" / "__init__.py").write_text(TINY_MODULE)
    for path, text in TINY_TEMPLATES.items():
        (tiny / "tinyplug" / "templates" / path).parent.mkdir(parents=True, exist_ok=True)
        (tiny / "tinyplug" / "templates" / path).write_text(text)
    (tiny / "tinyplug" / "oracles").mkdir()
    (tiny / "tinyplug" / "oracles" / "addup.py").write_text(ORACLE)
    (broken / "brokenplug").mkdir(parents=True)
    (broken / "pyproject.toml").write_text(BROKEN_PYPROJECT)
    (broken / "brokenplug" / "__init__.py").write_text(BROKEN_MODULE)
    return tiny, broken
