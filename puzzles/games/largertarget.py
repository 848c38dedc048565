"""LargerTarget (PuzzlePlex §2.13): two players take turns drawing coins from bags whose order is hidden.

Setup as PuzzlePlex: K bags from the level's band, each of 1..10 coins worth 1..10 (uniform, independent). The players
are shown every bag's coins, but in a shuffled order: bag index i of a move means the i-th bag of the true order,
which is hidden. A pick draws a random coin of the chosen true bag (the first left of its coins, in the order they
were drawn at setup: for independent coins a uniformly random order) and scores it for the picker. The players
alternate, seat 0 first, for the total number of coins rounded down to an even number of picks, so each player picks
the same number of times. Every pick (its bag index, its coin, who made it) and which bag indices are empty are seen
by both. The higher total wins; equal totals tie.

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.13, §6):
- The true order (which shown bag each index is, and the order of its coins) is in no observation: PuzzlePlex sent it
  to code players as `true_bag` (§6.2).
- The prompts promise a random draw; PuzzlePlex takes the first remaining coin of the true bag. Both hold here: the
  coins' order within a true bag is random and hidden, so its first coin is a uniformly random one of those left.
- The shown bags are listed with their coins in increasing order (PuzzlePlex shuffled them too; the order says
  nothing either way) and stay as they were at the start; the picks say what has left them.
- The number of bags is the level's, shown in every observation (PuzzlePlex's game introduction says four bags).
- A move is {"bag": i} with i a JSON integer 0..K−1 (PuzzlePlex also took 1.0, and crashed on other floats); an
  empty bag is an illegal move, as in PuzzlePlex.
Levels 1 and 2 are PuzzlePlex's easy (3–5 bags) and normal (6–8); 3 has 9–12 bags. λ = bags.
The reference strategy is Bayesian: from the picks seen it weighs every assignment of the shown bags to the indices
by the chance of the coins seen (exactly, as a permanent over the indices picked from, by dynamic programming over
subsets of shown bags), and picks the index whose next coin is worth most in expectation.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._protocol import Game, GameOutcome, State, two_player_outcome

JSON = Any


class LargerTarget(Game):
    name: ClassVar[str] = "largertarget"
    title: ClassVar[str] = "LargerTarget"
    players: ClassVar[int] = 2
    stochastic: ClassVar[bool] = True
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"bags": (3, 5)}, 2: {"bags": (6, 8)}, 3: {"bags": (9, 12)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["bag"], "additionalProperties": False,
        "properties": {"bag": {"type": "integer", "minimum": 0, "description": "a bag index of the hidden true order, not empty"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        true_bags = [[rng.randint(1, 10) for _ in range(rng.randint(1, 10))] for _ in range(params["bags"])]
        shown = [sorted(bag) for bag in true_bags]
        rng.shuffle(shown)
        coins = sum(len(bag) for bag in true_bags)
        return ({"true_bags": true_bags, "shown": shown, "picks_left": coins - coins % 2, "picks": [], "scores": [0, 0], "empty": [],
                 "to_move": 0},
                {"complexity": {"bags": params["bags"]}, "coins": coins, "total_value": sum(map(sum, true_bags))})

    def _observe(self, state: State, player: int) -> JSON:
        picks = [{"by": "me" if pick["player"] == player else "opponent", "bag": pick["bag"], "coin": pick["coin"]}
                 for pick in state["picks"]]
        return {"bags": state["shown"], "picks_left": state["picks_left"], "my_score": state["scores"][player],
                "opponent_score": state["scores"][1 - player], "picks": picks, "empty_bags": state["empty"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"bag"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"bag": i}')
        bag, count = move["bag"], len(state["true_bags"])
        if not is_int(bag) or not 0 <= bag < count:
            return reject(IssueCode.BAD_VALUE, f"bag {clip(bag)} is not an integer 0..{count - 1}")
        if bag in state["empty"]:
            return reject(IssueCode.ILLEGAL_MOVE, f"bag {bag} is empty")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        bag = move["bag"]
        coin = state["true_bags"][bag].pop(0)
        state["scores"][player] += coin
        state["picks"].append({"player": player, "bag": bag, "coin": coin})
        if not state["true_bags"][bag]:
            state["empty"] = sorted([*state["empty"], bag])
        state["picks_left"] -= 1
        state["to_move"] = 1 - player
        return state

    def _is_over(self, state: State) -> bool:
        return state["picks_left"] == 0

    def outcome(self, state: State) -> GameOutcome:
        first, second = state["scores"]
        return two_player_outcome(None if first == second else 0 if first > second else 1)

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        return [{"bag": bag} for bag in range(len(observation["bags"])) if bag not in observation["empty_bags"]]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """The index whose next coin is worth most in expectation under the exact posterior (the lowest on a tie)."""
        moves = self.legal_moves(observation, player)
        if not moves:
            return None
        values = _next_coin_values(observation)
        return max(moves, key=lambda move: values[move["bag"]])

    def render(self, state: State) -> str:
        lines = [f"bag {index}: {bag}" for index, bag in enumerate(state["true_bags"])]
        lines.append(f"shown: {state['shown']}")
        lines.append(f"scores {state['scores'][0]} / {state['scores'][1]}, picks left {state['picks_left']}")
        return "\n".join(lines)


def _next_coin_values(observation: JSON) -> list[float]:
    """The expected value of the next coin of each bag index, under the posterior over which shown bag it is."""
    shown = [Counter(bag) for bag in observation["bags"]]
    sizes = [len(bag) for bag in observation["bags"]]
    count = len(shown)
    drawn: list[Counter[int]] = [Counter() for _ in range(count)]
    for pick in observation["picks"]:
        drawn[pick["bag"]][pick["coin"]] += 1
    empty = set(observation["empty_bags"])
    likelihood = [[_chance(drawn[index], shown[bag], sizes[bag], index in empty) for bag in range(count)] for index in range(count)]
    marginals = _marginals(likelihood)
    values = []
    for index in range(count):
        taken = sum(drawn[index].values())
        expected = 0.0
        for bag in range(count):
            if marginals[index][bag] > 0 and sizes[bag] > taken:
                left = sum(value * (number - drawn[index][value]) for value, number in shown[bag].items())
                expected += marginals[index][bag] * left / (sizes[bag] - taken)
        values.append(expected)
    return values


def _chance(drawn: Counter[int], bag: Counter[int], size: int, is_empty: bool) -> float:
    """The chance of drawing these coins (in the order seen) from this shown bag, and its being empty or not as seen."""
    taken = sum(drawn.values())
    if (size == taken) != is_empty or size < taken:
        return 0.0
    chance = 1.0
    for value, number in drawn.items():
        if bag[value] < number:
            return 0.0
        for step in range(number):
            chance *= bag[value] - step
    for step in range(taken):
        chance /= size - step
    return chance


def _marginals(likelihood: list[list[float]]) -> list[list[float]]:
    """P(index i is shown bag j) when the assignments are weighted by the product of their likelihoods.

    Indices never picked from (all their likelihoods equal) are left out of the sums and share what is left equally.
    """
    count = len(likelihood)
    picked = [index for index in range(count) if len(set(likelihood[index])) > 1 or likelihood[index][0] != 1.0]
    weights: list[dict[int, float]] = [{0: 1.0}]  # weights[k][S]: the first k picked indices placed on the shown bags S
    for index in picked:
        layer: dict[int, float] = {}
        for used, weight in weights[-1].items():
            for bag in range(count):
                if not used >> bag & 1 and likelihood[index][bag] > 0:
                    key = used | 1 << bag
                    layer[key] = layer.get(key, 0.0) + weight * likelihood[index][bag]
        weights.append(layer)
    rest: dict[int, float] = {used: 1.0 for used in weights[-1]}  # rest[S]: ways to place the remaining picked indices
    marginals = [[0.0] * count for _ in range(count)]
    for depth in range(len(picked) - 1, -1, -1):
        index, before = picked[depth], {}
        for used, weight in weights[depth].items():
            total = 0.0
            for bag in range(count):
                key = used | 1 << bag
                if not used >> bag & 1 and key in rest:
                    share = likelihood[index][bag] * rest[key]
                    marginals[index][bag] += weight * share
                    total += share
            before[used] = total
        rest = before
    whole = rest[0]
    unpicked = [index for index in range(count) if index not in picked]
    for index in picked:
        marginals[index] = [value / whole for value in marginals[index]]
    if unpicked:  # a shown bag no picked index holds is each unpicked index's alike
        free = [sum(weight for used, weight in weights[-1].items() if not used >> bag & 1) / whole for bag in range(count)]
        for index in unpicked:
            marginals[index] = [value / len(unpicked) for value in free]
    return marginals
