"""What a report did not count, and why: the bound unresolved infrastructure failures put on each legal rate, the
planned results not run, the PARTIAL mark of a cell, a run and a joined report in every format and figure, and the
levels whose seeds drew fewer distinct instances than asked. Every number here is worked by hand."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from codebench.analysis.html import render_html
from codebench.analysis.metrics import cell_metrics
from codebench.analysis.plots import figure_svgs
from codebench.analysis.report import RERUN, RunScope, build_report, fewer_instances, render_report
from codebench.model.mock_server import THINKER, start_mock_server
from codebench.types import ExecutionRow, InstanceFacts, PlannedCell

from .cli import run_cli


def row(model: str, level: int, instance: str, sample: int, status: str, mode: str = "code") -> ExecutionRow:
    return ExecutionRow(model, mode, "hanoi", level, instance, sample, status, "", float(level + 2))


# Run "a": model m, hanoi L1 complete (4 results, 3 legal); L2 planned 6, stored 2 judged (1 legal) + 2 api_error, so 2
# missing; L3 planned 2, nothing stored. Run "b": model n, hanoi L1 complete (2 results, 2 legal).
A_ROWS = [row("m", 1, "h1a", 0, "legal"), row("m", 1, "h1a", 1, "legal"), row("m", 1, "h1b", 0, "legal"),
          row("m", 1, "h1b", 1, "rule_violation"),
          row("m", 2, "h2a", 0, "legal"), row("m", 2, "h2a", 1, "timeout"), row("m", 2, "h2b", 0, "api_error"),
          row("m", 2, "h2b", 1, "api_error")]
B_ROWS = [row("n", 1, "h1a", 0, "legal"), row("n", 1, "h1a", 1, "legal")]
A_PLAN = RunScope("runs/a", (PlannedCell("m", "code", "hanoi", 1, 4), PlannedCell("m", "code", "hanoi", 2, 6),
                             PlannedCell("m", "code", "hanoi", 3, 2)), games_void=1)
B_PLAN = RunScope("runs/b", (PlannedCell("n", "code", "hanoi", 1, 2),))


@pytest.fixture(scope="module")
def joined():
    return build_report(A_ROWS + B_ROWS, [1], boot=0, scopes=[A_PLAN, B_PLAN])


def test_a_cell_keeps_its_infrastructure_failures_their_bound_and_what_is_missing() -> None:
    one, two, three = cell_metrics(A_ROWS, [1], A_PLAN.planned)
    assert (one.legal_rate, one.legal_low, one.missing, one.partial) == (0.75, 0.75, 0, False)
    assert (two.executions, two.legal_rate, two.legal_low, two.infra_counts, two.missing) == (2, 0.5, 0.25, {"api_error": 2}, 2)
    assert two.partial and two.instances == 1  # h2b has no judged result
    assert (three.level, three.executions, three.missing, three.partial) == (3, 0, 2, True)  # planned, nothing stored
    assert math.isnan(three.legal_rate) and math.isnan(three.legal_low)
    without_plan = cell_metrics(A_ROWS, [1])
    assert [c.level for c in without_plan] == [1, 2] and without_plan[1].missing == 0 and without_plan[1].partial


def test_each_run_of_a_joined_report_says_what_it_did_not_count(joined) -> None:
    a, b = joined.coverage
    assert (a.run, a.infra_counts, a.missing, a.games_void, a.games_missing) == ("runs/a", {"api_error": 2}, 4, 1, 0)
    assert a.cells == (("m", "code", "hanoi", 2), ("m", "code", "hanoi", 3)) and a.partial
    assert (b.run, b.infra_counts, b.missing, b.cells, b.partial) == ("runs/b", {}, 0, (), False)
    assert joined.partial
    assert a.describe() == ("runs/a: 2 results unresolved (api_error:2), 4 planned results not run, 1 game void in 2 cells "
                            "(m · code: hanoi L2 L3)")
    assert (joined.totals.legal_rate, joined.totals.legal_low) == (6 / 8, 6 / 10)


def test_every_format_marks_the_partial_report_first_and_shows_the_bounds(joined) -> None:
    first = f"codebench report: PARTIAL: {joined.coverage[0].describe()}. To finish: {RERUN}"
    table = render_report(joined, "table").splitlines()
    assert table[0] == first and "runs/b" not in table[0]
    assert table[1].startswith("8 executions, legal rate 0.750 [0.600–0.750]; infrastructure failures, not counted: api_error:2")
    line = next(text for text in table if text.startswith("hanoi       2"))
    assert "0.500 [0.250–0.500]" in line and line.endswith("api_error:2 missing:2")
    assert next(text for text in table if text.startswith("hanoi       3")).endswith("missing:2")

    md = render_report(joined, "md").splitlines()
    assert md[0] == "# codebench report (PARTIAL)" and md[2] == first
    assert any("| 0.500 [0.250–0.500] |" in text for text in md)

    text = render_report(joined, "csv")
    cells = list(csv.DictReader(io.StringIO(text.split("\n\n")[0])))
    assert [(c["model"], c["level"], c["legal_rate_low"], c["missing"], c["partial"]) for c in cells] == [
        ("m", "1", "0.75", "0", "0"), ("m", "2", "0.25", "2", "1"), ("m", "3", "", "2", "1"), ("n", "1", "1.0", "0", "0")]
    coverage = list(csv.reader(io.StringIO(text.split("section:coverage\n")[1].split("\n\n")[0])))
    assert coverage == [["run", "partial", "sandbox_error", "api_error", "missing", "games_void", "games_missing", "cells",
                         "searches_unfinished"],
                        ["runs/a", "1", "0", "2", "4", "1", "0", "m · code: hanoi L2 L3", ""],
                        ["runs/b", "0", "0", "0", "0", "0", "0", "", ""]]

    data = json.loads(render_report(joined, "json"))
    assert list(data)[0] == "partial" and data["partial"] is True
    assert [c["partial"] for c in data["cells"]] == [False, True, True, False]
    assert [(run["run"], run["partial"]) for run in data["coverage"]] == [("runs/a", True), ("runs/b", False)]

    page = render_html(joined, [], {})
    assert "<h1>codebench report (PARTIAL)</h1>" in page and '<p class="summary partial">codebench report: PARTIAL: ' in page


def test_the_figures_of_a_partial_report_say_so_and_draw_the_bound(joined) -> None:
    svg = figure_svgs(joined)["legal_rate_vs_lambda"]
    assert "PARTIAL" in svg and "▽ with unresolved infrastructure failures counted as failures" in svg
    complete = build_report(B_ROWS, [1], boot=0, scopes=[B_PLAN])
    assert all("PARTIAL" not in markup for markup in figure_svgs(complete).values())


def test_a_complete_report_says_nothing_of_the_kind() -> None:
    report = build_report(B_ROWS, [1], boot=0, scopes=[B_PLAN])
    assert not report.partial
    assert render_report(report, "table").startswith("codebench report: 2 executions, legal rate 1.000\n")
    assert render_report(report, "md").startswith("# codebench report\n")
    assert json.loads(render_report(report, "json"))["partial"] is False


def test_a_games_run_with_void_or_unplayed_games_is_partial() -> None:
    report = build_report([], [1], boot=0, scopes=[RunScope("runs/g", (), games_void=0, games_missing=3)])
    assert report.partial and report.coverage[0].describe() == "runs/g: 3 planned games not played"


def test_levels_with_fewer_distinct_instances_than_seeds_are_named(tmp_path: Path) -> None:
    facts = [InstanceFacts("hanoi", 1, "hanoi/L1/s0", {}, ("hanoi/L1/s1", "hanoi/L1/s2")),
             InstanceFacts("hanoi", 4, "hanoi/L4/s0", {}), InstanceFacts("hanoi", 4, "hanoi/L4/s1", {}),
             InstanceFacts("hanoi", 4, "hanoi/L4/s2", {}),
             InstanceFacts("checkers", 2, "checkers/L2/s0", {}, ("checkers/L2/s1",)),
             InstanceFacts("checkers", 2, "checkers/L2/s0", {}, ("checkers/L2/s1",))]  # a joined report lists it twice
    found = [(f.puzzle, f.level, f.distinct, f.seeds) for f in fewer_instances(facts)]
    assert found == [("checkers", 2, 1, 2), ("hanoi", 1, 1, 3)]
    report = build_report([], [1], boot=0, facts=facts)
    assert ("fewer distinct instances than seeds (each counted once): checkers L2 1 of 2, hanoi L1 1 of 3"
            in render_report(report, "table").splitlines())


def test_a_run_whose_hardest_level_times_out_is_partial_until_a_rerun_resolves_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow reasoning model: the thinker thinks 0.3 s per 1000 prompt characters, so SAT's L4-L6 prompts (about 10.7k,
    15.7k and 25.3k characters) take about 3.2 s, 4.7 s and 7.6 s. A 6 s deadline leaves L6 unresolved: the run exits 5
    and every format says PARTIAL and shows the bound; the same command without the deadline resolves it and both go."""
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # instruction mode runs no program
    out = tmp_path / "run"
    options = ("run", "--mode", "instruction", "--model", THINKER, "--puzzles", "sat", "--levels", "4-6",
               "--instances-per-level", "1", "--samples", "2", "--max-retries", "0", "--out", str(out))
    with start_mock_server(think_s=0.0, think_per_kchar_s=0.3, chunk_interval_s=0.1) as server:
        code, _, err = run_cli(capsys, *options, "--base-url", server.url, "--request-timeout", "6")
        said = " ".join(err.split())
        assert code == 5, err
        assert f"the run is partial: {out}: 2 results unresolved (api_error:2) in 1 cell ({THINKER} · instruction: sat L6)" in said
        formats = {fmt: run_cli(capsys, "report", str(out), "--format", fmt)[1] for fmt in ("table", "md", "csv", "json")}
        assert formats["table"].startswith(f"codebench report: PARTIAL: {out}: 2 results unresolved")
        assert "4 executions, legal rate 1.000 [0.667–1.000]" in formats["table"]
        assert formats["md"].startswith("# codebench report (PARTIAL)\n") and "legal rate 1.000 [0.667–1.000]" in formats["md"]
        cells = list(csv.DictReader(io.StringIO(formats["csv"].split("\n\n")[0])))
        assert [(c["level"], c["legal_rate"], c["legal_rate_low"], c["api_error"], c["partial"]) for c in cells] == [
            ("4", "1.0", "1.0", "0", "0"), ("5", "1.0", "1.0", "0", "0"), ("6", "", "0.0", "2", "1")]
        data = json.loads(formats["json"])
        assert data["partial"] is True and data["totals"]["legal_low"] == pytest.approx(4 / 6)
        assert data["cells"][2]["infra_counts"] == {"api_error": 2} and data["cells"][2]["partial"] is True

        code, _, err = run_cli(capsys, *options, "--base-url", server.url, "--request-timeout", "0")  # no deadline
        assert code == 0, err
    table = run_cli(capsys, "report", str(out))[1]
    assert table.startswith("codebench report: 6 executions, legal rate 1.000\n") and "PARTIAL" not in table and "[" not in table
    data = json.loads(run_cli(capsys, "report", str(out), "--format", "json")[1])
    assert data["partial"] is False and [c["partial"] for c in data["cells"]] == [False] * 3
    assert all(c["partial"] == "0" for c in csv.DictReader(io.StringIO(
        run_cli(capsys, "report", str(out), "--format", "csv")[1].split("\n\n")[0])))
