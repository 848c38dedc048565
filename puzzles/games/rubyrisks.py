"""RubyRisks (PuzzlePlex §2.4): one player, B covered boxes holding S rubies in all, opened one at a time in order.

For each box in turn the player requests q rubies: if q is at most what the box holds they receive q, otherwise
nothing. The game ends after the last box; the score is the rubies received (the clairvoyant optimum is S: request
each box's contents exactly). The player knows B, S and what each of their requests brought; the contents are hidden.
Setup as PuzzlePlex: B and S from the level's bands; contents drawn uniformly from the ways to split S into B positive
boxes whose largest exceeds the smallest by at least 4, then the (first) largest and (first) smallest are replaced by
their average ± 2 (a+2 and a−2 for an even sum 2a, a+3 and a−2 for an odd sum 2a+1; the total is kept), and the draw is
repeated if a box would be empty.

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.4, §6):
- A move is {"rubies": q} with q a JSON integer 0..S (PuzzlePlex took any int, so a negative request "succeeded" and
  lowered the score, and unwrapped lists); a request above the total can never be met, so it is out of range.
- PuzzlePlex's generator draws B−1 boxes from 1..S−B and gives the last what is left, retrying until that is positive
  (at normal about one try in 10^7 succeeds); here a split is drawn directly, uniformly: the same distribution, but
  that PuzzlePlex's last box alone could hold S−B+1 (all others holding 1), which here any box can.
- The observation holds the requests as well as what they brought (PuzzlePlex sent only the amounts received, so a
  0 did not say what had been asked); nothing else, and never the contents.
Levels 1 and 2 are PuzzlePlex's easy (3–7 boxes, 30–70 rubies) and normal (8–12, 80–120); 3 goes on (13–16 boxes,
130–160 rubies), where the reference still answers in well under a second. λ = (boxes, rubies).
The reference strategy is Bayes-myopic: it computes the exact posterior of the current box's contents under the true
prior given every past request and result (dynamic programming below) and requests the q maximising q · P(box ≥ q).
On instances small enough to solve exactly it is within 1% of the Bayes-optimal policy (tests); PuzzlePlex's baseline
did the same with 100,000 samples of a different prior (rubies dropped uniformly), which run out after a few boxes
(re-implemented with 20,000 samples, it collected 3% less at level 1 and 4% less at level 2 over 50 seeded games).
"""

from __future__ import annotations

import functools
import math
import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._protocol import Game, GameOutcome, State

JSON = Any
SPREAD = 4  # PuzzlePlex's `difference`: the squeezed largest and smallest box end 4 (or 5) apart
Interval = tuple[int, int]  # what a past request says of its box: lo ≤ contents ≤ hi


class RubyRisks(Game):
    name: ClassVar[str] = "rubyrisks"
    reference = "clairvoyant_score"
    title: ClassVar[str] = "RubyRisks"
    players: ClassVar[int] = 1
    stochastic: ClassVar[bool] = True
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"boxes": (3, 7), "rubies": (30, 70)}, 2: {"boxes": (8, 12), "rubies": (80, 120)},
                                                      3: {"boxes": (13, 16), "rubies": (130, 160)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["rubies"], "additionalProperties": False,
        "properties": {"rubies": {"type": "integer", "minimum": 0, "description": "rubies requested from the current box, at most "
                                  "the total: received if the box holds that many, else nothing"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        boxes, rubies = params["boxes"], params["rubies"]
        return ({"contents": _contents(boxes, rubies, rng), "boxes": boxes, "total_rubies": rubies, "requests": [], "received": [],
                 "to_move": 0},
                {"complexity": {"boxes": boxes, "rubies": rubies}, "clairvoyant_score": rubies})

    def _observe(self, state: State, player: int) -> JSON:
        return {"boxes": state["boxes"], "total_rubies": state["total_rubies"], "box": len(state["requests"]),
                "requests": state["requests"], "received": state["received"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"rubies"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"rubies": q}')
        rubies = move["rubies"]
        if not is_int(rubies):
            return reject(IssueCode.BAD_VALUE, f"rubies {clip(rubies)} is not an integer")
        if not 0 <= rubies <= state["total_rubies"]:
            return reject(IssueCode.BAD_VALUE, f"rubies {clip(rubies)} is not in 0..{state['total_rubies']} (the total)")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        rubies = move["rubies"]
        state["received"].append(rubies if rubies <= state["contents"][len(state["requests"])] else 0)
        state["requests"].append(rubies)
        return state

    def _is_over(self, state: State) -> bool:
        return len(state["requests"]) == state["boxes"]

    def outcome(self, state: State) -> GameOutcome:
        return GameOutcome((float(sum(state["received"])),))

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        return [{"rubies": q} for q in range(observation["total_rubies"] + 1)]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """The request maximising its expected yield q · P(box ≥ q) under the exact posterior (the smallest such q)."""
        past = tuple(_interval(q, got, observation["total_rubies"]) for q, got in zip(observation["requests"], observation["received"]))
        weights = posterior(observation["boxes"], observation["total_rubies"], past)
        best, tail = (0, 0), 0
        for q in range(len(weights) - 1, 0, -1):
            tail += weights[q]
            best = max(best, (q * tail, -q))
        return {"rubies": -best[1]}

    def render(self, state: State) -> str:
        lines = [f"{state['boxes']} boxes, {state['total_rubies']} rubies; hidden contents {state['contents']}"]
        lines += [f"box {i}: requested {q}, received {got}" for i, (q, got) in enumerate(zip(state["requests"], state["received"]))]
        return "\n".join(lines + [f"total received: {sum(state['received'])}"])


def _contents(boxes: int, rubies: int, rng: random.Random) -> list[int]:
    """PuzzlePlex's hidden contents: a uniform split of the rubies, its largest and smallest box squeezed together."""
    while True:
        cuts = sorted(rng.sample(range(1, rubies), boxes - 1))
        split = [b - a for a, b in zip([0, *cuts], [*cuts, rubies])]
        high, low = max(split), min(split)
        if high - low < SPREAD or _squeezed(high, low)[1] < 1:
            continue
        first_high, first_low = split.index(high), split.index(low)
        split[first_high], split[first_low] = _squeezed(high, low)
        return split


def _squeezed(high: int, low: int) -> tuple[int, int]:
    """What the largest and smallest box become: their average ± SPREAD/2 (one more on the high side for an odd sum)."""
    average = (high + low) // 2
    return average + SPREAD // 2 + (high + low) % 2, average - SPREAD // 2


def _interval(requested: int, received: int, total: int) -> Interval:
    """What a past request says of its box: at least q if it was met, else fewer than q (and every box holds ≥ 1)."""
    return (max(requested, 1), total) if received == requested else (1, requested - 1)


# -- the exact posterior ---------------------------------------------------------------------------------------------
# Before the squeeze the contents u are a uniform split of S into B positive parts with max M ≥ min m + 4; the boxes
# seen are v = u but for the first M and the first m, which show the squeezed values. Summing over (m, M), a scan over
# the boxes with two flags (first M placed, first m placed) counts the splits whose v meets every past interval. Each
# box's excess u − m (0..M − m, S − B·m in all) is counted by a polynomial in z (z^e: the excess used so far), held as
# one Python integer with a fixed-width slot per coefficient (Kronecker substitution), so a product of polynomials is
# one integer multiplication; the later boxes, unconstrained, are counted by powers of (1 + z + … + z^(M−m)), with
# inclusion–exclusion for a first M or m still to come.

@functools.lru_cache(maxsize=64)
def _width(boxes: int, total: int) -> int:
    """Slot width in bits: every count read is at most C(S−1, B−1), the number of splits (higher coefficients of a
    product may overflow their slot, but a carry only ever moves up, past the coefficients read)."""
    return math.comb(total - 1, boxes - 1).bit_length() + 1


def _ones(length: int, width: int) -> int:
    """1 + z + … + z^(length−1) (0 if length ≤ 0)."""
    return ((1 << width * length) - 1) // ((1 << width) - 1) if length > 0 else 0


def _times_ones(poly: int, length: int, width: int, mask: int) -> int:
    """poly · (1 + z + … + z^(length−1)), cut by `mask`, by doubling shifts and adds (cheaper than a product)."""
    result, offset, block, size = 0, 0, poly, 1
    while length > 0:
        if length & 1:
            result += block << width * offset
            offset += size
        length >>= 1
        if length:
            block = (block + (block << width * size)) & mask
            size <<= 1
    return result & mask


def _pairs(boxes: int, total: int) -> list[tuple[int, int]]:
    """Every (min m, max M) a split before the squeeze can have (its smallest box squeezed stays ≥ 1)."""
    return [(low, high) for low in range(1, total // boxes + 1) for high in range(low + SPREAD, total - (boxes - 1) * low + 1)
            if low + (boxes - 1) * high >= total and _squeezed(high, low)[1] >= 1]


@functools.lru_cache(maxsize=48)
def _forward(boxes: int, total: int, past: tuple[Interval, ...]) -> dict[tuple[int, int], tuple[int, int, int, int]]:
    """Per (m, M): the counts of the boxes seen so far meeting `past`, by flags (2·max placed + min placed), as
    polynomials in their excess; pairs that no longer fit are dropped. Cached: each box extends the previous call."""
    if not past:
        return {pair: (1, 0, 0, 0) for pair in _pairs(boxes, total)}
    width, (lo, hi) = _width(boxes, total), past[-1]
    out = {}
    for (low, high), counts in _forward(boxes, total, past[:-1]).items():
        up, down = _squeezed(high, low)
        first, last = max(1, lo - low), min(high - low - 1, hi - low)
        mask = (1 << width * (total - boxes * low + 1)) - 1
        new = [0, 0, 0, 0]
        for flags, count in enumerate(counts):
            if not count:
                continue
            new[flags] += _times_ones(count << width * first, last - first + 1, width, mask)
            if flags & 2:  # the box holds M again: it shows M
                new[flags] += count << width * (high - low) if lo <= high <= hi else 0
            elif lo <= up <= hi:  # the first M: it shows the squeezed value
                new[flags | 2] += count << width * (high - low)
            if flags & 1:
                new[flags] += count if lo <= low <= hi else 0
            elif lo <= down <= hi:
                new[flags | 1] += count
        if any(new):
            out[(low, high)] = tuple(count & mask for count in new)
    return out


def posterior(boxes: int, total: int, past: tuple[Interval, ...]) -> list[int]:
    """Unnormalised posterior weights of the current box's contents, indexed 0..S, given the intervals of the boxes
    before it (exact integers: the number of pre-squeeze splits consistent with everything seen)."""
    width, later = _width(boxes, total), boxes - len(past) - 1
    slot, reach = (1 << width) - 1, total - boxes  # reach: the most excess there can be (m = 1)
    powers: dict[int, int] = {}

    def spread(length: int) -> int:  # (1 + z + … + z^(length−1))^later, cut at z^reach
        if length not in powers:
            result, base, power, mask = 1, _ones(length, width), later, (1 << width * (reach + 1)) - 1
            while power:
                if power & 1:
                    result = result * base & mask
                base, power = base * base & mask, power >> 1
            powers[length] = result
        return powers[length]

    middles: dict[int, int] = {}
    weights = [0] * (total + 1)
    for (low, high), counts in _forward(boxes, total, past).items():
        up, down, excess, span = *_squeezed(high, low), total - boxes * low, high - low
        mask, shift = (1 << width * (excess + 1)) - 1, width * later
        every, no_high = spread(span + 1) & mask, spread(span) & mask
        no_low, neither = no_high << shift & mask, spread(span - 1) << shift & mask
        rest = (every - no_high - no_low + neither, every - no_high, every - no_low, every)  # by the flags still open
        joint = [count * rest[flags] for flags, count in enumerate(counts)]
        middle = sum(joint) & _ones(span - 1, width) * slot << width * (excess - span + 1)  # this box strictly between m, M
        middles[low] = middles.get(low, 0) + middle
        weights[high] += (joint[2] + joint[3]) >> width * (excess - span) & slot
        weights[up] += (counts[0] * rest[2] + counts[1] * rest[3]) >> width * (excess - span) & slot
        weights[low] += (joint[1] + joint[3]) >> width * excess & slot
        weights[down] += (counts[0] * rest[1] + counts[2] * rest[3]) >> width * excess & slot
    for low, middle in middles.items():
        excess = total - boxes * low
        for value in range(low + 1, low + excess + 1):
            weights[value] += middle >> width * (excess - value + low) & slot
    return weights
