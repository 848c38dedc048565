"""The HTML report in a real browser: Debian's Chromium, headless, driven by Playwright (which downloads nothing here).

Opened from file://, the page must raise no console or page error and request nothing beyond its own file, draw
every figure, list the samples one page at a time, filter them by status, and open a sample's drill-down with its
prompt and each instance's status; a hostile reply, program output and exception name must show as text and run
nothing. A full-page screenshot is left in test-artifacts/html-report.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from codebench.analysis.html import PAGE, render_html
from codebench.analysis.plots import figure_svgs
from codebench.analysis.report import build_report
from codebench.types import SampleDetail, Status

from ..codebench.test_html_report import HOSTILE, HOSTILE_EXCEPTION, HOSTILE_REPLY, build_run, read_run

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


class Report:
    """The generated page, what it was made of, and the browser tab it is open in (with what went wrong there)."""

    def __init__(self, path: Path, details: list[SampleDetail], figures: dict[str, str], page: Page) -> None:
        self.path, self.details, self.figures, self.page = path, details, figures, page
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", lambda request: self.requests.append(request.url))

    def fresh(self) -> None:
        """Open the page anew: no filter set, no sample open."""
        self.page.goto(self.path.as_uri())

    def rows(self) -> list[str]:
        return self.page.locator("#sample-rows tr").all_inner_texts()

    def choose(self, name: str, value: str) -> None:
        self.page.select_option(f"#filter-{name}", value)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Report]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium (as root) to install Debian's chromium")
    folder = tmp_path_factory.mktemp("browser")
    # 120 samples, more than one page: 2 models × (2 programs + 2 levels × 7 distinct instances × 2 puzzles) × 2 samples
    rows, details = read_run(build_run(folder / "run", instances_per_level=7, puzzles=("waterjug", "sudoku")))
    summary = build_report(rows, [1, 2], boot=50)
    figures = figure_svgs(summary)
    path = folder / "report.html"
    path.write_text(render_html(summary, details, figures), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield Report(path, details, figures, browser.new_page(viewport={"width": 1400, "height": 900}))
        finally:
            browser.close()


def test_the_page_opens_clean_from_disk_and_draws_every_figure(report: Report) -> None:
    report.fresh()
    assert report.errors == []
    assert set(report.requests) == {report.path.as_uri()}  # nothing fetched: no font, script, style or image beside the file
    assert len(report.figures) >= 6 and {"failure_modes", "global_curve"} <= set(report.figures)  # the analyses draw too
    for name in report.figures:
        box = report.page.locator(f"#plot-{name} > svg").bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100, name


def test_the_samples_are_listed_a_page_at_a_time_and_filtered_by_status(report: Report) -> None:
    report.fresh()
    assert len(report.details) == 120
    assert len(report.rows()) == PAGE and report.page.inner_text("#sample-count") == "120 of 120 samples"
    report.page.click("#page-next")
    assert len(report.rows()) == 120 - PAGE and report.page.inner_text("#page-number") == "page 2 of 2"
    report.choose("status", Status.NO_ANSWER)
    shown = report.rows()
    expected = sum(any(j.status == Status.NO_ANSWER for j in d.judged) for d in report.details)
    assert 0 < len(shown) == expected < PAGE and all(f"{Status.NO_ANSWER} " in row for row in shown)
    assert report.page.inner_text("#page-number") == "page 1 of 1"
    report.choose("status", "")
    assert len(report.rows()) == PAGE
    assert report.errors == []


def test_a_sample_opens_its_drill_down_and_a_hostile_reply_is_only_text(report: Report) -> None:
    report.fresh()
    report.choose("model", "hostile")
    report.choose("mode", "code")
    report.page.click("#sample-rows tr >> nth=0")
    detail = report.page.locator("#detail")
    assert detail.is_visible()
    sample = next(d for d in report.details if d.sample.model == "hostile" and d.sample.mode == "code")
    prompt = detail.locator("[data-part=prompt] pre").all_text_contents()
    assert prompt == [message["content"] for message in json.loads(sample.sample.prompt)]
    statuses = detail.locator("[data-part=executions] tbody tr td:nth-child(3)").all_text_contents()
    assert statuses == [j.status for j in sample.judged] and len(statuses) == 14  # 2 levels × 7 instances
    assert detail.locator("[data-part=response] pre").text_content() == HOSTILE_REPLY
    assert detail.locator("[data-part=reasoning] pre").text_content() == HOSTILE
    assert HOSTILE_EXCEPTION in detail.locator("[data-part=executions] tbody tr >> nth=0").inner_text()
    assert report.page.evaluate("typeof window.pwned") == "undefined"
    assert report.page.locator("img, b").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    report.page.screenshot(path=str(ARTIFACTS / "html-report.png"), full_page=True)
    assert report.errors == []


def test_an_instruction_sample_shows_the_replies_that_got_a_format_retry(report: Report) -> None:
    report.fresh()
    report.choose("model", "hostile")
    report.choose("mode", "instruction")
    report.page.fill("#filter-instance", "waterjug/L2")
    rows = report.rows()
    assert rows and all("waterjug/L2/" in row for row in rows)
    report.page.click("#sample-rows tr >> nth=0")
    retried = report.page.locator("#detail [data-part=retried] pre").all_text_contents()
    assert retried == [HOSTILE_REPLY, HOSTILE_REPLY]
    assert report.page.locator("#detail [data-part=executions] tbody tr").all_inner_texts()[0].split("\t")[2] == Status.NO_ANSWER
    assert report.page.evaluate("typeof window.pwned") == "undefined" and report.errors == []

