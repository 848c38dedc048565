"""Tower of Hanoi: move n disks from the start peg to the goal peg, never a larger disk on a smaller.

λ = n; the minimal solution has 2^n − 1 moves. Answer: {"moves": [[disk, from, to], …]}, disk 1 smallest.

Bounds: n ≤ MAX_DISKS = 24 for generate and solve alike: the reference answer has 2^n − 1 moves,
about 13 s and 1.7 GB to build at n = 24 (16.8 M moves); n = 40 would be 10^12 moves. solve also
requires the instance to be consistent: three distinct string pegs, start and goal two different
ones of them.

Complexity axis: λ = n, 1..MAX_DISKS, the one parameter the levels raise; the pegs stay A → C as at every level.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ._errors import InstanceFormatError
from ._protocol import JSON, ComplexityAxis, IssueCode, Puzzle, Verdict, check_param, clip, is_int, open_answer

PEGS = ["A", "B", "C"]
MAX_DISKS = 24  # 2^24 − 1 moves: the most a generated or solved instance may ask for


@dataclass(frozen=True)
class HanoiParams:
    """n disks; `random_pegs` draws the start and goal pegs instead of A → C."""

    n: int = 3
    random_pegs: bool = False

    def __post_init__(self) -> None:
        check_param(1 <= self.n <= MAX_DISKS, "n", self.n, f"1..{MAX_DISKS}")


class Hanoi(Puzzle[HanoiParams]):
    name = "hanoi"
    version = 1
    title = "Tower of Hanoi"
    trajectory_field = "moves"
    params_type = HanoiParams
    levels = {
        1: {"n": 3},
        2: {"n": 4},
        3: {"n": (5, 6)},
        4: {"n": (7, 8)},
        5: {"n": (9, 10)},
        6: {"n": (12, 15)},
    }
    axis = ComplexityAxis.along("n", levels, lowest=1, highest=MAX_DISKS,
                                limit=f"the reference answer has 2^n − 1 moves (16.8 M at n = {MAX_DISKS}: 13 s and 1.7 GB to build)")
    instance_schema = {
        "type": "object",
        "required": ["n", "pegs", "start", "goal"],
        "properties": {
            "n": {"type": "integer", "minimum": 1, "description": "number of disks, 1 smallest"},
            "pegs": {"type": "array", "items": {"enum": PEGS}, "minItems": 3, "maxItems": 3, "uniqueItems": True},
            "start": {"enum": PEGS, "description": "peg holding every disk at the start"},
            "goal": {"enum": PEGS, "description": "peg that must hold every disk at the end"},
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["moves"],
        "properties": {
            "moves": {
                "type": "array",
                "description": "[disk, from_peg, to_peg]; the disk must be on top of from_peg",
                "items": {
                    "type": "array",
                    "prefixItems": [{"type": "integer", "minimum": 1}, {"enum": PEGS}, {"enum": PEGS}],
                    "minItems": 3,
                    "maxItems": 3,
                },
            }
        },
    }

    def build(self, params: HanoiParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        start, goal = rng.sample(PEGS, 2) if params.random_pegs else ("A", "C")
        instance = {"n": params.n, "pegs": list(PEGS), "start": start, "goal": goal}
        meta = {"complexity": {"n": params.n}, "min_solution_length": 2**params.n - 1}
        return instance, meta

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        opened = open_answer(answer, "moves", list, 'a list of [disk, from, to]')
        if isinstance(opened, Verdict):
            return opened
        moves, issues = opened
        n, start, goal = instance["n"], instance["start"], instance["goal"]
        stacks: dict[Any, list[int]] = {peg: [] for peg in instance["pegs"]}
        stacks[start] = list(range(n, 0, -1))
        for index, move in enumerate(moves):
            problem = self._apply(stacks, move, n)
            if problem is not None:
                code, message = problem
                issues.add(code, f"move {index} {clip(move)}: {message}", step=index)
                return issues.verdict(steps_applied=index)
        if len(stacks[goal]) != n:
            issues.add(IssueCode.GOAL_NOT_REACHED, f"after {len(moves)} moves peg {goal} holds {len(stacks[goal])} of {n} disks")
        return issues.verdict(steps_applied=len(moves))

    @staticmethod
    def _apply(stacks: dict[Any, list[int]], move: JSON, n: int) -> tuple[IssueCode, str] | None:
        """Apply one move in place, or say why it is illegal (the hot loop of a 2^20-move check)."""
        if type(move) is not list or len(move) != 3:
            return IssueCode.MALFORMED, "a move is a list [disk, from, to]"
        disk, source, target = move
        if type(disk) is not int:
            return IssueCode.BAD_VALUE, "disk must be an integer"
        if not 1 <= disk <= n:
            return IssueCode.BAD_VALUE, f"disk must be 1..{n}"
        if type(source) is not str or source not in stacks or type(target) is not str or target not in stacks:
            return IssueCode.UNKNOWN_TOKEN, f"pegs are {', '.join(stacks)}"
        if source == target:
            return IssueCode.ILLEGAL_MOVE, "source and target peg are the same"
        from_stack, to_stack = stacks[source], stacks[target]
        if not from_stack or from_stack[-1] != disk:
            return IssueCode.ILLEGAL_MOVE, f"disk {disk} is not on top of peg {source}"
        if to_stack and to_stack[-1] < disk:
            return IssueCode.ILLEGAL_MOVE, f"disk {disk} would sit on smaller disk {to_stack[-1]}"
        to_stack.append(from_stack.pop())
        return None

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        n, pegs, start, goal = (instance.get(key) for key in ("n", "pegs", "start", "goal"))
        if not is_int(n) or not 1 <= n <= MAX_DISKS:
            raise InstanceFormatError(f"hanoi: n={clip(n)}: expected an integer 1..{MAX_DISKS} (2^n − 1 moves; the bound is {MAX_DISKS})")
        if type(pegs) is not list or len(pegs) != 3 or not all(type(peg) is str for peg in pegs) or len(set(pegs)) != 3:
            raise InstanceFormatError(f"hanoi: pegs={clip(pegs)}: expected three distinct peg names")
        if type(start) is not str or type(goal) is not str or start not in pegs or goal not in pegs or start == goal:
            raise InstanceFormatError(f"hanoi: start={clip(start)}, goal={clip(goal)}: expected two different pegs of {clip(pegs)}")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        moves: list[list[JSON]] = []

        def move_tower(disks: int, source: str, target: str, spare: str) -> None:
            if disks:
                move_tower(disks - 1, source, spare, target)
                moves.append([disks, source, target])
                move_tower(disks - 1, spare, target, source)

        start, goal = instance["start"], instance["goal"]
        (spare,) = set(instance["pegs"]) - {start, goal}
        move_tower(instance["n"], start, goal, spare)
        return {"moves": moves}

    def render(self, instance: dict[str, JSON]) -> str:
        n = instance["n"]
        width = 2 * n + 1
        rows = []
        for level in range(n, 0, -1):
            disk = n - level + 1
            cells = [("=" * (2 * disk - 1)).center(width) if peg == instance["start"] else "|".center(width) for peg in instance["pegs"]]
            rows.append(" ".join(cells))
        rows.append(" ".join(peg.center(width) for peg in instance["pegs"]))
        return "\n".join(rows) + f"\nmove all {n} disks from peg {instance['start']} to peg {instance['goal']}"
