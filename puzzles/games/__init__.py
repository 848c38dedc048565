"""PuzzlePlex's games as seeded state machines, beside the single-answer puzzles; usable without codebench or models."""

from ._catalog import GAMES, game_names, get_game
from ._protocol import (
    DRAW,
    LOSS,
    WIN,
    Answer,
    Forfeit,
    Game,
    GameOutcome,
    GameRecord,
    Player,
    Setup,
    Strategy,
    StrategyPlayer,
    new_secret,
    play,
    player_view,
)

__all__ = ["DRAW", "GAMES", "LOSS", "WIN", "Answer", "Forfeit", "Game", "GameOutcome", "GameRecord", "Player", "Setup", "Strategy",
           "StrategyPlayer", "game_names", "get_game", "new_secret", "play",
           "player_view"]
