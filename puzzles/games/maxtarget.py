"""MaxTarget (PuzzlePlex §2.6): one player draws coins from bags whose contents are known but whose order is hidden.

Setup as PuzzlePlex: K bags from the level's band, each of 1..10 coins worth 1..10 (uniform, independent), and a
budget of ⌊total coins × U(0.5, 0.7)⌋ picks. The player is shown every bag's coins, but not which bag index is which:
a pick names an index of the hidden true order and draws a random coin of that bag (the first left of its coins in
the order they were drawn at setup: for independent coins a uniformly random order), which leaves the bag. The player
sees every pick's coin and which indices are empty; the game ends when the budget is spent, and the score is the
coins' total. The clairvoyant optimum (knowing the order of the bags and of their coins, by dynamic programming over
how many coins to take from each bag) is in meta.

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.6, §6):
- The true order (which shown bag each index is, and the order of its coins) is in no observation: PuzzlePlex sent it
  to code players as `true_bag` (§6.2).
- The prompts promise a random draw; PuzzlePlex takes the first remaining coin of the true bag. Both hold here: the
  coins' order within a true bag is random and hidden, so its first coin is a uniformly random one of those left.
- The shown bags are sorted (each bag's coins in increasing order, the bags in increasing order), so the listing
  says nothing of the hidden order (PuzzlePlex shuffled them); they stay as at the start, the picks say what left.
- A move is {"bag": i} with i a JSON integer 0..K−1 (PuzzlePlex also took 1.0, and crashed on other floats); an
  empty bag is an illegal move, as in PuzzlePlex. The budget is below the number of coins, so a bag is always left.
Levels 1 and 2 are PuzzlePlex's easy (3–7 bags) and normal (8–12); 3 has 13–15 bags. λ = bags.
The reference strategy is Bayesian with one step of lookahead. From the picks seen it weighs every assignment of
shown bags to the indices picked from by the chance of their coins (and of which are empty), exactly, by dynamic
programming over the sets of shown bags used; indices never picked are alike. It then takes the index maximising
the expected coin now plus the better of (the expected next coin of the same index, given the coin drawn) and (the best
expected coin elsewhere). PuzzlePlex's baseline mapped an index to a bag only once a single bag fitted, valued bags by
the mean of their distinct coins and otherwise picked at random.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._protocol import Game, GameOutcome, State

JSON = Any


class MaxTarget(Game):
    name: ClassVar[str] = "maxtarget"
    reference = "clairvoyant_score"
    title: ClassVar[str] = "MaxTarget"
    players: ClassVar[int] = 1
    stochastic: ClassVar[bool] = True
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"bags": (3, 7)}, 2: {"bags": (8, 12)}, 3: {"bags": (13, 15)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["bag"], "additionalProperties": False,
        "properties": {"bag": {"type": "integer", "minimum": 0, "description": "a bag index of the hidden true order, not empty"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        bags = [[rng.randint(1, 10) for _ in range(rng.randint(1, 10))] for _ in range(params["bags"])]
        coins = sum(map(len, bags))
        budget = int(coins * rng.uniform(0.5, 0.7))
        return ({"bags": bags, "shown": sorted(sorted(bag) for bag in bags), "budget": budget, "picks": [], "to_move": 0},
                {"complexity": {"bags": params["bags"]}, "coins": coins, "budget": budget, "clairvoyant_score": clairvoyant(bags, budget)})

    def _observe(self, state: State, player: int) -> JSON:
        return {"bags": state["shown"], "picks_left": state["budget"] - len(state["picks"]), "picks": state["picks"],
                "score": sum(pick["coin"] for pick in state["picks"]), "empty_bags": _empty(state)}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"bag"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"bag": i}')
        bag, count = move["bag"], len(state["bags"])
        if not is_int(bag) or not 0 <= bag < count:
            return reject(IssueCode.BAD_VALUE, f"bag {clip(bag)} is not an index 0..{count - 1}")
        if bag in _empty(state):
            return reject(IssueCode.ILLEGAL_MOVE, f"bag {bag} is empty")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        bag = move["bag"]
        drawn = sum(pick["bag"] == bag for pick in state["picks"])
        state["picks"].append({"bag": bag, "coin": state["bags"][bag][drawn]})
        return state

    def _is_over(self, state: State) -> bool:
        return len(state["picks"]) == state["budget"]

    def outcome(self, state: State) -> GameOutcome:
        return GameOutcome((float(sum(pick["coin"] for pick in state["picks"])),))

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        return [{"bag": i} for i in range(len(observation["bags"])) if i not in observation["empty_bags"]]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """The index maximising the expected coin now plus the best expected coin next (the lowest such index)."""
        shown = [Counter(bag) for bag in observation["bags"]]
        drawn = [Counter() for _ in shown]
        for pick in observation["picks"]:
            drawn[pick["bag"]][pick["coin"]] += 1
        empty = set(observation["empty_bags"])
        picked = sorted({pick["bag"] for pick in observation["picks"]})
        chances = _marginals([[_chance(seen, bag, i in empty) for bag in shown] for i, seen in enumerate(drawn)], picked)
        now = [None if i in empty else _mean_next(chances[i], shown, drawn[i]) for i in range(len(shown))]
        best, choice = -1.0, 0
        for i, value in enumerate(now):
            if value is None:
                continue
            if observation["picks_left"] > 1:
                elsewhere = max((other for j, other in enumerate(now) if j != i and other is not None), default=0.0)
                value = _lookahead(chances[i], shown, drawn[i], elsewhere)
            if value > best:
                best, choice = value, i
        return {"bag": choice}

    def render(self, state: State) -> str:
        lines = [f"hidden bags {state['bags']}", f"shown {state['shown']}"]
        lines += [f"pick {n}: bag {pick['bag']} gave {pick['coin']}" for n, pick in enumerate(state["picks"])]
        score, left = sum(pick["coin"] for pick in state["picks"]), state["budget"] - len(state["picks"])
        return "\n".join([*lines, f"score {score}, picks left {left}"])


def _empty(state: State) -> list[int]:
    picked = Counter(pick["bag"] for pick in state["picks"])
    return [i for i, bag in enumerate(state["bags"]) if picked[i] == len(bag)]


def clairvoyant(bags: list[list[int]], budget: int) -> int:
    """The best total knowing every bag's coins in drawing order: the best split of the picks over the bags."""
    best = [0] + [-1] * budget  # best[p]: the most p picks from the bags so far can give
    for bag in bags:
        prefix = [0]
        for coin in bag:
            prefix.append(prefix[-1] + coin)
        best = [max((best[p - take] + prefix[take] for take in range(min(p, len(bag)) + 1) if best[p - take] >= 0), default=-1)
                for p in range(budget + 1)]
    return best[budget]


def _chance(seen: Counter[int], bag: Counter[int], is_empty: bool) -> float:
    """The chance that an index holding `bag` gave the coins seen, in the order seen, and is (or is not) empty now."""
    size, count = sum(bag.values()), sum(seen.values())
    if count > size or (count == size) != is_empty:
        return 0.0
    chance = 1.0
    for coin, times in seen.items():
        for j in range(times):
            chance *= max(bag[coin] - j, 0)
    for j in range(count):
        chance /= size - j
    return chance


def _marginals(likelihood: list[list[float]], picked: list[int]) -> list[list[float]]:
    """P(index i holds shown bag b), over the assignments of shown bags to indices weighted by their likelihoods.

    The indices never picked from are alike (likelihood 1 for every bag): the assignments of the others are summed
    by dynamic programming over the sets of shown bags they use, forward and backward."""
    size = len(likelihood)
    forward: list[dict[int, float]] = [{0: 1.0}]
    for i in picked:
        step: dict[int, float] = {}
        for used, weight in forward[-1].items():
            for bag, p in enumerate(likelihood[i]):
                if p and not used >> bag & 1:
                    step[used | 1 << bag] = step.get(used | 1 << bag, 0.0) + weight * p
        forward.append(step)
    backward = {used: 1.0 for used in forward[-1]}
    chances = [[0.0] * size for _ in range(size)]
    for t in range(len(picked) - 1, -1, -1):
        i, behind = picked[t], {}
        for used, weight in forward[t].items():
            total = 0.0
            for bag, p in enumerate(likelihood[i]):
                if p and not used >> bag & 1 and used | 1 << bag in backward:
                    share = p * backward[used | 1 << bag]
                    chances[i][bag] += weight * share
                    total += share
            behind[used] = total
        backward = behind
    for i in picked:
        chances[i] = [p / backward[0] for p in chances[i]]
    unpicked = [i for i in range(size) if i not in picked]
    for i in unpicked:
        chances[i] = [max(1.0 - sum(chances[j][bag] for j in picked), 0.0) / len(unpicked) for bag in range(size)]
    return chances


def _mean(coins: Counter[int]) -> float:
    return sum(coin * times for coin, times in coins.items()) / coins.total()


def _mean_next(chances: list[float], shown: list[Counter[int]], seen: Counter[int]) -> float:
    """The expected next coin of an index (not empty) whose bag is shown[b] with the given chances."""
    return sum(p * _mean(shown[bag] - seen) for bag, p in enumerate(chances) if p)


def _lookahead(chances: list[float], shown: list[Counter[int]], seen: Counter[int], elsewhere: float) -> float:
    """The expected coin of an index now plus the better, once it is seen, of the index's next expected coin (its
    bag's chances updated by that coin alone) and `elsewhere`; if the index is then empty, `elsewhere`."""
    value, staying, going = 0.0, Counter(), Counter()  # per coin: Σ chance·(mean after), and the chance mass
    for bag, p in enumerate(chances):
        if not p:
            continue
        left = shown[bag] - seen
        size = left.total()
        for coin, times in left.items():
            q = p * times / size
            value += q * coin
            if size > 1:
                staying[coin] += q * _mean(left - Counter({coin: 1}))
                going[coin] += q
            else:
                value += q * elsewhere
    return value + sum(max(staying[coin] / mass, elsewhere) * mass for coin, mass in going.items() if mass)  # mass: may underflow
