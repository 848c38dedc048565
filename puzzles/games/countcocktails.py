"""CountMaximalCocktails (PuzzlePlex §2.3): one player, a graph of drugs (nodes 1..n) and bad interactions (edges);
a cocktail is a set of drugs with no bad interaction inside it. Give, in one answer, the number of maximal cocktails
(level 1: {"count": c}) or all of them (levels 2+: {"cocktails": [[drug, …], …]}); the raw score is 1 if the answer
is right, else 0. Setup as PuzzlePlex: n from the level's band, m uniform in 0..⌊C(n, 2)/2⌋, then m of the pairs
(i < j, in lexicographic order) drawn without replacement.

Decisions where PuzzlePlex's engine and prompts differ (spec §2.3, §6.3 11, §6.2 9):
- "Maximal cocktail" means a maximum independent set (a cocktail of the largest size), as the instruction prompt says
  ("correspond to the maximum independent sets") and PuzzlePlex's engine scores; the code prompt's "no more drugs can be
  added" (inclusion-maximal) is not the rule. The example (drugs 1–4, interaction (1, 2): [1, 3, 4] and [2, 3, 4]) fits
  both readings; the count of inclusion-maximal cocktails is kept in meta (`maximal_count`) to show how often the two
  differ.
- A list answer must name every maximum cocktail exactly once: a cocktail given twice (in any order of its drugs) is an
  illegal move, as is a drug repeated inside one (PuzzlePlex passed one right set repeated as often as there are sets).
  Order does not matter, of the cocktails or inside one. Drugs are JSON integers 1..n; a count is an integer ≥ 0.
- `legal` judges the answer's form only; whether it is right (sizes, interactions, completeness) is its score.
- An answer of the other level's kind is malformed: each level asks for one kind.
Levels 1 and 2 are PuzzlePlex's easy (count) and normal (list), both n ∈ 3..10; 3 lists for n ∈ 11..16 and 4 for
n ∈ 17..24. λ = (drugs, interactions). The reference strategy is exact: Bron–Kerbosch with pivoting lists the
inclusion-maximal cocktails (at most 3^(n/3) of them, Moon–Moser) and keeps the largest, so it always scores 1.
"""

from __future__ import annotations

import functools
import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._masks import members
from ._protocol import Game, State
from ._singlepass import SinglePass

JSON = Any


class CountMaximalCocktails(SinglePass):
    name: ClassVar[str] = "countmaximalcocktails"
    reference = 1.0  # right or not
    title: ClassVar[str] = "CountMaximalCocktails"
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"drugs": (3, 10), "answer": "count"}, 2: {"drugs": (3, 10), "answer": "list"},
                                                      3: {"drugs": (11, 16), "answer": "list"}, 4: {"drugs": (17, 24), "answer": "list"}}
    move_schema: ClassVar[dict[str, JSON]] = {"oneOf": [
        {"type": "object", "required": ["count"], "additionalProperties": False,
         "properties": {"count": {"type": "integer", "minimum": 0, "description": "level 1: how many maximum cocktails"}}},
        {"type": "object", "required": ["cocktails"], "additionalProperties": False,
         "properties": {"cocktails": {"type": "array", "description": "levels 2+: every maximum cocktail, once each",
                                      "items": {"type": "array", "uniqueItems": True, "items": {"type": "integer", "minimum": 1}}}}}]}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        drugs = params["drugs"]
        pairs = [[i, j] for i in range(1, drugs + 1) for j in range(i + 1, drugs + 1)]
        interactions = rng.sample(pairs, rng.randint(0, len(pairs) // 2))
        largest, maximal = cocktails(drugs, _key(interactions))
        return (self.opening({"drugs": drugs, "interactions": interactions, "answer": params["answer"], "given": None}),
                {"complexity": {"drugs": drugs, "interactions": len(interactions)}, "count": len(largest),
                 "size": len(largest[0]), "maximal_count": maximal})

    def _observe(self, state: State, player: int) -> JSON:
        return {"drugs": list(range(1, state["drugs"] + 1)), "interactions": state["interactions"], "answer": state["answer"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        field = "count" if state["answer"] == "count" else "cocktails"
        if type(move) is not dict or set(move) != {field}:
            shape = '{"count": c}' if field == "count" else '{"cocktails": [[drug, ...], ...]}'
            return reject(IssueCode.MALFORMED, f"the answer at this level is an object {shape}")
        value = move[field]
        if field == "count":
            if not is_int(value) or value < 0:
                return reject(IssueCode.BAD_VALUE, f"count {clip(value)} is not an integer ≥ 0")
            return Verdict(True)
        if type(value) is not list:
            return reject(IssueCode.MALFORMED, '"cocktails" must be a list of lists of drugs')
        seen: set[frozenset[int]] = set()
        for step, cocktail in enumerate(value):
            if type(cocktail) is not list:
                return reject(IssueCode.MALFORMED, f"cocktail {step} {clip(cocktail)} is not a list of drugs", step)
            for drug in cocktail:
                if not is_int(drug) or not 1 <= drug <= state["drugs"]:
                    return reject(IssueCode.BAD_VALUE, f"cocktail {step}: drug {clip(drug)} is not one of 1..{state['drugs']}", step)
            chosen = frozenset(cocktail)
            if len(chosen) != len(cocktail):
                return reject(IssueCode.ILLEGAL_MOVE, f"cocktail {step} {clip(cocktail)} names a drug twice", step)
            if chosen in seen:
                return reject(IssueCode.ILLEGAL_MOVE, f"cocktail {step} {clip(cocktail)} was already given", step)
            seen.add(chosen)
        return Verdict(True)

    def _settle(self, state: State, move: JSON) -> float:
        largest, _ = cocktails(state["drugs"], _key(state["interactions"]))
        if state["answer"] == "count":
            state["given"] = move["count"]
            return 1.0 if move["count"] == len(largest) else 0.0
        state["given"] = [list(c) for c in move["cocktails"]]
        return 1.0 if {frozenset(c) for c in move["cocktails"]} == {frozenset(c) for c in largest} else 0.0

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        """A representative subset. Counts: every count that can be right, 1 up to the Moon–Moser bound on the number
        of maximal cocktails. Lists: each one-drug cocktail alone, and the empty list (any list of distinct cocktails
        is legal)."""
        drugs = len(observation["drugs"])
        if observation["answer"] == "count":
            return [{"count": count} for count in range(1, _moon_moser(drugs) + 1)]
        return [{"cocktails": []}] + [{"cocktails": [[drug]]} for drug in observation["drugs"]]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """The exact answer."""
        largest, _ = cocktails(len(observation["drugs"]), _key(observation["interactions"]))
        return {"count": len(largest)} if observation["answer"] == "count" else {"cocktails": [list(c) for c in largest]}

    def render(self, state: State) -> str:
        lines = [f"drugs 1..{state['drugs']}", f"bad interactions {state['interactions']}", f"asked: the {state['answer']}"]
        if state["score"] is not None:
            lines.append(f"answer {clip(state['given'], 400)}: {'right' if state['score'] else 'wrong'}")
        return "\n".join(lines)


def _key(interactions: JSON) -> tuple[tuple[int, int], ...]:
    """Interactions as a hashable key for the solver's cache (the observation gives lists)."""
    return tuple((u, v) for u, v in interactions)


@functools.lru_cache(maxsize=4096)
def cocktails(drugs: int, interactions: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, ...], ...], int]:
    """(every maximum cocktail, sorted, each sorted; how many inclusion-maximal cocktails there are)."""
    others = (1 << drugs) - 1
    compatible = [others & ~(1 << v) for v in range(drugs)]  # per drug: the drugs it may be combined with
    for u, v in interactions:
        compatible[u - 1] &= ~(1 << (v - 1))
        compatible[v - 1] &= ~(1 << (u - 1))
    found: list[int] = []

    def extend(chosen: int, open_: int, closed: int) -> None:
        """Bron–Kerbosch on the compatibility graph: every maximal cocktail ⊇ chosen, drawing from open_, none of closed."""
        if not open_ and not closed:
            found.append(chosen)
            return
        pivot = max(members(open_ | closed), key=lambda u: (open_ & compatible[u]).bit_count())
        for v in members(open_ & ~compatible[pivot]):
            extend(chosen | 1 << v, open_ & compatible[v], closed & compatible[v])
            open_ &= ~(1 << v)
            closed |= 1 << v

    extend(0, others, 0)
    size = max(mask.bit_count() for mask in found)
    largest = sorted(tuple(d + 1 for d in members(mask)) for mask in found if mask.bit_count() == size)
    return tuple(largest), len(found)


def _moon_moser(n: int) -> int:
    """The most inclusion-maximal independent sets an n-node graph can have (Moon–Moser), hence maximum ones too."""
    return {0: 3 ** (n // 3), 1: 4 * 3 ** ((n - 4) // 3), 2: 2 * 3 ** ((n - 2) // 3)}[n % 3]
