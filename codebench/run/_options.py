"""The schema of a run's options as a user gives them (config file or flags): names, types and ranges, strictly.

`samples: 2.5`, `seed: x`, `temperature: hot`, `base_url: [a]` or an unknown key are refused with the option's
name, the value and what is expected. Defaults are RunSpec's. Imports pydantic, the spec and the limits.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..sandbox import MAX_WORKERS
from ..types import MAX_CPU_S, MEMORY_MIB_RANGE, Limits
from .spec import MAX_COUNT, MAX_SEED, RunSpec


class RunOptions(BaseModel):
    """Every option `codebench run` takes, as given; `RunSpec` is built from it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    model: str | list[str] | None = None  # the flag (comma-separated) or a config list
    models: list[str] | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    preset: str | None = None
    mode: str = RunSpec.mode
    puzzles: str | list[str] | None = None  # None: every puzzle
    levels: str | list[int] = Field(default_factory=lambda: list(RunSpec.levels))
    instances_per_level: int = Field(RunSpec.instances_per_level, ge=1, le=MAX_COUNT)
    samples: int = Field(RunSpec.samples, ge=1, le=MAX_COUNT)
    temperature: float = Field(RunSpec.temperature, ge=0, le=2)
    max_tokens: int | None = Field(RunSpec.max_tokens, ge=1)
    seed: int = Field(RunSpec.seed, ge=0, le=MAX_SEED)
    cpu: float = Field(Limits.cpu_s, gt=0, le=MAX_CPU_S)
    memory: int = Field(Limits.memory_mib, ge=MEMORY_MIB_RANGE[0], le=MEMORY_MIB_RANGE[1])
    max_connections: int = Field(RunSpec.max_connections, ge=1, le=1024)
    workers: int | None = Field(RunSpec.workers, ge=1, le=MAX_WORKERS)
    backend: str = RunSpec.backend
    format_retries: int = Field(RunSpec.format_retries, ge=0, le=20)
    out: str = str(RunSpec.out)

    def model_names(self) -> tuple[str, ...]:
        given = self.model if self.model is not None else self.models or []
        names = given.split(",") if isinstance(given, str) else given
        return tuple(name.strip() for name in names if name.strip())

    def puzzle_names(self) -> tuple[str, ...]:
        if self.puzzles is None:
            return RunSpec.puzzles
        names = self.puzzles.split(",") if isinstance(self.puzzles, str) else self.puzzles
        return tuple(name.strip() for name in names)


def first_problem(exc: ValueError) -> str:
    """One line for the first thing wrong: the option, the value, what is expected (and how many more problems)."""
    if not isinstance(exc, ValidationError):
        return f"bad run option: {exc}"
    errors = exc.errors()
    first = errors[0]
    name = str(first["loc"][0]) if first["loc"] else "?"
    if first["type"] == "extra_forbidden":
        known = ", ".join(sorted(RunOptions.model_fields))
        return f"unknown run option {name!r}; known: {known}"
    fields = {str(e["loc"][0]) for e in errors if e["loc"]}
    more = f" (and {len(fields) - 1} more option(s) wrong)" if len(fields) > 1 else ""
    return f"run option {name}={_shown(first.get('input'))}: {first['msg'].lower()}{more}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
