"""A run's plan: the instances of every puzzle, and one job per mode × model × question of the mode × sample.

Pure: nothing here calls a model, a sandbox or the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import puzzles
from puzzles import Record

from ..keys import sample_key
from ..modes import get_mode
from ..types import SampleJob, Sampling
from .spec import RunSpec

LAMBDA_KEYS = {"waterjug": "min_solution_length"}  # else the first value of the instance's complexity
SEED_STRIDE = 1_000_003  # sample seeds of different base seeds never meet


@dataclass(frozen=True)
class Plan:
    samples: tuple[SampleJob, ...]
    instances: dict[str, tuple[Record, ...]]  # puzzle -> every instance of the run, levels × seeds
    base_urls: dict[str, str]  # model label -> the endpoint that answers for it

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


def make_plan(spec: RunSpec, base_urls: str | Mapping[str, str]) -> Plan:
    """Instances per puzzle (levels × seeds, with the run's presentation parameters) and the jobs: per puzzle,
    question, model and sample. `base_urls`: one endpoint for every model, or one per model label.

    Raises:
        InputError: a prompt template is missing.
        PuzzleError: a presentation parameter's value is refused by its puzzle.
    """
    instances = {name: tuple(puzzles.get_puzzle(name).generate(level, spec.seed + seed, params=spec.params.get(name))
                             for level in spec.levels for seed in range(spec.instances_per_level))
                 for name in spec.puzzles}
    urls = {m.label: base_urls if isinstance(base_urls, str) else base_urls[m.label] for m in spec.model_specs}
    jobs = []
    for mode in map(get_mode, spec.modes):  # every mode on the same records
        for name, records in instances.items():
            for question in mode.questions(puzzles.get_puzzle(name), records, spec.limits):
                for model in spec.model_specs:
                    for sample in range(spec.samples):
                        sampling = Sampling(spec.temperature, spec.max_tokens, spec.seed * SEED_STRIDE + sample)
                        key = sample_key(model.label, urls[model.label], question.prompt.text, sampling, sample,
                                         served=model.name, request=model.request)
                        jobs.append(SampleJob(key, model.label, mode.name, name, sample, question.prompt, sampling,
                                              question.instances, question.instance_id))
    return Plan(tuple(jobs), instances, urls)
