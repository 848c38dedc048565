"""The report of an adaptive run (`codebench run --adaptive`): its `adaptive` section recomputes each search's figures with
the run's own design, counts an infrastructure failure apart, says why each search stopped and what the fixed grid would
have spent (simulated), marks the report PARTIAL while a search is unfinished, renders in every format, and the HTML
page draws each search.

The stores are filled here as the runner fills them (`Store.add_step`, the spec as `RunSpec.to_json`); the outcomes are
those of made-up models that follow the design's own choices, so each search is one the runner could have stored.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from codebench.adaptive import AdaptiveDesign, AskedPoint, grid_cost
from codebench.analysis.plots import figure_svgs
from codebench.analysis.report import RERUN, RunScope, build_report, headline, render_report
from codebench.analysis.searches import GRID_CAP, GRID_REPETITIONS, UNFINISHED, RunSearches
from codebench.reports import read_report
from codebench.run.spec import RunSpec
from codebench.run.store import Store, StoredPlan
from codebench.types import Limits, ModeName, SearchStep, Status
from puzzles import get_puzzle

from .cli import run_cli

TARGET = 2.0
BUDGET = 11
Search = Sequence[tuple[int, Status]]  # the steps of one search: (λ, status), in the order asked


def follow(puzzle: str, legal: Callable[[int], bool], *, api_error_at: int | None = None, steps: int | None = None) -> Search:
    """The steps the design takes on a model that is legal where `legal(λ)` says, until it is done (or after `steps`); the
    result at step `api_error_at` failed outside the model: the design ignores it and asks again."""
    axis = get_puzzle(puzzle).complexity_axis()
    design = AdaptiveDesign(axis.lowest, axis.highest)
    asked: list[AskedPoint] = []
    found: list[tuple[int, Status]] = []
    while not design.done(asked, TARGET, BUDGET) and (steps is None or len(found) < steps):
        lam = design.next_point(asked)
        if len(found) == api_error_at:
            found.append((lam, Status.API_ERROR))
            continue
        found.append((lam, Status.LEGAL if legal(lam) else Status.RULE_VIOLATION))
        asked.append(AskedPoint(lam, int(legal(lam)), 1))
    return found


def adaptive_run(folder: Path, searches: Mapping[tuple[str, str, str], Search], *, models: tuple[str, ...] = ("m",),
                 puzzles: tuple[str, ...] = ("hanoi",)) -> Path:
    """A run directory as `codebench run --adaptive --mode code` leaves it: its spec, and each search's steps."""
    store = Store(folder / "run.sqlite")
    spec = RunSpec(models=models, puzzles=puzzles, mode=str(ModeName.CODE), adaptive=True, target_width=TARGET,
                   search_budget=BUDGET, out=folder)
    store.record_plan(StoredPlan({}, Limits(), (), {}), [], {"spec": spec.to_json()})
    for (model, mode, puzzle), steps in searches.items():
        for step, (lam, status) in enumerate(steps):
            record = get_puzzle(puzzle).generate(complexity=lam, seed=step)
            store.add_step(SearchStep(model, mode, puzzle, step, lam, record.id, f"{model}/{puzzle}/{step}", status), record,
                           float(lam))
    store.close()
    return folder


def counted_points(steps: Search) -> list[AskedPoint]:
    return [AskedPoint(lam, int(status == Status.LEGAL), 1) for lam, status in steps if not status.is_infrastructure]


def asked(steps: Search) -> str:
    """"4:1/1 6:4/4 …": each complexity asked, in λ order, with its legal results of those counted."""
    points = counted_points(steps)
    return " ".join(f"{lam}:{sum(p.legal for p in points if p.complexity == lam)}/{sum(p.complexity == lam for p in points)}"
                    for lam in sorted({lam for lam, _ in steps}))


CODE = str(ModeName.CODE)
STEEP = follow("hanoi", lambda lam: lam <= 6, api_error_at=2)  # reaches the width: legal up to 6, failing from 7
NOISY_RIVER = follow("river", lambda lam: lam % 2 == 0)  # spends the budget: legal at every even λ


def test_each_search_s_figures_are_its_design_s_and_the_grid_is_simulated_on_its_fitted_curve(tmp_path: Path) -> None:
    folder = adaptive_run(tmp_path / "run", {("m", CODE, "hanoi"): STEEP})
    (search,) = read_report(folder).report.searches
    design = AdaptiveDesign(1, 24)
    points = counted_points(STEEP)
    estimate = design.estimate(points)
    assert len(STEEP) == len(points) + 1 and STEEP[2][1] == Status.API_ERROR
    assert (search.run, search.model, search.mode, search.puzzle, search.axis) == (str(folder), "m", CODE, "hanoi", "n")
    assert (search.lambda_star, search.low, search.high, search.width) == (*estimate, estimate.width)
    assert 5 < search.lambda_star < 8 and search.width < TARGET
    assert (search.counted, search.not_counted, search.stop) == (len(points), {"api_error": 1}, "width")
    assert " ".join(f"{lam}:{legal}/{n}" for lam, legal, n in search.points) == asked(STEEP)

    levels = [[3], [4], [5, 6], [7, 8], [9, 10], [12, 13, 14, 15]]  # hanoi's bands, written out
    curve = design.posterior(points).curve(design.candidates)
    cap = GRID_CAP * len(points)
    grid = grid_cost(design, dict(zip(range(1, 25), map(float, curve))), levels, TARGET, cap, repetitions=GRID_REPETITIONS, seed=0)
    assert (search.grid_width, search.grid_cap, search.grid_counted, search.grid_reached) == (TARGET, cap, *grid)
    assert search.ratio == search.counted / grid.counted


def test_a_finished_run_is_complete_and_says_why_each_search_stopped(tmp_path: Path) -> None:
    folder = adaptive_run(tmp_path / "run", {("m", CODE, "hanoi"): STEEP, ("m", CODE, "river"): NOISY_RIVER},
                          puzzles=("hanoi", "river"))
    report = read_report(folder).report
    assert not report.partial and headline(report).startswith("codebench report: ") and "PARTIAL" not in headline(report)
    assert [(s.puzzle, s.stop, s.counted) for s in report.searches] == [("hanoi", "width", len(STEEP) - 1),
                                                                                  ("river", "budget", BUDGET)]
    assert report.searches[1].width >= TARGET and report.searches[1].grid_width == report.searches[1].width


def test_an_unfinished_search_makes_the_report_partial_and_names_it(tmp_path: Path) -> None:
    """Interrupted after three steps of hanoi (the third failed outside the model) and before river's first: both searches
    are unfinished, and so is the report until the command runs again."""
    started = follow("hanoi", lambda lam: lam <= 6, api_error_at=2, steps=3)
    folder = adaptive_run(tmp_path / "run", {("m", CODE, "hanoi"): started}, puzzles=("hanoi", "river"))
    report = read_report(folder).report
    hanoi, river = report.searches
    assert (hanoi.stop, hanoi.counted, hanoi.not_counted) == (UNFINISHED, 2, {"api_error": 1})
    assert f"{started[2][0]}:" in render_report(report, "table", "adaptive")
    assert (river.puzzle, river.stop, river.counted, river.points) == ("river", UNFINISHED, 0, ())
    assert hanoi.grid_counted > 0
    assert math.isnan(river.grid_counted) and math.isnan(river.ratio)  # nothing counted: no curve to simulate the grid on
    assert report.partial
    assert headline(report) == (f"codebench report: PARTIAL: {folder}: 2 adaptive searches unfinished (m · code: hanoi, river). "
                                f"To finish: {RERUN}")
    data = json.loads(render_report(report, "json"))
    assert data["partial"] is True and data["coverage"][0]["searches"] == [["m", CODE, "hanoi"], ["m", CODE, "river"]]
    assert [search["stop"] for search in data["searches"]] == [UNFINISHED, UNFINISHED]


def test_an_api_error_alone_at_a_complexity_is_shown_asked_and_not_counted(tmp_path: Path) -> None:
    started = follow("hanoi", lambda lam: lam <= 6, api_error_at=2, steps=3)
    folder = adaptive_run(tmp_path / "run", {("m", CODE, "hanoi"): started})
    (search,) = read_report(folder).report.searches
    lam = started[2][0]
    assert lam not in {step[0] for step in started[:2]}  # the design had not asked there before
    assert AskedPoint(lam, 0, 0) in search.points
    row = next(line for line in render_report(read_report(folder).report, "table").splitlines() if line.startswith(str(folder)))
    assert "api_error:1" in row and f"{lam}:0/0" in row and UNFINISHED in row


def test_every_format_shows_the_section_and_a_run_without_searches_shows_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = adaptive_run(tmp_path / "run", {("m", CODE, "hanoi"): STEEP, ("m", CODE, "river"): NOISY_RIVER},
                          puzzles=("hanoi", "river"))
    report = read_report(folder).report
    table = render_report(report, "table")
    assert "adaptive searches (codebench run --adaptive)" in table and "SIMULATED" in table
    assert "adaptive searches" in render_report(report, "table", brief=True)
    md = render_report(report, "md")
    assert "## adaptive" in md and "| run | model | mode | puzzle | stop |" in md
    text = render_report(report, "csv")
    rows = list(csv.DictReader(io.StringIO(text.split("section:adaptive\n")[1].split("\n\n")[0])))
    assert [(row["puzzle"], row["stop"], float(row["lambda_star"]), int(row["counted"])) for row in rows] == [
        (s.puzzle, s.stop, s.lambda_star, s.counted) for s in report.searches]
    assert rows[0]["not_counted.api_error"] == "1" and rows[1]["not_counted.api_error"] == ""
    data = json.loads(render_report(report, "json"))
    assert [(s["puzzle"], s["stop"], s["lambda_star"]) for s in data["searches"]] == [
        (s.puzzle, s.stop, s.lambda_star) for s in report.searches]
    for fmt in ("table", "md", "csv", "json"):
        alone = render_report(report, fmt, "adaptive")
        assert "hanoi" in alone and "river" in alone
    assert json.loads(render_report(report, "json", "adaptive"))["records"][0]["asked"] == asked(STEEP)

    code, out, err = run_cli(capsys, "report", str(folder), "--section", "adaptive")
    assert (code, err) == (0, "") and out.startswith("adaptive searches") and "width" in out

    plain = build_report([], [1])
    assert plain.searches == () and "adaptive" not in render_report(plain, "table") + render_report(plain, "md")
    assert "section:adaptive" not in render_report(plain, "csv")


def test_runs_reported_together_key_their_searches_by_run(tmp_path: Path) -> None:
    done = adaptive_run(tmp_path / "a", {("a", CODE, "hanoi"): STEEP}, models=("a",))
    cut = adaptive_run(tmp_path / "b", {("b", CODE, "hanoi"): STEEP[:4]}, models=("b",))
    report = read_report([done, cut]).report
    assert [(s.run, s.model, s.stop) for s in report.searches] == [(str(done), "a", "width"), (str(cut), "b", UNFINISHED)]
    assert [run.partial for run in report.coverage] == [False, True]
    assert headline(report).startswith(f"codebench report: PARTIAL: {cut}: 1 adaptive search unfinished (b · code: hanoi). ")
    assert str(done) not in headline(report)


def test_the_html_page_draws_each_search_the_same_every_time(tmp_path: Path) -> None:
    folder = adaptive_run(tmp_path / "run", {("m", CODE, "hanoi"): STEEP, ("m", CODE, "river"): NOISY_RIVER},
                          puzzles=("hanoi", "river"))
    read = read_report(folder, samples=True)
    page = read.html()
    assert 'id="plot-adaptive_searches"' in page and 'id="analysis-adaptive"' in page
    svg = figure_svgs(read.report)["adaptive_searches"]
    assert svg == figure_svgs(read_report(folder).report)["adaptive_searches"]
    assert svg.count("<!-- hanoi") == 1 and svg.count("<!-- river") == 1  # matplotlib keeps each title's text as a comment
    assert "adaptive_searches" not in figure_svgs(build_report([], [1]))


def test_a_spec_codebench_did_not_write_leaves_the_searches_undecided_never_refused() -> None:
    """A spec without a usable width or budget cannot say whether a search is over: its searches are shown, stop "-",
    and the report is not marked PARTIAL for them; names it does not know are searches this codebench cannot read."""
    spec = {"adaptive": True, "mode": ["x"], "models": [{"label": "m"}, 7], "puzzles": ["hanoi", 3, "nope"],
            "target_width": "wide", "search_budget": True}
    found = RunSearches.of("runs/x", spec, [SearchStep("m", CODE, "hanoi", 0, 12, "hanoi/c12/s0", "k", Status.LEGAL)])
    assert found is not None and found.budget == -1 and math.isnan(found.target_width)
    assert sorted(found.asked) == sorted((model, str(mode), puzzle) for model in ("m", "7") for mode in ModeName
                                         for puzzle in ("hanoi", "nope"))
    report = build_report([], [1], scopes=[RunScope("runs/x", (), searches=found)])
    assert not report.partial and {s.stop for s in report.searches} == {None}
    hanoi = next(s for s in report.searches if (s.model, s.mode, s.puzzle) == ("m", CODE, "hanoi"))
    assert hanoi.counted == 1 and hanoi.lambda_star > 12 and math.isnan(next(s for s in report.searches if s.puzzle == "nope").low)
    assert "nope" in render_report(report, "table", "adaptive")
    assert RunSearches.of("runs/y", {"adaptive": False}, []) is None and RunSearches.of("runs/y", None, []) is None
