"""The run store: typed round trips, the schema-1 run directory written by codebench 0.1 (read untouched, migrated
by writers, resumed), and clear errors for newer schemas and files that are not codebench's.

`data/v1_run/` was written by the landed codebench 0.1 (commit 7230334): `codebench run` against its mock server
(seed 1) with --model mixed,wrong,no_code,syntax_error,crash,empty --puzzles hanoi,waterjug --levels 1,2
--instances-per-level 2 --samples 3 --cpu 1, and `codebench report --format table|md|csv|json` of it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from codebench.errors import SchemaVersionError
from codebench.run.spec import RunSpec
from codebench.run.store import SCHEMA_VERSION, Store
from codebench.sandbox._fake import FakeBackend
from codebench.types import Completion, Limits, Outcome, Program, Reading, Sample, SampleUsage, Sampling, Status

from .cli import run_cli
from .fakes import FakeChat, Simulated, run_plan

V1 = Path(__file__).parent / "data" / "v1_run"
FORMATS = ("table", "md", "csv", "json")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def v1_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "v1"
    shutil.copytree(V1, folder)
    return folder


def test_a_sample_round_trips_typed(tmp_path: Path) -> None:
    store = Store(tmp_path / "run.sqlite")
    program = Program("k-program", "def solve(i):\n    return {}\n")
    sample = Sample("k1", "m", "http://x/v1", "code", "hanoi", 0, None, "[]", Sampling(0.7, 100, 3),
                    Completion("text", "stop", False, 5, 6, 0.25, "served", None), Reading(None, "fenced block 1", program), 2)
    failed = Sample("k2", "m", "http://x/v1", "code", "hanoi", 1, "hanoi/L1/s0", "[]", Sampling(0.7, None, 4),
                    Completion("", None, False, None, None, 0.0, None, "HTTP 400"), Reading(Status.API_ERROR, "HTTP 400"))
    store.add_sample(sample)
    store.add_sample(failed)
    assert store.samples(["k1", "k2", "k3"]) == {"k1": sample, "k2": failed}
    assert store.answered(["k1", "k2"]) == {"k1"}
    store.add_executions([("e1", "k-program", "hanoi/L1/s0", Outcome(Status.TIMEOUT, "cpu_limit", (), 1.0, 3.0, 12.0))])
    assert store.stored_statuses(["e1", "e2"]) == {"e1": "timeout"} and store.execution_totals() == (1, 3.0)
    store.close()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_version_1_run_reports_as_codebench_0_1_did_and_is_not_touched(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    """Its numbers, but for the instance Hanoi's L1 and L2 drew for both seeds: 0.1 counted it twice, now once."""
    before = snapshot(V1)
    code, out, _ = run_cli(capsys, "report", str(V1), "--format", fmt)
    assert code == 0
    assert same_as_0_1(out, fmt, V1)
    assert snapshot(V1) == before  # no -wal, no -shm, no migration: readers never write


def same_as_0_1(out: str, fmt: str, folder: Path) -> bool:
    """The report says what 0.1 said: the same totals, cells and λ* (JSON), the same cell table (CSV's first table; the
    table's and markdown's text up to the collapse, which later versions show beside more analyses). The files hold 0.1's
    report as codebench renders it now, with each distinct instance counted once (0.1 counted Hanoi's one L1 and one L2 instance
    once per seed), the bounds the API errors put on the rates, and the PARTIAL mark they call for, which names the run's
    folder as given on the command line (`folder`; the files name it tests/codebench/data/v1_run)."""
    old = (V1 / f"report.{fmt}").read_text(encoding="utf-8")
    out = out.replace(str(folder), "tests/codebench/data/v1_run")
    if fmt == "json":
        data, expected = json.loads(out), json.loads(old)
        return {key: data[key] for key in expected} == expected
    if fmt == "csv":
        return out.split("\n\n")[0] == old.split("\n\n")[0]
    cut = "\n## Collapse thresholds" if fmt == "md" else "\ncollapse threshold"
    return out.startswith(old.split(cut)[0])


def test_a_writer_migrates_version_1_in_place_and_the_report_stays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = v1_copy(tmp_path)
    Store(folder / "run.sqlite").close()
    with sqlite3.connect(folder / "run.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT COUNT(*) FROM plan_samples").fetchone()[0] == 36
        assert db.execute("SELECT COUNT(*) FROM meta WHERE key = 'plan'").fetchone()[0] == 0
    for fmt in FORMATS:
        code, out, _ = run_cli(capsys, "report", str(folder), "--format", fmt)
        assert code == 0 and same_as_0_1(out, fmt, folder)


def test_a_version_1_run_resumes_without_redoing_finished_work(tmp_path: Path) -> None:
    """The same run again, now on this codebench: only the API errors are asked again; nothing is executed."""
    folder = v1_copy(tmp_path)
    reader = Store.for_reading(folder / "run.sqlite")
    plan, spec = reader.plan(), reader.document("spec")
    reader.close()
    assert plan is not None
    (base_url,) = set(plan.base_urls.values())  # version 1 kept one URL for the run
    run_spec = RunSpec(models=tuple(spec["models"]), base_url=base_url, puzzles=tuple(spec["puzzles"]),
                       levels=tuple(spec["levels"]), instances_per_level=spec["instances_per_level"], samples=spec["samples"],
                       temperature=spec["temperature"], max_tokens=spec["max_tokens"], seed=spec["seed"],
                       limits=Limits(**spec["limits"]), out=folder)
    chats = {model: FakeChat(model if model != "empty" else "oracle", fail=frozenset({0, 1, 2}) if model == "empty" else frozenset(),
                             base_url=base_url) for model in spec["models"]}
    simulated = Simulated()
    with FakeBackend(simulated, workers=2) as sandbox:
        run_plan(run_spec, chats, sandbox)
    assert {model: chat.calls for model, chat in chats.items()} == {model: 6 if model == "empty" else 0 for model in spec["models"]}
    assert simulated.total == 0
    report = Store.for_reading(folder / "run.sqlite")
    assert len(report.report_rows()) == 6 * 3 * (2 + 4)  # models × samples × distinct instances (Hanoi: one per level)
    report.close()


def test_a_newer_schema_is_refused_with_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = v1_copy(tmp_path)
    with sqlite3.connect(folder / "run.sqlite") as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(SchemaVersionError, match="newer codebench .*schema 99.* upgrade codebench"):
        Store.for_reading(folder / "run.sqlite")
    with pytest.raises(SchemaVersionError):
        Store(folder / "run.sqlite")
    code, _, err = run_cli(capsys, "report", str(folder))
    assert code == 2 and err.startswith("error:") and "newer codebench" in err


def test_a_schema_5_games_store_keeps_its_instruction_seats_tokens_and_counts_each_game_played_once(tmp_path: Path) -> None:
    """Version 6 records who sat in each seat and its tokens in each match record; a version 5 record had only the
    players' names, read once by the migration (in place for a writer, in memory for a reader)."""
    from codebench.run.store import PlannedMatch, StoredPlan

    path = tmp_path / "run.sqlite"
    planned = PlannedMatch("k", "cardnim", 1, 0, ("a (instruction)", "ref"))
    replies = [{"prompt_tokens": 10, "completion_tokens": 5, "reasoning_tokens": 2}, {"prompt_tokens": 12, "completion_tokens": 3}]
    record = {"seats": ["a (instruction) #1", "ref"], "kept": [{"turns": [{"replies": replies}]}, {}], "moves": [],
              "statuses": ["legal", "legal"], "outcome": {"scores": [1.0, 0.0], "results": ["win", "loss"]}}
    store = Store(path)
    store.record_plan(StoredPlan({}, Limits(), (), {}, (planned,)), [], {})
    store.add_match(planned, record, False)
    store.close()
    with sqlite3.connect(path) as db:  # back to version 5: no attempts, hedged or reply_sources column, no batches table,
        # no entries or usage in the record
        db.execute("ALTER TABLE matches DROP COLUMN attempts")
        db.execute("ALTER TABLE samples DROP COLUMN hedged")
        db.execute("ALTER TABLE samples DROP COLUMN reply_sources")
        db.execute("DROP TABLE batches")
        db.execute("DROP TABLE search_steps")
        db.execute("PRAGMA user_version = 5")
    expected = [SampleUsage("a", "instruction", "cardnim", 22, 8, 2, 2)]
    reader = Store.for_reading(path)
    assert reader.usage() == expected and reader.matches_settled(["k"], 3) == {"k"}
    reader.close()
    writer = Store(path)
    assert writer.usage() == expected and writer.game_rows()[0].record["entries"][0] == {
        "player": "a (instruction)", "model": "a", "mode": "instruction", "sample": 1}
    writer.add_match(planned, {**record, "usage": [None, None]}, True)  # played again, void this time
    assert writer.unplayed_games() == (1, 0) and writer.matches_settled(["k"], 2) == {"k"} and writer.matches_settled(["k"], 3) == set()
    writer.close()


def test_a_schema_6_store_gets_whether_each_reply_hedged_from_its_text_once(tmp_path: Path) -> None:
    """Version 7 stores whether a reply hedged, as the mode decided when it read it; a version 6 store's replies are read
    for it by the migration: in memory for a reader (the file untouched), in place for a writer."""
    path = tmp_path / "run.sqlite"
    store = Store(path)
    for key, text in (("sure", "The plan is below."), ("unsure", "I think this plan works, probably.")):
        store.add_sample(Sample(key, "m", "http://x/v1", "instruction", "hanoi", 0, "hanoi/L1/s0", "[]", Sampling(0.0, None, 0),
                                Completion(text, "stop", False, 5, 6, 0.1, None, None), Reading(Status.NO_ANSWER, "")))
    store.close()
    with sqlite3.connect(path) as db:  # back to version 6: no hedged or reply_sources column, no batches
        db.execute("ALTER TABLE samples DROP COLUMN hedged")
        db.execute("ALTER TABLE samples DROP COLUMN reply_sources")
        db.execute("DROP TABLE batches")
        db.execute("DROP TABLE search_steps")
        db.execute("PRAGMA user_version = 6")
    before = path.read_bytes()
    reader = Store.for_reading(path)
    assert {key: sample.reading.hedged for key, sample in reader.samples(["sure", "unsure"]).items()} == {
        "sure": False, "unsure": True}
    reader.close()
    assert path.read_bytes() == before
    Store(path).close()
    with sqlite3.connect(path) as db:
        assert dict(db.execute("SELECT key, hedged FROM samples")) == {"sure": 0, "unsure": 1}
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
