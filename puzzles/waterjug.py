"""Water Jug: from two empty jugs of capacities a and b, end with exactly g units in either jug.

λ = (a, b, g); levels are bands of the minimal number of steps, which the better of the two
one-direction pour strategies attains (it equals breadth-first search over the (x, y) states).
Answer: {"steps": ["Fill B", "Pour B to A", …]}; no-op actions are legal, only the final state counts.

Bounds: capacities 1..MAX_CAPACITY = 1000 for generate and solve, so the state space (a+1)(b+1) has
at most ~10^6 states and a pour strategy at most 2(a+b) steps (jugs of 10^9 would take ~10^9); step
bands run 2..MAX_STEPS = 4000. solve also requires exactly the jugs A and B, and a reachable target:
1 ≤ g ≤ max(a, b) and gcd(a, b) divides g.

Complexity axis: λ = pours, the pours of a shortest plan, 1..800; the target's minimal step count is exactly 2λ, since
every pour of a shortest plan follows one fill or empty (no target but a capacity takes an odd count; checked by BFS
for capacities below 30). So a level's step band is a pours band: level 2's 5–8 steps are 3–4 pours. Up to level 6's
top (50 pours) the capacities are the level's; past it they grow as 4λ (up to MAX_CAPACITY), where ~60 % of capacity
pairs have a target of exactly 2λ steps. At MAX_CAPACITY, 1,600 steps still come from ~6 % of pairs (so MAX_DRAWS
finds one), 1,800 from ~1 % and none reaches 2,000.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from math import gcd

from ._errors import InstanceFormatError, ParamError
from ._protocol import JSON, ComplexityAxis, IssueCode, Puzzle, Verdict, check_param, clip, is_int, open_answer

ACTIONS = ("Fill A", "Fill B", "Empty A", "Empty B", "Pour A to B", "Pour B to A")
MAX_CAPACITY = 1000  # per jug, for generate and solve: bounds the (a+1)(b+1) state space
MAX_STEPS = 4 * MAX_CAPACITY  # a step band's top: no target needs more than ~2·capacity steps
MAX_DRAWS = 1000  # capacity pairs tried before a band is declared empty (deterministic, not timed)
MAX_POURS = 800  # the complexity axis's top: 1,600-step targets at MAX_CAPACITY
BAR_WIDTH = 40

State = tuple[int, int]


@dataclass(frozen=True)
class WaterJugParams:
    """Capacities 1..max_capacity; the target's minimal step count lies in min_steps..max_steps."""

    max_capacity: int = 10
    min_steps: int = 2
    max_steps: int = 4

    def __post_init__(self) -> None:
        check_param(3 <= self.max_capacity <= MAX_CAPACITY, "max_capacity", self.max_capacity, f"3..{MAX_CAPACITY}")
        expected = f"2..{MAX_STEPS} (one-step targets, a capacity, are excluded)"
        check_param(2 <= self.min_steps <= MAX_STEPS, "min_steps", self.min_steps, expected)
        check_param(self.min_steps <= self.max_steps <= MAX_STEPS, "max_steps", self.max_steps, f"{self.min_steps}..{MAX_STEPS}")


def apply_action(state: State, action: str, capacities: State) -> State:
    """The paper's deterministic transition; a pour moves min(source, room in destination)."""
    (x, y), (a, b) = state, capacities
    if action == "Fill A":
        return a, y
    if action == "Fill B":
        return x, b
    if action == "Empty A":
        return 0, y
    if action == "Empty B":
        return x, 0
    if action == "Pour A to B":
        moved = min(x, b - y)
        return x - moved, y + moved
    moved = min(y, a - x)
    return x + moved, y - moved


def pour_strategy(capacities: State, source: str) -> Iterator[tuple[str, State]]:
    """Always pour from `source`: fill it when empty, empty the other jug when full, until a state repeats."""
    other = "B" if source == "A" else "A"
    s, o = (0, 1) if source == "A" else (1, 0)
    state: State = (0, 0)
    seen: set[State] = set()
    while state not in seen:
        seen.add(state)
        if state[s] == 0:
            action = f"Fill {source}"
        elif state[o] == capacities[o]:
            action = f"Empty {other}"
        else:
            action = f"Pour {source} to {other}"
        state = apply_action(state, action, capacities)
        yield action, state


def min_steps_by_volume(capacities: State) -> dict[int, int]:
    """Minimal steps until some jug holds each reachable volume: the better strategy (equals BFS; tested a, b ≤ 25)."""
    best: dict[int, int] = {0: 0}
    for source in "AB":
        for count, (_, state) in enumerate(pour_strategy(capacities, source), 1):
            for volume in state:
                best[volume] = min(best.get(volume, count), count)
    return best


def strategy_plan(capacities: State, source: str, target: int) -> list[str]:
    """The prefix of one pour strategy that first leaves `target` in a jug."""
    plan: list[str] = []
    for action, state in pour_strategy(capacities, source):
        plan.append(action)
        if target in state:
            return plan
    raise ValueError(f"target {target} is unreachable with capacities {capacities}")


class WaterJug(Puzzle[WaterJugParams]):
    name = "waterjug"
    version = 1
    title = "Water Jug"
    trajectory_field = "steps"
    params_type = WaterJugParams
    levels = {
        1: {"max_capacity": 10, "min_steps": 2, "max_steps": 4},
        2: {"max_capacity": 15, "min_steps": 5, "max_steps": 8},
        3: {"max_capacity": 25, "min_steps": 9, "max_steps": 14},
        4: {"max_capacity": 40, "min_steps": 15, "max_steps": 24},
        5: {"max_capacity": 60, "min_steps": 25, "max_steps": 40},
        6: {"max_capacity": 200, "min_steps": 41, "max_steps": 100},
    }
    axis = ComplexityAxis(
        "pours", 1, MAX_POURS,
        limit=f"jugs hold at most {MAX_CAPACITY}, where a {2 * MAX_POURS}-step target comes from only ~6 % of capacity pairs and "
              "longer ones thin out fast (none reaches 2,000 steps)",
        levels={level: ((band["min_steps"] + 1) // 2, band["max_steps"] // 2) for level, band in levels.items()},  # steps / 2
        sets=frozenset({"min_steps", "max_steps"}),
    )

    def band_at(self, lam: int) -> dict[str, object]:
        """Exactly 2λ steps; the capacity of the level below, or past level 6's top 4λ (at most MAX_CAPACITY)."""
        level = self.level_at(lam)
        capacity = self.levels[level]["max_capacity"] if lam <= self.complexity_axis().levels[6][1] else min(4 * lam, MAX_CAPACITY)
        return {"max_capacity": capacity, "min_steps": 2 * lam, "max_steps": 2 * lam}
    instance_schema = {
        "type": "object",
        "required": ["capacities", "target"],
        "properties": {
            "capacities": {
                "type": "object",
                "description": "capacity of jug A and jug B; both start empty, water is unlimited",
                "required": ["A", "B"],
                "properties": {"A": {"type": "integer", "minimum": 1}, "B": {"type": "integer", "minimum": 1}},
                "additionalProperties": False,
            },
            "target": {"type": "integer", "minimum": 1, "description": "exact amount that must end up in jug A or jug B"},
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["steps"],
        "properties": {
            "steps": {
                "type": "array",
                "description": (
                    "actions in order, starting from two empty jugs; a pour stops when the source is empty or the "
                    "destination full; an action that changes nothing (filling a full jug, pouring from an empty "
                    "one) is legal; only the final state is judged: one jug must hold exactly the target"
                ),
                "items": {"enum": list(ACTIONS)},
            }
        },
    }

    def build(self, params: WaterJugParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        for draw in range(1, MAX_DRAWS + 1):
            a, b = rng.sample(range(1, params.max_capacity + 1), 2)
            steps = min_steps_by_volume((a, b))
            divisor = gcd(a, b)
            # a target equal to a capacity takes one step, so min_steps >= 2 already excludes it
            targets = [g for g in range(divisor, max(a, b) + 1, divisor) if params.min_steps <= steps[g] <= params.max_steps]
            if targets:
                g = rng.choice(targets)
                instance = {"capacities": {"A": a, "B": b}, "target": g}
                meta = {
                    "complexity": {"c1": a, "c2": b, "g": g},
                    "min_solution_length": steps[g],
                    "state_space": (a + 1) * (b + 1),
                    "draws": draw,
                }
                return instance, meta
        raise ParamError(
            f"no target with minimal steps in {params.min_steps}..{params.max_steps} for capacities "
            f"up to {params.max_capacity} in {MAX_DRAWS} draws; the band is empty or too narrow"
        )

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        opened = open_answer(answer, "steps", list, 'a list of action strings')
        if isinstance(opened, Verdict):
            return opened
        steps, issues = opened
        capacities = (instance["capacities"]["A"], instance["capacities"]["B"])
        target = instance["target"]
        state: State = (0, 0)
        for index, action in enumerate(steps):
            problem = self._check_step(action)
            if problem is not None:
                code, message = problem
                issues.add(code, f"step {index} {clip(action)}: {message}", step=index)
                return issues.verdict(steps_applied=index)
            state = apply_action(state, action, capacities)
        if target not in state:
            final = f"A holds {state[0]} and B holds {state[1]}"
            issues.add(IssueCode.GOAL_NOT_REACHED, f"after {len(steps)} steps {final}, neither holds {target}")
        return issues.verdict(steps_applied=len(steps))

    @staticmethod
    def _check_step(action: JSON) -> tuple[IssueCode, str] | None:
        """Why a step is not one of the six exact action strings (case and spaces count), if it is not."""
        if type(action) is not str:
            return IssueCode.MALFORMED, 'a step is one action string such as "Fill A"'
        if action not in ACTIONS:
            return IssueCode.UNKNOWN_TOKEN, f"actions are {', '.join(ACTIONS)}"
        return None

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        capacities, target = instance.get("capacities"), instance.get("target")
        if type(capacities) is not dict or sorted(capacities) != ["A", "B"]:
            raise InstanceFormatError(f"waterjug: capacities {clip(capacities)}: expected {{\"A\": a, \"B\": b}}")
        a, b = capacities["A"], capacities["B"]
        if not all(is_int(c) and 1 <= c <= MAX_CAPACITY for c in (a, b)):
            raise InstanceFormatError(f"waterjug: capacities {clip(capacities)}: expected integers 1..{MAX_CAPACITY} (the solve bound)")
        if not is_int(target) or not 1 <= target <= max(a, b):
            raise InstanceFormatError(f"waterjug: target={clip(target)}: expected an integer 1..{max(a, b)} (the larger capacity)")
        if target % gcd(a, b):
            raise InstanceFormatError(f"waterjug: target {target} is unreachable: it is not a multiple of gcd({a}, {b}) = {gcd(a, b)}")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        """The shorter of the two pour strategies, which is a shortest plan."""
        capacities = (instance["capacities"]["A"], instance["capacities"]["B"])
        try:
            plans = [strategy_plan(capacities, source, instance["target"]) for source in "AB"]
        except ValueError as exc:  # a target in no pour strategy: check_instance should have refused it
            raise InstanceFormatError(f"waterjug: {exc}") from None
        return {"steps": min(plans, key=len)}

    def render(self, instance: dict[str, JSON]) -> str:
        capacities = instance["capacities"]
        largest = max(capacities.values())
        digits = len(str(largest))
        lines = [
            f"jug {jug}: capacity {capacity:>{digits}}  [{'_' * max(1, round(BAR_WIDTH * capacity / largest))}]"
            for jug, capacity in sorted(capacities.items())
        ]
        lines.append(f"both jugs start empty; goal: exactly {instance['target']} in jug A or jug B")
        lines.append(f"actions: {', '.join(ACTIONS)}")
        return "\n".join(lines)
