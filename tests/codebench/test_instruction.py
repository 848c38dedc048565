"""Instruction mode: reading the answer from a reply, the prompts, the validator path on every family × level, and
`codebench run --mode instruction` end to end against the mock server through the real openai client (no sandbox)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

import puzzles
from codebench.judge import judge_answer
from codebench.model.mock_server import start_mock_server
from codebench.modes.instruction import FORMAT_RETRIES, render_instruction_prompt
from codebench.run.store import Store

from .cli import run_cli

ANSWER = {"moves": [[1, "A", "C"]]}


@pytest.mark.parametrize(("reply", "expected"), [
    ('Thinking…\n```json\n{"moves": [[1, "A", "C"]]}\n```\n', ANSWER),
    ('First guess:\n```json\n{"moves": []}\n```\nNo, better:\n```json\n{"moves": [[1, "A", "C"]]}\n```', ANSWER),
    ('```json\n{"moves": [[1, "A", "C"]]}\n```\nand a broken one after it:\n```json\n{"moves": [1,]}\n```', ANSWER),
    ('```\n{"moves": [[1, "A", "C"]]}\n```', ANSWER),  # a fence without a language
    ('The answer is {"moves": [[1, "A", "C"]]}, I think.', ANSWER),  # no fence at all
    ('State {"a": 1} first, then {"moves": [[1, "A", "C"]], "note": {"x": 2}} at the end.',
     {"moves": [[1, "A", "C"]], "note": {"x": 2}}),  # the outermost of the objects that end last
    ('```json\n{"moves": [], "moves": [[1, "A", "C"]]}\n```', {"moves": [[1, "A", "C"]]}),  # duplicates: the validator's to fail
    ('```json\n[1, 2, 3]\n```', [1, 2, 3]),  # the wrong shape is found, and failed by the validator
])
def test_the_last_well_formed_answer_is_read(reply: str, expected: object) -> None:
    found = puzzles.read_answer(reply)
    assert found.text is not None and found.why == "" and json.loads(found.text) == expected


@pytest.mark.parametrize("reply", [
    "I would rather not say.",
    "The answer, as a Python value: {'moves': [[1, 'A', 'C']]}",
    '```json\n{"moves": [[1, "A", "C"]',  # cut off inside the block
    "```json\n" + "[" * 100_000 + "]" * 100_000 + "\n```",  # deeper than any parser goes
    "braces { without } JSON",
])
def test_nothing_parseable_is_none_and_says_why(reply: str) -> None:
    assert puzzles.read_answer(reply) == puzzles.ReplyAnswer(None, "the reply holds no JSON object, neither in a ``` block nor bare")


@pytest.mark.parametrize("reply", ["", " \n\t"])
def test_an_empty_reply_says_so(reply: str) -> None:
    assert puzzles.read_answer(reply) == puzzles.ReplyAnswer(None, "the reply is empty")


def test_duplicate_keys_in_the_answer_are_a_rule_violation() -> None:
    hanoi = puzzles.get_puzzle("hanoi")
    record = hanoi.generate(1, 0)
    text = puzzles.read_answer('```json\n{"moves": [], "moves": ' + json.dumps(hanoi.solve(record.instance)["moves"]) + "}\n```").text
    assert text is not None
    outcome = judge_answer(hanoi, record.instance, text)
    assert outcome.status == "rule_violation" and outcome.detail == "duplicate_key"


@pytest.mark.parametrize("puzzle", puzzles.PUZZLES, ids=lambda p: p.name)
def test_reference_answers_written_as_a_model_would_are_legal_and_mutations_fail(puzzle: puzzles.Puzzle) -> None:
    for level in puzzle.levels:
        record = puzzle.generate(level, 3)
        answer = puzzle.solve(record.instance)
        reply = (f"Let me reason about the {puzzle.title} step by step, checking {{every}} rule.\n\n"
                 f"```json\n{json.dumps(answer, indent=2)}\n```\n")
        text = puzzles.read_answer(reply).text
        assert text is not None and judge_answer(puzzle, record.instance, text).status == "legal", (puzzle.name, level)
        field, value = next(iter(answer.items()))
        shortened = dict(list(value.items())[:-1]) if isinstance(value, dict) else value[:-1] if value else [[0]]
        for mutated in ({}, {field: None}, {**answer, "extra": 1}, {field: shortened}):
            reply = f"So:\n```json\n{json.dumps(mutated)}\n```"
            outcome = judge_answer(puzzle, record.instance, puzzles.read_answer(reply).text or "")
            assert outcome.status == "rule_violation", (puzzle.name, level, mutated, outcome)


@pytest.mark.parametrize("puzzle", puzzles.PUZZLES, ids=lambda p: p.name)
def test_one_template_serves_every_level_and_shows_the_instance(puzzle: puzzles.Puzzle) -> None:
    for level in (1, 6):
        record = puzzle.generate(level, 0)
        prompt = render_instruction_prompt(puzzle, record)
        user = dict(prompt.messages)["user"]
        assert prompt.mode == "instruction" and f"codebench-puzzle: {puzzle.name}" in user
        assert json.dumps(record.instance)[:40] in json.dumps(json.loads(user.split("```json\n")[1].split("\n```")[0]))
        assert render_instruction_prompt(puzzle, record) == prompt  # deterministic: the text keys stored replies
        assert prompt.as_messages() == puzzles.instruction_prompt(puzzle, record)  # what `puzzles` gives a user, exactly
    sudoku = puzzles.get_puzzle("sudoku").generate(4, 0)
    assert "".join(str(v) for row in sudoku.instance["grid"] for v in row) in dict(
        render_instruction_prompt(puzzles.get_puzzle("sudoku"), sudoku).messages)["user"]


BEHAVIOURS = {  # mock behaviour -> (status, format retries, truncated)
    "oracle": ("legal", 0, False),
    "wrong": ("rule_violation", 0, False),
    "crash": ("rule_violation", 0, False),  # JSON of the wrong shape
    "syntax_error": ("no_answer", FORMAT_RETRIES, False),  # a Python literal, never JSON
    "no_code": ("no_answer", FORMAT_RETRIES, False),  # prose only
    "timeout": ("no_answer", FORMAT_RETRIES, True),  # cut off inside the JSON block
    "format_retry": ("legal", 1, False),  # right once reminded
    "reasoning": ("legal", 0, False),  # its thinking in reasoning_content, kept beside the answer
    "slip": ("rule_violation", 0, False),  # the plan, then an illegal move; sudoku has no plan: the wrong answer
    "astray": ("rule_violation", 0, False),  # a legal plan that misses the goal
    "hedged": ("rule_violation", 0, False),  # the same, in hedged prose
}


def test_every_behaviour_ends_in_its_status_with_its_retries_and_no_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # instruction mode runs no program
    with start_mock_server() as server:
        code, out, err = run_cli(capsys, "run", "--mode", "instruction", "--base-url", server.url, "--model", ",".join(BEHAVIOURS),
                                 "--puzzles", "hanoi,sudoku,rubik", "--levels", "1,3", "--instances-per-level", "1",
                                 "--samples", "1", "--out", str(tmp_path))
    assert code == 0, err
    store = Store.for_reading(tmp_path / "run.sqlite")
    try:
        statuses = {(r.model, r.puzzle, r.level): r.status for r in store.report_rows()}
    finally:
        store.close()
    assert statuses == {(model, puzzle, level): expected[0] for model, expected in BEHAVIOURS.items()
                        for puzzle in ("hanoi", "sudoku", "rubik") for level in (1, 3)}
    with closing(sqlite3.connect(tmp_path / "run.sqlite")) as db:
        stored = db.execute("SELECT model, format_retries, truncated, instance_id, mode FROM samples").fetchall()
        thinking = db.execute("SELECT model, reasoning, reasoning_tokens FROM samples WHERE reasoning IS NOT NULL").fetchall()
        retried = db.execute("SELECT model, format_retries, retried_replies, response FROM samples").fetchall()
    assert {model for model, _, _ in thinking} == {"reasoning"}
    assert all(text.startswith("Working through the") and tokens and tokens > 0 for _, text, tokens in thinking)
    assert {(model, retries, bool(truncated)) for model, retries, truncated, _, _ in stored} == {
        (model, retries, truncated) for model, (_, retries, truncated) in BEHAVIOURS.items()}
    assert all(instance_id and mode == "instruction" for *_, instance_id, mode in stored)  # one request per instance
    earlier = {model: json.loads(replies) if replies else [] for model, _, replies, _ in retried}  # kept for the drill-down
    assert all(len(earlier[model]) == retries for model, retries, _, _ in retried)
    assert earlier["format_retry"][0].startswith("I worked through") and "```json" in earlier["timeout"][0]
    assert "no_answer" in out and "legal" in out
    code, text, _ = run_cli(capsys, "report", str(tmp_path), "--format", "json")
    traces = {(t["model"], t["puzzle"], t["level"]): t for t in json.loads(text)["traces"]}
    wrong = traces[("wrong", "hanoi", 3)]  # the whole tower in one move: the first step is illegal, nothing was reached
    assert code == 0 and (wrong["failures"], wrong["mean_progress"], wrong["median_first_illegal"]) == (1, 0.0, 0)
    assert ("crash", "hanoi", 3) not in traces  # JSON of the wrong shape has no trajectory to follow


FLAW_CATEGORIES = {  # (mock behaviour, puzzle) -> the failure category of every one of its rows
    ("slip", "hanoi"): "state_inconsistency", ("slip", "river"): "state_inconsistency",
    ("slip", "waterjug"): "incomplete_reasoning",  # no step of a water-jug plan is illegal: the wrong answer, one step long
    ("astray", "hanoi"): "confident_error", ("astray", "river"): "confident_error", ("astray", "waterjug"): "confident_error",
    ("hedged", "hanoi"): "incomplete_reasoning", ("hedged", "river"): "incomplete_reasoning",
    ("hedged", "waterjug"): "incomplete_reasoning",
}


def test_each_flaw_of_a_plan_lands_in_its_failure_category(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with start_mock_server() as server:
        code, _, err = run_cli(capsys, "run", "--mode", "instruction", "--base-url", server.url, "--model", "slip,astray,hedged",
                               "--puzzles", "hanoi,river,waterjug", "--levels", "1,3", "--instances-per-level", "2",
                               "--samples", "1", "--out", str(tmp_path))
    assert code == 0, err
    code, text, _ = run_cli(capsys, "report", str(tmp_path), "--section", "failures", "--format", "json")
    assert code == 0
    found = {(r["model"], r["puzzle"], r["level"]): r for r in json.loads(text)["records"]}
    assert sorted(found) == sorted((model, puzzle, level) for model, puzzle in FLAW_CATEGORIES for level in (1, 3))
    for (model, puzzle, _), record in found.items():
        counts = {key.removeprefix("counts."): n for key, n in record.items() if key.startswith("counts.") and n}
        distinct = 1 if puzzle == "hanoi" else 2  # Hanoi's L1 and L3 are one instance whatever the seed
        assert record["failures"] == distinct and counts == {FLAW_CATEGORIES[(model, puzzle)]: distinct}, (model, puzzle, record)


def test_trace_grades_average_how_far_failures_got() -> None:
    from codebench.analysis.metrics import trace_grades
    from codebench.types import ExecutionRow

    rows = [ExecutionRow("m", "instruction", "hanoi", 2, f"hanoi/L2/s{i}", 0, status, "", 4.0, progress, first)
            for i, (status, progress, first) in enumerate([("rule_violation", 0.5, 7), ("rule_violation", 0.25, 3),
                                                           ("legal", 1.0, None), ("no_answer", None, None)])]
    (grade,) = trace_grades(rows)
    assert (grade.failures, grade.mean_progress, grade.median_first_illegal) == (2, 0.375, 5)


def test_a_retried_reply_carries_the_tokens_of_every_turn_of_its_conversation() -> None:
    """Cost, budgets and the token analysis read the stored sample: the turns before a format retry count too."""
    import asyncio

    from codebench.modes.instruction import InstructionMode
    from codebench.types import Completion, SampleJob, Sampling

    turns = iter([Completion("no answer yet", "stop", False, 100, 10, 0.5, "m", None, reasoning_tokens=4),
                  Completion('```json\n{"moves": []}\n```', "stop", False, 130, 12, 0.25, "m", None, reasoning_tokens=6)])

    class TwoTurns:
        async def complete(self, messages: list[dict[str, str]], **_: object) -> Completion:
            return next(turns)

    puzzle = puzzles.get_puzzle("hanoi")
    record = puzzle.generate(1, 0)
    job = SampleJob("k", "m", "instruction", "hanoi", 0, render_instruction_prompt(puzzle, record), Sampling(0.0, None, 0),
                    (record,), record.id)
    reply = asyncio.run(InstructionMode().ask(job, TwoTurns()))  # type: ignore[arg-type]
    spent = reply.completion
    assert reply.format_retries == 1 and reply.reading.program is not None
    assert (spent.prompt_tokens, spent.completion_tokens, spent.reasoning_tokens, spent.latency_s) == (230, 22, 10, 0.75)


def test_seeds_drawing_one_instance_are_one_instance_in_the_plan_the_store_and_every_statistic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Hanoi L1 is one instance whatever the seed: three seeds of it are planned, asked, stored and counted once."""
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    options = ("--mode", "instruction", "--model", "oracle", "--puzzles", "hanoi", "--levels", "1", "--instances-per-level", "3",
               "--samples", "3", "--out", str(tmp_path))
    with start_mock_server() as server:
        code, planned, _ = run_cli(capsys, "run", *options, "--base-url", server.url, "--dry-run")
        assert code == 0 and json.loads(planned)["puzzles"] == {"hanoi": 1} and json.loads(planned)["requests"] == 3
        code, _, err = run_cli(capsys, "run", *options, "--base-url", server.url)
        hits = server.hits
    assert code == 0, err
    assert "reused" not in err and "3/3" in err  # a fresh run asked and ran all three, reusing nothing
    store = Store.for_reading(tmp_path / "run.sqlite")
    try:
        rows, usage, facts = store.report_rows(), store.usage(), store.instance_facts()
    finally:
        store.close()
    assert hits == 3 and len(usage) == 3  # one request per sample
    assert sorted((r.instance_id, r.sample, r.status) for r in rows) == [("hanoi/L1/s0", sample, "legal") for sample in range(3)]
    assert [(f.instance_id, f.alike) for f in facts] == [("hanoi/L1/s0", ("hanoi/L1/s1", "hanoi/L1/s2"))]
    code, text, _ = run_cli(capsys, "report", str(tmp_path), "--format", "json")
    report = json.loads(text)
    (cell,) = report["cells"]
    assert (cell["instances"], cell["samples"], cell["executions"], cell["pass_at"]["3"]) == (1, 3, 3, 1.0)
    assert report["fewer_instances"] == [{"puzzle": "hanoi", "level": 1, "distinct": 1, "seeds": 3}]
    code, text, _ = run_cli(capsys, "report", str(tmp_path))
    assert "fewer distinct instances than seeds (each counted once): hanoi L1 1 of 3" in text.splitlines()
