"""The nine puzzle families as reasoning-gym datasets, `codebench_<puzzle>` (`pip install codebench-puzzles[gym]`):

    import reasoning_gym
    import codebench.integrations.reasoning_gym  # registers codebench_hanoi … codebench_rubik

    data = reasoning_gym.create_dataset("codebench_sudoku", level=4, size=100, seed=1)
    entry = data[0]
    data.score_answer(entry["answer"], entry)  # 1.0

Registration is this module's import: reasoning-gym (0.1.x) has no plugin entry point; its registry is the dict
`reasoning_gym.factory.DATASETS`, filled by `register_dataset` as each of its own dataset modules is imported, and
this module does the same. Each dataset also registers a curriculum over the levels
(`reasoning_gym.factory.create_curriculum`), so reasoning-gym's curriculum experiments can raise the level as a model
learns (its attribute `level` counts from 0, as reasoning-gym's curricula do: 0 is L1).

An entry, following reasoning-gym's conventions:
- `question`: the instruction-mode prompt (`puzzles.instruction_prompt`), byte for byte what `codebench run --mode
  instruction` sends, as one text: reasoning-gym poses a single string, so the system message comes first, then a
  blank line, then the user message. `metadata["messages"]` holds the two chat messages as they are.
- `answer`: the puzzle's reference solution (`Puzzle.solve`) as canonical JSON text (a bare JSON object).
- `metadata`: `source_dataset` and `source_index` (the dataset's name and the item's index), `difficulty`
  (`{"level": level}`, what reasoning-gym's score boards group by), `puzzle`, `level`, `seed` and `instance_id` (the
  puzzle library's own seed and id: `get_puzzle(puzzle).generate(level=level, seed=seed)` draws the instance again),
  `instance` (the instance as JSON), `messages`, and `shortest` (see scoring).

Seeds: item `index` of a dataset seeded `seed` is the puzzle library's instance at the dataset's level and the seed
`instance_seed(seed, index)`, 53 bits of SHA-256 over both (a number every JSON reader and Arrow's int64 hold
exactly). Datasets are deterministic by seed, in any process, and nearby seeds do not draw shifted copies of one
sequence as reasoning-gym's own `Random(seed + index)` does (its seed 1's item 1 is its seed 2's item 0), so a
training and a test set may take seeds 1 and 2. Like reasoning-gym's datasets, a dataset is virtual: `len` and
iteration give `size` items, and any index gives one.

Scoring (`score_answer(answer, entry)`), backed by the validators and read as codebench's instruction mode reads a
reply: the answer is a model's reply or the part of it a training loop extracted (inside `<answer>` tags, say),
searched with `puzzles.read_answer` (the last ```json block, else any fenced JSON, else the last bare JSON object),
and that JSON is judged by the puzzle's `validate_json` (through `_scoring`, as every adapter scores):
- 1.0 when the answer is legal;
- 0.0 when the reply holds no JSON object (or is not a string), and for an illegal answer that is not a plan;
- for an illegal plan (the trajectory puzzles: hanoi, checkers, river, waterjug, rubik), codebench's trace grading:
  `partial_credit × min(1, steps_applied / shortest)`, where `steps_applied` is the validator's count of legal steps
  before the first illegal one or the end of the plan, and `shortest` is the instance's minimal solution length
  (the generator's `min_solution_length`; where the generator knows none, the cube at levels 5–6, the length of the
  reference solution). `partial_credit` is the config's, 0.5 by default and always below 1, so a legal answer always
  scores more than any illegal one; an answer of a wrong shape, or whose first step is illegal, scores 0.0.
Legal steps are not progress toward the goal: on the cube every turn is legal, so `shortest` turns that solve
nothing earn the whole partial credit. Set `partial_credit=0` for a reward that is 1 for legal answers and 0 otherwise.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, ClassVar

from reasoning_gym.coaching import BaseCurriculum, ScalarAttributeDefinition
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import register_dataset

from puzzles import LEVELS, PUZZLES, ParamError, Puzzle, dumps_canonical, instruction_prompt

from ._scoring import score_text

PREFIX = "codebench_"  # a dataset's name is the prefix and the puzzle's name: codebench_sudoku


@dataclass
class PuzzleDatasetConfig:
    """A dataset's configuration, the keywords `create_dataset` takes: the level, the seed (None: a random one, as
    reasoning-gym does), the number of items, and the most an illegal plan earns (see the module's docstring)."""

    level: int = 1
    seed: int | None = None
    size: int = 500
    partial_credit: float = 0.5

    def validate(self) -> None:
        """Raise ParamError (a ValueError) naming the first setting out of range; create_dataset calls it."""
        if type(self.level) is not int or self.level not in LEVELS:
            raise ParamError(f"level {self.level!r}: expected an integer {min(LEVELS)}..{max(LEVELS)}")
        if self.seed is not None and type(self.seed) is not int:
            raise ParamError(f"seed {self.seed!r}: expected an integer or None")
        if type(self.size) is not int or self.size < 1:
            raise ParamError(f"size {self.size!r}: expected a whole number of items, at least 1")
        if type(self.partial_credit) not in (int, float) or not 0 <= self.partial_credit < 1:
            raise ParamError(f"partial_credit {self.partial_credit!r}: expected a number from 0 up to (not including) 1")


def instance_seed(seed: int, index: int) -> int:
    """The puzzle library's seed for item `index` of a dataset seeded `seed` (0..2^53 − 1)."""
    digest = hashlib.sha256(f"codebench reasoning-gym|{seed}|{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 11


class PuzzleDataset(ProceduralDataset):
    """One puzzle family's dataset; each family's subclass (`SudokuDataset` …) sets `puzzle`."""

    puzzle: ClassVar[Puzzle[Any]]

    def __init__(self, config: PuzzleDatasetConfig) -> None:
        super().__init__(config=config, seed=config.seed, size=config.size)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        level = self.config.level
        record = self.puzzle.generate(level=level, seed=instance_seed(self.seed, idx))
        messages = instruction_prompt(self.puzzle, record)
        reference = self.puzzle.solve(record.instance)
        return {
            "question": "\n".join(message["content"] for message in messages),  # each ends in a newline: a blank line between
            "answer": dumps_canonical(reference),
            "metadata": {
                "source_dataset": PREFIX + self.puzzle.name,
                "source_index": idx,
                "difficulty": {"level": level},
                "puzzle": self.puzzle.name,
                "level": level,
                "seed": record.seed,
                "instance_id": record.id,
                "instance": record.instance,
                "messages": messages,
                "shortest": self._shortest(record.meta, record.instance, reference),
            },
        }

    def _shortest(self, meta: dict[str, Any], instance: dict[str, Any], reference: Any) -> int | None:
        """The instance's minimal plan length, else the reference plan's; None when answers are not plans."""
        if self.puzzle.trajectory_field is None:
            return None
        known = meta.get("min_solution_length")
        return known if type(known) is int else self.puzzle.validate(instance, reference).steps_applied

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """1.0 for a legal answer, partial credit for an illegal plan's legal steps, else 0.0 (the module's docstring)."""
        if not isinstance(answer, str):
            return 0.0
        metadata = entry["metadata"]
        scored = score_text(self.puzzle, metadata["instance"], answer, metadata["shortest"])
        return 1.0 if scored.legal else self.config.partial_credit * (scored.progress or 0.0)


class LevelCurriculum(BaseCurriculum):
    """reasoning-gym's curriculum for every codebench dataset: one attribute, `level`, over L1–L6."""

    def __init__(self) -> None:
        super().__init__(type(self).__name__, PuzzleDatasetConfig)
        self._define_attributes(ScalarAttributeDefinition(name="level", field_name="level", levels=list(LEVELS),
                                                          description="the puzzle library's level of difficulty"))


def _dataset_class(puzzle: Puzzle[Any]) -> type[PuzzleDataset]:
    name = type(puzzle).__name__ + "Dataset"  # Sudoku -> SudokuDataset
    return type(name, (PuzzleDataset,), {"puzzle": puzzle, "__module__": __name__, "__doc__": f"{puzzle.title} levels L1-L6."})


DATASETS: dict[str, type[PuzzleDataset]] = {PREFIX + puzzle.name: _dataset_class(puzzle) for puzzle in PUZZLES}
globals().update({dataset.__name__: dataset for dataset in DATASETS.values()})  # importable by name: datasets pickle
for _name, _dataset in DATASETS.items():
    register_dataset(_name, _dataset, PuzzleDatasetConfig, LevelCurriculum)
