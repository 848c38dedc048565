"""lm-evaluation-harness tasks, one per puzzle (`codebench_hanoi`, …, and the group `codebench`): a task folder for
`--include_path`, whose path `python -m codebench.integrations.lm_eval` prints (needs the `lmeval` extra).

    lm_eval --model local-chat-completions --model_args model=M,base_url=URL/v1/chat/completions \\
        --tasks codebench_hanoi --include_path "$(python -m codebench.integrations.lm_eval)" --apply_chat_template

Instruction mode, on the instances `codebench run --mode instruction` plans (lm-eval's `--metadata` sets `levels`,
`instances_per_level` and `seed`, as `codebench run` takes them: '{"levels": "1-3", "seed": 1}'). Each doc holds the
two messages the run sends: with --apply_chat_template, the task's `description` is the doc's system message and its
text the user message, so a chat model gets exactly the run's [system, user] (without it, both as one text). lm-eval
asks once: it has no follow-up turn, so there are no format retries (a reply without an answer is not legal). The metric
`legal` is the validator's verdict on the answer read from the reply, per doc, and its mean.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from datasets import Dataset

from puzzles import Record

from ..types import Status
from ._planning import INSTANCES_PER_LEVEL, LEVELS, SEED, plan_requests
from ._scoring import score_reply

TASKS = Path(__file__).resolve().parent / "lm_eval_tasks"  # the folder for --include_path
WHERE = "lm_eval --metadata"  # how an option's message names where it was given
SPLIT = "test"


def docs(puzzle: str, levels: str | int | Sequence[int] = LEVELS, instances_per_level: int = INSTANCES_PER_LEVEL, seed: int = SEED,
         **_: Any) -> dict[str, Dataset]:
    """The task's dataset (lm-eval's `custom_dataset` hook, called with the task's metadata and `--metadata`; the keys
    it does not take are lm-eval's or other tasks'): a doc per planned request."""
    planned = plan_requests(puzzle, levels=levels, instances_per_level=instances_per_level, seed=seed, where=WHERE)
    rows = [{"id": request.record.id, "puzzle": puzzle, "level": request.record.level, "seed": request.record.seed,
             **dict(request.job.prompt.messages), "record": json.dumps(request.record.to_json())}
            for request in planned.requests]
    return {SPLIT: Dataset.from_list(rows)}


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """The validator's verdict on the reply (lm-eval's `process_results` hook): legal 1.0, else 0.0."""
    return {str(Status.LEGAL): float(score_reply(Record(**json.loads(doc["record"])), results[0]).legal)}  # the metric `legal`


if __name__ == "__main__":
    sys.stdout.write(f"{TASKS}\n")
