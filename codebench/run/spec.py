"""A run's specification: what decides its results (and so its keys), plus where and how fast to run it.

Built from a YAML config file and command-line flags (flags win); every value is checked here, so a bad
one is a ConfigError naming it before anything runs. Imports `puzzles`, `yaml` (when a file is read), the shared
types and modes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import puzzles

from ..errors import ConfigError, InputError
from ..modes import get_mode
from ..sandbox import BACKENDS
from ..types import Limits

FLAG_ONLY = {"cpu", "memory", "model"}  # flags (and config keys) that do not map one to one onto a RunSpec field


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
        get_mode(self.mode)  # raises ConfigError with the known modes
        if not self.models:
            raise ConfigError("give at least one --model")
        if self.samples < 1 or self.instances_per_level < 1:
            raise ConfigError("--samples and --instances-per-level must be at least 1")
        if self.max_connections < 1 or (self.workers is not None and self.workers < 1):
            raise ConfigError("--max-connections and --workers must be at least 1")
        if self.backend not in BACKENDS:
            raise ConfigError(f"--backend {self.backend!r}: choose one of {', '.join(BACKENDS)}")
        for name in self.puzzles:
            puzzles.get_puzzle(name)  # raises UnknownPuzzleError with the known names

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["out"] = str(self.out)
        return data


def limits_from(cpu: Any, memory: Any) -> Limits:
    """The limits of `--cpu SECONDS --memory MIB`.

    Raises:
        ConfigError: a value that is not a positive number (the message names the option).
    """
    for option, value in (("--cpu", cpu), ("--memory", memory)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ConfigError(f"{option} {value!r}: give a positive number ({'CPU seconds' if option == '--cpu' else 'MiB'} "
                              "per instance)")
    return Limits(cpu_s=float(cpu), memory_mib=int(memory))


def parse_range(text: str, option: str) -> list[int]:
    """'1-6', '1,3,5' or '4' as a sorted list of distinct integers.

    Raises:
        InputError: anything else (the message names the option).
    """
    values: set[int] = set()
    try:
        for part in text.split(","):
            low, _, high = part.strip().partition("-")
            values.update(range(int(low), int(high or low) + 1))
    except ValueError:
        raise InputError(f"{option} {text!r}: expected a range such as 1-6, a list such as 1,3,5, or one number") from None
    if not values:
        raise InputError(f"{option} {text!r} names nothing")
    return sorted(values)


def load_config(path: Path | None) -> dict[str, Any]:
    """The option mapping of a YAML config file ({} without one).

    Raises:
        ConfigError: unreadable, not YAML, or not a mapping.
    """
    if path is None:
        return {}
    import yaml  # deferred: only a run with --config needs it

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read --config {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected a mapping of option names to values")
    return data


def spec_from_options(options: dict[str, Any], config: dict[str, Any]) -> RunSpec:
    """Config file values, overridden by the flags given on the command line (None: not given).

    Raises:
        ConfigError: an unknown option or a value of the wrong type (the message names it).
    """
    merged = {**config, **{k: v for k, v in options.items() if v is not None}}
    allowed = (set(RunSpec.__dataclass_fields__) - {"limits"}) | FLAG_ONLY
    unknown = sorted(set(merged) - allowed)
    if unknown:
        raise ConfigError(f"unknown run option(s) {', '.join(unknown)}; known: {', '.join(sorted(allowed))}")
    flag_models, config_models = merged.pop("model", None), merged.pop("models", None)
    models = flag_models or config_models or ()
    if isinstance(models, str):
        models = [m.strip() for m in models.split(",") if m.strip()]
    parsers = {"puzzles": lambda v: tuple(p.strip() for p in v.split(",")), "levels": lambda v: tuple(parse_range(v, "--levels"))}
    try:
        for name, parse in parsers.items():
            if isinstance(merged.get(name), str):
                merged[name] = parse(merged[name])
            elif name in merged:
                merged[name] = tuple(merged[name])
        limits = limits_from(merged.pop("cpu", Limits.cpu_s), merged.pop("memory", Limits.memory_mib))
        if "out" in merged:
            merged["out"] = Path(merged["out"])
        return RunSpec(models=tuple(models), limits=limits, **merged)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad run option: {exc}") from None
