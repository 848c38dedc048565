"""The report: totals, and the same metrics rendered as a plain-text table (golden), markdown, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import fields

import pytest

from codebench.analysis.metrics import ExecutionRow
from codebench.analysis.report import REGISTRY, SECTIONS, Report, ReportSection, Sources, build_report, render_report
from codebench.errors import InputError


def r(puzzle: str, level: int, instance: str, sample: int, status: str, complexity: float | None,
      model: str = "m") -> ExecutionRow:
    return ExecutionRow(model, "code", puzzle, level, instance, sample, status, "", complexity)


ROWS = [
    r("hanoi", 1, "h1a", 0, "legal", 3.0), r("hanoi", 1, "h1a", 1, "legal", 3.0),
    r("hanoi", 1, "h1b", 0, "legal", 3.0), r("hanoi", 1, "h1b", 1, "rule_violation", 3.0),
    r("hanoi", 2, "h2a", 0, "rule_violation", 4.0), r("hanoi", 2, "h2a", 1, "runtime_error", 4.0),
    r("hanoi", 2, "h2b", 0, "legal", 4.0), r("hanoi", 2, "h2b", 1, "sandbox_error", 4.0),
    r("sat", 1, "s1a", 0, "timeout", None), r("sat", 1, "s1a", 1, "api_error", None),
    r("sat", 2, "s2a", 0, "api_error", None),  # a cell where nothing ran
]

GOLDEN_TABLE = """\
codebench report: PARTIAL: 3 results unresolved (sandbox_error:1 api_error:2). To finish: run the same `codebench run` command again (same --out) to retry what is missing; finished work is kept
8 executions, legal rate 0.500 [0.364–0.500]; infrastructure failures, not counted: sandbox_error:1 api_error:2; in brackets: the legal rate with the unresolved results counted as failures

m · code
puzzle  level  λ  inst  n  exec                legal  pass@1  pass@2  any-legal  best-sample  failures                          not counted
hanoi       1  3     2  2     4                0.750   0.750   1.000      1.000        1.000  rule_violation:1                  -
hanoi       2  4     2  2     3  0.333 [0.250–0.333]   0.500       -      0.500        0.500  rule_violation:1 runtime_error:1  sandbox_error:1
sat         1  1     1  1     1  0.000 [0.000–0.000]   0.000       -      0.000        0.000  timeout:1                         api_error:1
sat         2  -     0  0     0                    -       -       -          -            -  -                                 api_error:1

collapse: λ* (steepest decline per unit λ, 95% bootstrap interval over instances), the breakpoint λ of a two-segment fit with its slopes, the highest level passed at a rate of at least 0.8, and the legal rate of the regimes L1-2, L3-4, L5+
model  mode  puzzle          λ*    interval  breakpoint  slope before  slope after  reliable ≥0.8   L1-2  L3-4  L5+
m      code  hanoi          3.5  [3.5, 3.5]           -             -            -              -  0.571     -    -
m      code  sat     no decline           -           -             -            -              -  0.000     -    -

global mean legal rate by level (unweighted over model × mode × puzzle)
level  groups  mean legal
    1       2       0.375
    2       1       0.333

failure modes of the non-legal results (the first seed's taxonomy; the rules are in the README)
model  mode  puzzle  level  failures  confident_error  runtime_error  timeout
m      code  hanoi       1         1                1              0        0
m      code  hanoi       2         2                1              1        0
m      code  sat         1         1                0              0        1

cross-task success matrix: the legal rate of each model and mode on each puzzle, all levels
model  mode  hanoi    sat
m      code  0.571  0.000

does success on one puzzle predict success on another: Pearson r of the per-level legal rates over the (model, mode, level) cells both have, 95% Fisher-z interval
puzzle a  puzzle b  pairs  r  interval
hanoi     sat           1  -         -

token length vs correctness: point-biserial r between passing and the token count
model  mode  rows  r completion  r reasoning
m      code     8             -            -

any-legal: oracle best-of-n, the fraction of instances where any sample is legal
best-sample: PuzzlePlex's best-of-n, the best single sample's mean legal rate over instances
pass@k: unbiased estimator over each instance's samples, shown when every instance has k or more
"""


@pytest.fixture(scope="module")
def report() -> Report:
    return build_report(ROWS, ks=[2, 1, 2], boot=200)


def test_totals_count_infrastructure_apart(report: Report) -> None:
    totals = report.totals
    assert (totals.rows, totals.executions, totals.legal_rate) == (11, 8, 0.5)
    assert totals.status_counts == {"legal": 4, "rule_violation": 2, "runtime_error": 1, "timeout": 1}
    assert totals.infra_counts == {"sandbox_error": 1, "api_error": 2}
    assert report.ks == (1, 2)
    assert [(c.puzzle, c.level) for c in report.cells] == [("hanoi", 1), ("hanoi", 2), ("sat", 1), ("sat", 2)]


def test_table_golden(report: Report) -> None:
    assert render_report(report, "table") == GOLDEN_TABLE


def test_table_shows_every_cells_legal_rate() -> None:
    rows = [r("hanoi", level, f"i{level}/{i}", 0, "legal" if i < level else "timeout", None, model=model)
            for model in ("a", "b") for level in range(1, 4) for i in range(7)]
    report = build_report(rows, ks=[1], boot=20)
    text = render_report(report, "table")
    assert "a · code" in text and "b · code" in text
    for cell in report.cells:
        line = next(line for line in text.splitlines() if line.startswith(f"hanoi       {cell.level}"))
        assert f"{cell.legal_rate:.3f}" in text and f"{cell.level / 7:.3f}" in line


def test_markdown_has_github_tables(report: Report) -> None:
    lines = render_report(report, "md").splitlines()
    header = ("| model | mode | puzzle | level | λ | inst | n | exec | legal | pass@1 | pass@2 | any-legal | best-sample"
              " | failures | not counted |")
    assert lines[0] == "# codebench report (PARTIAL)"
    assert lines[2].startswith("codebench report: PARTIAL: 3 results unresolved (sandbox_error:1 api_error:2). To finish: ")
    at = lines.index(header)
    assert lines[at + 1] == "|" + "---|" * 15
    assert lines[at + 3] == ("| m | code | hanoi | 2 | 4 | 2 | 2 | 3 | 0.333 [0.250–0.333] | 0.500 | - | 0.500 | 0.500"
                             " | rule_violation:1 runtime_error:1 | sandbox_error:1 |")
    assert "| m | code | hanoi | 3.5 | [3.5, 3.5] | - | - | - | - | 0.571 | - | - |" in lines
    assert "| m | code | sat | no decline | - | - | - | - | - | 0.000 | - | - |" in lines


def test_markdown_escapes_pipes_in_names() -> None:
    text = render_report(build_report([r("hanoi", 1, "a", 0, "legal", None, model="x|y")], ks=[1], boot=0), "md")
    assert "| x\\|y | code | hanoi | 1 |" in text


def test_csv_parses_back_with_one_row_per_cell(report: Report) -> None:
    rows = list(csv.DictReader(io.StringIO(render_report(report, "csv").split("\n\n")[0])))  # the cells: the first table
    assert list(rows[0]) == ["model", "mode", "puzzle", "level", "mean_complexity", "instances", "samples", "executions",
                             "legal_rate", "legal_rate_low", "pass@1", "pass@2", "oracle_best_of_n", "best_sample_mean", "legal",
                             "rule_violation", "runtime_error", "syntax_error", "timeout", "no_code", "no_answer", "sandbox_error",
                             "api_error", "missing", "partial", "lambda_star", "lambda_low", "lambda_high"]
    assert len(rows) == len(report.cells) == 4
    hanoi2 = rows[1]
    assert (hanoi2["puzzle"], hanoi2["level"], hanoi2["executions"]) == ("hanoi", "2", "3")
    assert float(hanoi2["legal_rate"]) == 1 / 3 and float(hanoi2["legal_rate_low"]) == 1 / 4  # full precision
    assert (hanoi2["pass@2"], hanoi2["sandbox_error"], hanoi2["lambda_star"], hanoi2["partial"]) == ("", "1", "3.5", "1")
    assert rows[0]["partial"] == "0"
    empty = rows[3]
    assert (empty["legal_rate"], empty["legal_rate_low"], empty["api_error"], empty["instances"], empty["lambda_star"]) == \
        ("", "0.0", "1", "0", "")


def test_csv_gets_a_column_for_a_status_it_does_not_know() -> None:
    report = build_report([r("hanoi", 1, "a", 0, "legal", None), r("hanoi", 1, "a", 1, "refused", None)], ks=[1], boot=0)
    header = render_report(report, "csv").splitlines()[0].split(",")
    assert header[header.index("no_answer") + 1] == "refused"
    assert report.cells[0].status_counts == {"legal": 1, "refused": 1}


def test_json_round_trips_with_everything(report: Report) -> None:
    text = render_report(report, "json")
    data = json.loads(text)
    assert json.dumps(data, indent=2, ensure_ascii=False) + "\n" == text
    assert data["ks"] == [1, 2]
    assert data["cells"][1] == {
        "model": "m", "mode": "code", "puzzle": "hanoi", "level": 2, "instances": 2, "samples": 2, "executions": 3,
        "legal_rate": 1 / 3, "status_counts": {"legal": 1, "rule_violation": 1, "runtime_error": 1},
        "infra_counts": {"sandbox_error": 1}, "legal_low": 0.25, "missing": 0, "pass_at": {"1": 0.5}, "oracle_best_of_n": 0.5,
        "best_sample_mean": 0.5, "mean_complexity": 4.0, "partial": True}
    assert list(data)[0] == "partial" and data["partial"] is True
    assert data["cells"][3]["legal_rate"] is None and data["cells"][3]["infra_counts"] == {"api_error": 1}
    assert data["thresholds"] == [
        {"model": "m", "mode": "code", "puzzle": "hanoi", "lambda_star": 3.5, "low": 3.5, "high": 3.5},
        {"model": "m", "mode": "code", "puzzle": "sat", "lambda_star": None, "low": None, "high": None}]
    assert data["totals"] == {"rows": 11, "executions": 8, "legal_rate": 0.5,
                              "status_counts": {"legal": 4, "rule_violation": 2, "runtime_error": 1, "timeout": 1},
                              "infra_counts": {"sandbox_error": 1, "api_error": 2}, "legal_low": 4 / 11}
    assert "NaN" not in text


def test_an_empty_run_renders_in_every_format() -> None:
    report = build_report([], ks=[1])
    assert math.isnan(report.totals.legal_rate)
    assert render_report(report, "table").startswith("codebench report: 0 executions, legal rate -\n")
    assert json.loads(render_report(report, "json"))["cells"] == []
    assert len(render_report(report, "csv").splitlines()) == 1
    assert "## Cells" in render_report(report, "md")


def test_unknown_format_says_which_exist(report: Report) -> None:
    with pytest.raises(InputError, match="table, md, csv, json"):
        render_report(report, "html")


def test_each_section_is_declared_once_and_fills_its_own_fields_of_the_report(report: Report) -> None:
    """The registry is the one list of sections: its names are --section's, in order, each once; every field of the
    Report is filled by exactly one section's builder, or is the frame every report has (k, totals, what was not
    counted, levels of fewer instances, how runs posed their prompts); and each section renders in every format, alone and in the whole report."""
    assert SECTIONS == tuple(entry.name for entry in REGISTRY) and len(set(SECTIONS)) == len(SECTIONS)
    sources = Sources(ROWS, [1, 2], 20, 0, (), (), {}, (), ())
    built = [field for entry in REGISTRY for field in entry.build(sources)]
    assert sorted(built) == sorted({field.name for field in fields(Report)} - {"ks", "totals", "coverage", "fewer_instances", "prompts"})
    for name in SECTIONS:
        for fmt in ("table", "md", "csv", "json"):
            assert render_report(report, fmt, name)
    whole, brief = render_report(report, "table"), render_report(report, "table", brief=True)
    analyses = [entry for entry in REGISTRY if type(entry) is ReportSection and entry.render(report).rows]
    assert [entry.name for entry in analyses if entry.brief] == ["collapse"] and len(analyses) > 3
    for entry in analyses:  # each under its title in the whole table; in the brief one only if it is brief
        assert entry.render(report).title in whole and (entry.render(report).title in brief) == entry.brief
