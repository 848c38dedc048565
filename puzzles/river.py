"""River crossing (jealous husbands / actors and agents): ferry n couples across a river by boat.

Couple i is husband (agent) `A_i` and wife (actor) `a_i`. Everyone starts on the left bank with the
boat; each trip carries 1..k people from the boat's bank, trips alternate direction starting from
the left, and the boat group and both banks (after the passengers land) must be safe: no `a_i`
without `A_i` in a group holding some other `A_j`. λ = (pairs, capacity); the minimum number of
trips comes from a breadth-first search over couple counts. Answer: {"trips": [["A_1", "a_1"], …]}.

Bounds: pairs ≤ MAX_PAIRS = 100 and capacity ≤ MAX_CAPACITY = 12 for generate and solve; the count
BFS then has O(pairs) safe states and takes milliseconds. solve also requires `people` to be exactly
A_1, a_1, …, A_n, a_n (in any order), and refuses an unsolvable (pairs, capacity) naming the smallest
capacity that works.

Complexity axis: λ = pairs, 1..MAX_PAIRS. The capacity carries on from the level below (2 up to 3 pairs, 3 for 4–5,
4 from 6 on), which is the smallest that works at every λ: the levels' own rule, so axis and levels agree.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from ._errors import InstanceFormatError
from ._protocol import JSON, ComplexityAxis, IssueCode, Puzzle, Verdict, check_param, clip, is_int, open_answer

MAX_PAIRS = 100
MAX_CAPACITY = 12
# Couples by type, seen from the boat's bank: both here, husband here only, wife here only, both across.
Counts = tuple[int, int, int, int]
# A boat load: whole couples, lone husbands and lone wives taken from couples that are both here, then
# husbands and wives whose spouse is already across.
Move = tuple[int, int, int, int, int]
State = tuple[Counts, int]  # counts seen from the boat's bank, and the boat's side (0 left, 1 right)


def _safe_counts(counts: Counts) -> bool:
    """Both banks safe: a bank with a lone wife holds no husband at all."""
    both_here, husband_here, wife_here, both_there = counts
    here_ok = wife_here == 0 or both_here + husband_here == 0
    there_ok = husband_here == 0 or both_there + wife_here == 0
    return here_ok and there_ok


def _moves(counts: Counts, capacity: int) -> Iterator[Move]:
    """Boat loads that are safe in themselves: either no lone wife aboard, or no husband aboard."""
    both_here, husband_here, wife_here, _ = counts
    for couples in range(min(both_here, capacity // 2) + 1):
        for lone_husbands in range(min(both_here - couples, capacity - 2 * couples) + 1):
            room = capacity - 2 * couples - lone_husbands
            for other_husbands in range(min(husband_here, room) + 1):
                if couples + lone_husbands + other_husbands:
                    yield couples, lone_husbands, 0, other_husbands, 0
    for lone_wives in range(min(both_here, capacity) + 1):
        for other_wives in range(min(wife_here, capacity - lone_wives) + 1):
            if lone_wives + other_wives:
                yield 0, 0, lone_wives, 0, other_wives


def _after_trip(counts: Counts, move: Move) -> Counts:
    """Counts seen from the arrival bank: (both here, husband here only, wife here only, both there)."""
    both_here, husband_here, wife_here, both_there = counts
    couples, lone_husbands, lone_wives, other_husbands, other_wives = move
    stay_both = both_here - couples - lone_husbands - lone_wives
    stay_husband = husband_here - other_husbands + lone_wives
    stay_wife = wife_here - other_wives + lone_husbands
    arrive_both = both_there + couples + other_husbands + other_wives
    return arrive_both, stay_wife, stay_husband, stay_both


def count_plan(pairs: int, capacity: int) -> tuple[Move, ...] | None:
    """A minimal sequence of count moves (BFS), or None when no plan exists."""
    return plan_search(pairs, capacity)[0]


@lru_cache(maxsize=256)
def plan_search(pairs: int, capacity: int) -> tuple[tuple[Move, ...] | None, int]:
    """count_plan's answer, and the states the BFS expanded to find it (its search nodes).

    Safe states are few (O(n): a bank with a lone wife has no husbands), so this is fast at n = 100.
    """
    start: State = ((pairs, 0, 0, 0), 0)
    goal: State = ((pairs, 0, 0, 0), 1)
    parent: dict[State, tuple[State, Move] | None] = {start: None}
    queue = deque([start])
    expanded = 0
    while queue:
        state = queue.popleft()
        expanded += 1
        if state == goal:
            return _unwind(parent, goal), expanded
        counts, side = state
        for move in _moves(counts, capacity):
            after = (_after_trip(counts, move), 1 - side)
            if after not in parent and _safe_counts(after[0]):
                parent[after] = (state, move)
                queue.append(after)
    return None, expanded


def _unwind(parent: dict[State, tuple[State, Move] | None], goal: State) -> tuple[Move, ...]:
    moves: list[Move] = []
    step = parent[goal]
    while step is not None:
        state, move = step
        moves.append(move)
        step = parent[state]
    return tuple(reversed(moves))


def min_capacity(pairs: int) -> int | None:
    """The smallest capacity ≤ MAX_CAPACITY that makes `pairs` couples solvable."""
    return next((k for k in range(1, MAX_CAPACITY + 1) if count_plan(pairs, k) is not None), None)


@dataclass(frozen=True)
class RiverCrossingParams:
    """`pairs` couples and a boat of `capacity`; unsolvable combinations are refused."""

    pairs: int = 3
    capacity: int = 2
    shuffle_people: bool = True

    def __post_init__(self) -> None:
        check_param(1 <= self.pairs <= MAX_PAIRS, "pairs", self.pairs, f"1..{MAX_PAIRS}")
        check_param(1 <= self.capacity <= MAX_CAPACITY, "capacity", self.capacity, f"1..{MAX_CAPACITY}")
        if count_plan(self.pairs, self.capacity) is None:
            smallest = min_capacity(self.pairs)
            check_param(False, "capacity", self.capacity, f"at least {smallest}: {self.pairs} pairs cannot cross otherwise")


def _safe(group: set[str]) -> bool:
    """Jealous-husbands rule on a set of labels: no wife without her husband among other husbands."""
    husbands = {label[2:] for label in group if label[0] == "A"}
    return not husbands or all(label[2:] in husbands for label in group if label[0] == "a")


class RiverCrossing(Puzzle[RiverCrossingParams]):
    name = "river"
    version = 1
    title = "River Crossing (jealous husbands)"
    trajectory_field = "trips"
    params_type = RiverCrossingParams
    levels = {
        1: {"pairs": 2, "capacity": 2},
        2: {"pairs": 3, "capacity": 2},
        3: {"pairs": 4, "capacity": 3},
        4: {"pairs": 5, "capacity": 3},
        5: {"pairs": (6, 7), "capacity": 4},
        6: {"pairs": (8, 10), "capacity": 4},
    }
    axis = ComplexityAxis.along("pairs", levels, lowest=1, highest=MAX_PAIRS,
                                limit=f"generate and solve share the bound pairs ≤ {MAX_PAIRS} (the count BFS's bound)")
    easier_levels = {  # a bigger boat shortens the minimal plan: 4 couples take 9 trips with 3 seats, 3 take 11 with 2
        3: "the seed's level 3 boat holds 3 (level 2: 2)",
        5: "the seed's level 5 boat holds 4 (level 4: 3)",
    }
    instance_schema = {
        "type": "object",
        "required": ["pairs", "capacity", "people"],
        "properties": {
            "pairs": {"type": "integer", "minimum": 1, "description": "number of couples n: A_i is a husband, a_i his wife"},
            "capacity": {"type": "integer", "minimum": 1, "description": "most people the boat carries on one trip"},
            "people": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[Aa]_[1-9][0-9]*$"},
                "uniqueItems": True,
                "description": "everyone, all starting on the left bank with the boat; labels are case-sensitive",
            },
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["trips"],
        "properties": {
            "trips": {
                "type": "array",
                "description": (
                    "boat passenger lists; trips alternate left→right, right→left, … starting from the left bank. "
                    "Each trip holds 1..capacity distinct people from the boat's bank. After every trip, neither the boat "
                    "group nor either bank may hold a wife a_i without her husband A_i while another husband A_j is present. "
                    "At the end everyone must be on the right bank."
                ),
                "items": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            }
        },
    }

    def build(self, params: RiverCrossingParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        people = [f"{role}_{i}" for i in range(1, params.pairs + 1) for role in ("A", "a")]
        if params.shuffle_people:
            rng.shuffle(people)
        plan = count_plan(params.pairs, params.capacity)
        assert plan is not None  # Params refuses unsolvable combinations
        instance = {"pairs": params.pairs, "capacity": params.capacity, "people": people}
        meta = {
            "complexity": {"pairs": params.pairs, "capacity": params.capacity},
            "min_solution_length": len(plan),
            "min_capacity": min_capacity(params.pairs),
            "search_nodes": plan_search(params.pairs, params.capacity)[1],
        }
        return instance, meta

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        opened = open_answer(answer, "trips", list, 'a list of passenger lists')
        if isinstance(opened, Verdict):
            return opened
        trips, issues = opened
        banks: tuple[set[str], set[str]] = (set(instance["people"]), set())
        for index, trip in enumerate(trips):
            problem = self._cross(banks[index % 2], banks[1 - index % 2], trip, instance["capacity"])
            if problem is not None:
                code, message = problem
                issues.add(code, f"trip {index} {clip(trip)}: {message}", step=index)
                return issues.verdict(steps_applied=index)
        if banks[0]:
            issues.add(IssueCode.GOAL_NOT_REACHED, f"after {len(trips)} trips {len(banks[0])} people are still on the left bank")
        return issues.verdict(steps_applied=len(trips))

    @staticmethod
    def _cross(source: set[str], target: set[str], trip: JSON, capacity: int) -> tuple[IssueCode, str] | None:
        """Move `trip` from `source` to `target` in place, or say why the trip is illegal."""
        if type(trip) is not list:
            return IssueCode.MALFORMED, "a trip is a list of passenger labels"
        if not trip:
            return IssueCode.ILLEGAL_MOVE, "the boat cannot cross empty"
        for person in trip:
            if type(person) is not str or (person not in source and person not in target):
                return IssueCode.UNKNOWN_TOKEN, f"no person is labelled {clip(person)} (labels are exact, e.g. 'A_1', 'a_1')"
        if len(set(trip)) != len(trip):
            return IssueCode.ILLEGAL_MOVE, "a person is listed twice"
        if len(trip) > capacity:
            return IssueCode.ILLEGAL_MOVE, f"{len(trip)} passengers exceed the capacity {capacity}"
        away = [person for person in trip if person not in source]
        if away:
            return IssueCode.ILLEGAL_MOVE, f"{', '.join(away)} not on the boat's bank"
        boat = set(trip)
        if not _safe(boat):
            return IssueCode.ILLEGAL_MOVE, "the boat group is unsafe"
        source -= boat
        target |= boat
        if not (_safe(source) and _safe(target)):
            return IssueCode.ILLEGAL_MOVE, "a bank is unsafe after the trip"
        return None

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        pairs, capacity, people = (instance.get(key) for key in ("pairs", "capacity", "people"))
        if not is_int(pairs) or not 1 <= pairs <= MAX_PAIRS:
            raise InstanceFormatError(f"river: pairs={clip(pairs)}: expected an integer 1..{MAX_PAIRS}")
        if not is_int(capacity) or not 1 <= capacity <= MAX_CAPACITY:
            raise InstanceFormatError(f"river: capacity={clip(capacity)}: expected an integer 1..{MAX_CAPACITY}")
        expected = sorted(f"{role}_{i}" for i in range(1, pairs + 1) for role in ("A", "a"))
        if type(people) is not list or not all(type(person) is str for person in people) or sorted(people) != expected:
            raise InstanceFormatError(f"river: people {clip(people)} are not A_1, a_1 … A_{pairs}, a_{pairs}, each once")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        pairs: int = instance["pairs"]
        plan = count_plan(pairs, instance["capacity"])
        if plan is None:
            raise InstanceFormatError(
                f"river: {pairs} pairs cannot cross with capacity {instance['capacity']}; the smallest that works is {min_capacity(pairs)}"
            )
        where = {i: [0, 0] for i in range(1, pairs + 1)}  # couple -> [husband bank, wife bank]
        trips: list[JSON] = []
        for step, move in enumerate(plan):
            trips.append(_board(where, step % 2, move))
        return {"trips": trips}

    def render(self, instance: dict[str, JSON]) -> str:
        people = " ".join(instance["people"])
        return (
            f"left bank:  {people}\n"
            f"boat:       at the left bank, carries 1..{instance['capacity']} people\n"
            f"right bank: (empty)\n"
            f"{instance['pairs']} couples (A_i husband, a_i wife): no a_i with another A_j unless A_i is present"
        )


def _board(where: dict[int, list[int]], side: int, move: Move) -> list[str]:
    """Turn one count move into labels (lowest couple numbers first) and update `where` in place."""
    both = [i for i, (h, w) in where.items() if h == w == side]
    husband_only = [i for i, (h, w) in where.items() if h == side != w]
    wife_only = [i for i, (h, w) in where.items() if w == side != h]
    couples, lone_husbands, lone_wives, other_husbands, other_wives = move
    cut = couples + lone_husbands
    riders = [(i, True, True) for i in both[:couples]] + [(i, True, False) for i in both[couples:cut]]
    riders += [(i, False, True) for i in both[cut : cut + lone_wives]]
    riders += [(i, True, False) for i in husband_only[:other_husbands]] + [(i, False, True) for i in wife_only[:other_wives]]
    labels: list[str] = []
    for couple, husband, wife in sorted(riders):
        if husband:
            labels.append(f"A_{couple}")
            where[couple][0] = 1 - side
        if wife:
            labels.append(f"a_{couple}")
            where[couple][1] = 1 - side
    return labels
