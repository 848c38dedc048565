"""Loading a run (`codebench.load_run`) and `codebench export`: the exported rows re-aggregate to exactly the report's
cells, totals, games, coverage and cost; every result the report does not count is a row that says why; the inspect_ai
log holds one sample per (model, mode, instance, sample); csv and parquet hold the rows of the JSON lines.

The runs are real (the pipeline with the mock model's replies and the fake sandbox backend, nothing run): both modes
and games, two runs joined under one game secret (their built-in games are the same games, counted once), api errors
injected, and a program run, a request and a game taken out of the store as an interrupted run leaves them."""

from __future__ import annotations

import json
import math
import sqlite3
import sys
from collections import Counter, defaultdict
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import codebench
from codebench.errors import InputError
from codebench.run.results import NOT_ASKED, NOT_PLAYED, NOT_RUN, VOID, RunExecution
from codebench.run.spec import RunSpec
from codebench.sandbox._fake import FakeBackend
from codebench.types import INFRASTRUCTURE_STATUSES, Completion, Status

from .cli import run_cli
from .fakes import Simulated, run_plan
from .test_html_report import MockChat

SECRET = "a shared game secret"


class FlakyChat(MockChat):
    """The mock model's replies, every ninth request an API error."""

    def __init__(self, behavior: str) -> None:
        super().__init__(behavior)
        self.calls = 0

    async def complete(self, messages: list[dict[str, str]], **sampling: Any) -> Completion:
        self.calls += 1
        if self.calls % 9 == 0:
            return Completion("", None, False, None, None, 0.0, None, "HTTP 400: injected")
        return await super().complete(messages, **sampling)


def build(out: Path, model: str) -> Path:
    """Both modes on two puzzles, cardnim against ref and random (code-mode games void: the fake sandbox has no player)."""
    spec = RunSpec(models=(model,), mode="both", puzzles=("hanoi", "waterjug"), levels=(1, 2), instances_per_level=2,
                   samples=2, format_retries=1, games=("cardnim",), opponents=("ref", "random"), game_secret=SECRET, out=out)
    with FakeBackend(Simulated(), workers=2) as sandbox:
        run_plan(spec, {model: FlakyChat(model)}, sandbox)  # type: ignore[dict-item]  # any chat with `complete` will do
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("export")
    first, second = build(folder / "a", "mixed"), build(folder / "b", "oracle")
    with closing(sqlite3.connect(first / "run.sqlite")) as db, db:  # what an interrupted run leaves out
        db.execute("DELETE FROM executions WHERE key = (SELECT key FROM executions ORDER BY key LIMIT 1)")
        db.execute("DELETE FROM samples WHERE key = (SELECT key FROM samples WHERE mode = 'code' ORDER BY key LIMIT 1)")
        db.execute("DELETE FROM matches WHERE key = (SELECT key FROM matches WHERE void = 0 AND players LIKE '%mixed%' "
                   "ORDER BY key LIMIT 1)")
    return first, second


def exported(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, list[dict[str, Any]]]:
    """`codebench export ARGV --to jsonl` on stdout, its rows by kind."""
    code, out, err = run_cli(capsys, "export", *argv, "--to", "jsonl")
    assert code == 0, err
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in out.splitlines():
        row = json.loads(line)
        rows[row.pop("kind")].append(row)
    return rows


def reported(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, "report", *argv, "--format", "json")
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_exported_rows_reaggregate_to_exactly_the_reports_cells(runs: tuple[Path, Path],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rows = exported(capsys, *map(str, runs))
    report = reported(capsys, *map(str, runs))
    executions = rows["executions"]
    reasons = Counter(row["not_counted"] for row in executions if row["not_counted"] is not None)
    assert {NOT_ASKED, NOT_RUN} <= set(reasons) and any(reason.startswith("api_error: ") for reason in reasons)
    cells: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for row in executions:
        cell = cells.setdefault((row["model"], row["mode"], row["puzzle"], row["level"]), {
            "status_counts": Counter(), "infra_counts": Counter(), "missing": 0, "instances": set()})
        if row["status"] is None:
            assert row["not_counted"] in (NOT_ASKED, NOT_RUN)
            cell["missing"] += 1
        elif row["status"] in INFRASTRUCTURE_STATUSES:
            assert row["not_counted"].startswith(f"{row['status']}: ")
            cell["infra_counts"][row["status"]] += 1
        else:
            assert row["not_counted"] is None
            cell["status_counts"][row["status"]] += 1
            cell["instances"].add(row["instance_id"])
    assert len(report["cells"]) == len(cells) > 8
    for found in report["cells"]:
        mine = cells[found["model"], found["mode"], found["puzzle"], found["level"]]
        executions_counted = sum(mine["status_counts"].values())
        assert (found["status_counts"], found["infra_counts"], found["missing"], found["instances"], found["executions"]) == (
            dict(mine["status_counts"]), dict(mine["infra_counts"]), mine["missing"], len(mine["instances"]), executions_counted)
        legal = mine["status_counts"][Status.LEGAL] / executions_counted if executions_counted else math.nan
        assert found["legal_rate"] == pytest.approx(legal, nan_ok=True)
    counted = [row for row in executions if row["not_counted"] is None]
    assert report["totals"]["executions"] == len(counted)
    assert report["totals"]["infra_counts"] == dict(Counter(row["status"] for row in executions
                                                            if row["status"] in INFRASTRUCTURE_STATUSES))


def test_exported_games_usage_and_coverage_are_the_reports(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rows = exported(capsys, *map(str, runs))
    report = reported(capsys, *map(str, runs))
    games = rows["games"]
    counted = [game for game in games if game["not_counted"] is None]
    assert report["games"]["games"] == len(counted)
    repeated = [game for game in games if (game["not_counted"] or "").startswith("counted with ")]
    assert repeated and all(set(game["players"]) == {"ref", "random"} and game["run"] == str(runs[1]) for game in repeated)
    seats: dict[tuple[str, int, str], list[tuple[float, str]]] = defaultdict(list)
    for game in counted:
        for player, score, status in zip(game["players"], game["scores"], game["statuses"]):
            seats[game["game"], game["level"], player].append((score, status))
    assert len(report["games"]["scores"]) == len(seats)
    for score in report["games"]["scores"]:
        mine = seats[score["game"], score["level"], score["player"]]
        assert score["games"] == len(mine) and score["raw"] == pytest.approx(sum(s for s, _ in mine) / len(mine))
        assert score["status_counts"] == dict(sorted(Counter(status for _, status in mine).items()))
    for run, coverage in zip(runs, report["coverage"]):
        mine = [game for game in games if game["run"] == str(run)]
        assert coverage["games_void"] == sum(game["void"] for game in mine) > 0
        assert all(game["not_counted"] == VOID and game["record"] is None for game in mine if game["void"])
        assert coverage["games_missing"] == sum(game["not_counted"] == NOT_PLAYED for game in mine)
        assert coverage["missing"] == sum(row["status"] is None for row in rows["executions"] if row["run"] == str(run))
    assert report["coverage"][0]["games_missing"] == 1
    total = next(line for line in report["costs"] if line["scope"] == "run")
    for name in ("requests", "uncounted", "prompt_tokens", "completion_tokens", "reasoning_tokens"):
        assert total[name] == sum(usage[name] for usage in rows["usage"]), name
    samples = rows["samples"]
    assert sum(sample["not_counted"] == NOT_ASKED for sample in samples) == 1
    judged = {(row["run"], row["sample_id"]) for row in rows["executions"]}
    strategies = [sample for sample in samples if (sample["run"], sample["sample_id"]) not in judged]
    assert judged <= {(sample["run"], sample["sample_id"]) for sample in samples}
    assert strategies and {(sample["mode"], sample["puzzle"]) for sample in strategies} == {("code", "cardnim")}


def test_the_inspect_log_holds_one_sample_per_model_mode_instance_and_sample(runs: tuple[Path, Path], tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from inspect_ai.log import read_eval_log

    folder = tmp_path / "logs"
    code, _, err = run_cli(capsys, "export", *map(str, runs), "--to", "inspect", "-o", str(folder))
    assert code == 0 and f"export written: 4 files in {folder}" in err, err
    loaded = codebench.load_run(runs)
    seen: Counter[tuple[str, str, str, int]] = Counter()
    for path in sorted(folder.iterdir()):
        log = read_eval_log(str(path))
        mode = log.eval.metadata["mode"]  # type: ignore[index]
        assert log.samples is not None and log.results is not None
        side = [row for row in loaded.executions if (row.model, row.mode) == (log.eval.model, mode)]
        counted = [row for row in side if row.not_counted is None]
        seen.update((log.eval.model, mode, str(sample.id), sample.epoch) for sample in log.samples)
        scores = Counter(sample.scores["legal"].value for sample in log.samples if sample.scores)
        assert scores == Counter({"C": sum(row.status == Status.LEGAL for row in counted),
                                  "I": sum(row.status != Status.LEGAL for row in counted)}) - Counter()
        assert log.results.completed_samples == len(counted) and log.results.total_samples == len(side) == len(log.samples)
        unscored = [sample for sample in log.samples if not sample.scores]
        assert all(sample.metadata["not_counted"] for sample in unscored)
    assert seen == Counter((row.model, row.mode, row.instance_id, row.sample + 1) for row in loaded.executions)
    assert max(seen.values()) == 1 and {mode for _, mode, _, _ in seen} == {"code", "instruction"}


def test_csv_and_parquet_hold_the_rows_of_the_json_lines(runs: tuple[Path, Path], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import pandas

    rows = exported(capsys, str(runs[0]))
    for fmt, read in (("csv", pandas.read_csv), ("parquet", pandas.read_parquet)):
        code, _, err = run_cli(capsys, "export", str(runs[0]), "--to", fmt, "-o", str(tmp_path / fmt))
        assert code == 0, err
        for kind, found in rows.items():
            frame = read(tmp_path / fmt / f"{kind}.{fmt}")
            assert list(frame.columns) == list(found[0]) and len(frame) == len(found), (fmt, kind)
        statuses = read(tmp_path / fmt / f"executions.{fmt}")["status"]
        assert Counter(statuses.dropna()) == Counter(row["status"] for row in rows["executions"] if row["status"] is not None)
        players = read(tmp_path / fmt / f"games.{fmt}")["players"]
        assert [json.loads(value) for value in players] == [row["players"] for row in rows["games"]]


def test_the_api_loads_typed_rows_and_frames_and_joins_as_the_report(runs: tuple[Path, Path]) -> None:
    loaded = codebench.load_run(runs)
    assert loaded.runs == tuple(map(str, runs)) and isinstance(loaded.executions[0], RunExecution)
    frames = loaded.to_pandas()
    assert set(frames) == {"samples", "executions", "games", "usage", "instances", "steps"}
    frame = frames["executions"]
    counted = frame[frame.not_counted.isna()]
    assert len(counted) == sum(row.not_counted is None for row in loaded.executions) > 0
    assert list(codebench.load_run(runs[1]).frame("games").columns) == list(frames["games"].columns)
    with pytest.raises(InputError, match="is given twice"):
        codebench.load_run([runs[0], runs[0]])
    with pytest.raises(InputError, match="not a kind of rows"):
        loaded.frame("cells")


def test_a_frame_without_pandas_names_the_extra(runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = codebench.load_run(runs[1])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(InputError, match=r"pip install codebench-puzzles\[export\]"):
        loaded.frame("samples")
