"""The shape shared by PuzzlePlex's single-player deterministic games (TidyTower, OptimalTouring, CountMaximalCocktails)
in their default "single pass" mode: the one player gives the whole answer as one move, the game ends there, and the
answer gets its raw score.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

from ._protocol import Game, GameOutcome, State

JSON = Any


class SinglePass(Game):
    """A one-move, one-player game: `_settle` plays the answer into the state and scores it."""

    players: ClassVar[int] = 1

    @staticmethod
    def opening(fields: State) -> State:
        """The starting state around a game's own fields: player 0 to move, no answer scored yet."""
        return {**fields, "to_move": 0, "score": None}

    def _apply(self, state: State, player: int, move: JSON) -> State:
        state["score"] = self._settle(state, move)
        return state

    @abstractmethod
    def _settle(self, state: State, move: JSON) -> float:
        """Play the legal answer into `state` (what `render` shows afterwards) and return its raw score."""

    def _is_over(self, state: State) -> bool:
        return state["score"] is not None

    def outcome(self, state: State) -> GameOutcome:
        return GameOutcome((float(state["score"]),))
