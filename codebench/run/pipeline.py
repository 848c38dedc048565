"""Runs a plan resumably: every sample walks model → read → judge through its mode; results go to one writer.

The only module that joins the stages. Model calls overlap (async, bounded by each client), each through the run's
budget gate (`_Budget`: checked as it is sent, charged as its reply arrives); the sandbox takes every sample's program
as soon as it is read, so all its workers stay busy; judging happens off the event loop; the store is written from the
event loop alone, results in batches at most WRITE_INTERVAL_S apart. A killed run loses at most what was in flight,
and a re-run skips whatever is stored. With a response cache (`--cache`), a request asked before (in any run) is
answered from it before the gate, free, and a new usable reply is kept there. In batch mode (`--batch`) the gate sends
each request into the next round of the Batch API (`run.batch`) instead of to the endpoint directly, with no bound on
requests in flight (a round goes whole).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import platform
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import puzzles
from puzzles.games import get_game, new_secret

from ..costs import Price, request_cost, stored_prices, total_usage
from ..errors import BudgetReached, ConfigError, SandboxError
from ..games.chat import ask_strategy
from ..games.plan import ChatEntrant, StrategyJob
from ..games.table import Table, game_versions, planned
from ..keys import content_key, request_key, secret_fingerprint
from ..modes import Bench, ChatModel, Execution, Judge, Reply, get_mode
from ..protocols import PROTOCOLS, game_kind
from ..sandbox import SandboxBackend
from ..types import (
    INFRASTRUCTURE_STATUSES,
    Batch,
    Completion,
    Facts,
    Limits,
    ModeName,
    Outcome,
    Program,
    ReplySource,
    Result,
    Sample,
    SampleJob,
    SampleUsage,
    Status,
    Task,
)
from ..version import __version__
from .batch import BatchClient, Batches
from .cache import ReplyCache
from .plan import Plan, SearchJob, scalar_lambda
from .search import Tally, search
from .spec import RunSpec
from .store import PlannedSample, Store, StoredPlan

WRITE_INTERVAL_S = 0.02  # results wait at most this long to be stored together: a killed run loses no more
LOGGED = logging.getLogger("codebench").warning  # where a run's notes go when no one is told them


@dataclass
class Tracker:
    """Counters the progress display reads; written and read on the event loop only."""

    samples_total: int = 0
    executions_total: int = 0
    samples_done: int = 0
    samples_cached: int = 0
    executions_done: int = 0
    executions_cached: int = 0
    tokens: int = 0  # prompt + completion of every reply paid for, game turns included: what the budgets count
    replies_cached: int = 0  # replies found in the response cache (free, and counted in no budget)
    tokens_before: int = 0  # … of what earlier runs into this directory stored (read when a budget counts them)
    cost: float = 0.0  # US dollars of both at the run's prices (counted under --max-cost)
    games_total: int = 0
    games_done: int = 0
    games_cached: int = 0
    games_void: int = 0  # the sandbox or the endpoint broke them: played again on resume
    samples_held: int = 0  # not asked because a budget was reached: asked on a resume with a larger one
    games_held: int = 0  # not started because a budget was reached: played on a resume with a larger one
    budget_reached: str = ""  # which budget, and what was spent
    statuses: Counter[str] = field(default_factory=Counter)

    def count(self, **changes: int) -> None:
        for name, delta in changes.items():
            setattr(self, name, getattr(self, name) + delta)

    def count_execution(self, status: str, n: int = 1, *, cached: bool = False) -> None:
        """`n` (sample, instance) results with `status`, done now or found stored."""
        self.executions_done += n
        self.executions_cached += n if cached else 0
        self.statuses[status] += n


def games_secret(store: Store, spec: RunSpec) -> str:
    """The secret the run's games are played under: the one its first games were played under (a resume keeps it),
    else the spec's (a file runs share on purpose), else a new one.

    Raises:
        ConfigError: the spec's secret is not the one this run's games were played under.
    """
    stored = store.games_secret()
    if stored is None:
        return spec.game_secret or new_secret()
    if spec.game_secret is not None and spec.game_secret != stored:
        raise ConfigError(f"{spec.out} played its games under another secret (fingerprint {secret_fingerprint(stored)}; "
                          f"the file gives {secret_fingerprint(spec.game_secret)}): give that run's secret file, or a new --out")
    return stored


def record_plan(store: Store, spec: RunSpec, plan: Plan) -> None:
    """Store the instances, the plan and its provenance (and the games' secret), before any work starts.

    Raises:
        ConfigError: the spec's games' secret is not the one this run's games were played under.
    """
    stored = StoredPlan(plan.base_urls, spec.limits,
                        tuple(PlannedSample(job.key, job.model, job.mode, job.puzzle, job.instance_id, job.sample)
                              for job in plan.samples)
                        + tuple(PlannedSample(job.key, job.model, job.mode, job.game, None, job.sample) for job in plan.strategies),
                        {name: tuple(record.id for record in records) for name, records in plan.instances.items()},
                        tuple(planned(job) for job in plan.matches), plan.alike)
    versions = {"codebench": __version__, "python": platform.python_version(),
                "puzzles": {name: puzzles.get_puzzle(name).version for name in plan.instances},
                "games": game_versions(spec.games)}
    records = [(record, scalar_lambda(record)) for records in plan.instances.values() for record in records]
    secret = {"games_secret": {"secret": games_secret(store, spec)}} if plan.matches else {}
    prices = {label: asdict(price) for label, price in _prices(store, spec).items()}
    store.record_plan(stored, records, {"spec": spec.to_json(), "versions": versions, "prices": prices, **secret})


def _prices(store: Store, spec: RunSpec) -> dict[str, Price]:
    """Every label's latest price: this run's over those earlier runs into the directory were given, so the requests
    asked under a label since renamed are costed at theirs (a stored price not what codebench writes is dropped)."""
    try:
        earlier = stored_prices(store.prices())
    except ValueError:
        earlier = {}
    return {**{label: price for label, price in earlier.items() if price is not None}, **spec.prices}


async def execute_plan(spec: RunSpec, plan: Plan, store: Store, clients: dict[str, ChatModel], sandbox: SandboxBackend | None,
                       tracker: Tracker, cache: ReplyCache | None = None, note: Callable[[str], None] = LOGGED) -> None:
    """Do every sample and execution not yet stored; `cache`: the response cache to answer requests from (`--cache`);
    `note`: told of each batch submitted or polled (`--batch`).

    Raises:
        ConfigError: --batch with a client that has no Batch API.
        ModelError: an endpoint refuses the run (auth, unknown model, quota); finished work stays stored.
        SandboxError: the sandbox stopped taking programs.
    """
    tracker.samples_total = len(plan.samples) + len(plan.strategies) + sum(_search_requests(spec, job) for job in plan.searches)
    tracker.executions_total = plan.executions + spec.search_budget * len(plan.searches)  # a search's: at most
    tracker.games_total = len(plan.matches)
    bench = _Bench(store, sandbox, tracker, spec.limits, asyncio.get_running_loop())
    stored = store.samples(job.key for job in (*plan.samples, *plan.strategies))
    batches = _batches(spec, store, clients, note) if spec.batch else None
    budget = _Budget(spec, store, tracker, clients, cache, batches)

    def played(cached: bool, void: bool) -> None:
        tracker.count(games_done=1, games_cached=int(cached), games_void=int(void))

    threads = spec.max_connections + (sandbox.capacity if sandbox is not None else 0) + 2
    seats = {entrant.label: budget.gated(entrant.model, content_key("seat", entrant.descriptor()), tally=False)
             for job in plan.matches for entrant in job.entrants if isinstance(entrant, ChatEntrant)}
    table = (Table(store, seats, sandbox, spec.game_limits, store.games_secret() or "", threads, played,
                   lambda: tracker.count(games_held=1)) if plan.matches else None)

    def reused(job: SampleJob | StrategyJob) -> bool:
        sample = stored.get(job.key)
        return sample is not None and sample.completion.error is None

    async def ask(job: SampleJob | StrategyJob, puzzle: str, instance_id: str | None,
                  question: Callable[[ChatModel], Awaitable[Reply]]) -> Sample | None:
        """The job's sample (`puzzle`: or the game): stored or asked now; None when the budget held a request back."""
        sample, found = stored.get(job.key), reused(job)
        if not found:
            sample = await _asked(job, puzzle, instance_id, question)
        if sample is None:
            tracker.count(samples_held=1)
        else:
            tracker.count(samples_done=1, samples_cached=int(found))
        return sample

    async def _asked(job: SampleJob | StrategyJob, puzzle: str, instance_id: str | None,
                     question: Callable[[ChatModel], Awaitable[Reply]]) -> Sample | None:
        model = budget.gated(job.model, job.key, tally=True)
        try:
            reply = await question(model)
        except BudgetReached:  # not asked, or a format retry not sent: the conversation is asked anew on a resume
            if model.spent:
                store.add_spent(replace(usage, mode=job.mode, puzzle=puzzle) for usage in model.spent)
            return None
        finally:
            if batches is not None:
                batches.ended()
        sample = Sample(job.key, job.model, model.base_url, job.mode, puzzle, job.sample, instance_id, job.prompt.text,
                        job.sampling, reply.completion, reply.reading, reply.format_retries, reply.retried_replies,
                        _by_source(model.spent or (), job.mode, puzzle))
        store.add_sample(sample)
        return sample

    async def asked(job: SampleJob) -> Sample | None:
        mode = get_mode(job.mode, spec.format_retries)
        return await ask(job, job.puzzle, job.instance_id, lambda model: mode.ask(job, model))

    async def judged(job: SampleJob, sample: Sample) -> None:
        await get_mode(job.mode, spec.format_retries).judge(job, sample, bench)

    async def one(job: SampleJob) -> None:
        sample = await asked(job)
        if sample is not None:
            await judged(job, sample)

    async def step_asked(job: SampleJob) -> Sample | None:
        """A search step's sample: its keys are known only as the search goes, so the store is asked for it then."""
        stored.update(store.samples([job.key]))
        return await asked(job)

    async def searched(job: SearchJob) -> None:
        """An adaptive search; once it stops, the counters' totals lose what it did not ask or judge."""
        tally = Tally()
        await search(job, spec, plan.base_urls[job.model], store, step_asked, judged, tally)
        tracker.count(samples_total=tally.requests - _search_requests(spec, job),
                      executions_total=tally.steps - spec.search_budget)

    async def strategy(job: StrategyJob) -> None:
        """A game's strategy request: once its program is stored (or held), its matches may start (or are held)."""
        sample = await ask(job, job.game, None, lambda model: ask_strategy(job.prompt, job.sampling, model))
        if table is not None:
            table.program(job.key, sample)

    if batches is not None:  # every conversation that will ask: a round goes once each of them waits for a reply
        batches.expect(sum(not reused(job) for job in (*plan.samples, *plan.strategies)))
    writer = asyncio.ensure_future(bench.write())
    tasks = [*(asyncio.ensure_future(one(job)) for job in plan.samples),
             *(asyncio.ensure_future(strategy(job)) for job in plan.strategies),
             *(asyncio.ensure_future(searched(job)) for job in plan.searches)]
    if table is not None:
        tasks.append(asyncio.ensure_future(table.play_all(plan.matches)))
    try:
        await asyncio.gather(*tasks)
    finally:  # done, or one failed (a refused endpoint): stop the others, keep what is stored
        tracker.budget_reached = budget.reached()  # with what the replies in flight added after it was reached
        for task in [*tasks, writer]:
            task.cancel()
        if table is not None:
            table.close()
        if batches is not None:
            batches.close()


def _search_requests(spec: RunSpec, job: SearchJob) -> int:
    """The most requests a search makes: one a step in instruction mode, its one program in code mode."""
    return 1 if job.mode == ModeName.CODE else spec.search_budget


def _batches(spec: RunSpec, store: Store, clients: dict[str, ChatModel], note: Callable[[str], None]) -> Batches:
    """The run's batch rounds.

    Raises:
        ConfigError: a model's client has no Batch API (a client given to `evaluate` that is not codebench's own).
    """
    without = [label for label, client in clients.items() if not isinstance(client, BatchClient)]
    if without:
        raise ConfigError(f"--batch needs the Batch API of codebench's own model client; the client of {without[0]} has none: "
                          "drop --batch, or leave the clients to evaluate")
    return Batches({label: client for label, client in clients.items() if isinstance(client, BatchClient)}, store, note)


class _Budget:
    """The run's budgets, and the gate every model request of the run passes (a puzzle sample and each of its format
    retries, a strategy request, each turn of a game's chat seat): a request is sent only while no budget is used up, and
    charged when its reply arrives. At most `max_connections` requests per model are between the two, so a run
    overspends by no more than the replies in flight when its budget is reached (they are kept: they were paid for).

    The tracker keeps the sums, so progress shows what the budgets count. Under a budget they start from every reply the
    store counts (earlier runs into the same directory included), so a resume counts what was spent before."""

    def __init__(self, spec: RunSpec, store: Store, tracker: Tracker, clients: dict[str, ChatModel],
                 cache: ReplyCache | None, batches: Batches | None) -> None:
        self.spec, self.tracker, self.clients, self.cache, self.batches = spec, tracker, clients, cache, batches
        # a model's requests in flight: at most max_connections, but a batch's round goes whole
        self.gates: dict[str, AbstractAsyncContextManager[Any]] = {
            label: contextlib.nullcontext() if batches is not None else asyncio.Semaphore(spec.max_connections)
            for label in clients}
        if spec.max_cost is not None or spec.max_tokens_total is not None:
            tracker.tokens_before, cost = total_usage(store.usage(), _prices(store, spec))
            tracker.cost = cost or 0.0

    def reached(self) -> str:
        """Which budget is used up, and by how much ("" while neither is)."""
        tokens = self.tracker.tokens + self.tracker.tokens_before
        if self.spec.max_tokens_total is not None and tokens >= self.spec.max_tokens_total:
            return f"--max-tokens-total {self.spec.max_tokens_total}: {tokens} tokens used"
        if self.spec.max_cost is not None and self.tracker.cost >= self.spec.max_cost:
            return f"--max-cost {self.spec.max_cost:g}: ${self.tracker.cost:.4f} spent"
        return ""

    def gated(self, model: str, conversation: str, *, tally: bool) -> _Gated:
        """`model`'s client behind the gate, for the conversations of `conversation` (the key of who asks: a sample's,
        a game seat's); `tally`: for one conversation, keeping what each reply cost (a game's chat seats keep that in
        their records)."""
        return _Gated(self, model, conversation, [] if tally else None)

    def charge(self, usage: SampleUsage) -> None:
        """One paid reply's tokens, and their cost at its model's price."""
        self.tracker.count(tokens=usage.prompt_tokens + usage.completion_tokens)
        price = self.spec.prices.get(usage.model)
        self.tracker.cost += (request_cost(usage, price) if price is not None else None) or 0.0


class _Gated:
    """A model's client behind the run's budget gate, with the response cache before it. A conversation the gate cuts
    short is held; its tally (`spent`: each reply's tokens and where it came from) is stored apart (`Store.add_spent`),
    so a resume's budget and the cost table count it."""

    def __init__(self, budget: _Budget, model: str, conversation: str, spent: list[SampleUsage] | None) -> None:
        self.budget, self.model, self.client, self.spent = budget, model, budget.clients[model], spent
        self.conversation = conversation

    @property
    def base_url(self) -> str:
        return self.client.base_url

    async def complete(self, messages: list[dict[str, Any]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        """The reply the cache keeps for this very request, else the client's completion once the gate lets it go (a
        usable one then kept in the cache).

        Raises:
            BudgetReached: a budget is used up; the request was not sent (its sample or game is held for a resume).
        """
        cache, batches = self.budget.cache, self.budget.batches
        key = request_key(self.conversation, messages, seed) if cache is not None or batches is not None else ""
        completion = cache.get(key) if cache is not None else None
        if completion is not None:
            self.budget.tracker.count(replies_cached=1)
        else:
            async with self.budget.gates[self.model]:
                reached = self.budget.reached()
                if reached:
                    raise BudgetReached(reached)
                if batches is not None:
                    completion = await batches.complete(self.model, key, messages, temperature=temperature,
                                                        max_tokens=max_tokens, seed=seed)
                else:
                    completion = await self.client.complete(messages, temperature=temperature, max_tokens=max_tokens,
                                                            seed=seed)
                self.budget.charge(SampleUsage(self.model, "", "", *_counted(messages, completion), 0,
                                               reply_source=completion.reply_source))
            if cache is not None:
                cache.put(key, completion)
        if self.spent is not None:
            self.spent.append(SampleUsage(self.model, "", "", completion.prompt_tokens or 0, completion.completion_tokens or 0,
                                          completion.reasoning_tokens or 0,
                                          uncounted=int(completion.prompt_tokens is None or completion.completion_tokens is None),
                                          reply_source=completion.reply_source))
        return completion


def _by_source(replies: Sequence[SampleUsage], mode: str, puzzle: str) -> tuple[SampleUsage, ...]:
    """The tokens of a conversation's replies that were not asked directly, summed per source (`Sample.reply_sources`)."""
    sums: dict[str, SampleUsage] = {}
    for usage in replies:
        if usage.reply_source != ReplySource.API:
            before = sums.get(usage.reply_source)
            sums[usage.reply_source] = replace(usage, mode=mode, puzzle=puzzle) if before is None else before + usage
    return tuple(sums.values())


CHARS_PER_TOKEN = 4  # what a count the server did not give is estimated from: text is rarely denser than this


def _counted(messages: list[dict[str, Any]], completion: Completion) -> tuple[int, int]:
    """A reply's prompt and completion tokens for the budgets: the server's counts, or, where it gave none (or one the
    client could not believe), an estimate from the characters sent and received, so a server that never counts still
    reaches --max-tokens-total."""
    prompt = completion.prompt_tokens
    if prompt is None:
        prompt = -(-sum(len(str(message.get("content", ""))) for message in messages) // CHARS_PER_TOKEN)
    answer = completion.completion_tokens
    if answer is None:
        answer = -(-(len(completion.text) + len(completion.reasoning or "")) // CHARS_PER_TOKEN)
    return prompt, answer


@dataclass(frozen=True)
class _Running:
    """An execution handed to the sandbox: what judging and storing its facts needs, and who waits for its status."""

    program: Program
    execution: Execution
    judge: Judge
    stored: asyncio.Future[str]


def _judge_all(work: list[tuple[_Running, Facts]]) -> list[Outcome]:
    return [running.judge(running.execution, facts) for running, facts in work]


class _Bench(Bench):
    """The pipeline's side of judging: batches to the sandbox, facts back to the event loop, and one writer that
    judges what has arrived in a worker thread and stores it in one transaction.

    An execution that another sample has already started (the same program, instance, puzzle version
    and limits) is awaited, never run twice; one stored with an infrastructure failure is run again.
    """

    def __init__(self, store: Store, sandbox: SandboxBackend | None, tracker: Tracker, limits: Limits,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.store, self.sandbox, self.tracker, self.limits, self.loop = store, sandbox, tracker, limits, loop
        self.running: dict[str, _Running] = {}  # execution key -> its run, from submission until stored
        self.written: set[str] = set()  # execution keys this run stored: a later sample finding one did not reuse old work
        self.inbox: list[Result] = []  # delivered by sandbox threads, not yet taken by the writer
        self.inbox_lock = threading.Lock()
        self.arrived = asyncio.Event()  # set (on the loop) once the inbox is not empty

    def settle(self, status: Status, instances: int) -> None:
        self.tracker.count_execution(status, instances)

    def record(self, program: Program, execution: Execution, outcome: Outcome) -> None:
        stored = self.store.stored_statuses([execution.key]).get(execution.key)
        if stored is not None:
            self.tracker.count_execution(stored, cached=execution.key not in self.written)
            return
        self.store.add_executions([(execution.key, program.key, execution.record.id, outcome)])
        self.written.add(execution.key)
        self.tracker.count_execution(outcome.status)

    async def execute(self, program: Program, executions: Sequence[Execution], judge: Judge) -> None:
        done = self.store.stored_statuses(execution.key for execution in executions)
        waits: list[Awaitable[Any]] = []
        todo: list[Execution] = []
        for execution in executions:
            status = done.get(execution.key)
            if status is not None and status not in INFRASTRUCTURE_STATUSES:
                self.tracker.count_execution(status, cached=execution.key not in self.written)
            elif execution.key in self.running:
                waits.append(self._another(self.running[execution.key].stored))
            else:
                self.running[execution.key] = _Running(program, execution, judge, self.loop.create_future())
                todo.append(execution)
        if todo:
            if self.sandbox is None:
                raise SandboxError("this run started no sandbox (its mode runs no program), yet a program came to run")
            self.sandbox.submit(Batch(program, tuple(Task(e.key, e.record.instance) for e in todo)), self._deliver)
            waits += [self.running[execution.key].stored for execution in todo]
        await asyncio.gather(*waits)

    def _deliver(self, result: Result) -> None:
        """From a sandbox thread: leave the facts for the writer, waking the event loop once per batch of them."""
        with self.inbox_lock:
            self.inbox.append(result)
            if len(self.inbox) > 1:
                return  # a wake-up is on its way already
        if not self.loop.is_closed():  # else the run is over and nobody waits
            self.loop.call_soon_threadsafe(self.arrived.set)

    async def write(self) -> None:
        """The one writer: until cancelled, judge (in a worker thread) and store (in one transaction) whatever has
        arrived, at most every WRITE_INTERVAL_S, so the event loop wakes rarely and the sandbox's threads keep the GIL.

        A failure (the store refuses a write) is passed to every sample waiting for an execution, then raised.
        """
        try:
            while True:
                await self.arrived.wait()
                await asyncio.sleep(WRITE_INTERVAL_S)
                with self.inbox_lock:
                    results, self.inbox = self.inbox, []
                    self.arrived.clear()
                work = [(self.running[result.task.key], result.facts) for result in results]
                outcomes = await asyncio.to_thread(_judge_all, work)
                self.store.add_executions([(r.execution.key, r.program.key, r.execution.record.id, outcome)
                                           for (r, _), outcome in zip(work, outcomes)])
                for (running, _), outcome in zip(work, outcomes):
                    self.tracker.count_execution(outcome.status)
                    self.written.add(running.execution.key)
                    del self.running[running.execution.key]
                    running.stored.set_result(outcome.status)
        except Exception as exc:
            for running in self.running.values():
                if not running.stored.done():
                    running.stored.set_exception(exc)
            raise

    async def _another(self, stored: asyncio.Future[str]) -> None:
        """The same execution (an identical program on the instance) that another sample of this run started."""
        self.tracker.count_execution(await stored)


def plan_summary(plan: Plan, store: Store | None) -> dict[str, Any]:
    """What --dry-run prints: requests and executions, and how many are already stored (none without a store); the distinct
    instances per puzzle, and how many seeds drew an instance another seed drew (planned once)."""
    requests = (*plan.samples, *plan.strategies)
    stored = store.answered(job.key for job in requests) if store is not None else set()
    games = store.matches_played(job.key for job in plan.matches) if store is not None and plan.matches else set()
    per_game: dict[str, int] = {}
    for job in plan.matches:
        per_game[job.game] = per_game.get(job.game, 0) + 1
    repeated = {name: n for name, records in plan.instances.items()
                if (n := sum(len(plan.alike.get(record.id, ())) for record in records))}
    return {"requests": len(requests), "requests_stored": len(stored),
            "executions_at_most": plan.executions, "puzzles": {name: len(records) for name, records in plan.instances.items()},
            **({"seeds_repeating_an_instance": repeated} if repeated else {}),
            **({"games": per_game, "games_stored": len(games)} if plan.matches else {})}


def protocol_summary(spec: RunSpec, plan: Plan) -> dict[str, Any]:
    """What --dry-run prints of a run that follows a protocol: per game its kind and counts (samples per model, levels,
    seeds per level, seat orders, the games to play, baselines and model pairings included), what the run changes of the
    protocol, and what codebench does otherwise than the paper."""
    if spec.protocol is None:
        return {}
    protocol, planned = PROTOCOLS[spec.protocol], Counter(job.game for job in plan.matches)
    games = {name: {"kind": game_kind(get_game(name)), "samples": spec.samples, "levels": list(spec.game_levels(name)),
                    "seeds_per_level": spec.seeds_per_level(name), "seat_orders": get_game(name).players, "games": planned[name]}
             for name in spec.games}
    return {"protocol": {"name": protocol.name, "title": protocol.title, "games": games,
                         "departures": protocol.departures(spec.to_json()), "differs_from_the_paper": list(protocol.differs)}}


def search_summary(spec: RunSpec, plan: Plan, store: Store | None) -> dict[str, Any]:
    """What --dry-run prints of an adaptive run: per search its complexity range, the λ it asks first and the steps
    already stored; the stopping rule; the most requests and executions the searches may make."""
    from ..adaptive import AdaptiveDesign

    stored = Counter((step.model, step.mode, step.puzzle) for step in store.search_steps()) if store is not None else Counter()
    first = {(job.lowest, job.highest): AdaptiveDesign(job.lowest, job.highest).next_point([]) for job in plan.searches}
    return {"searches": [{"model": job.model, "mode": str(job.mode), "puzzle": job.puzzle,
                          "complexity": f"{job.lowest}..{job.highest}", "first": first[job.lowest, job.highest],
                          "steps_stored": stored[job.model, job.mode, job.puzzle]} for job in plan.searches],
            "target_width": spec.target_width, "search_budget": spec.search_budget,
            "requests_at_most": sum(_search_requests(spec, job) for job in plan.searches),
            "executions_at_most": spec.search_budget * len(plan.searches)}
