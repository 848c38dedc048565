"""Adaptive searches (`codebench run --adaptive`): per model × mode × puzzle, steps of --search-parallel results (one by
default) at the complexity λ the design (`codebench.adaptive`) chooses from the results judged so far, until the
collapse threshold's 95% credible interval is narrower than --target-width or the search has counted --search-budget
results.

Result n asks a fresh instance: the puzzle's generator at its step's λ with seed `spec.seed + n` (so searches that
reach the same λ at the same result meet the same instance). In instruction mode result n is sample n's request (its
own sampling seed); in code mode the search's one program (sample 0, asked at the first step, as a plain run's sample
0) runs on it. A step of k results asks them at once and waits for all before the next choice (k requests in flight
for fewer rounds; each choice sees less, so a search spends somewhat more results); it never goes past the budget.
Result n's keys therefore follow from the results before its step alone: a re-run replays the stored steps, asking and
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
from dataclasses import dataclass, replace

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


@dataclass
class Tally:
    """What a search has done so far, for the progress counters: the results its steps took, the requests it made."""

    steps: int = 0
    requests: int = 0


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
        first = tally.steps  # this step's results are first, first + 1, …: never past the budget
        size = min(spec.search_parallel, spec.search_budget - sum(counted for _, _, counted in points))
        records = [await asyncio.to_thread(puzzle.generate, seed=spec.seed + first + j, params=spec.params.get(job.puzzle),
                                           complexity=lam) for j in range(size)]
        if job.mode == ModeName.CODE:
            program_job = asked_job(0, None)
            if program is None:
                program = await ask(program_job)
                tally.requests += 1
            asked = [(replace(program_job, instances=(record,)), program) for record in records]
        else:
            jobs = [asked_job(first + j, record) for j, record in enumerate(records)]
            asked = list(zip(jobs, await asyncio.gather(*(ask(one) for one in jobs))))
            tally.requests += size
        statuses = await asyncio.gather(*(_judged(step_job, sample, judge, store, spec) for step_job, sample in asked))
        tally.steps = first + size
        for j, (record, status) in enumerate(zip(records, statuses)):
            if status is None:  # a budget held the request back: asked on a resume with a larger one
                continue
            answered = asked[j][1]
            assert answered is not None  # judged, so asked
            store.add_step(SearchStep(job.model, job.mode, job.puzzle, first + j, lam, record.id, answered.key, status), record,
                           scalar_lambda(record))
            if not status.is_infrastructure:
                legal_counted = counts.setdefault(lam, [0, 0])
                legal_counted[0] += status == Status.LEGAL
                legal_counted[1] += 1
        if any(status is None or status.is_infrastructure for status in statuses):
            break  # unfinished: the same command asks what was held or failed outside the model again
    store.drop_steps(job.model, job.mode, job.puzzle, tally.steps)


async def _judged(step_job: SampleJob, sample: Sample | None, judge: Judge, store: Store, spec: RunSpec) -> Status | None:
    """A step's result judged and its status (None: its request was held by a budget)."""
    if sample is None:
        return None
    await judge(step_job, sample)
    return _status(store, ModeName(step_job.mode), sample, step_job.instances[0], spec)


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
