"""A run's plan: the instances of every puzzle, one job per mode × model × question of the mode × sample, and the games.

Games (PuzzlePlex's): code mode asks each model once per game and sample for a `Strategy` (a job beside the puzzles'
jobs, judged in matches only); instruction mode plays in the match itself. Matches per game, level and seed:
a one-player game is played by every model entrant (model × mode × sample) and by the `ref` and `random` baselines;
a two-player game seats every model entrant against each built-in opponent in both seat orders, models against each
other sample k against sample k (same mode, both orders; never the k × k blow-up), and `ref` against `random` in both
orders, so the baselines are rated in the same pool.

Pure: nothing here calls a model, a sandbox or the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from itertools import permutations
from typing import Any

import puzzles
from puzzles import Record
from puzzles.games import get_game

from ..keys import content_key, first_of_each, sample_key
from ..modes import get_mode
from ..modes.games import ChatOptions, render_strategy_prompt
from ..types import SampleJob, Sampling
from .spec import ModelSpec, RunSpec

LAMBDA_KEYS = {"waterjug": "min_solution_length"}  # else the first value of the instance's complexity
SEED_STRIDE = 1_000_003  # sample seeds of different base seeds never meet


BUILTINS = ("ref", "random")  # PuzzlePlex's baselines: the reference strategy and the uniform random player


@dataclass(frozen=True)
class Entrant:
    """Who plays a seat: a built-in strategy, or a model's sample in a mode (code: the program of `sample_key`)."""

    name: str  # the strategy, or the model's label
    mode: str = ""  # "" for a built-in; code or instruction for a model
    sample: int = 0
    sample_key: str = ""  # code mode: the job whose program plays
    sampling: Sampling | None = None  # instruction mode: the conversation's sampling (its seed moves on every turn)
    options: ChatOptions | None = None  # instruction mode: history, legal hint, format retries, images
    identity: dict[str, Any] = field(default_factory=dict)  # what else decides the model's replies (endpoint, request)

    @property
    def player(self) -> str:
        """The name it is rated under: every sample of a model in a mode is one player."""
        return f"{self.name} ({self.mode})" if self.mode else self.name

    @property
    def label(self) -> str:
        """The seat's label in a game record: the player and, for a model, the sample."""
        return f"{self.player} #{self.sample}" if self.mode else self.name

    def descriptor(self) -> dict[str, Any]:
        """What decides how it plays, for the match key."""
        if not self.mode:
            return {"builtin": self.name}
        if self.mode == "code":
            return {"program_of": self.sample_key}
        assert self.sampling is not None and self.options is not None
        return {"model": self.name, "sample": self.sample, "sampling": asdict(self.sampling), "options": asdict(self.options),
                **self.identity}


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


@dataclass(frozen=True)
class Plan:
    samples: tuple[SampleJob, ...]
    instances: dict[str, tuple[Record, ...]]  # puzzle -> the run's distinct instances, levels × seeds
    base_urls: dict[str, str]  # model label -> the endpoint that answers for it
    matches: tuple[MatchJob, ...] = ()
    alike: dict[str, tuple[str, ...]] = field(default_factory=dict)  # instance id -> the ids of later seeds that drew it too

    @property
    def executions(self) -> int:
        """(sample, instance) pairs: the results the run ends with."""
        return sum(len(job.instances) for job in self.samples)


def scalar_lambda(record: Record) -> float | None:
    """The instance's complexity as one number, for collapse thresholds."""
    key = LAMBDA_KEYS.get(record.puzzle)
    if key is not None:
        value = record.meta.get(key)
        return float(value) if isinstance(value, (int, float)) else None
    for value in record.meta.get("complexity", {}).values():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def distinct(records: Iterable[Record]) -> tuple[tuple[Record, ...], dict[str, tuple[str, ...]]]:
    """The records whose instances differ, in order, and for each kept id the ids of the later records that drew the
    same instance (Hanoi's small levels are one instance whatever the seed): one instance is planned, asked and counted
    once, however many seeds produced it."""
    by_id = {record.id: record for record in records}
    kept, alike = first_of_each((record.id, content_key("instance", record.puzzle, record.instance)) for record in by_id.values())
    return tuple(by_id[record_id] for record_id in kept), alike


def make_plan(spec: RunSpec, base_urls: str | Mapping[str, str]) -> Plan:
    """Distinct instances per puzzle (levels × seeds, with the run's presentation parameters) and the jobs: per puzzle,
    question, model and sample. `base_urls`: one endpoint for every model, or one per model label.

    Raises:
        InputError: a prompt template is missing.
        PuzzleError: a presentation parameter's value is refused by its puzzle.
    """
    instances: dict[str, tuple[Record, ...]] = {}
    alike: dict[str, tuple[str, ...]] = {}
    for name in spec.puzzles:
        instances[name], found = distinct(puzzles.get_puzzle(name).generate(level, spec.seed + seed, params=spec.params.get(name))
                                          for level in spec.levels for seed in range(spec.instances_per_level))
        alike.update(found)
    urls = {m.label: base_urls if isinstance(base_urls, str) else base_urls[m.label] for m in spec.model_specs}
    jobs = []
    for mode in map(get_mode, spec.modes):  # every mode on the same records
        for name, records in instances.items():
            for question in mode.questions(puzzles.get_puzzle(name), records, spec.limits):
                for model in spec.model_specs:
                    for sample in range(spec.samples):
                        sampling = _sampling(spec, sample)
                        key = sample_key(model.label, urls[model.label], question.prompt.text, sampling, sample,
                                         served=model.name, request=model.request)
                        jobs.append(SampleJob(key, model.label, mode.name, name, sample, question.prompt, sampling,
                                              question.instances, question.instance_id))
    strategies = _strategy_jobs(spec, urls)
    return Plan((*jobs, *strategies), instances, urls, _matches(spec, urls, strategies), alike)


def _sampling(spec: RunSpec, sample: int) -> Sampling:
    return Sampling(spec.temperature, spec.max_tokens, spec.seed * SEED_STRIDE + sample)


def _strategy_jobs(spec: RunSpec, urls: Mapping[str, str]) -> tuple[SampleJob, ...]:
    """Code mode's request per game × model × sample: a `Strategy`, judged in the matches it plays."""
    if "code" not in spec.modes:
        return ()
    jobs = []
    for name in spec.games:
        prompt = render_strategy_prompt(get_game(name), spec.game_limits, spec.limits)
        for model in spec.model_specs:
            for sample in range(spec.samples):
                sampling = _sampling(spec, sample)
                key = sample_key(model.label, urls[model.label], prompt.text, sampling, sample, served=model.name,
                                 request=model.request)
                jobs.append(SampleJob(key, model.label, "code", name, sample, prompt, sampling, ()))
    return tuple(jobs)


def _entrants(spec: RunSpec, urls: Mapping[str, str], game: str, strategies: tuple[SampleJob, ...]) -> list[list[Entrant]]:
    """Per model (in spec order), its entrants in the game: mode × sample."""
    programs = {(job.model, job.sample): job.key for job in strategies if job.puzzle == game}
    found = []
    for model in spec.model_specs:
        entrants = []
        for mode in spec.modes:
            for sample in range(spec.samples):
                if mode == "code":
                    entrants.append(Entrant(model.label, mode, sample, sample_key=programs[model.label, sample]))
                else:
                    entrants.append(Entrant(model.label, mode, sample, sampling=_sampling(spec, sample),
                                            options=_chat_options(spec, model), identity=_identity(model, urls)))
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
    builtins = [Entrant(name) for name in BUILTINS]
    if players == 1:
        return [(entrant,) for entrant in [*everyone, *builtins]]
    seatings: list[tuple[Entrant, ...]] = []
    for entrant in everyone:
        for opponent in (Entrant(name) for name in BUILTINS if name in opponents):
            seatings += [(entrant, opponent), (opponent, entrant)]
    if "models" in opponents:
        for first, second in ((a, b) for i, a in enumerate(models) for b in models[i + 1:]):
            for mine, theirs in zip(first, second):  # sample k against sample k, in the same mode
                seatings += [(mine, theirs), (theirs, mine)]
    if set(BUILTINS) <= set(opponents):
        seatings += list(permutations(builtins))
    return seatings


def _matches(spec: RunSpec, urls: Mapping[str, str], strategies: tuple[SampleJob, ...]) -> tuple[MatchJob, ...]:
    matches = []
    budgets = asdict(spec.game_limits) | {"memory_mib": spec.limits.memory_mib}
    for name in spec.games:
        game = get_game(name)
        seatings = _seatings(game.players, _entrants(spec, urls, name, strategies), spec.opponents)
        for level in spec.game_levels(name):
            for index in range(spec.instances_per_level):
                seed = spec.seed + index
                for seating in seatings:
                    programs = any(entrant.mode == "code" for entrant in seating)
                    key = content_key("match", name, game.version, level, seed, [entrant.descriptor() for entrant in seating],
                                      budgets if programs else None)
                    matches.append(MatchJob(key, name, level, seed, seating))
    return tuple(matches)
