"""The lm-evaluation-harness task folder, through the real library: `lm_eval --tasks codebench_hanoi --include_path …`
with its chat-completions API model against the mock server asks the instances `codebench run --mode instruction`
plans with the run's messages, and each doc's result is the validator's verdict on the mock's reply."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import puzzles
from codebench.integrations.lm_eval import TASKS
from codebench.model.mock_server import start_mock_server
from codebench.run.plan import make_plan
from codebench.run.spec import RunSpec

LEVELS, INSTANCES_PER_LEVEL, LIMIT = (1, 2, 3, 4), 2, 3


def test_lm_eval_scores_each_doc_by_the_validator(tmp_path: Path) -> None:
    with start_mock_server(behavior="mixed") as server:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "lm_eval"), "--model", "local-chat-completions", "--model_args",
             f"model=mixed,base_url={server.url}/chat/completions", "--tasks", "codebench_hanoi,codebench_river",
             "--include_path", str(TASKS), "--apply_chat_template", "--limit", str(LIMIT), "--log_samples",
             "--output_path", str(tmp_path), "--metadata", json.dumps({"levels": "1-4", "instances_per_level": INSTANCES_PER_LEVEL})],
            env={**os.environ, "OPENAI_API_KEY": "mock"}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    spec = RunSpec(models=("m",), mode="instruction", puzzles=("hanoi", "river"), levels=LEVELS,
                   instances_per_level=INSTANCES_PER_LEVEL, samples=1)
    planned = make_plan(spec, "http://unused").instances
    verdicts = []
    for puzzle in ("hanoi", "river"):
        (path,) = tmp_path.rglob(f"samples_codebench_{puzzle}_*.jsonl")
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert [line["doc"]["id"] for line in lines] == [record.id for record in planned[puzzle][:LIMIT]]  # the run's, in order
        for line, record in zip(lines, planned[puzzle]):
            sent = json.loads(line["arguments"]["gen_args_0"]["arg_0"][0])  # the chat messages lm-eval sent
            assert sent == puzzles.instruction_prompt(puzzles.get_puzzle(puzzle), record)
            reply = line["resps"][0][0]
            answer = puzzles.read_answer(reply).text
            legal = answer is not None and puzzles.get_puzzle(puzzle).validate_json(record.instance, answer).ok
            assert line["legal"] == float(legal), reply
            verdicts.append(legal)
        results = json.loads(next(tmp_path.rglob("results_*.json")).read_text())["results"][f"codebench_{puzzle}"]
        assert results["legal,none"] == sum(line["legal"] for line in lines) / len(lines)
    assert set(verdicts) == {True, False}  # the mock's mix: both verdicts were compared


def test_the_folder_holds_a_task_per_puzzle_and_the_group() -> None:
    printed = subprocess.run([sys.executable, "-m", "codebench.integrations.lm_eval"], capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0 and Path(printed.stdout.strip()) == TASKS and TASKS.is_dir()
    tasks = {path.stem: yaml.safe_load(path.read_text()) for path in TASKS.glob("codebench_*.yaml")}
    assert tasks == {f"codebench_{name}": {"include": "_codebench_template_yaml", "task": f"codebench_{name}",
                                           "dataset_kwargs": {"puzzle": name}} for name in puzzles.puzzle_names()}
    assert yaml.safe_load((TASKS / "codebench.yaml").read_text())["task"] == [f"codebench_{name}" for name in puzzles.puzzle_names()]
    shared = yaml.load((TASKS / "_codebench_template_yaml").read_text(), Loader=_Tagged)
    assert shared["generation_kwargs"]["temperature"] == RunSpec.temperature  # `codebench run`'s sampling
    assert shared["generation_kwargs"]["max_tokens"] == RunSpec.max_tokens


class _Tagged(yaml.SafeLoader):
    """YAML with lm-eval's `!function` tags read as their text."""


_Tagged.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def test_metadata_options_are_checked_as_codebench_run_checks_them() -> None:
    from codebench.errors import InputError
    from codebench.integrations.lm_eval import docs

    with pytest.raises(InputError) as raised:
        docs("hanoi", levels="2-9", version=1.0)  # `version`: the task's own metadata, passed along by lm-eval
    assert str(raised.value) == "levels (in lm_eval --metadata) '2-9': '2-9' must go upwards within 1-6"
    assert docs("river", levels=2, instances_per_level=3, seed=5)["test"]["id"] == [f"river/L2/s{seed}" for seed in (5, 6, 7)]
