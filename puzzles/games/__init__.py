"""PuzzlePlex's games as seeded state machines, beside the single-answer puzzles; usable without codebench or models."""

from ._catalog import GAMES, game_names, get_game
from ._protocol import DRAW, LOSS, WIN, Game, GameRecord, Outcome, Setup, Strategy, play

__all__ = ["DRAW", "GAMES", "LOSS", "WIN", "Game", "GameRecord", "Outcome", "Setup", "Strategy", "game_names", "get_game",
           "play"]
