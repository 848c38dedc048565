"""The inspect_ai tasks, through the real library: `inspect eval codebench/<puzzle>` (the CLI, found through the entry
point, with inspect's providers for OpenAI and for OpenAI-compatible servers) against the mock server scores each
instance as `codebench run --mode instruction` does with the same instances and replies, so the legal rate per level
is the run's; and the task's options are checked as the run's are."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

import puzzles
from codebench.errors import ConfigError, InputError
from codebench.integrations._scoring import score_reply
from codebench.integrations.inspect_tasks import TASKS, puzzle_task
from codebench.model.mock_server import start_mock_server
from codebench.run.spec import SEED_STRIDE, RunSpec
from codebench.run.store import Store

from ..codebench.cli import run_cli

OPTIONS = {"levels": "1-3", "instances_per_level": 2}
PUZZLES = ("hanoi", "waterjug")  # Hanoi: one instance a level whatever the seed; the jugs: several
MOCK_SEED = 0  # the mock's `mixed` draws a behaviour per (server seed, request seed, prompt)


PROVIDERS = {  # inspect's provider -> its model arguments and the variables that point it at the mock
    "openai-api/mock/mixed": ((), {"MOCK_BASE_URL": "{url}", "MOCK_API_KEY": "mock"}),  # any OpenAI-compatible server
    # OpenAI's own: chat completions (the mock serves no Responses API), a model name it sends a system message to
    "openai/gpt-4.1-mini": (("-M", "responses_api=false"), {"OPENAI_BASE_URL": "{url}", "OPENAI_API_KEY": "mock"}),
}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_inspect_eval_scores_each_instance_as_codebench_run_does(provider: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # instruction mode runs no program
    model_args, variables = PROVIDERS[provider]
    with start_mock_server(behavior="mixed", seed=MOCK_SEED) as server:  # `mixed` whatever the model's name
        code, _, err = run_cli(capsys, "run", "--mode", "instruction", "--base-url", server.url, "--model", provider.rsplit("/")[-1],
                               "--puzzles", ",".join(PUZZLES), "--levels", OPTIONS["levels"], "--instances-per-level",
                               str(OPTIONS["instances_per_level"]), "--samples", "1", "--out", str(tmp_path / "run"))
        assert code == 0, err
        env = {**os.environ, **{name: value.format(url=server.url) for name, value in variables.items()}}
        done = subprocess.run([str(Path(sys.executable).parent / "inspect"), "eval", *(f"codebench/{name}" for name in PUZZLES),
                               "--model", provider, *model_args, "--display", "none",
                               "--log-dir", str(tmp_path / "logs"), *(f"-T{key}={value}" for key, value in OPTIONS.items())],
                              env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]

    store = Store.for_reading(tmp_path / "run" / "run.sqlite")
    try:
        rows = {row.instance_id: row for row in store.report_rows()}
    finally:
        store.close()
    with closing(sqlite3.connect(tmp_path / "run" / "run.sqlite")) as db:
        replies = dict(db.execute("SELECT instance_id, response FROM samples").fetchall())
        retries = dict(db.execute("SELECT instance_id, format_retries FROM samples").fetchall())

    logs = [read_eval_log(str(path)) for path in sorted((tmp_path / "logs").glob("*.eval"))]
    assert sorted(log.eval.task for log in logs) == sorted(f"codebench/{name}" for name in PUZZLES)
    seen = set()
    for log in logs:
        assert log.status == "success" and log.samples is not None and log.results is not None
        puzzle = log.eval.task.removeprefix("codebench/")
        assert sorted(str(sample.id) for sample in log.samples) == sorted(key for key in rows if key.startswith(f"{puzzle}/"))
        for sample in log.samples:
            row, score = rows[str(sample.id)], sample.scores["validator"]  # type: ignore[index]
            seen.add(row.status)
            record = puzzles.get_puzzle(puzzle).generate(row.level, int(str(sample.id).rsplit("/s", 1)[1]))
            asked = [{"role": message.role, "content": message.text} for message in sample.messages[:2]]
            assert asked == puzzles.instruction_prompt(puzzles.get_puzzle(puzzle), record)  # the run's prompt, exactly
            assert sample.output.completion == replies[row.instance_id]  # the same last reply
            assert score.metadata["format_retries"] == retries[row.instance_id]  # after as many reminders
            assert len(sample.messages) == 3 + 2 * retries[row.instance_id]
            assert (sample.metadata["level"], score.metadata["status"]) == (row.level, row.status)
            assert score.value == ("C" if row.status == "legal" else "I")
            assert score.metadata["steps_applied"] == row.steps_applied and score.metadata["progress"] == row.progress
        rates = {f"L{level}": sum(r.status == "legal" for r in rows.values() if r.puzzle == puzzle and r.level == level)
                 / sum(1 for r in rows.values() if r.puzzle == puzzle and r.level == level) for level in (1, 2, 3)}
        (scored,) = [score for score in log.results.scores if score.name == "validator"]
        assert {name: metric.value for name, metric in scored.metrics.items() if name.startswith("L")} == pytest.approx(rates)
    assert {"legal", "rule_violation"} <= seen  # the mock's mix: both verdicts were compared
    assert any(retries.values())  # and a conversation with a format retry


def test_the_tasks_are_one_per_puzzle_on_the_planned_instances() -> None:
    assert sorted(TASKS) == sorted(puzzles.puzzle_names())
    task = TASKS["sudoku"](levels=[2, 4], instances_per_level=2, seed=7)
    assert [(sample.id, sample.metadata) for sample in task.dataset] == [
        (f"sudoku/L{level}/s{seed}", {"level": level, "seed": seed}) for level in (2, 4) for seed in (7, 8)]
    assert (task.config.temperature, task.config.seed) == (RunSpec.temperature, 7 * SEED_STRIDE)  # `codebench run`'s first sample's


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"levels": "0-3"}, InputError, "levels (in inspect eval -T) '0-3': '0-3' must go upwards within 1-6"),
    ({"instances_per_level": 0}, ConfigError, "instances_per_level (in inspect eval -T) 0: give a whole number from 1 to 10000"),
    ({"format_retries": 99}, ConfigError, "format_retries (in inspect eval -T) 99: give a whole number from 0 to 20"),
    ({"levels": ["1"]}, ConfigError, "levels (in inspect eval -T) ['1']: give a list such as [1, 3, 5], or a range such as '1-6'"),
])
def test_options_are_refused_as_codebench_run_refuses_them(options: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        puzzle_task("hanoi", **options)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_a_plan_that_misses_the_goal_scores_how_far_it_got() -> None:
    record = puzzles.get_puzzle("hanoi").generate(2, 0)
    scored = score_reply(record, 'Done.\n```json\n{"moves": [[1, "A", "B"], [1, "B", "A"]]}\n```')
    assert (scored.status, scored.legal, scored.steps_applied) == ("rule_violation", False, 2)
    assert scored.progress == pytest.approx(2 / record.meta["min_solution_length"])
    assert [issue.code for issue in scored.issues] == ["goal_not_reached"] and scored.explanation == scored.issues[0].message
    assert score_reply(record, "no answer here").status == "no_answer"
