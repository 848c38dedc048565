"""The pipeline and the scheduler on the fake backend: statuses, concurrency across programs, deduplication,
resume after failures and interruptions, and the report's numbers. No network, no Docker: about a second."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from codebench.analysis.report import Report, RunScope, build_report
from codebench.errors import SandboxError
from codebench.run.pipeline import Tracker, execute_plan, record_plan
from codebench.run.plan import make_plan
from codebench.run.spec import RunSpec
from codebench.run.store import Store
from codebench.sandbox._fake import FakeBackend
from codebench.sandbox._session import SessionBroken
from codebench.types import Batch, Facts, Program, Status, Task

from .fakes import BASE_URL, FakeChat, Simulated, answer, run_plan, stored_rows

EXPECTED = {"oracle": Status.LEGAL, "wrong": Status.RULE_VIOLATION, "syntax_error": Status.SYNTAX_ERROR,
            "timeout": Status.TIMEOUT, "crash": Status.RUNTIME_ERROR, "no_code": Status.NO_CODE}


def spec(out: Path, **changes: object) -> RunSpec:
    base = {"models": ("oracle",), "puzzles": ("hanoi", "waterjug"), "levels": (1, 2), "instances_per_level": 2, "samples": 2,
            "out": out}
    return RunSpec(**{**base, **changes})  # type: ignore[arg-type]


def test_every_status_comes_out_of_the_pipeline(tmp_path: Path) -> None:
    chats = {model: FakeChat(model) for model in EXPECTED}
    with FakeBackend(Simulated(), workers=4) as sandbox:
        run_plan(spec(tmp_path, models=tuple(EXPECTED), samples=1), chats, sandbox)
    statuses = {(model, puzzle, status) for model, puzzle, _, _, _, status in stored_rows(tmp_path)}
    assert statuses == {(model, puzzle, str(status)) for model, status in EXPECTED.items() for puzzle in ("hanoi", "waterjug")}
    assert len(stored_rows(tmp_path)) == len(EXPECTED) * (2 + 4)  # models × distinct instances: Hanoi draws one per level


def test_workers_run_several_programs_at_once(tmp_path: Path) -> None:
    """8 workers, programs of 4 instances: the 8 first executions can only meet if two programs run together."""
    meeting = threading.Barrier(8, timeout=10)
    arrivals, lock, running, most = [0], threading.Lock(), set(), [0]
    simulated = Simulated()

    def handler(source: str, instance: dict) -> Facts:
        with lock:
            arrivals[0] += 1
            first = arrivals[0] <= 8
            running.add(source)
            most[0] = max(most[0], len(running))
        if first:
            meeting.wait()  # raises BrokenBarrierError (a failed test) unless 8 executions run at the same time
        time.sleep(0.005)
        with lock:
            running.discard(source)
        return simulated(source, instance)

    with FakeBackend(handler, workers=8) as sandbox:
        run_plan(spec(tmp_path, puzzles=("hanoi", "waterjug", "river", "checkers"), levels=(1, 2), samples=2),
                 {"oracle": FakeChat("oracle")}, sandbox)
    assert most[0] >= 2
    assert {status for *_, status in stored_rows(tmp_path)} == {"legal"}


def test_a_program_shared_by_samples_runs_once_per_instance(tmp_path: Path) -> None:
    """Every oracle sample of a puzzle is the same program: its executions are shared, never run twice."""
    simulated = Simulated()
    with FakeBackend(simulated, workers=4) as sandbox:
        plan, tracker = run_plan(spec(tmp_path, samples=5), {"oracle": FakeChat("oracle")}, sandbox)
    instances = sum(len(records) for records in plan.instances.values())
    assert simulated.total == instances
    assert len(stored_rows(tmp_path)) == 5 * instances  # every sample has its row
    assert (tracker.executions_done, tracker.executions_cached) == (5 * instances, 0)  # shared in this run, not reused


def test_sandbox_errors_and_api_errors_are_done_again_on_resume_and_nothing_else(tmp_path: Path) -> None:
    flaky = {"n": 0}

    def sometimes_broken(source: str, instance: dict) -> Facts:
        flaky["n"] += 1
        return Facts.infrastructure("run", "injected") if flaky["n"] % 3 == 0 else Simulated()(source, instance)

    first_chat = FakeChat("mixed", fail=frozenset({1}))  # sample 1 of every puzzle gets an API error
    with FakeBackend(sometimes_broken, workers=2) as sandbox:
        run_plan(spec(tmp_path, models=("mixed",), samples=3), {"mixed": first_chat}, sandbox)
    first = stored_rows(tmp_path)
    broken = sum(status == "sandbox_error" for *_, status in first)
    assert broken > 0 and any(status == "api_error" for *_, status in first)

    again, simulated = FakeChat("mixed"), Simulated()
    with FakeBackend(simulated, workers=2) as sandbox:
        run_plan(spec(tmp_path, models=("mixed",), samples=3), {"mixed": again}, sandbox)
    assert again.calls == 2  # the API errors, one per puzzle
    final = stored_rows(tmp_path)
    assert not any(status in ("sandbox_error", "api_error") for *_, status in final)
    assert len(final) == len(set(final)) == len(first)
    assert simulated.total >= broken  # the broken executions ran again (with those of the re-asked samples)


def test_an_interrupted_run_resumes_to_exactly_the_rows_of_an_uninterrupted_one(tmp_path: Path) -> None:
    def slow(source: str, instance: dict) -> Facts:
        time.sleep(0.03)
        return Simulated()(source, instance)

    whole, cut = tmp_path / "whole", tmp_path / "cut"
    with FakeBackend(slow, workers=2) as sandbox:
        run_plan(spec(whole, models=("mixed",), samples=3), {"mixed": FakeChat("mixed")}, sandbox)
    run_spec = spec(cut, models=("mixed",), samples=3)
    plan = make_plan(run_spec, BASE_URL)
    store = Store(cut / "run.sqlite")
    record_plan(store, run_spec, plan)

    async def interrupted() -> None:
        with FakeBackend(slow, workers=2) as sandbox:
            task = asyncio.ensure_future(execute_plan(run_spec, plan, store, {"mixed": FakeChat("mixed")}, sandbox, Tracker()))
            await asyncio.sleep(0.08)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(interrupted())
    store.close()
    partial = stored_rows(cut)
    assert scoped_report(cut).partial and scoped_report(cut).coverage[0].missing == len(stored_rows(whole)) - len(partial)
    with FakeBackend(slow, workers=2) as sandbox:
        run_plan(run_spec, {"mixed": FakeChat("mixed")}, sandbox)
    assert len(partial) < len(stored_rows(whole))
    assert stored_rows(cut) == stored_rows(whole)
    assert not scoped_report(cut).partial


def scoped_report(out: Path) -> Report:
    """The report of a stored run as `codebench report` builds it: with what its plan asked for."""
    store = Store.for_reading(out / "run.sqlite")
    try:
        return build_report(store.report_rows(), [1], boot=0, scopes=[RunScope(str(out), tuple(store.planned_cells()))])
    finally:
        store.close()


def test_pass_at_k_of_the_report_is_the_unbiased_estimate(tmp_path: Path) -> None:
    with FakeBackend(Simulated(), workers=2) as sandbox:
        run_plan(spec(tmp_path, models=("mixed",), puzzles=("waterjug",), levels=(1,), instances_per_level=1, samples=8),
                 {"mixed": FakeChat("mixed")}, sandbox)
    statuses = [status for *_, status in stored_rows(tmp_path)]
    n, c = len(statuses), statuses.count("legal")
    assert n == 8 and 0 < c < 8
    store = Store.for_reading(tmp_path / "run.sqlite")
    (cell,) = build_report(store.report_rows(), [1, 2, 8], boot=0).cells
    store.close()
    assert cell.pass_at[1] == pytest.approx(c / n)
    assert cell.pass_at[2] == pytest.approx(1 - math.comb(n - c, 2) / math.comb(n, 2))
    assert cell.pass_at[8] == 1.0


def test_a_worker_that_fails_unexpectedly_records_a_sandbox_error_and_goes_on() -> None:
    calls = {"n": 0}

    def buggy(source: str, instance: dict) -> Facts:
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyError("a bug in the backend")
        return answer({"moves": []})

    tasks = tuple(Task(str(i), {"i": i}) for i in range(4))
    with FakeBackend(buggy, workers=1) as sandbox:
        results = sorted(sandbox.stream([Batch(Program("p", "source"), tasks)]), key=lambda r: r.task.key)
    assert results[0].facts.infra_error == "internal error: KeyError: 'a bug in the backend'"
    assert [r.facts.infra_error for r in results[1:]] == [None] * 3


def test_a_broken_session_is_retried_on_a_recycled_worker() -> None:
    calls = {"n": 0}

    def breaks_once(source: str, instance: dict) -> Facts:
        calls["n"] += 1
        if calls["n"] == 1:
            raise SessionBroken("supervisor exited")
        return answer({})

    with FakeBackend(breaks_once, workers=1) as sandbox:
        (facts,) = sandbox.run("def solve(i):\n    return {}\n", [{}])
        assert facts.infra_error is None and sandbox.fakes[0].recycles == 1 and sandbox.loads == 2


def test_a_slate_not_proven_clean_gets_the_worker_rebuilt_before_its_next_task() -> None:
    def dirty_first(source: str, instance: dict) -> Facts:
        return replace(answer({}), clean=instance["i"] != 0)

    with FakeBackend(dirty_first, workers=1) as sandbox:
        facts = sandbox.run("def solve(i):\n    return {}\n", [{"i": 0}, {"i": 1}])
        assert [f.infra_error for f in facts] == [None, None]  # the program's results stand
        assert sandbox.fakes[0].recycles == 1 and sandbox.loads == 2  # rebuilt, then the program loaded afresh


def test_a_session_that_cannot_prove_the_last_programs_slate_clean_gets_the_worker_rebuilt() -> None:
    with FakeBackend(lambda source, instance: answer({}), workers=1) as sandbox:
        sandbox.run("program one", [{}])
        sandbox.fakes[0].proves_clean = False
        (facts,) = sandbox.run("program two", [{}])  # its load, in the same session, refuses: rebuilt, then loaded
        assert (sandbox.fakes[0].recycles, sandbox.loads, facts.infra_error) == (1, 2, None)


def test_each_worker_loads_a_program_once_while_it_has_its_tasks() -> None:
    with FakeBackend(lambda source, instance: answer({}), workers=2) as sandbox:
        batches = [Batch(Program(str(p), f"program {p}"), tuple(Task(f"{p}/{i}", {}) for i in range(10))) for p in range(3)]
        assert len(list(sandbox.stream(batches))) == 30
        assert sandbox.loads <= 2 * 3


def test_a_closed_sandbox_refuses_new_batches() -> None:
    sandbox = FakeBackend(lambda source, instance: answer({}), workers=1)
    sandbox.close()
    with pytest.raises(SandboxError, match="closed"):
        sandbox.submit(Batch(Program("p", "x"), (Task("t", {}),)), lambda result: None)


def test_seeds_that_draw_one_instance_plan_store_and_count_it_once(tmp_path: Path) -> None:
    """Hanoi's L1-L3 are one instance whatever the seed: three seeds of them are one distinct instance in the plan, the
    store and every statistic, and the report is exactly that of a run asking one seed (but for saying so)."""
    three, one = spec(tmp_path / "three", models=("mixed",), puzzles=("hanoi",), levels=(1, 2, 3), instances_per_level=3,
                      samples=4), spec(tmp_path / "one", models=("mixed",), puzzles=("hanoi",), levels=(1, 2, 3),
                                       instances_per_level=1, samples=4)
    plan = make_plan(three, BASE_URL)
    assert [record.id for record in plan.instances["hanoi"]] == ["hanoi/L1/s0", "hanoi/L2/s0", "hanoi/L3/s0"]
    assert plan.alike == {f"hanoi/L{level}/s0": (f"hanoi/L{level}/s1", f"hanoi/L{level}/s2") for level in (1, 2, 3)}
    assert len({job.key for job in plan.samples}) == len(plan.samples) == 4  # code mode: one prompt, four samples
    reports = []
    for run_spec in (three, one):
        simulated = Simulated()
        with FakeBackend(simulated, workers=2) as sandbox:
            _, tracker = run_plan(run_spec, {"mixed": FakeChat("mixed")}, sandbox)
        assert tracker.samples_cached == tracker.executions_cached == 0  # a fresh run reuses nothing
        store = Store.for_reading(run_spec.out / "run.sqlite")
        assert [fact.instance_id for fact in store.instance_facts()] == ["hanoi/L1/s0", "hanoi/L2/s0", "hanoi/L3/s0"]
        reports.append(build_report(store.report_rows(), [1, 2, 4], boot=200, facts=store.instance_facts()))
        store.close()
        assert max(simulated.runs.values()) == 1  # each distinct program ran once on each distinct instance
    counted, alone = reports
    assert counted.cells == alone.cells and counted.thresholds == alone.thresholds
    assert [(f.level, f.distinct, f.seeds) for f in counted.fewer_instances] == [(1, 1, 3), (2, 1, 3), (3, 1, 3)]
    assert alone.fewer_instances == ()
    for cell in counted.cells:  # one instance, four samples: pass@k by hand from its legal count c
        n, c = 4, cell.status_counts.get("legal", 0)
        assert (cell.instances, cell.executions) == (1, 4)
        assert cell.pass_at[2] == pytest.approx(1 - math.comb(n - c, 2) / math.comb(n, 2))
        assert cell.pass_at[4] == (1.0 if c else 0.0) and cell.oracle_best_of_n == (1.0 if c else 0.0)


def test_a_plan_stored_with_alike_instances_is_read_with_each_once(tmp_path: Path) -> None:
    """Runs of codebench 0.1 planned one instance once per seed that drew it: reading them folds the repeats away."""
    run_spec = spec(tmp_path, models=("oracle",), puzzles=("hanoi",), levels=(1,), instances_per_level=1, samples=2,
                    mode="both")
    with FakeBackend(Simulated(), workers=2) as sandbox:
        run_plan(run_spec, {"oracle": FakeChat("oracle")}, sandbox)
    store = Store(tmp_path / "run.sqlite")
    stored = store.plan()
    assert stored is not None
    twice = make_plan(replace(run_spec, instances_per_level=2), BASE_URL).instances["hanoi"][0]
    old = replace(stored, instances={"hanoi": ("hanoi/L1/s0", "hanoi/L1/s1")}, alike={},
                  samples=stored.samples + tuple(replace(s, instance_id="hanoi/L1/s1") for s in stored.samples if s.instance_id))
    store.record_plan(old, [(replace(twice, id="hanoi/L1/s1", seed=1), 3.0)], {})
    store.close()
    reader = Store.for_reading(tmp_path / "run.sqlite")
    folded = reader.plan()
    assert folded is not None and folded.instances == {"hanoi": ("hanoi/L1/s0",)}
    assert folded.alike == {"hanoi/L1/s0": ("hanoi/L1/s1",)} and folded.samples == stored.samples
    assert len(reader.report_rows()) == 4 and {row.instance_id for row in reader.report_rows()} == {"hanoi/L1/s0"}
    assert [(f.instance_id, f.alike) for f in reader.instance_facts()] == [("hanoi/L1/s0", ("hanoi/L1/s1",))]
    reader.close()
