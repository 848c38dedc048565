"""The nine puzzle families as reasoning-gym datasets, against the real library (the `gym` extra; without it these
fail): every family registered and created, reference answers score 1.0 and corrupted ones 0.0 over 200 instances,
a truncated legal plan scores its partial credit, and reasoning-gym's own conventions hold (answers are strings that
score 1.0, metadata names the source, deterministic by seed, size honoured, curricula and experiments run)."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import reasoning_gym
from reasoning_gym.coaching.curriculum_config import CurriculumAttributeConfig, CurriculumExperimentConfig
from reasoning_gym.coaching.experiment import CurriculumExperiment
from reasoning_gym.factory import DATASETS, create_curriculum, get_score_answer_fn

import codebench.integrations.reasoning_gym as gym
from puzzles import PUZZLES, get_puzzle, instruction_prompt

ROOT = Path(__file__).resolve().parents[2]
NAMES = [f"codebench_{puzzle.name}" for puzzle in PUZZLES]
PLANS = [puzzle.name for puzzle in PUZZLES if puzzle.trajectory_field is not None]
# The 200-instance sweep: every family, each level L1-L6 in some family, none whose items take a tenth of a second to
# make or judge (cryptarithm L3-L4, sudoku L2-L6, the cube's L5-L6, Hanoi's 2^15-move plans at L6).
SWEEP = {"hanoi": 5, "checkers": 6, "river": 4, "sat": 6, "cryptarithm": 2, "coloring": 3, "waterjug": 6, "sudoku": 1, "rubik": 4}
PER_FAMILY = 23  # 9 × 23 = 207 instances


def dataset(puzzle: str, **config: Any) -> gym.PuzzleDataset:
    found = reasoning_gym.create_dataset(f"codebench_{puzzle}", **config)
    assert isinstance(found, gym.PuzzleDataset)
    return found


def corrupted(entry: dict[str, Any]) -> dict[str, str]:
    """Answers that must score 0.0: no JSON object in them, or one of the wrong shape (nothing legal to credit)."""
    reference = json.loads(entry["answer"])
    (field, value), = reference.items()
    return {
        "empty": "",
        "prose": "I could not solve this one.",
        "no object": re.sub(r"[{}]", "", entry["answer"]),  # the reference's text without its braces
        "cut short": "```json\n" + entry["answer"][: len(entry["answer"]) // 2] + "\n```",  # a fence holding no JSON
        "renamed": json.dumps({f"{field}s": value}),  # the answer's field misnamed
        "emptied": json.dumps({field: []}),  # no plan (0 legal steps), or a list where an object or string is due
    }


def test_every_family_is_registered_with_reasoning_gym() -> None:
    assert sorted(name for name in DATASETS if name.startswith("codebench_")) == sorted(NAMES)
    for name in NAMES:
        dataset_cls, config_cls = DATASETS[name]
        assert issubclass(dataset_cls, gym.PuzzleDataset) and config_cls is gym.PuzzleDatasetConfig
        assert dataset_cls.puzzle is get_puzzle(name.removeprefix("codebench_"))


@pytest.mark.parametrize("name", NAMES)
def test_reasoning_gyms_own_dataset_convention(name: str) -> None:
    """What reasoning-gym's test_dataset_common asks of every registered dataset (size=10, seed=1234, the default
    config otherwise), and what its datasets' tests ask: question, string answer, metadata naming the source; the
    answer scores 1.0 (by the dataset and by `get_score_answer_fn`); no answer scores 0.0."""
    found = reasoning_gym.create_dataset(name, size=10, seed=1234)
    score = get_score_answer_fn(name)
    entries = list(found)
    assert len(entries) == 10
    for index, entry in enumerate(entries):
        assert set(entry) == {"question", "answer", "metadata"}
        assert isinstance(entry["question"], str) and isinstance(entry["answer"], str)
        metadata = entry["metadata"]
        assert (metadata["source_dataset"], metadata["source_index"], metadata["difficulty"]) == (name, index, {"level": 1})
        assert found.score_answer(answer=entry["answer"], entry=entry) == 1.0
        assert score(entry["answer"], entry) == 1.0
        assert found.score_answer(None, entry) == 0.0 and found.score_answer("", entry) == 0.0


@pytest.mark.parametrize("puzzle", [puzzle.name for puzzle in PUZZLES])
def test_an_entry_is_the_instruction_prompt_and_the_reference_of_the_librarys_instance(puzzle: str) -> None:
    entry = dataset(puzzle, level=2, size=1, seed=7)[0]
    metadata = entry["metadata"]
    family = get_puzzle(puzzle)
    record = family.generate(level=2, seed=metadata["seed"])
    messages = instruction_prompt(family, record)
    assert (metadata["puzzle"], metadata["level"], metadata["instance_id"]) == (puzzle, 2, record.id)
    assert metadata["seed"] == gym.instance_seed(7, 0) < 2**53
    assert metadata["instance"] == record.instance and metadata["messages"] == messages
    assert entry["question"] == messages[0]["content"] + "\n" + messages[1]["content"]  # system, a blank line, user
    assert json.loads(entry["answer"]) == family.solve(record.instance)
    assert family.validate_json(record.instance, entry["answer"]).ok


def test_references_score_one_and_corrupted_answers_zero_over_200_instances() -> None:
    judged = 0
    for puzzle, level in SWEEP.items():
        found = dataset(puzzle, level=level, size=PER_FAMILY, seed=2026)
        for entry in found:
            reply = "Step by step, I find:\n```json\n" + entry["answer"] + "\n```\n"  # a model's reply, as instruction mode reads it
            assert found.score_answer(entry["answer"], entry) == 1.0 and found.score_answer(reply, entry) == 1.0
            for why, answer in corrupted(entry).items():
                assert found.score_answer(answer, entry) == 0.0, (entry["metadata"]["instance_id"], why)
            assert found.score_answer(None, entry) == 0.0
            judged += 1
    assert judged >= 200


def truncated(puzzle: str, answer: str, steps: int) -> str:
    """The reference plan's first `steps` steps: legal, but short of the goal."""
    (field, plan), = json.loads(answer).items()
    kept = " ".join(plan.split()[:steps]) if isinstance(plan, str) else plan[:steps]  # the cube's plan is one string of turns
    return json.dumps({field: kept})


@pytest.mark.parametrize("puzzle", PLANS)
def test_a_truncated_legal_plan_scores_its_share_of_the_partial_credit(puzzle: str) -> None:
    """partial_credit × min(1, steps_applied / shortest): strictly between 0 and the credit, never 1; none when the
    config sets partial_credit=0; `shortest` is the generator's minimal length (the reference's for the cube at L5)."""
    level = 5 if puzzle == "rubik" else 3
    found, binary = dataset(puzzle, level=level, size=4, seed=3), dataset(puzzle, level=level, size=4, seed=3, partial_credit=0)
    for entry in found:
        metadata = entry["metadata"]
        meta = get_puzzle(puzzle).generate(level=level, seed=metadata["seed"]).meta
        shortest = metadata["shortest"]
        assert shortest == meta.get("min_solution_length", get_puzzle(puzzle).validate(metadata["instance"],
                                                                                        json.loads(entry["answer"])).steps_applied)
        steps = max(1, shortest // 2)
        answer = truncated(puzzle, entry["answer"], steps)
        score = found.score_answer(answer, entry)
        assert score == pytest.approx(0.5 * steps / shortest) and 0 < score < 0.5
        assert binary.score_answer(answer, entry) == 0.0
        assert found.score_answer(truncated(puzzle, entry["answer"], 0), entry) == 0.0  # no legal step: nothing to credit


def test_an_illegal_answer_that_is_not_a_plan_scores_zero() -> None:
    found = dataset("sudoku", level=1, size=3, seed=0)
    for entry in found:
        grid = json.loads(entry["answer"])["grid"]
        grid[0][0], grid[0][1] = grid[0][1], grid[0][0]  # two cells of a row swapped: a column repeats a digit
        assert entry["metadata"]["shortest"] is None
        assert found.score_answer(json.dumps({"grid": grid}), entry) == 0.0


def test_deterministic_by_seed_and_different_seeds_draw_different_instances() -> None:
    first, again = (list(dataset("sat", level=3, size=6, seed=11)) for _ in range(2))
    assert first == again
    other = list(dataset("sat", level=3, size=6, seed=12))
    instances = [{entry["metadata"]["instance_id"] for entry in entries} for entries in (first, other)]
    assert instances[0].isdisjoint(instances[1])  # nor shifted by one: seed 11's item 1 is not seed 12's item 0


def test_the_same_seed_gives_the_same_entries_in_another_process() -> None:
    script = ("import json, reasoning_gym, codebench.integrations.reasoning_gym\n"
              "print(json.dumps(list(reasoning_gym.create_dataset('codebench_checkers', level=4, size=3, seed=5))))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "123"}, timeout=120)
    assert json.loads(done.stdout) == json.loads(json.dumps(list(dataset("checkers", level=4, size=3, seed=5))))


@pytest.mark.parametrize("size", [1, 7])
def test_size_is_honoured(size: int) -> None:
    found = dataset("waterjug", level=2, size=size, seed=0)
    assert len(found) == size and len(list(found)) == size
    assert [entry["metadata"]["source_index"] for entry in found] == list(range(size))


@pytest.mark.parametrize(("setting", "value"), [("level", 0), ("level", 7), ("level", "3"), ("size", 0), ("seed", "1"),
                                                ("partial_credit", 1.0), ("partial_credit", -0.1)])
def test_a_setting_out_of_range_is_refused_by_name(setting: str, value: object) -> None:
    with pytest.raises(ValueError, match=setting):
        reasoning_gym.create_dataset("codebench_hanoi", **{setting: value})


def test_a_dataset_pickles() -> None:
    """Data loaders send datasets to worker processes by pickle: each family's class is importable by name."""
    found = dataset("river", level=2, size=2, seed=4)
    assert pickle.loads(pickle.dumps(found))[1] == found[1]


def test_the_curriculum_steps_through_the_levels_in_a_reasoning_gym_experiment() -> None:
    curriculum = create_curriculum("codebench_hanoi")
    assert curriculum.generate_configuration({"seed": 1, "size": 2}) == gym.PuzzleDatasetConfig(level=1, seed=1, size=2)
    curriculum.increment_attr_level("level")
    assert curriculum.generate_configuration({}).level == 2
    config = CurriculumExperimentConfig(curricula={"codebench_hanoi": CurriculumAttributeConfig(attribute_levels={"level": 2}),
                                                   "codebench_coloring": CurriculumAttributeConfig(attribute_levels={"*": 0})})
    experiment = CurriculumExperiment("codebench", config, size=8, seed=5)
    for index in range(8):
        entry = experiment.get_dataset_entry(index)
        assert experiment.score_answer_with_id(entry["answer"], entry["metadata"]["entry_id"]) == 1.0
    experiment.update_difficulty("codebench_coloring", "increment")
    levels = {entry["metadata"]["source_dataset"]: entry["metadata"]["level"] for entry in map(experiment.get_dataset_entry, range(8))}
    assert levels == {"codebench_hanoi": 3, "codebench_coloring": 2}
    grouped = experiment.score_board.aggregate()
    assert {key for scores in grouped.values() for key in scores.scores} == {
        (("source", "codebench_hanoi"), ("level", 3)), (("source", "codebench_coloring"), ("level", 1))}


def test_the_readmes_example_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^### As reasoning-gym datasets\n(.*?)^#", text, re.S | re.M)
    assert section, "the README has no '### As reasoning-gym datasets' section"
    block, = re.findall(r"^```python\n(.*?)^```", section.group(1), re.S | re.M)
    exec(compile(block, "README.md", "exec"), {})  # its asserts hold
