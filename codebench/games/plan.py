"""The games' part of a run's plan: who plays which seeded setup, and code mode's strategy requests.

Code mode asks each model once per game and sample for a `Strategy` (a `StrategyJob`, judged in matches only);
instruction mode plays in the match itself. Matches per game, level and seed: a one-player game is played by every
model entrant (model × mode × sample) and by the `ref` and `random` baselines; a two-player game seats every model
entrant against each built-in opponent in both seat orders, models against each other sample k against sample k
(same mode, both orders; never the k × k blow-up), and `ref` against `random` in both orders, so the baselines are
rated in the same pool.

Pure: nothing here calls a model, a sandbox or the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from itertools import permutations
from typing import Any, ClassVar

from puzzles import Prompting
from puzzles.games import get_game

from ..keys import content_key, sample_key
from ..run.spec import ModelSpec, RunSpec
from ..types import ModeName, Prompt, Sampling
from .chat import ChatOptions, check_chat_templates, render_strategy_prompt

BUILTINS = ("ref", "random")  # PuzzlePlex's baselines: the reference strategy and the uniform random player


@dataclass(frozen=True)
class StrategyJob:
    """Code mode's request for a game: one `Strategy` per model × game × sample, judged in the matches it plays."""

    key: str
    model: str
    game: str
    sample: int
    prompt: Prompt
    sampling: Sampling
    mode: ClassVar[ModeName] = ModeName.CODE


@dataclass(frozen=True)
class BuiltinEntrant:
    """A strategy of `puzzles.games` (`ref`, `random`), played on the host."""

    name: str
    mode: ClassVar[str] = ""
    model: ClassVar[None] = None
    sample: ClassVar[int] = 0

    @property
    def player(self) -> str:
        return self.name

    @property
    def label(self) -> str:
        return self.name

    def descriptor(self) -> dict[str, Any]:
        return {"builtin": self.name}


@dataclass(frozen=True)
class _ModelEntrant:
    model: str  # the model's label
    sample: int
    mode: ClassVar[str]

    @property
    def player(self) -> str:
        """The name it is rated under: every sample of a model in a mode is one player."""
        return f"{self.model} ({self.mode})"

    @property
    def label(self) -> str:
        """The seat's label in a game record: the player and the sample."""
        return f"{self.player} #{self.sample}"


@dataclass(frozen=True)
class ProgramEntrant(_ModelEntrant):
    """A model's sample in code mode: the `Strategy` its `StrategyJob` brought back, in a sandbox worker."""

    strategy_key: str
    mode: ClassVar[ModeName] = ModeName.CODE

    def descriptor(self) -> dict[str, Any]:
        return {"program_of": self.strategy_key}


@dataclass(frozen=True)
class ChatEntrant(_ModelEntrant):
    """A model's sample in instruction mode: one conversation per game, a move per turn."""

    sampling: Sampling  # its seed moves on every turn
    options: ChatOptions
    identity: dict[str, Any]  # what else decides the model's replies (endpoint, request, the prompting's, where it has some)
    prompting: Prompting = Prompting()  # how its prompts are posed (in `identity` by content)
    mode: ClassVar[ModeName] = ModeName.INSTRUCTION

    def descriptor(self) -> dict[str, Any]:
        return {"model": self.model, "sample": self.sample, "sampling": asdict(self.sampling), "options": asdict(self.options),
                **self.identity}


Entrant = BuiltinEntrant | ProgramEntrant | ChatEntrant


@dataclass(frozen=True)
class MatchJob:
    """One game to play: a seeded setup and who sits in each seat (seat 0 moves first)."""

    key: str
    game: str
    level: int
    seed: int
    entrants: tuple[Entrant, ...]

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(entrant.player for entrant in self.entrants)


def plan_games(spec: RunSpec, urls: Mapping[str, str]) -> tuple[tuple[StrategyJob, ...], tuple[MatchJob, ...]]:
    """The strategy requests (code mode) and the matches of the run's games; `urls`: model label -> its endpoint. Every
    prompt a game asks is rendered first (instruction mode's from an example game).

    Raises:
        InputError: a prompt template is missing, or fails to render.
    """
    prompting = spec.prompting()
    for name in spec.games if ModeName.INSTRUCTION in spec.modes else ():
        check_chat_templates(get_game(name), _chat_options(spec, spec.model_specs[0]), prompting)
    strategies = []
    for name in spec.games if ModeName.CODE in spec.modes else ():
        prompt = render_strategy_prompt(get_game(name), spec.game_limits, spec.limits, prompting)
        for model in spec.model_specs:
            for sample in range(spec.samples):
                sampling = spec.sampling(sample)
                key = sample_key(model.label, urls[model.label], prompt.text, sampling, sample, served=model.name,
                                 request=model.request)
                strategies.append(StrategyJob(key, model.label, name, sample, prompt, sampling))
    return tuple(strategies), tuple(match for name in spec.games for match in _matches(spec, urls, name, strategies))


def _entrants(spec: RunSpec, urls: Mapping[str, str], game: str, strategies: list[StrategyJob]) -> list[list[Entrant]]:
    """Per model (in spec order), its entrants in the game: mode × sample."""
    programs = {(job.model, job.sample): job.key for job in strategies if job.game == game}
    prompting, posed = spec.prompting(), spec.prompting_identity()
    found: list[list[Entrant]] = []
    for model in spec.model_specs:
        entrants: list[Entrant] = []
        for mode in spec.modes:
            for sample in range(spec.samples):
                if mode == ModeName.CODE:
                    entrants.append(ProgramEntrant(model.label, sample, programs[model.label, sample]))
                else:
                    entrants.append(ChatEntrant(model.label, sample, spec.sampling(sample), _chat_options(spec, model),
                                                {**_identity(model, urls), **posed}, prompting))
        found.append(entrants)
    return found


def _chat_options(spec: RunSpec, model: ModelSpec) -> ChatOptions:
    return ChatOptions(history=spec.history, legal_hint=spec.legal_hint, format_retries=spec.format_retries,
                       images=model.images)


def _identity(model: ModelSpec, urls: Mapping[str, str]) -> dict[str, Any]:
    return {"base_url": urls[model.label], **({"served": model.name} if model.name != model.label else {}),
            **({"request": model.request} if model.request else {})}


def _seatings(players: int, models: list[list[Entrant]], opponents: tuple[str, ...]) -> list[tuple[Entrant, ...]]:
    """Who plays one seeded setup of a game, in a stable order."""
    everyone = [entrant for entrants in models for entrant in entrants]
    builtins = [BuiltinEntrant(name) for name in BUILTINS]
    if players == 1:
        return [(entrant,) for entrant in [*everyone, *builtins]]
    seatings: list[tuple[Entrant, ...]] = []
    for entrant in everyone:
        for opponent in (BuiltinEntrant(name) for name in BUILTINS if name in opponents):
            seatings += [(entrant, opponent), (opponent, entrant)]
    if "models" in opponents:
        for first, second in ((a, b) for i, a in enumerate(models) for b in models[i + 1:]):
            for mine, theirs in zip(first, second):  # sample k against sample k, in the same mode
                seatings += [(mine, theirs), (theirs, mine)]
    if set(BUILTINS) <= set(opponents):
        seatings += list(permutations(builtins))
    return seatings


def _matches(spec: RunSpec, urls: Mapping[str, str], name: str, strategies: list[StrategyJob]) -> list[MatchJob]:
    game = get_game(name)
    game_limits = asdict(spec.game_limits) | {"memory_mib": spec.limits.memory_mib}
    seatings = _seatings(game.players, _entrants(spec, urls, name, strategies), spec.opponents)
    matches = []
    for level in spec.game_levels(name):
        for index in range(spec.seeds_per_level(name)):
            seed = spec.seed + index
            for seating in seatings:
                programs = any(isinstance(entrant, ProgramEntrant) for entrant in seating)
                key = content_key("match", name, game.version, level, seed, [entrant.descriptor() for entrant in seating],
                                  game_limits if programs else None)
                matches.append(MatchJob(key, name, level, seed, seating))
    return matches
