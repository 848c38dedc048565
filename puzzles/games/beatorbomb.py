"""BeatOrBombSto (PuzzlePlex §2.12): two hands of distinct ranks with equal totals, played out a card a round.

Ranks are A (1), 2..10, J (11), Q (12), K (13). Setup as PuzzlePlex: n cards a hand from the level's band; every
n-subset of the 13 ranks grouped by its total; a group holding at least two subsets drawn uniformly, then two of its
subsets: seat 0 gets the first, seat 1 the second. The hands differ but have the same total; each player sees only
their own. Each round both players choose, unseen by the other, a card of their hand and whether to "compete" with it
or "give up"; the card leaves the hand either way. Then both choices are shown and scored: both compete, the higher
card scores both cards' values (equal cards score nothing); one competes, it scores its own card's value; both give
up, nothing. When the hands are empty the higher total wins; equal totals tie.

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.12, §6):
- The simultaneous choice is two turns: seat 0 chooses, then seat 1, whose observation holds nothing of seat 0's
  pending choice (its card stays in seat 0's hand until both are revealed); then the round is scored.
- Every observation holds the whole history of revealed rounds, not just the last one (a player may remember it all,
  and a stateless program should not be at a disadvantage), the hand total and the opponent's number of cards left.
- A move is {"card": rank, "action": "compete" | "give up"} spelt exactly as listed (PuzzlePlex upper-cased the
  card and lower-cased and stripped the action).
- Hands of 12 are impossible (the 13 subsets of 12 ranks all have different totals; PuzzlePlex's generator raises
  there), so level 2 draws 9–11 cards, not 9–12; and since 11 is the most a deal allows, there is no level 3.
Levels 1 and 2 are PuzzlePlex's easy (5–8 cards) and normal (9–11). λ = cards per hand.
The reference strategy plays a mixed strategy, since a fixed one is easily read in a game of simultaneous choices.
It lists the opponent's possible hands (the deal's rule, the total and the cards shown pin them down), models the
opponent by how often it has played its highest, lowest or a middle card, competing or not (starting from one round
of random play), and solves a matrix game each round: a row per own choice, a column per choice the opponent may
have, payoffs the round's points difference plus a guess at the rest of the game's (both playing the rest in a random
order, competing), weighted 0.1 as they stand (the worst case) and 0.9 as expected against the model. Once giving up
every card still wins, it gives up.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, reject
from ._protocol import Game, GameOutcome, State, two_player_outcome

JSON = Any
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
VALUE = {rank: index + 1 for index, rank in enumerate(RANKS)}
ACTIONS = ("compete", "give up")


class BeatOrBombSto(Game):
    name: ClassVar[str] = "beatorbombsto"
    moves_seen = False  # each round's choices are simultaneous: the first is hidden until the round resolves
    title: ClassVar[str] = "BeatOrBombSto"
    players: ClassVar[int] = 2
    stochastic: ClassVar[bool] = True
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"cards": (5, 8)}, 2: {"cards": (9, 11)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["card", "action"], "additionalProperties": False,
        "properties": {"card": {"enum": list(RANKS), "description": "a card of your hand"},
                       "action": {"enum": list(ACTIONS)}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        cards = params["cards"]
        groups = [group for group in _deals(cards) if len(group) > 1]
        group = rng.choice(groups)
        first, second = rng.sample(group, 2)
        total = sum(VALUE[rank] for rank in first)
        return ({"hands": [list(first), list(second)], "total": total, "scores": [0, 0], "pending": None, "rounds": [], "to_move": 0},
                {"complexity": {"cards": cards}, "hand_total": total, "hands_with_this_total": len(group)})

    def _observe(self, state: State, player: int) -> JSON:
        rounds = [{"my_card": done["cards"][player], "my_action": done["actions"][player], "opponent_card": done["cards"][1 - player],
                   "opponent_action": done["actions"][1 - player]} for done in state["rounds"]]
        return {"my_cards": state["hands"][player], "opponent_cards_left": len(state["hands"][1 - player]), "hand_total": state["total"],
                "my_score": state["scores"][player], "opponent_score": state["scores"][1 - player], "rounds": rounds}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"card", "action"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"card": rank, "action": "compete" or "give up"}')
        card, action = move["card"], move["action"]
        if type(card) is not str or type(action) is not str:
            return reject(IssueCode.BAD_VALUE, "the card and the action are strings")
        if card not in VALUE:
            return reject(IssueCode.UNKNOWN_TOKEN, f"{clip(card)} is not a rank ({', '.join(RANKS)})")
        if action not in ACTIONS:
            return reject(IssueCode.UNKNOWN_TOKEN, f'{clip(action)} is not "compete" or "give up"')
        if card not in state["hands"][player]:
            return reject(IssueCode.ILLEGAL_MOVE, f"{card} is not in your hand")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        if player == 0:
            state["pending"] = move
            state["to_move"] = 1
            return state
        choices = (state["pending"], move)
        for seat, choice in enumerate(choices):
            state["hands"][seat].remove(choice["card"])
        first, second = choices
        points = _points(VALUE[first["card"]], VALUE[second["card"]], first["action"] == "compete", second["action"] == "compete")
        state["scores"] = [state["scores"][seat] + points[seat] for seat in range(2)]
        state["rounds"].append({"cards": [choice["card"] for choice in choices], "actions": [choice["action"] for choice in choices],
                                "points": list(points)})
        state["pending"] = None
        state["to_move"] = 0
        return state

    def _is_over(self, state: State) -> bool:
        return not state["hands"][0] and not state["hands"][1]

    def outcome(self, state: State) -> GameOutcome:
        first, second = state["scores"]
        return two_player_outcome(None if first == second else 0 if first > second else 1)

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        return [{"card": card, "action": action} for card in observation["my_cards"] for action in ACTIONS]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A mixed choice, drawn with `rng`: mostly the best answer to the model of the opponent, hedged by the worst
        case (see the module docstring); the lowest card given up once giving up everything still wins."""
        mine = sorted(VALUE[card] for card in observation["my_cards"])
        shown = [(VALUE[done["opponent_card"]], done["opponent_action"] == "compete") for done in observation["rounds"]]
        if observation["my_score"] - observation["opponent_score"] > observation["hand_total"] - sum(value for value, _ in shown):
            return {"card": RANKS[mine[0] - 1], "action": "give up"}
        hands = _opponent_hands(observation)
        rows = [(value, competes) for value in mine for competes in (True, False)]
        weights = _maximin(_payoffs(mine, hands, _habits(shown, hands)))
        value, competes = rng.choices(rows, [max(weight, 0.0) for weight in weights])[0]
        return {"card": RANKS[value - 1], "action": ACTIONS[0] if competes else ACTIONS[1]}

    def render(self, state: State) -> str:
        lines = [f"player {seat + 1}: {' '.join(state['hands'][seat])}  score {state['scores'][seat]}" for seat in range(2)]
        lines += [f"round {index + 1}: " + " vs ".join(f"{done['cards'][seat]} {done['actions'][seat]}" for seat in range(2))
                  for index, done in enumerate(state["rounds"])]
        return "\n".join(lines)


def _points(first: int, second: int, first_competes: bool, second_competes: bool) -> tuple[int, int]:
    """A round's points for each seat, from the two cards' values and whether each competes."""
    if first_competes and second_competes:
        return (first + second, 0) if first > second else (0, first + second) if second > first else (0, 0)
    return (first if first_competes else 0, second if second_competes else 0)


@functools.lru_cache(maxsize=None)
def _deals(cards: int) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The `cards`-subsets of the ranks grouped by total, totals in increasing order, each group in rank order."""
    groups: dict[int, list[tuple[str, ...]]] = {}
    for hand in itertools.combinations(RANKS, cards):
        groups.setdefault(sum(VALUE[rank] for rank in hand), []).append(hand)
    return tuple(tuple(groups[total]) for total in sorted(groups))


# -- the reference strategy -----------------------------------------------------------------------------------------
HEDGE = 0.1  # the weight of the worst case in the reference's payoffs; the rest goes to its model of the opponent
PRIOR = 1.0  # rounds of uniformly random play the model of the opponent starts from


def _opponent_hands(observation: JSON) -> list[tuple[int, ...]]:
    """The opponent's possible hands now (card values), all equally likely: the deal's rule, its total and the cards
    it has shown allow them, and the two dealt hands differ."""
    shown = [VALUE[done["opponent_card"]] for done in observation["rounds"]]
    mine = sorted([VALUE[card] for card in observation["my_cards"]] + [VALUE[done["my_card"]] for done in observation["rounds"]])
    pool = tuple(value for value in range(1, 14) if value not in shown)
    hands = _hands(pool, len(observation["my_cards"]), observation["hand_total"] - sum(shown))
    return [hand for hand in hands if sorted(hand + tuple(shown)) != mine]


@functools.lru_cache(maxsize=4096)
def _hands(pool: tuple[int, ...], cards: int, total: int) -> tuple[tuple[int, ...], ...]:
    return tuple(hand for hand in itertools.combinations(pool, cards) if sum(hand) == total)


def _position(hand: tuple[int, ...], value: int) -> int:
    """0 for the highest card of the hand, 1 for the lowest, 2 for one in between."""
    return 0 if value == max(hand) else 1 if value == min(hand) else 2


def _habits(shown: list[tuple[int, bool]], hands: list[tuple[int, ...]]) -> dict[tuple[int, bool], float]:
    """How often the opponent has played its highest, lowest or a middle card, competing or not (averaged over its
    possible hands, which say what it held each round)."""
    counts: dict[tuple[int, bool], float] = {}
    for hand in hands:
        for done, (value, competes) in enumerate(shown):
            held = hand + tuple(card for card, _ in shown[done:])
            key = (_position(held, value), competes)
            counts[key] = counts.get(key, 0.0) + 1 / len(hands)
    return counts


def _payoffs(mine: list[int], hands: list[tuple[int, ...]], habits: dict[tuple[int, bool], float]) -> list[list[float]]:
    """The matrix the reference solves: a row per choice of its own, a column per choice the opponent may have. An
    entry is HEDGE × (the round's points difference + the rest of the game's, guessed as if both played the rest in a
    random order, competing) + (1 − HEDGE) × the row's expected value against the model of the opponent."""
    cards = sorted({value for hand in hands for value in hand})
    rows = [(value, competes) for value in mine for competes in (True, False)]
    worst = [[[0.0, 0] for _ in range(2 * len(cards))] for _ in rows]  # per column: sum over the hands holding the card, count
    expected = [0.0] * len(rows)
    for hand in hands:
        rest = _rest_of_game(mine, hand)
        model = _predict(hand, habits)
        for row, (value, competes) in enumerate(rows):
            for other in hand:
                for answer in (True, False):
                    points = _points(value, other, competes, answer)
                    entry = points[0] - points[1] + rest(value, other)
                    cell = worst[row][2 * cards.index(other) + (not answer)]
                    cell[0] += entry
                    cell[1] += 1
                    expected[row] += model[other, answer] * entry / len(hands)
    return [[HEDGE * total / count + (1 - HEDGE) * expected[row] for total, count in line] for row, line in enumerate(worst)]


def _rest_of_game(mine: list[int], hand: tuple[int, ...]) -> Callable[[int, int], float]:
    """(my card, its card) -> the points difference of the rounds after this one, if both then played their cards in
    a random order, competing: the mean over all pairings of a card left to each."""
    def duel(first: int, second: int) -> int:
        return first + second if first > second else -(first + second) if second > first else 0

    left = len(mine) - 1
    if not left:
        return lambda value, other: 0.0
    total = sum(duel(value, other) for value in mine for other in hand)
    mine_sums = {value: sum(duel(value, other) for other in hand) for value in mine}
    hand_sums = {other: sum(duel(value, other) for value in mine) for other in hand}
    return lambda value, other: (total - mine_sums[value] - hand_sums[other] + duel(value, other)) / left


def _predict(hand: tuple[int, ...], habits: dict[tuple[int, bool], float]) -> dict[tuple[int, bool], float]:
    """The chance of each choice of an opponent holding `hand`, by its habits (PRIOR rounds of random play first)."""
    positions = {value: _position(hand, value) for value in hand}
    sizes = {position: list(positions.values()).count(position) for position in positions.values()}
    weights = {(value, competes): (habits.get((position, competes), 0.0) + PRIOR * sizes[position] / len(hand) / 2) / sizes[position]
               for value, position in positions.items() for competes in (True, False)}
    total = sum(weights.values())
    return {choice: weight / total for choice, weight in weights.items()}


def _maximin(payoff: list[list[float]]) -> list[float]:
    """The row player's maximin mixed strategy of a zero-sum matrix game, by the simplex method on the classic
    program (maximise Σy subject to (payoff + shift)·y ≤ 1, y ≥ 0; the row strategy is read off the slack prices),
    with Bland's rule, which cannot cycle."""
    rows, columns = len(payoff), len(payoff[0])
    shift = 1 - min(min(line) for line in payoff)
    table = [[entry + shift for entry in line] + [1.0 if other == row else 0.0 for other in range(rows)] + [1.0]
             for row, line in enumerate(payoff)]
    prices = [-1.0] * columns + [0.0] * (rows + 1)
    basis = list(range(columns, columns + rows))
    while True:
        enter = next((column for column in range(columns + rows) if prices[column] < -1e-12), None)
        if enter is None:
            break
        _, _, leave = min((line[-1] / line[enter], basis[row], row) for row, line in enumerate(table) if line[enter] > 1e-12)
        pivot = table[leave][enter]
        table[leave] = [entry / pivot for entry in table[leave]]
        for row, line in enumerate(table):
            if row != leave and line[enter]:
                factor = line[enter]
                table[row] = [entry - factor * base for entry, base in zip(line, table[leave])]
        factor = prices[enter]
        prices = [entry - factor * base for entry, base in zip(prices, table[leave])]
        basis[leave] = enter
    return [prices[columns + row] / prices[-1] for row in range(rows)]
