"""The explicit list of games: adding one is a module, one line here and one test file. Other installed packages add
theirs through entry points (`.._plugins`): found by name, never among "all games"."""

from __future__ import annotations

from .._catalog import built_in_names
from .._errors import UnknownPuzzleError
from .._plugins import GAME_GROUP, Plugins
from .._protocol import clip
from ._protocol import Game
from .beatorbomb import BeatOrBombSto
from .cardnim import CardNim
from .countcocktails import CountMaximalCocktails
from .exclusivityparticles import ExclusivityParticles
from .exclusivityprobes import ExclusivityProbes
from .largertarget import LargerTarget
from .maxcocktails import MaxMaximalCocktails, MaxMaximalCocktailsPuzzlePlex
from .maxtarget import MaxTarget
from .optimaltouring import OptimalTouring
from .rubyrisks import RubyRisks
from .sudokill import SudoKill, SudoKillM
from .superply import Superply, SuperplyM
from .tidytower import TidyTower

GAMES: tuple[Game, ...] = (  # PuzzlePlex's order
    TidyTower(), OptimalTouring(), CountMaximalCocktails(), CardNim(),
    SudoKill(), MaxMaximalCocktails(), ExclusivityParticles(), SudoKillM(),
    RubyRisks(), ExclusivityProbes(), MaxTarget(), Superply(),
    BeatOrBombSto(), LargerTarget(), SuperplyM(),
)
# A game under a rule of PuzzlePlex's engine that codebench changed, to reproduce PuzzlePlex's numbers: found by name
# (`get_game`, `--games NAME`), with rules of its own for models' prompts, but not among GAMES (what "all games" means).
VARIANTS: tuple[Game, ...] = (MaxMaximalCocktailsPuzzlePlex(),)

_BY_NAME = {game.name: game for game in (*GAMES, *VARIANTS)}
if len(_BY_NAME) != len(GAMES) + len(VARIANTS):
    raise RuntimeError("two games share a name")


PLUGINS = Plugins(GAME_GROUP, Game, ("rules",), built_in_names)


def game_names(variants: bool = False, plugins: bool = False) -> list[str]:
    """The 15 games' names ("all games"), with `variants` the variants' too, with `plugins` the usable plugins' after
    them (both: every name `get_game` finds)."""
    return [game.name for game in (*GAMES, *(VARIANTS if variants else ()))] + \
        ([plugin.name for plugin in PLUGINS.every() if plugin.problem is None] if plugins else [])


def get_game(name: str) -> Game:
    """The game called `name`: one of GAMES or VARIANTS, else an installed plugin's.

    Raises:
        UnknownPuzzleError: no such game (the message lists the known ones).
        PluginError: a plugin registers `name` but cannot be used (the message names its distribution and what to do).
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        found = PLUGINS.usable(name) if isinstance(name, str) else None
    if found is None:
        raise UnknownPuzzleError(f"unknown game {clip(name)}; known: {', '.join(game_names(variants=True, plugins=True))}")
    return found  # type: ignore[no-any-return]
