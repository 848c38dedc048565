"""A run's specification: what decides its results (and so its keys), plus where and how fast to run it.

Built from a YAML config file and command-line flags (flags win), checked as a whole (`_options`, pydantic)
before anything is written, so a bad value is a ConfigError naming it. Imports `puzzles`, `yaml` (when a file is
read), pydantic (when options are checked), the shared types, modes and the backend names.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import puzzles

from ..errors import ConfigError, InputError
from ..modes import FORMAT_RETRIES, MODES
from ..records import read_text
from ..sandbox import BACKENDS
from ..types import MAX_CPU_S, MEMORY_MIB_RANGE, Limits

BOTH = "both"  # --mode both: every mode, on exactly the same instances
MAX_COUNT = 10_000  # instances per level, samples, seeds of a check: past this a typo, not a plan
MAX_SEED = 2**31 - 1

@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's results (and so its keys), plus where and how fast to run it."""

    models: tuple[str, ...]
    base_url: str | None = None
    api_key_env: str | None = None
    preset: str | None = None
    mode: str = "code"  # code, instruction, or both (the two on exactly the same instances)
    puzzles: tuple[str, ...] = tuple(puzzles.puzzle_names())
    levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    instances_per_level: int = 3
    samples: int = 4
    temperature: float = 0.7
    max_tokens: int | None = None  # no cap of ours: the server's own (the model's context) applies; see the README
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    max_connections: int = 8
    workers: int | None = None
    backend: str = "docker"
    format_retries: int = FORMAT_RETRIES  # instruction mode: corrective follow-ups when nothing parseable came back
    out: Path = Path("runs/default")

    def __post_init__(self) -> None:
        """What types cannot say (types and ranges of option values are `RunOptions`' part)."""
        if self.mode not in (*MODES, BOTH):
            raise ConfigError(f"--mode {self.mode!r}: choose one of {', '.join((*MODES, BOTH))}")
        if not self.models:
            raise ConfigError("give at least one --model")
        if self.backend not in BACKENDS:
            raise ConfigError(f"--backend {self.backend!r}: choose one of {', '.join(BACKENDS)}")
        for name in self.puzzles:
            puzzles.get_puzzle(name)  # raises UnknownPuzzleError with the known names
        outside = sorted(set(self.levels) - set(puzzles.LEVELS))
        if outside or not self.levels:
            raise ConfigError(f"--levels: {outside or 'none'} outside the levels {min(puzzles.LEVELS)}-{max(puzzles.LEVELS)}")

    @property
    def modes(self) -> tuple[str, ...]:
        """The modes the run asks in: `both` is every mode, on the same instances."""
        return MODES if self.mode == BOTH else (self.mode,)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["out"] = str(self.out)
        return data


def limits_from(cpu: Any, memory: Any) -> Limits:
    """The limits of `--cpu SECONDS --memory MIB`.

    Raises:
        ConfigError: a value of the wrong type or out of range (the message names the option and the range).
    """
    if isinstance(cpu, bool) or not isinstance(cpu, (int, float)) or not 0 < cpu <= MAX_CPU_S:  # NaN fails too
        raise ConfigError(f"--cpu {cpu!r}: give a positive number of CPU seconds per instance, at most {MAX_CPU_S:g}")
    low, high = MEMORY_MIB_RANGE
    if isinstance(memory, bool) or not isinstance(memory, int) or not low <= memory <= high:
        raise ConfigError(f"--memory {memory!r}: give MiB per instance, {low}-{high}")
    return Limits(cpu_s=float(cpu), memory_mib=memory)


def parse_range(text: str, option: str, low: int, high: int, most: int = MAX_COUNT) -> list[int]:
    """'1-6', '1,3,5' or '4' as a sorted list of distinct integers, each in low..high, at most `most` of them.

    Raises:
        InputError: anything else (the message names the option and the bounds).
    """
    values: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            start, stop = int(first), int(last if dash else first)
        except ValueError:
            raise InputError(f"{option} {text!r}: expected a range such as 1-6, a list such as 1,3,5, or one number") from None
        if not low <= start <= stop <= high:
            raise InputError(f"{option} {text!r}: {part.strip()!r} must go upwards within {low}-{high}")
        if stop - start + 1 + len(values) > most:
            raise InputError(f"{option} {text!r} names more than {most} values")
        values.update(range(start, stop + 1))
    return sorted(values)


def load_config(path: Path | None) -> dict[str, Any]:
    """The option mapping of a YAML config file ({} without one).

    Raises:
        InputError: the file cannot be read (missing, too large, not UTF-8).
        ConfigError: not YAML, or not a mapping.
    """
    if path is None:
        return {}
    import yaml  # deferred: only a run with --config needs it

    try:
        data = yaml.safe_load(read_text(path, "--config")) or {}
    except yaml.YAMLError as exc:
        why = " ".join(str(exc).split())  # YAML's messages span lines
        raise ConfigError(f"cannot read --config {path}: {why}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected a mapping of option names to values")
    return data


def spec_from_options(options: dict[str, Any], config: dict[str, Any]) -> RunSpec:
    """Config file values, overridden by the flags given on the command line (None: not given), checked as a whole.

    Raises:
        ConfigError: an unknown option, a value of the wrong type or range (the message names it, the value and
            what is expected), or an --out that is not a directory.
    """
    from ._options import RunOptions, first_problem  # deferred: pydantic loads in ~0.1 s

    flags = {k: str(v) if isinstance(v, Path) else v for k, v in options.items() if v is not None}
    given = {**config, **flags}
    if "model" in options and options["model"] is not None:
        given.pop("models", None)  # the flag replaces the config's list
    try:
        checked = RunOptions.model_validate(given)
    except ValueError as exc:
        raise ConfigError(first_problem(exc)) from None
    if Path(checked.out).exists() and not Path(checked.out).is_dir():
        raise ConfigError(f"--out {checked.out} is not a directory: give a directory for the run (made if missing)")
    levels = parse_range(checked.levels, "--levels", min(puzzles.LEVELS), max(puzzles.LEVELS)) \
        if isinstance(checked.levels, str) else checked.levels
    return RunSpec(models=checked.model_names(), base_url=checked.base_url, api_key_env=checked.api_key_env,
                   preset=checked.preset, mode=checked.mode, puzzles=checked.puzzle_names(), levels=tuple(levels),
                   instances_per_level=checked.instances_per_level, samples=checked.samples, temperature=checked.temperature,
                   max_tokens=checked.max_tokens, seed=checked.seed, limits=limits_from(checked.cpu, checked.memory),
                   max_connections=checked.max_connections, workers=checked.workers, backend=checked.backend,
                   format_retries=checked.format_retries,
                   out=Path(checked.out))
