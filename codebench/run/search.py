"""Adaptive searches (`codebench run --adaptive`): per model × mode × puzzle, one result at a time at the complexity
λ the design (`codebench.adaptive`) chooses from the results judged so far, until the collapse threshold's 95% credible
interval is narrower than --target-width or the search has counted --search-budget results.

Step n asks a fresh instance: the puzzle's generator at the chosen λ with seed `spec.seed + n` (so searches that reach
the same λ at the same step meet the same instance). In instruction mode step n is sample n's request (its own
sampling seed); in code mode the search's one program (sample 0, asked at step 0, as a plain run's sample 0) runs on
it. Step n's keys therefore follow from the results of steps 0..n−1 alone: a re-run replays the stored steps, asking and
running nothing again, and goes on where a killed run stopped, so the two end with the rows of an uninterrupted run.

A result the endpoint or the sandbox failed (api_error, sandbox_error) is stored as its step and counted by no search:
the search stops there, unfinished, and the same command asks that step again, as it asks every such result again. A
budget (--max-cost, --max-tokens-total) that holds a request back stops a search the same way. Each step is stored
with its instance once judged (`Store.add_step`); the steps an earlier run stored beyond where this run's search
ended are dropped (a larger --search-budget or a narrower --target-width then, or another history: they are not
this search's).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

import puzzles
from puzzles import Record

from ..keys import sample_key
from ..modes import Execution, get_mode
from ..types import ModeName, Sample, SampleJob, SearchStep, Status
from .plan import SearchJob, scalar_lambda
from .spec import RunSpec
from .store import Store

Ask = Callable[[SampleJob], Awaitable[Sample | None]]  # the pipeline's: the stored sample, else asked now (None: held)
Judge = Callable[[SampleJob, Sample], Awaitable[None]]  # the pipeline's: the sample judged on its job's instances, stored


class Tally:
    """What a search has done so far, for the progress counters: steps judged and whether its program was asked."""

    def __init__(self) -> None:
        self.steps = 0
        self.requests = 0


async def search(job: SearchJob, spec: RunSpec, base_url: str, store: Store, ask: Ask, judge: Judge, tally: Tally) -> None:
    """Ask the search's steps until the design stops it (or an uncounted result, or a held request, does)."""
    from ..adaptive import AdaptiveDesign, AskedPoint  # numpy: loaded by adaptive runs only

    design = AdaptiveDesign(job.lowest, job.highest)
    puzzle = puzzles.get_puzzle(job.puzzle)
    mode = get_mode(job.mode, spec.format_retries, spec.prompting())
    model = next(m for m in spec.model_specs if m.label == job.model)

    def asked_job(sample: int, record: Record | None) -> SampleJob:
        """The request of `sample` (instruction mode: on `record`; code mode: the program, judged on `record`)."""
        question = mode.questions(puzzle, (record,) if record is not None else (), spec.limits)[0]
        sampling = spec.sampling(sample)
        key = sample_key(model.label, base_url, question.prompt.text, sampling, sample, served=model.name,
                         request=model.request)
        return SampleJob(key, model.label, job.mode, job.puzzle, sample, question.prompt, sampling, question.instances,
                         question.instance_id)

    counts: dict[int, list[int]] = {}  # λ -> [legal, counted]
    program: Sample | None = None
    while True:
        points = [AskedPoint(lam, legal, counted) for lam, (legal, counted) in sorted(counts.items())]
        if await asyncio.to_thread(design.done, points, spec.target_width, spec.search_budget) is not None:
            break
        lam = await asyncio.to_thread(design.next_point, points)
        record = await asyncio.to_thread(puzzle.generate, seed=spec.seed + tally.steps, params=spec.params.get(job.puzzle),
                                         complexity=lam)
        if job.mode == ModeName.CODE:
            program_job = asked_job(0, None)
            if program is None:
                program = await ask(program_job)
                tally.requests += 1
            step_job, sample = replace(program_job, instances=(record,)), program
        else:
            step_job = asked_job(tally.steps, record)
            sample = await ask(step_job)
            tally.requests += 1
        if sample is None:  # a budget held the request back: asked on a resume with a larger one
            break
        await judge(step_job, sample)
        status = _status(store, job.mode, sample, record, spec)
        store.add_step(SearchStep(job.model, job.mode, job.puzzle, tally.steps, lam, record.id, sample.key, status), record,
                       scalar_lambda(record))
        tally.steps += 1
        if status.is_infrastructure:
            break
        legal_counted = counts.setdefault(lam, [0, 0])
        legal_counted[0] += status == Status.LEGAL
        legal_counted[1] += 1
    store.drop_steps(job.model, job.mode, job.puzzle, tally.steps)


def _status(store: Store, mode: ModeName, sample: Sample, record: Record, spec: RunSpec) -> Status:
    """The judged step's status: the sample's own when nothing was read from it (no_code, api_error, …), else its
    program's (or answer's) stored outcome on the instance; one that is not stored (it cannot be, once judged) is taken
    for the sandbox's failure, so it is counted nowhere and asked again."""
    program = sample.reading.program
    if program is None:
        return Status(sample.reading.status or (Status.NO_CODE if mode == ModeName.CODE else Status.NO_ANSWER))
    key = Execution.of(program, record, spec.limits).key
    stored = store.stored_statuses([key]).get(key)
    return Status(stored) if stored is not None else Status.SANDBOX_ERROR
