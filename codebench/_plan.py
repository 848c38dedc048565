"""A run's specification and its plan: which prompts to send how often, and which instances to run.

Pure: nothing here calls a model, a sandbox or the database.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import puzzles
from puzzles import Record

from ._errors import InputError
from ._prompt import Prompt, render_code_prompt
from ._store import content_key
from .sandbox import Limits

MODES = ("code",)
LAMBDA_KEYS = {"waterjug": "min_solution_length"}  # else the first value of the instance's complexity


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's results (and so its keys), plus where and how fast to run it."""

    models: tuple[str, ...]
    base_url: str | None = None
    api_key_env: str | None = None
    preset: str | None = None
    mode: str = "code"
    puzzles: tuple[str, ...] = tuple(puzzles.puzzle_names())
    levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    instances_per_level: int = 3
    samples: int = 4
    temperature: float = 0.7
    max_tokens: int | None = 4096
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    max_connections: int = 8
    workers: int | None = None
    backend: str = "docker"
    out: Path = Path("runs/default")

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise InputError(f"--mode {self.mode!r}: this version runs {', '.join(MODES)}")
        if not self.models:
            raise InputError("give at least one --model")
        if self.samples < 1 or self.instances_per_level < 1:
            raise InputError("--samples and --instances-per-level must be at least 1")
        for name in self.puzzles:
            puzzles.get_puzzle(name)  # raises UnknownPuzzleError with the known names

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["out"] = str(self.out)
        return data


@dataclass(frozen=True)
class SampleJob:
    """One request to a model: a prompt and a sample index (its own seed)."""

    key: str
    model: str
    puzzle: str
    sample: int
    prompt: Prompt
    params: dict[str, Any]


@dataclass(frozen=True)
class Plan:
    samples: tuple[SampleJob, ...]
    instances: dict[str, tuple[Record, ...]]  # puzzle -> the instances every program of that puzzle runs on

    @property
    def executions(self) -> int:
        return sum(len(self.instances[job.puzzle]) for job in self.samples)


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


def make_plan(spec: RunSpec, base_url: str) -> Plan:
    """Instances per puzzle (levels × seeds) and one job per model × puzzle × sample."""
    instances = {name: tuple(puzzles.get_puzzle(name).generate(level, spec.seed + seed)
                             for level in spec.levels for seed in range(spec.instances_per_level))
                 for name in spec.puzzles}
    jobs = []
    for name in spec.puzzles:
        prompt = render_code_prompt(puzzles.get_puzzle(name), spec.limits)
        for model in spec.models:
            for sample in range(spec.samples):
                params = {"temperature": spec.temperature, "max_tokens": spec.max_tokens, "seed": spec.seed * 1_000_003 + sample}
                key = content_key("sample", model, base_url, prompt.text, params, sample)
                jobs.append(SampleJob(key, model, name, sample, prompt, params))
    return Plan(tuple(jobs), instances)


def execution_key(program_key: str, instance_id: str, puzzle_version: int | None, limits: dict[str, Any]) -> str:
    """Same program, instance, puzzle version and limits: the same execution, whichever sample asked for it."""
    return content_key("execution", program_key, instance_id, puzzle_version, limits)
