"""Values that cross the sandbox boundary: resource limits in, recorded facts out (no Docker here)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Per-instance limits. `wall_s` defaults to 3 × `cpu_s` (a busy 2-core host inflates wall time)."""

    cpu_s: float = 10.0
    wall_s: float | None = None
    memory_mib: int = 512
    output_bytes: int = MIB  # per stream (stdout, stderr); beyond it the run is killed: output_limit
    answer_bytes: int = 64 * MIB  # JSON text of the returned answer (Hanoi n=20 is 16 MB)
    file_bytes: int = 64 * MIB  # RLIMIT_FSIZE
    tmpfs_mib: int = 64  # scratch space; it counts against the container's memory
    processes: int = 64  # RLIMIT_NPROC of the solver uid; the container's pids limit is twice that

    def __post_init__(self) -> None:
        if self.cpu_s <= 0 or (self.wall_s is not None and self.wall_s <= 0):
            raise ValueError("cpu_s and wall_s must be positive")
        if min(self.memory_mib, self.output_bytes, self.answer_bytes, self.file_bytes, self.tmpfs_mib, self.processes) <= 0:
            raise ValueError("limits must be positive")

    @property
    def wall_limit_s(self) -> float:
        return self.wall_s if self.wall_s is not None else 3 * self.cpu_s

    def for_supervisor(self) -> dict[str, Any]:
        """What the in-container supervisor enforces itself."""
        return {
            "cpu_s": max(1, math.ceil(self.cpu_s)),  # RLIMIT_CPU counts whole seconds; never below what was asked
            "wall_s": self.wall_limit_s,
            "output_bytes": self.output_bytes,
            "answer_bytes": self.answer_bytes,
            "file_bytes": self.file_bytes,
            "processes": self.processes,
        }


@dataclass(frozen=True)
class Facts:
    """What the supervisor recorded about one child process (the program's import, or one instance).

    `result` is the child's own report (kind: answer, loaded, no_code, not_json, exception,
    syntax_error, none, garbled, too_large); everything else is the supervisor's record.
    `infra_error` is set instead when the sandbox itself failed.
    """

    phase: str  # "load" or "run"
    result: dict[str, Any] = field(default_factory=dict)
    killed: str | None = None  # wall_limit, cpu_limit, output_limit:stdout|stderr, answer_limit
    exit_code: int | None = None
    signal: int | None = None
    oom: bool = False
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mib: float = 0.0
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    leftovers: int = 0  # processes of the program still alive after it finished (all killed)
    survivors: int = 0  # processes that could not be killed: the container is recycled
    infra_error: str | None = None

    @classmethod
    def from_supervisor(cls, phase: str, facts: dict[str, Any]) -> Facts:
        known = {name for name in cls.__dataclass_fields__}
        return cls(phase=phase, **{k: v for k, v in facts.items() if k in known and k != "phase"})

    @classmethod
    def infrastructure(cls, phase: str, error: str) -> Facts:
        return cls(phase=phase, infra_error=error)

    @property
    def loaded(self) -> bool:
        return self.phase == "load" and self.result.get("kind") == "loaded" and not self.killed and not self.oom

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
