"""Published benchmarks' settings as data (`codebench run --protocol NAME`): what a run of one plays, and what codebench
does otherwise than the paper.

A protocol fixes run options (`settings`, under their config names) and the seeds per level by game kind. Beside it, a
value the user also gives (flag or config key) is taken as `TAKEN` says: options that decide what is measured must be
the protocol's (else refused, one line); `--games` and `--levels` may narrow it to some of its own; `--samples` and
`--instances-per-level` (N seeds a level for every game, instead of the protocol's per kind) win, and `departures`
names each such change wherever the run is shown (its --dry-run, its report). A second protocol is one more entry of
PROTOCOLS. Imports the standard library, `puzzles`, the errors and the shared types.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from puzzles.games import Game, get_game

from .errors import ConfigError
from .types import GameLimits, ModeName

KINDS = ("1P deterministic", "1P stochastic", "2P deterministic", "2P stochastic")  # PuzzlePlex's four kinds of game
SAME, SUBSET, WINS = "same", "subset", "wins"  # how a value the user gives beside a protocol is taken
TAKEN = {  # run option -> how the user's own value is taken beside the protocol's
    "mode": SAME, "puzzles": SAME, "opponents": SAME, "game_cpu": SAME, "move_cpu": SAME,  # what is measured
    "games": SUBSET, "levels": SUBSET,  # narrowed to some of the protocol's
    "samples": WINS,  # scaled (as is instances_per_level, which replaces the seeds per kind), said as a departure
}


def game_kind(game: Game) -> str:
    """One of KINDS: the game's players, and whether it hides or deals information (`Game.stochastic`)."""
    return f"{game.players}P {'stochastic' if game.stochastic else 'deterministic'}"


@dataclass(frozen=True)
class Protocol:
    """One published setting: what a run of it plays (mode, samples, games, levels, opponents, budgets, seeds per level
    by game kind) and, in `differs`, what codebench does otherwise than the paper (said by --dry-run and the report)."""

    name: str
    title: str  # the setting's name, as the paper has it
    table: str  # the paper's table whose layout the report prints
    mode: ModeName
    samples: int
    games: tuple[str, ...]
    levels: Mapping[int, str]  # level -> the paper's name for it
    seeds: Mapping[str, int]  # game kind (KINDS) -> seeds per level; a two-player game plays each in both seat orders
    opponents: tuple[str, ...]
    game_limits: GameLimits
    differs: tuple[str, ...]

    def settings(self) -> dict[str, Any]:
        """The run options it sets, under their config names, as a run's spec holds them."""
        return {"mode": str(self.mode), "puzzles": (), "samples": self.samples, "games": self.games,
                "levels": tuple(self.levels), "opponents": self.opponents, "game_cpu": self.game_limits.game_cpu_s,
                "move_cpu": self.game_limits.move_cpu_s}

    def game_seeds(self, games: Collection[str]) -> dict[str, int]:
        """Seeds per level of each of `games`, by its kind."""
        return {game: self.seeds[game_kind(get_game(game))] for game in games}

    def resolve(self, values: Mapping[str, Any], given: Collection[str]) -> dict[str, Any]:
        """`values` (a run's options, as its spec takes them) with the protocol's settings where the user gave none,
        and `game_seeds`: the protocol's per kind, unless the user gave instances_per_level (then every game plays
        that many). Whether what the user gave may stand is the spec's to check (`check`)."""
        settled = {**values, **{key: value for key, value in self.settings().items() if key not in given}}
        seeds = {} if "instances_per_level" in given else self.game_seeds([game for game in settled["games"] if game in self.games])
        return {**settled, "game_seeds": seeds}

    def check(self, values: Mapping[str, Any], name: Callable[[str], str]) -> None:
        """Refuse a value that is not the protocol's where it must be (`TAKEN`), naming the option as the user gave it.

        Raises:
            ConfigError: a value that changes what the protocol measures, or narrows it to something not its own.
        """
        for key, ours in self.settings().items():
            theirs = values[key]
            if TAKEN[key] == SAME and _comparable(theirs) != _comparable(ours):
                raise ConfigError(f"{name(key)} {_shown(theirs)}: --protocol {self.name} sets it to {_shown(ours)} "
                                  f"({self.title}): leave it out, or drop --protocol")
            outside = [value for value in theirs if value not in ours] if TAKEN[key] == SUBSET else []
            if outside:
                raise ConfigError(f"{name(key)} {_shown(outside)}: not in --protocol {self.name}'s {_shown(ours)}: give some "
                                  "of these, or drop --protocol")

    def departures(self, spec: Mapping[str, Any]) -> list[str]:
        """What a run of the protocol (`spec`: its stored spec, `RunSpec.to_json`, read as it comes) plays otherwise than
        the protocol says: fewer games or levels, other counts of samples or seeds. Empty: the protocol whole."""
        found = []
        if spec.get("samples") != self.samples:
            found.append(f"samples {_shown(spec.get('samples'))} (the protocol's: {self.samples})")
        games = _listed(spec.get("games"))
        if set(games) != set(self.games):
            found.append(f"{len(games)} of its {len(self.games)} games ({_shown(games)})")
        levels = _listed(spec.get("levels"))
        if set(levels) != set(self.levels):
            found.append(f"levels {_shown(levels)} (the protocol's: {_shown(list(self.levels))})")
        if spec.get("game_seeds") != self.game_seeds([game for game in games if game in self.games]):
            found.append(f"{_shown(spec.get('instances_per_level'))} seeds per level for every game (the protocol's: "
                         + ", ".join(f"{n} {kind}" for kind, n in self.seeds.items()) + ")")
        return found


def protocol_named(name: str, option: str) -> Protocol:
    """The protocol called `name`; `option` names the option that gave it.

    Raises:
        ConfigError: no protocol is called that (the message lists them).
    """
    try:
        return PROTOCOLS[name]
    except (KeyError, TypeError):
        raise ConfigError(f"{option} {name!r}: choose one of {', '.join(PROTOCOLS)}") from None


def _comparable(value: Any) -> Any:
    """Values equal as a protocol means them: a list of names in any order, a number as int or float."""
    return frozenset(value) if isinstance(value, (tuple, list)) else value


def _listed(value: Any) -> list[Any]:
    """A stored list's hashable items (a damaged spec's other values: none)."""
    return [item for item in value if isinstance(item, (str, int))] if isinstance(value, list | tuple) else []


def _shown(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value)) or "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


PUZZLEPLEX = Protocol(
    name="puzzleplex",
    title="PuzzlePlex's code-based setting",
    table="Table 3",
    mode=ModeName.CODE,
    samples=32,
    games=("tidytower", "optimaltouring", "countmaximalcocktails", "rubyrisks", "exclusivityprobes", "maxtarget", "cardnim",
           "sudokill", "maxmaximalcocktails", "exclusivityparticles", "superply", "beatorbombsto", "largertarget"),
    levels={1: "easy", 2: "normal"},
    seeds={"1P deterministic": 10, "1P stochastic": 100, "2P deterministic": 5, "2P stochastic": 50},
    opponents=("ref", "models"),
    game_limits=GameLimits(game_cpu_s=300.0, move_cpu_s=10.0),
    differs=(
        "setups: codebench's engines (PuzzlePlex's prompt/engine mismatches fixed; not the -puzzleplex variant), seeds "
        "0..n-1 salted by the run's secret: the paper's counts, not its instances",
        "models meet each other sample k against sample k, both seats (the paper: all 32 x 32 sample pairs)",
        "one-player scores are normalized by codebench's absolute reference (optimum, proven bound, clairvoyant score); "
        "the paper divides by the pool's best on the setup, shown beside it per game",
        "a group's best is the mean over its games of each game's best sample (the paper: the best of the pooled "
        "list, which mixes games)",
        "budgets: 300 CPU s per player per game and 10 CPU s (30 s wall) per move, in a sandbox (the paper: 300 s "
        "wall per game, no per-move limit, exec in its own process)",
        "sampling: the run's --temperature and per-sample seeds, no token cap of ours (the paper: provider defaults, "
        "8192 tokens for most models); the random baseline plays the one-player games too",
        "Elo: in the games section's ratings, beside Bradley-Terry (the headline there)",
    ),
)
PROTOCOLS: dict[str, Protocol] = {protocol.name: protocol for protocol in (PUZZLEPLEX,)}
