"""The requests `codebench run --mode instruction` would send for one puzzle, planned by codebench's own planner from
options checked as `codebench run` checks them (so the instances, their seeds and the prompts are the run's, exactly)."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from puzzles import Record

from ..modes import FORMAT_RETRIES
from ..run.options import spec_from_options
from ..run.plan import make_plan
from ..run.spec import RunSpec
from ..types import ModeName, SampleJob, Sampling

LEVELS = ",".join(map(str, RunSpec.levels))  # the options' defaults are `codebench run`'s
INSTANCES_PER_LEVEL = RunSpec.instances_per_level
SEED = RunSpec.seed
NO_MODEL = "-"  # the planner keys each request by its model; an adapter's model is its tool's, unknown here


@dataclass(frozen=True)
class PlannedRequest:
    """One planned request: the job instruction mode holds the conversation of, and the instance it is judged on."""

    job: SampleJob
    record: Record


@dataclass(frozen=True)
class Planned:
    requests: tuple[PlannedRequest, ...]
    sampling: Sampling  # what `codebench run` sends with the first sample of each request (its seed: sample 0's)
    format_retries: int


def plan_requests(puzzle: str, *, levels: str | int | Sequence[int] = LEVELS, instances_per_level: int = INSTANCES_PER_LEVEL,
                   seed: int = SEED, format_retries: int = FORMAT_RETRIES, where: str) -> Planned:
    """`puzzle`'s instruction-mode requests, one sample each, for these options (`levels`: '1-6', '1,3,5', 4 or a list).

    Raises:
        ConfigError, InputError: an option `codebench run` would refuse; the message names it as given `where`
            (e.g. "inspect eval -T").
    """
    given = {"model": NO_MODEL, "mode": str(ModeName.INSTRUCTION), "puzzles": puzzle, "samples": 1,
             "levels": [levels] if type(levels) is int else list(levels) if isinstance(levels, (list, tuple)) else levels,
             "instances_per_level": instances_per_level, "seed": seed, "format_retries": format_retries,
             "out": tempfile.gettempdir()}  # the planner writes nothing; a run's options name a directory it could
    spec = spec_from_options({}, given, Path(where))
    plan = make_plan(spec, "")
    records = {record.id: record for record in plan.instances[puzzle]}
    return Planned(tuple(PlannedRequest(job, records[str(job.instance_id)]) for job in plan.samples), spec.sampling(0),
                   spec.format_retries)
