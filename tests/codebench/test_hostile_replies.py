"""Hostile model replies cannot crash, stall or poison a run (issue 27): lone surrogates, absurd token counts, bodies
nested 100,000 deep, a million backticks, replies past the storage cap, escape sequences in replies and in the
server's error messages; each streamed and plain (`tests/codebench/hostile_server.py`)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from codebench.errors import ModelError
from codebench.model.client import REPLY_KEPT, ModelClient
from codebench.model.presets import Endpoint
from codebench.types import Completion

from .cli import run_cli
from .hostile_server import ESCAPES, FATAL, HUGE, REPLIES, SCENARIOS, UNUSABLE, hostile_server

CHROMIUM = Path("/usr/bin/chromium")
RUN_SCENARIOS = tuple(scenario for scenario in SCENARIOS if scenario != "many_chunks")  # the SDK reads ~5,000 chunks a
# second: a chat seat's every turn would take seconds; the client's own test covers it
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with hostile_server() as root:
        yield root


def ask(url: str, model: str, *, label: str | None = None, key_env: str | None = None) -> Completion:
    async def go() -> Completion:
        client = ModelClient(Endpoint(model, url, "k", key_env=key_env), label=label)
        try:
            return await client.complete([{"role": "user", "content": "hi"}], temperature=0.0, max_tokens=None, seed=0)
        finally:
            await client.aclose()

    return asyncio.run(go())


def sane(completion: Completion) -> None:
    """What the client hands on is valid text, free of control characters in what it says itself, with sane counts."""
    for text in (completion.text, completion.reasoning or "", completion.server_model or "", completion.error or ""):
        text.encode()  # no lone surrogate
        assert len(text) <= REPLY_KEPT
    assert CONTROL.search(completion.error or "") is None
    for count in (completion.prompt_tokens, completion.completion_tokens, completion.reasoning_tokens):
        assert count is None or (type(count) is int and 0 <= count < 2**63)


@pytest.mark.parametrize("plain", [False, True], ids=["streamed", "plain"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_hostile_reply_becomes_a_sane_completion(url: str, scenario: str, plain: bool) -> None:
    completion = ask(url, scenario + ("-plain" if plain else ""))
    sane(completion)
    if scenario in UNUSABLE:
        assert completion.error is not None and completion.error.startswith(("malformed response: ", "empty response: "))
    else:
        assert completion.error is None


@pytest.mark.parametrize("plain", [False, True], ids=["streamed", "plain"])
def test_a_lone_surrogate_is_replaced_and_said(url: str, plain: bool) -> None:
    completion = ask(url, "surrogate" + ("-plain" if plain else ""))
    assert completion.text.startswith("a lone \ufffd surrogate\n") and completion.reasoning == "thinking \ufffd alone"
    assert any("lone surrogate" in note and "U+FFFD" in note for note in completion.notes), completion.notes


@pytest.mark.parametrize("plain", [False, True], ids=["streamed", "plain"])
@pytest.mark.parametrize("scenario", ["tokens_huge", "tokens_negative", "tokens_odd"])
def test_absurd_token_counts_are_unknown_and_said(url: str, scenario: str, plain: bool) -> None:
    completion = ask(url, scenario + ("-plain" if plain else ""))
    assert (completion.prompt_tokens, completion.completion_tokens, completion.reasoning_tokens) == (None, None, None)
    assert any("prompt_tokens" in note and "unknown" in note for note in completion.notes), completion.notes


@pytest.mark.parametrize("plain", [False, True], ids=["streamed", "plain"])
def test_a_reply_past_the_cap_is_cut_with_its_length_and_digest(url: str, plain: bool) -> None:
    completion = ask(url, "huge" + ("-plain" if plain else ""))
    content, reasoning, _ = REPLIES["huge"]
    assert completion.text == content[:REPLY_KEPT] and completion.reasoning == reasoning[:REPLY_KEPT]
    for whole in (content, reasoning):
        digest = hashlib.sha256(whole.encode()).hexdigest()
        assert any(f"{len(whole)} characters" in note and digest in note for note in completion.notes), completion.notes
    assert len(content) > HUGE > REPLY_KEPT


@pytest.mark.parametrize(("scenario", "says"), [
    ("fatal_401", r"rejected the API key of model 'nice', read from MY_KEY \(HTTP 401: .*\): set MY_KEY to a valid key"),
    ("fatal_404", r"has no model 'fatal_404' \(model 'nice'\) or no chat-completions route"),
    ("fatal_quota", r"the key's quota at .* \(model 'nice', read from MY_KEY\) is exhausted"),
])
def test_a_fatal_error_names_the_entry_and_its_variable_and_carries_no_escape(url: str, scenario: str, says: str) -> None:
    with pytest.raises(ModelError, match=says) as raised:
        ask(url, scenario, label="nice", key_env="MY_KEY")
    assert CONTROL.search(str(raised.value)) is None and "\\x1b" in str(raised.value)


def run_command(out: Path, url: str) -> list[str]:
    """Every scenario as a `models:` entry, streamed and plain, in code and instruction mode and at a game's table."""
    config = out.parent / "hostile.yaml"
    models = [{"name": scenario + suffix} for scenario in RUN_SCENARIOS for suffix in ("", "-plain")]
    config.write_text(json.dumps({"base_url": url, "models": models}), encoding="utf-8")  # JSON is YAML
    return ["run", "--config", str(config), "--mode", "both", "--puzzles", "hanoi", "--levels", "1", "--instances-per-level", "1",
            "--samples", "1", "--format-retries", "1", "--games", "cardnim", "--opponents", "ref", "--backend", "local",
            "--max-retries", "0", "--out", str(out)]


def no_control(text: str, where: str) -> None:
    found = CONTROL.search(text)
    assert found is None, f"{where}: raw {found.group()!r} at {found.start()}: {text[max(0, found.start() - 80):found.start() + 40]!r}"


@pytest.fixture(scope="module")
def hostile_run(url: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "run"
    # run_cli needs capsys, which a module fixture cannot take: the run is its own process (twice: then resumed)
    for attempt in ("first", "resume"):
        done = subprocess.run([str(Path(sys.executable).with_name("codebench")), *run_command(out, url)], capture_output=True,
                              text=True, timeout=900)
        assert done.returncode in (0, 5), f"{attempt}: exit {done.returncode}\n{done.stderr[-3000:]}"
        no_control(done.stdout + done.stderr, f"run ({attempt})")
    return out


def test_a_run_against_every_hostile_reply_stores_every_sample_with_a_sensible_status(hostile_run: Path) -> None:
    with closing(sqlite3.connect(hostile_run / "run.sqlite")) as db:
        samples = db.execute("SELECT model, mode, error, read_status, read_detail, prompt_tokens, completion_tokens, "
                             "length(response), length(reasoning) FROM samples").fetchall()
        planned = db.execute("SELECT count(*) FROM plan_samples").fetchone()[0]
        games = db.execute("SELECT players, record, void FROM matches").fetchall()
    assert len(samples) == planned == 3 * 2 * len(RUN_SCENARIOS)  # code, instruction, and a strategy for the game
    for model, mode, error, status, detail, prompt, completion, text, reasoning in samples:
        scenario = model.removesuffix("-plain")
        assert (error is not None) == (scenario in UNUSABLE), (model, mode, error)
        assert status in ("api_error", "no_code", "no_answer", "syntax_error", None), (model, mode, status)
        for count in (prompt, completion):
            assert count is None or 0 <= count < 10**9, (model, count)
        assert (text or 0) <= REPLY_KEPT and (reasoning or 0) <= REPLY_KEPT
        if scenario in ("surrogate", "huge") or scenario.startswith("tokens"):
            assert {"surrogate": "U+FFFD", "huge": "was cut", "tokens_huge": "unknown", "tokens_negative": "unknown",
                    "tokens_odd": "unknown"}[scenario] in detail, (model, mode, detail)
    chat_games = [json.loads(record) for players, record, void in games if "(instruction)" in players]
    assert len(chat_games) == 2 * 2 * len(RUN_SCENARIOS)
    for players, _, void in games:  # void: an endpoint that never sends a usable reply (infrastructure), and only that
        scenarios = {seat.split(" (")[0].removesuffix("-plain") for seat in json.loads(players)}
        assert bool(void) == bool(scenarios & set(UNUSABLE)), (players, void)
    surrogate = [r for r in chat_games if any(p.startswith("surrogate (") or p.startswith("surrogate-plain (") for p in r["players"])]
    assert surrogate and all("U+FFFD" in json.dumps(r["kept"]) for r in surrogate)


@pytest.mark.parametrize("output", ["table", "md", "csv", "json"])
def test_every_report_format_is_safe(hostile_run: Path, output: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "report", str(hostile_run), "--format", output)
    assert code in (0, 5), err
    no_control(out + err, f"report --format {output}")


def test_the_html_page_is_safe_in_chromium(hostile_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page_path = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "report", str(hostile_run), "--html", str(page_path))
    assert code in (0, 5), err
    html = page_path.read_text(encoding="utf-8")
    no_control(html, "--html")
    assert "\x1b" not in html and ESCAPES not in html
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(page_path.as_uri())
            no_control(page.inner_text("body"), "the page as Chromium shows it")
            assert errors == []
        finally:
            browser.close()


@pytest.mark.parametrize("scenario", list(FATAL))
def test_a_fatal_server_error_is_one_harmless_error_line_naming_the_entry(url: str, scenario: str, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENTRY_KEY", "sk-x")
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({"models": [{"name": scenario, "label": "entry", "base_url": url, "api_key_env": "ENTRY_KEY"}]}))
    code, _, err = run_cli(capsys, "run", "--config", str(config), "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
                           "--instances-per-level", "1", "--samples", "1", "--out", str(tmp_path / "run"))
    assert code != 0 and err.count("error:") == 1, err
    no_control(err, "the error line")
    assert "\\x1b" in err and "model 'entry'" in err and ("ENTRY_KEY" in err or scenario == "fatal_404"), err


@pytest.mark.parametrize("plain", [False, True], ids=["streamed", "plain"])
def test_a_body_past_the_bound_is_read_no_further(url: str, plain: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("codebench.model.client.MAX_BODY_BYTES", 1 << 20)  # the huge reply's body is over 10 MiB
    completion = ask(url, "huge" + ("-plain" if plain else ""))
    sane(completion)
    assert completion.error is not None and "the body passed 1048576 bytes, read no further" in completion.error
    assert ask(url, "surrogate" + ("-plain" if plain else "")).error is None  # a body within it is read whole


@pytest.mark.parametrize("scenario", ["tokens_negative", "tokens_huge", "tokens_odd"])
def test_a_server_whose_counts_cannot_be_believed_still_reaches_the_token_budget(url: str, scenario: str, tmp_path: Path,
                                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Its replies are charged an estimate from their characters: counted as 0, a run never stopped at its budget."""
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({"models": [{"name": scenario, "base_url": url}]}))
    code, out, err = run_cli(capsys, "run", "--config", str(config), "--mode", "instruction", "--puzzles", "hanoi",
                             "--levels", "1-6", "--instances-per-level", "2", "--samples", "1", "--max-connections", "1",
                             "--max-tokens-total", "200", "--out", str(tmp_path / "run"))
    assert code == 4 and "--max-tokens-total 200" in out + err, (code, out[-500:], err[-500:])


def test_the_cost_table_says_how_many_requests_came_back_without_a_count(url: str, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Their tokens are 0 in its sums, so it must say the sums are a lower bound, and by how many requests."""
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({"models": [{"name": "tokens_negative", "base_url": url}, {"name": "surrogate", "base_url": url}]}))
    code, _, err = run_cli(capsys, "run", "--config", str(config), "--mode", "instruction", "--puzzles", "hanoi",
                           "--levels", "1-2", "--instances-per-level", "1", "--samples", "2", "--out", str(tmp_path / "run"))
    assert code == 0, err
    code, text, err = run_cli(capsys, "report", str(tmp_path / "run"), "--section", "cost", "--format", "json")
    assert code == 0, err
    lines = {(line["scope"], line["model"]): line for line in json.loads(text)["records"]}
    assert (lines["model", "tokens_negative"]["requests"], lines["model", "tokens_negative"]["uncounted"]) == (4, 4)
    assert (lines["model", "surrogate"]["requests"], lines["model", "surrogate"]["uncounted"]) == (4, 0)
    assert lines["run", ""]["uncounted"] == 4
