"""Several models from several endpoints in one run: each model's own server, key variable and request fields, with
presentation parameters from the config and the flags; keys that stay those of a plain run when nothing extra is set."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from codebench.keys import content_key, sample_key
from codebench.model.mock_server import start_mock_server
from codebench.types import Sampling

from .cli import run_cli


def test_each_model_is_asked_at_its_own_endpoint_with_its_own_request_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # instruction mode runs no program
    monkeypatch.setenv("CODEBENCH_TEST_KEY", "secret-b")
    with start_mock_server() as first, start_mock_server(api_key="secret-b") as second:
        config = tmp_path / "run.yaml"
        config.write_text(f"""
mode: instruction
puzzles: [hanoi, rubik]
levels: [1]
instances_per_level: 1
samples: 1
base_url: {first.url}
request: {{reasoning_effort: low}}
params: {{rubik: {{reveal_scramble: false}}}}
models:
  - oracle
  - {{name: reasoning, label: thinker, base_url: {second.url}, api_key_env: CODEBENCH_TEST_KEY,
     request: {{reasoning_effort: high}}}}
  - {{name: reasoning, label: thinker-default}}
""")
        argv = ("run", "--config", str(config), "--param", "rubik.reveal_scramble=true", "--out", str(tmp_path / "run"))
        code, _, err = run_cli(capsys, *argv)
        assert code == 0, err
        hits = first.hits, second.hits
        code, _, err = run_cli(capsys, *argv)  # resumed: nothing is asked again, of either server
        assert code == 0 and (first.hits, second.hits) == hits == (4, 2), err
    with closing(sqlite3.connect(tmp_path / "run" / "run.sqlite")) as db:
        samples = db.execute("SELECT model, base_url, puzzle, instance_id, prompt, reasoning FROM samples").fetchall()
        run = json.loads(db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()[0])
    assert run["base_urls"] == {"oracle": first.url, "thinker": second.url, "thinker-default": first.url}
    assert sorted((model, url) for model, url, *_ in samples) == sorted(
        [("oracle", first.url)] * 2 + [("thinker", second.url)] * 2 + [("thinker-default", first.url)] * 2)
    efforts = {model: reasoning.split(")")[0] for model, _, _, _, _, reasoning in samples if reasoning}
    assert efforts == {"thinker": "(reasoning_effort high", "thinker-default": "(reasoning_effort low"}  # own, else the run's
    rubik = [(instance_id, prompt) for _, _, puzzle, instance_id, prompt, _ in samples if puzzle == "rubik"]
    assert len(rubik) == 3 and all(instance_id == "rubik/L1/s0+reveal_scramble=true"  # the flag won over the config
                                   and "The scramble that made `state`" in json.loads(prompt)[-1]["content"]
                                   for instance_id, prompt in rubik)


def test_a_plain_request_keeps_the_key_format_of_earlier_versions() -> None:
    sampling = Sampling(0.7, None, 3)
    plain = sample_key("m", "http://x/v1", "[]", sampling, 3)
    assert plain == content_key("sample", "m", "http://x/v1", "[]", {"temperature": 0.7, "max_tokens": None, "seed": 3}, 3)
    assert sample_key("m", "http://x/v1", "[]", sampling, 3, served="m", request={}) == plain
    assert len({plain, sample_key("m", "http://x/v1", "[]", sampling, 3, served="other"),
                sample_key("m", "http://x/v1", "[]", sampling, 3, request={"reasoning_effort": "high"})}) == 3


def test_presentation_parameters_reach_both_modes_on_the_same_instances(tmp_path: Path) -> None:
    from codebench.run.plan import make_plan
    from codebench.run.spec import RunSpec

    spec = RunSpec(models=("oracle",), mode="both", puzzles=("rubik", "hanoi"), levels=(1, 2), instances_per_level=2, samples=1,
                   params={"rubik": {"reveal_scramble": True}}, out=tmp_path)
    plan = make_plan(spec, "http://127.0.0.1:9/v1")
    seen: dict[str, set[str]] = {}
    for job in plan.samples:
        if job.puzzle == "rubik":
            seen.setdefault(job.mode, set()).update(record.id for record in job.instances)
    assert seen["code"] == seen["instruction"] == {f"rubik/L{level}/s{seed}+reveal_scramble=true" for level in (1, 2) for seed in (0, 1)}
    assert all(record.instance["scramble"] for record in plan.instances["rubik"])
    assert {job.mode for job in plan.samples} == {"code", "instruction"}


def test_the_readme_config_is_a_valid_run_config() -> None:
    import yaml

    from codebench.run.options import spec_from_options

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("Several models from several endpoints", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    spec = spec_from_options({}, yaml.safe_load(block))
    assert [(m.label, m.request) for m in spec.model_specs] == [
        ("gpt-4o-mini", {"reasoning_effort": "medium"}), ("o3-mini", {"reasoning_effort": "high"}),
        ("qwen3-local", {"reasoning_effort": "medium", "chat_template_kwargs": {"enable_thinking": True}})]
    assert spec.endpoint_options(spec.model_specs[2]) == ("http://gpu-box:8000/v1", "VLLM_KEY", None)
    assert spec.endpoint_options(spec.model_specs[0]) == (None, None, "openai") and spec.params == {"rubik": {"reveal_scramble": True}}
