"""TidyTower (PuzzlePlex §2.1): one player, a tower of H cubes showing R, Y, B or G in front; make every cube show the
same colour in as few operations as you like, all given at once.

A turn clockwise shows the next colour of the cycle R → Y → B → G → R. An operation [i, r, h] turns cube i (0 = the
bottom) r times clockwise, r = 1..4 (4 turns it back to where it was): with h = 0 every cube above it turns with it,
with h = 1 the cube above it is held, so cube i turns alone. The answer is {"operations": [[i, r, h], …]}, applied in
order; the raw score is 1 if the tower is then tidy (one colour throughout), else 0. Setup as PuzzlePlex: cubes 0..H−2
uniformly from RYBG, the top one the first of RYBG that differs from the cube below it (so the tower is never tidy).

Decisions where PuzzlePlex's engine and prompts differ (spec §2.1, §6.3):
- The hold bit means what the prompts and their example say (h = 0: the cube and all above turn; h = 1: that cube
  alone), the opposite of PuzzlePlex's engine, which scored prompt-faithful answers 0. The prompts' example is right
  under these rules with r = 1: RGBYRGBYBGBGBG, [1, 1, 0] → RRGBYRGBGRGRGR and [1, 1, 1] → RRBYRGBYBGBGBG (tested).
  The one-shot prompt's 14-cube example ("hold at position p", turning a block of cubes) is not in this action space:
  here that tower needs 9 operations, not 8.
- Ranges as the prompts state them: 0 ≤ i < H, 1 ≤ r ≤ 4, h ∈ {0, 1}, all JSON integers (PuzzlePlex took any integer
  mod 4 and let negative indices wrap); at most MAX_OPERATIONS operations. An empty list is a legal answer (scoring 0).
- Single pass, PuzzlePlex's default: the whole list is one move; the iterative 20-turn variant is not offered.
Levels 1 and 2 are PuzzlePlex's easy (6 cubes) and normal (10); 3 has 14–18 cubes and 4 has 24–32. λ = cubes.

The least number of operations is exact (meta `min_operations`), from a difference view: let d_k be how far cube k is
turned from cube k−1 (k = 1..H−1; tidy means every d_k = 0). [i, r, 0] adds r to d_i alone; [i, r, 1] adds r to d_i
and takes r from d_{i+1}. The operations on a stretch of d's left connected by holds either include a lone change and
cost at least the stretch's length L, or keep the stretch's sum and cost at least L − 1, which works only when the sum
is 0 (mod 4). So the minimum is H − 1 minus the most stretches of sum 0 a split of d_1..d_{H−1} can have (a small DP
over prefix sums), and the reference strategy reaches it, so it always scores 1 with the fewest operations.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._protocol import Game, State
from ._singlepass import SinglePass

JSON = Any
COLOURS = "RYBG"  # clockwise: one turn shows the next letter
MAX_OPERATIONS = 1000  # far above the H − 1 an answer ever needs


class TidyTower(SinglePass):
    name: ClassVar[str] = "tidytower"
    reference = 1.0  # tidy or not
    title: ClassVar[str] = "TidyTower"
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"cubes": 6}, 2: {"cubes": 10}, 3: {"cubes": (14, 18)},
                                                      4: {"cubes": (24, 32)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["operations"], "additionalProperties": False,
        "properties": {"operations": {
            "type": "array", "maxItems": MAX_OPERATIONS, "description": "applied in order",
            "items": {"type": "array", "minItems": 3, "items": False, "prefixItems": [
                {"type": "integer", "minimum": 0, "description": "cube index, 0 = bottom"},
                {"type": "integer", "minimum": 1, "maximum": 4, "description": "clockwise turns"},
                {"type": "integer", "enum": [0, 1], "description": "1: hold the cube above, so this cube turns alone"}]}}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        cubes = params["cubes"]
        tower = [COLOURS[rng.randint(0, 3)] for _ in range(cubes - 1)]
        tower.append(next(c for c in COLOURS if c != tower[-1]))
        text = "".join(tower)
        return (self.opening({"tower": text, "operations": None}),
                {"complexity": {"cubes": cubes}, "min_operations": len(plan(text))})

    def _observe(self, state: State, player: int) -> JSON:
        return {"tower": state["tower"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"operations"} or type(move["operations"]) is not list:
            return reject(IssueCode.MALFORMED, 'an answer is an object {"operations": [[cube, turns, hold], ...]}')
        operations, cubes = move["operations"], len(state["tower"])
        if len(operations) > MAX_OPERATIONS:
            return reject(IssueCode.MALFORMED, f"{len(operations)} operations: at most {MAX_OPERATIONS}")
        for step, operation in enumerate(operations):
            if type(operation) is not list or len(operation) != 3:
                return reject(IssueCode.MALFORMED, f"operation {step} {clip(operation)} is not [cube, turns, hold]", step)
            for value, what, low, high in zip(operation, ("cube", "turns", "hold"), (0, 1, 0), (cubes - 1, 4, 1)):
                if not is_int(value) or not low <= value <= high:
                    return reject(IssueCode.BAD_VALUE, f"operation {step}: {what} {clip(value)} is not an integer {low}..{high}", step)
        return Verdict(True)

    def _settle(self, state: State, move: JSON) -> float:
        tower = state["tower"]
        for cube, turns, hold in move["operations"]:
            tower = turned(tower, cube, turns, hold)
        state["tower"], state["operations"] = tower, len(move["operations"])
        return 1.0 if len(set(tower)) == 1 else 0.0

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        """A representative subset: every one-operation answer (any list of operations is legal)."""
        return [{"operations": [[cube, turns, hold]]} for cube in range(len(observation["tower"])) for turns in range(1, 5)
                for hold in (0, 1)]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """The fewest operations that make the tower tidy."""
        return {"operations": plan(observation["tower"])}

    def render(self, state: State) -> str:
        done = state["operations"] is not None
        return (f"tower (bottom first) {state['tower']}\n"
                + (f"after {state['operations']} operations: {'tidy' if state['score'] else 'not tidy'}" if done else "to move: player 0"))


def turned(tower: str, cube: int, turns: int, hold: int) -> str:
    """The tower after one operation: cube `cube` (with hold 0, also every cube above it) turned `turns` times."""
    top = cube + 1 if hold else len(tower)
    return tower[:cube] + "".join(COLOURS[(COLOURS.index(c) + turns) % 4] for c in tower[cube:top]) + tower[top:]


def plan(tower: str) -> list[list[int]]:
    """A shortest list of operations making `tower` tidy (see the module docstring for why it is shortest)."""
    offset = [(COLOURS.index(c) - COLOURS.index(tower[0])) % 4 for c in tower]  # prefix sums of the d's
    stretches = [0] * len(tower)  # most zero-sum stretches splitting d_1..d_k
    cut = [0] * len(tower)  # where the last stretch of that best split starts (after cube cut[k])
    for k in range(1, len(tower)):
        stretches[k], cut[k] = max((stretches[j] + (offset[j] == offset[k]), j) for j in range(k))
    bounds, k = [], len(tower) - 1
    while k > 0:
        bounds.append((cut[k], k))
        k = cut[k]
    operations: list[list[int]] = []
    for below, last in reversed(bounds):  # bottom up: a stretch's operations leave the differences above it alone
        for cube in range(below + 1, last + 1):
            turns = (COLOURS.index(tower[below]) - COLOURS.index(tower[cube])) % 4
            if turns:
                operation = [cube, turns, 1 if cube < last else 0]  # the stretch's last cube turns with all above it
                tower = turned(tower, *operation)
                operations.append(operation)
    return operations
