"""The schema of a run's options as a user gives them (config file or flags): names, types and ranges, strictly.

`samples: 2.5`, `seed: x`, `temperature: hot`, `base_url: [a]` or an unknown key are refused with the option's
name, the value and what is expected. Defaults are RunSpec's. Imports pydantic, the spec and the limits.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..model.presets import MAX_RETRIES, MAX_TIMEOUT_S
from ..sandbox import MAX_WORKERS
from ..types import MAX_CPU_S, MEMORY_MIB_RANGE, GameLimits, Limits
from .spec import MAX_COUNT, MAX_SEED, ModelSpec, RunSpec

STRICT = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class ModelOption(BaseModel):
    """One entry of the config's `models` list: a name alone, or a mapping with its own endpoint and request fields."""

    model_config = STRICT

    name: str
    label: str | None = None  # what reports call it (default: the name); two entries may serve one name apart
    preset: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    request: dict[str, Any] = Field(default_factory=dict)
    images: bool = True  # False: a text-only model (an M variant's board picture is not sent)
    idle_timeout: float | None = Field(None, gt=0, le=MAX_TIMEOUT_S)  # None: the run's
    request_timeout: float | None = Field(None, ge=0, le=MAX_TIMEOUT_S)
    max_retries: int | None = Field(None, ge=0, le=MAX_RETRIES)

    def spec(self) -> ModelSpec:
        return ModelSpec(self.name.strip(), (self.label or self.name).strip(), self.preset, self.base_url, self.api_key_env,
                         self.request, self.images, self.idle_timeout, self.request_timeout, self.max_retries)


class PriceOption(BaseModel):
    """One model's price, US dollars per million tokens (reasoning tokens are billed as output)."""

    model_config = STRICT

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class RunOptions(BaseModel):
    """Every option `codebench run` takes, as given; `RunSpec` is built from it."""

    model_config = STRICT

    model: str | list[str] | None = None  # the flag (comma-separated) or a config list
    models: list[ModelOption] | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    preset: str | None = None
    request: dict[str, Any] = Field(default_factory=dict)  # extra request-body fields for every model
    params: dict[str, dict[str, Any]] = Field(default_factory=dict)  # puzzle -> presentation parameters
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
    executor: str = RunSpec.executor
    ray_address: str | None = None
    format_retries: int = Field(RunSpec.format_retries, ge=0, le=20)
    games: str | list[str] | None = None  # None: no game; "all": every game
    opponents: str | list[str] = Field(default_factory=lambda: list(RunSpec.opponents))
    history: bool = RunSpec.history
    legal_hint: bool = RunSpec.legal_hint
    game_cpu: float = Field(GameLimits.game_cpu_s, gt=0, le=10 * MAX_CPU_S)
    move_cpu: float = Field(GameLimits.move_cpu_s, gt=0, le=MAX_CPU_S)
    game_secret_file: str | None = None  # a file holding the games' secret, shared on purpose by runs to be compared
    prices: dict[str, PriceOption] = Field(default_factory=dict)  # model label -> its price (none assumed)
    max_cost: float | None = Field(None, gt=0)  # US dollars over the whole run, resumed runs included
    max_tokens_total: int | None = Field(None, ge=1)  # prompt + completion tokens over the whole run
    idle_timeout: float = Field(RunSpec.idle_timeout, gt=0, le=MAX_TIMEOUT_S)
    request_timeout: float = Field(RunSpec.request_timeout, ge=0, le=MAX_TIMEOUT_S)  # 0: no deadline
    max_retries: int = Field(RunSpec.max_retries, ge=0, le=MAX_RETRIES)
    out: str = str(RunSpec.out)

    @field_validator("models", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        """A bare name in the list is an entry with only its name."""
        return [{"name": entry} if isinstance(entry, str) else entry for entry in value] if isinstance(value, list) else value

    def model_specs(self) -> tuple[ModelSpec, ...]:
        """The --model flag's names (comma-separated), else the config's entries."""
        if self.model is None and self.models is not None:
            return tuple(entry.spec() for entry in self.models)
        given = self.model or []
        names = given.split(",") if isinstance(given, str) else given
        return tuple(ModelSpec(name.strip()) for name in names if name.strip())

    def puzzle_names(self) -> tuple[str, ...]:
        """The puzzles named; by default all nine, or none when the run names games."""
        if self.puzzles is None:
            return () if self.games else RunSpec.puzzles
        return _names(self.puzzles)

    def game_names(self) -> tuple[str, ...]:
        if self.games is None:
            return ()
        if self.games == "all" or self.games == ["all"]:
            from puzzles.games import game_names

            return tuple(game_names())
        return _names(self.games)

    def opponent_names(self) -> tuple[str, ...]:
        return _names(self.opponents)


def _names(given: str | list[str]) -> tuple[str, ...]:
    """A comma-separated flag or a config list, as names (duplicates dropped, order kept)."""
    names = given.split(",") if isinstance(given, str) else given
    return tuple(dict.fromkeys(name.strip() for name in names if name.strip()))


def first_problem(exc: ValueError) -> str:
    """One line for the first thing wrong: the option, the value, what is expected (and how many more problems)."""
    if not isinstance(exc, ValidationError):
        return f"bad run option: {exc}"
    errors = exc.errors()
    first = errors[0]
    name = ".".join(map(str, first["loc"])) or "?"  # models.1.request: the path into the config
    if first["type"] == "extra_forbidden":
        nested = len(first["loc"]) > 1 and first["loc"][0] == "models"
        known = ", ".join(ModelOption.model_fields if nested else sorted(RunOptions.model_fields))
        return f"unknown {'field of a models entry' if nested else 'run option'} {name!r}; known: {known}"
    fields = {str(e["loc"][0]) for e in errors if e["loc"]}
    more = f" (and {len(fields) - 1} more option(s) wrong)" if len(fields) > 1 else ""
    return f"run option {name}={_shown(first.get('input'))}: {first['msg'].lower()}{more}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
