"""inspect_ai tasks, one per puzzle: `inspect eval codebench/hanoi --model openai/<model>` (needs the `inspect` extra).

Instruction mode as `codebench run --mode instruction` runs it, through its own functions:
- the dataset is the instances the run plans for the same `-T levels=… instances_per_level=… seed=…` (one sample per
  distinct instance, its id the instance's, e.g. `hanoi/L3/s0`, its level in the metadata), each posed by the
  messages the run sends;
- the solver is instruction mode's own conversation (`InstructionMode.ask`): the same format reminder, up to
  `-T format_retries=…` times (5 by default), when nothing parseable came back;
- the scorer reads the last reply's answer and asks the puzzle's validator: CORRECT when legal, INCORRECT otherwise
  (the explanation: the validator's issues, or why no answer was read); the metadata holds the status and, for a plan,
  how far it got (`steps_applied`, `progress`: the partial credit); accuracy is reported per level and in all.
Generation defaults are the run's first sample's (temperature 0.7 and its seed); inspect's --temperature, --seed and
--max-tokens win. Every epoch sends that seed.

The entry point `inspect_ai: codebench` (pyproject) makes inspect import this module for the `codebench/…` names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.registry import registry_name
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, grouped, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from puzzles import get_puzzle, puzzle_names

from ..modes import FORMAT_RETRIES
from ..modes.instruction import InstructionMode
from ..types import Completion
from ._planning import INSTANCES_PER_LEVEL, LEVELS, SEED, PlannedRequest, plan_requests
from ._scoring import score_reply

PACKAGE = "codebench"  # the tasks' namespace: codebench/hanoi
WHERE = "inspect eval -T"  # how an option's message names where it was given
ROLES: dict[str, Callable[[str], ChatMessage]] = {"system": lambda text: ChatMessageSystem(content=text),
                                                  "user": lambda text: ChatMessageUser(content=text)}


def puzzle_task(puzzle: str, *, levels: str | int | Sequence[int] = LEVELS, instances_per_level: int = INSTANCES_PER_LEVEL,
                seed: int = SEED, format_retries: int = FORMAT_RETRIES) -> Task:
    """The instruction-mode task of `puzzle` (see the module docstring).

    Raises:
        ConfigError, InputError: an option `codebench run` would refuse (the message names it).
    """
    planned = plan_requests(puzzle, levels=levels, instances_per_level=instances_per_level, seed=seed,
                             format_retries=format_retries, where=WHERE)
    requests = {request.record.id: request for request in planned.requests}
    samples = [Sample(input=[ROLES[role](text) for role, text in request.job.prompt.messages], id=request.record.id,
                      metadata={"level": request.record.level, "seed": request.record.seed})
               for request in planned.requests]
    return Task(dataset=MemoryDataset(samples, name=f"{PACKAGE}_{puzzle}"), solver=instruction_conversation(requests,
                planned.format_retries), scorer=validator(requests),
                config=GenerateConfig(temperature=planned.sampling.temperature, seed=planned.sampling.seed,
                                      max_tokens=planned.sampling.max_tokens))


@solver
def instruction_conversation(requests: Mapping[str, PlannedRequest], format_retries: int) -> Solver:
    """Instruction mode's conversation with the model (`InstructionMode.ask`), each turn through inspect's generate."""
    mode = InstructionMode(format_retries)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        turns = _Turns(state, generate)
        reply = await mode.ask(requests[str(state.sample_id)].job, turns)
        turns.state.metadata["format_retries"] = reply.format_retries
        return turns.state

    return solve


class _Turns:
    """Instruction mode's model (`codebench.modes.ChatModel`) as inspect's generate: each call adds the turns the mode
    added since (its format reminder) to the sample's conversation and generates with inspect's configuration (the
    task's defaults, the command line's settings over them), so the log holds the whole conversation."""

    def __init__(self, state: TaskState, generate: Generate) -> None:
        self.state, self.generate = state, generate

    @property
    def base_url(self) -> str:
        return str(self.state.model)

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        self.state.messages.extend(ROLES[message["role"]](message["content"]) for message in messages[len(self.state.messages):])
        self.state = await self.generate(self.state)
        output, usage = self.state.output, self.state.output.usage
        return Completion(output.completion, output.stop_reason, output.stop_reason == "max_tokens",
                          usage.input_tokens if usage else None, usage.output_tokens if usage else None, output.time or 0.0,
                          output.model, None, reasoning_tokens=usage.reasoning_tokens if usage else None)


@scorer(metrics=[grouped(accuracy(), "level", name_template="L{group_name}"), stderr()])
def validator(requests: Mapping[str, PlannedRequest]) -> Scorer:
    """The puzzle's validator on the answer of the last reply (see the module docstring)."""

    async def score(state: TaskState, target: Target) -> Score:
        scored = score_reply(requests[str(state.sample_id)].record, state.output.completion)
        metadata: dict[str, Any] = {"status": str(scored.status), "issues": [issue.to_json() for issue in scored.issues],
                                    "first_illegal_step": scored.first_illegal_step, "steps_applied": scored.steps_applied,
                                    "progress": scored.progress, "format_retries": state.metadata.get("format_retries")}
        return Score(value=CORRECT if scored.legal else INCORRECT, answer=scored.answer, explanation=scored.explanation,
                     metadata=metadata)

    return score


def _registered(puzzle: str) -> Callable[..., Task]:
    """`puzzle`'s task, registered as codebench/<puzzle> with the -T options levels, instances_per_level, seed and
    format_retries."""

    def factory(levels: str | int | list[int] = LEVELS, instances_per_level: int = INSTANCES_PER_LEVEL, seed: int = SEED,
                format_retries: int = FORMAT_RETRIES) -> Task:
        return puzzle_task(puzzle, levels=levels, instances_per_level=instances_per_level, seed=seed,
                           format_retries=format_retries)

    factory.__name__ = factory.__qualname__ = puzzle
    factory.__doc__ = f"{get_puzzle(puzzle).title}, instruction mode, on the instances `codebench run` plans."
    # inspect namespaces a package's tasks itself only when it finds the package installed under its own name (a
    # wheel); an editable install of codebench-puzzles is not found so: then the namespace is given here.
    name = puzzle if registry_name(factory, puzzle).startswith(f"{PACKAGE}/") else f"{PACKAGE}/{puzzle}"
    return task(name=name)(factory)


TASKS = {puzzle: _registered(puzzle) for puzzle in puzzle_names()}
