"""A run's plan: the instances of every puzzle, one job per mode × model × question of the mode × sample, and the
games' strategy requests and matches (`codebench.games.plan_games`); or, for an adaptive run, one search per
model × mode × puzzle (`run.search` asks its steps).

Pure: nothing here calls a model, a sandbox or the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import puzzles
from puzzles import Record

from ..games.plan import MatchJob, StrategyJob, plan_games
from ..keys import content_key, first_of_each, sample_key
from ..modes import get_mode
from ..types import ModeName, SampleJob
from .spec import RunSpec

LAMBDA_KEYS = {"waterjug": "min_solution_length"}  # else the first value of the instance's complexity


@dataclass(frozen=True)
class SearchJob:
    """An adaptive search: one model in one mode on one puzzle, along its complexity axis lowest..highest."""

    model: str  # the model's label
    mode: ModeName
    puzzle: str
    lowest: int
    highest: int


@dataclass(frozen=True)
class Plan:
    samples: tuple[SampleJob, ...]
    instances: dict[str, tuple[Record, ...]]  # puzzle -> the run's distinct instances, levels × seeds
    base_urls: dict[str, str]  # model label -> the endpoint that answers for it
    strategies: tuple[StrategyJob, ...] = ()  # code mode's request per game × model × sample
    matches: tuple[MatchJob, ...] = ()
    alike: dict[str, tuple[str, ...]] = field(default_factory=dict)  # instance id -> the ids of later seeds that drew it too
    searches: tuple[SearchJob, ...] = ()  # an adaptive run's: its steps are chosen as it goes, so none is planned here

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
        InputError: a prompt template is missing, or fails to render (every prompt is rendered here, before any request).
        PuzzleError: a presentation parameter's value is refused by its puzzle.
    """
    if spec.adaptive:
        return _search_plan(spec, base_urls)
    instances: dict[str, tuple[Record, ...]] = {}
    alike: dict[str, tuple[str, ...]] = {}
    for name in spec.puzzles:
        instances[name], found = distinct(puzzles.get_puzzle(name).generate(level, spec.seed + seed, params=spec.params.get(name))
                                          for level in spec.levels for seed in range(spec.instances_per_level))
        alike.update(found)
    urls = _urls(spec, base_urls)
    jobs = []
    prompting = spec.prompting()
    for mode in (get_mode(mode_name, spec.format_retries, prompting) for mode_name in spec.modes):  # every mode, same records
        for name, records in instances.items():
            for question in mode.questions(puzzles.get_puzzle(name), records, spec.limits):
                for model in spec.model_specs:
                    for sample in range(spec.samples):
                        sampling = spec.sampling(sample)
                        key = sample_key(model.label, urls[model.label], question.prompt.text, sampling, sample,
                                         served=model.name, request=model.request)
                        jobs.append(SampleJob(key, model.label, mode.name, name, sample, question.prompt, sampling,
                                              question.instances, question.instance_id))
    strategies, matches = plan_games(spec, urls)
    return Plan(tuple(jobs), instances, urls, strategies, matches, alike)


def _urls(spec: RunSpec, base_urls: str | Mapping[str, str]) -> dict[str, str]:
    return {m.label: base_urls if isinstance(base_urls, str) else base_urls[m.label] for m in spec.model_specs}


def _search_plan(spec: RunSpec, base_urls: str | Mapping[str, str]) -> Plan:
    """An adaptive run's searches: every model × mode × puzzle along the puzzle's axis. Each mode's prompt for each puzzle
    is rendered once here, on the instance at the axis's lowest λ, so a template that fails is refused before any request
    (as a plain plan renders all of its prompts)."""
    prompting = spec.prompting()
    for mode in (get_mode(mode_name, spec.format_retries, prompting) for mode_name in spec.modes):
        for name in spec.puzzles:
            puzzle = puzzles.get_puzzle(name)
            record = puzzle.generate(seed=spec.seed, params=spec.params.get(name), complexity=puzzle.complexity_axis().lowest)
            mode.questions(puzzle, (record,), spec.limits)
    searches = tuple(SearchJob(model.label, mode_name, name, axis.lowest, axis.highest)
                     for mode_name in spec.modes for name in spec.puzzles
                     for axis in (puzzles.get_puzzle(name).complexity_axis(),) for model in spec.model_specs)
    return Plan((), {}, _urls(spec, base_urls), searches=searches)
