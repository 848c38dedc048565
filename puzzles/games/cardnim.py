"""CardNim (PuzzlePlex §2.7): two players, one pile of stones, the same hand of cards 1..t−1 each.

On a turn a player plays one card c of their own hand with c ≤ stones: the pile loses c stones and the card leaves
that hand. Whoever brings the pile to 0 wins. Setup as PuzzlePlex: stones S from the level's band, then t drawn
uniformly from 1..S until 2·(1 + … + (t−1)) ≥ S (the two hands together can always empty the pile).

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.7, §6):
- A player to move with no playable card loses at once: the game ends there (PuzzlePlex makes them move and scores
  the forced illegal move as the loss; the result is the same, but it is the rules' outcome, not a rule violation).
- A move is the object {"card": c}; c must be a JSON integer (no strings, no `eval`, no list unwrapping).
- Nothing is hidden: both hands and the last card played are in every observation.
Levels 1 and 2 are PuzzlePlex's easy (20–40 stones) and normal (40–80); 3 goes on (80–120), where the exact
reference still answers in about 0.1 s a game (at 120–200 stones it takes seconds a move). λ = stones.
The reference strategy is exact: memoized negamax over (stones, the mover's playable cards, the other's), cards
above the pile dropped from the key since they can never be played again.
"""

from __future__ import annotations

import functools
import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._protocol import Game, State, WinnerTakesAll

JSON = Any


class CardNim(WinnerTakesAll):
    name: ClassVar[str] = "cardnim"
    title: ClassVar[str] = "CardNim"
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"stones": (20, 40)}, 2: {"stones": (40, 80)}, 3: {"stones": (80, 120)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["card"], "additionalProperties": False,
        "properties": {"card": {"type": "integer", "minimum": 1, "description": "a card of your hand, at most the stones left"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        stones = params["stones"]
        top = rng.randint(1, stones)
        while top * (top - 1) < stones:  # 2 · (1 + … + (t−1)) ≥ S
            top = rng.randint(1, stones)
        hand = list(range(1, top))
        return ({"stones": stones, "hands": [hand, list(hand)], "to_move": 0, "last_card": None, "winner": None},
                {"complexity": {"stones": stones}, "cards": top - 1})

    def _observe(self, state: State, player: int) -> JSON:
        return {"stones": state["stones"], "my_cards": state["hands"][player], "opponent_cards": state["hands"][1 - player],
                "opponent_last_card": state["last_card"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"card"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"card": c}')
        card = move["card"]
        if not is_int(card):
            return reject(IssueCode.BAD_VALUE, f"card {clip(card)} is not an integer")
        if card not in state["hands"][player]:
            return reject(IssueCode.ILLEGAL_MOVE, f"card {card} is not in your hand")
        if card > state["stones"]:
            return reject(IssueCode.ILLEGAL_MOVE, f"card {card} is more than the {state['stones']} stones left")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        card = move["card"]
        state["stones"] -= card
        state["hands"][player].remove(card)
        state["last_card"] = card
        state["to_move"] = 1 - player
        if state["stones"] == 0:
            state["winner"] = player
        elif not any(c <= state["stones"] for c in state["hands"][1 - player]):
            state["winner"] = player  # the next player cannot move: they lose
        return state

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        return [{"card": c} for c in observation["my_cards"] if c <= observation["stones"]]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A winning card if there is one (the smallest), else the largest playable card."""
        stones, mine, theirs = observation["stones"], tuple(observation["my_cards"]), tuple(observation["opponent_cards"])
        playable = [c for c in mine if c <= stones]
        for card in playable:
            if card == stones or not _wins(stones - card, theirs, tuple(c for c in mine if c != card)):
                return {"card": card}
        return {"card": max(playable)} if playable else None

    def render(self, state: State) -> str:
        return (f"stones {state['stones']}\nplayer 0 cards {state['hands'][0]}\nplayer 1 cards {state['hands'][1]}\n"
                + (f"winner: player {state['winner']}" if state["winner"] is not None else f"to move: player {state['to_move']}"))


def _wins(stones: int, mover: tuple[int, ...], other: tuple[int, ...]) -> bool:
    """Whether the player to move wins with best play (a player who cannot move loses)."""
    return _solved(stones, tuple(c for c in mover if c <= stones), tuple(c for c in other if c <= stones))


@functools.lru_cache(maxsize=1 << 22)
def _solved(stones: int, mover: tuple[int, ...], other: tuple[int, ...]) -> bool:
    """`_wins` on hands cut to the cards that can still be played (the rest never matter again): far fewer positions."""
    if stones in mover:
        return True
    for card in reversed(mover):  # big cards first: they end the game soonest
        rest = stones - card
        if not _solved(rest, tuple(c for c in other if c <= rest), tuple(c for c in mover if c != card and c <= rest)):
            return True
    return False
