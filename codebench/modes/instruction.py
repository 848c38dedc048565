"""Instruction mode: the model answers one instance directly, zero-shot by default; the validator grades the answer on
the host.

The prompt (`templates/instruction/<puzzle>.md.j2`, one template for every level) holds the rules (shared with code
mode, `templates/rules/`), the instance rendered for reading and as JSON, and a strict answer format: a final JSON
object in a ```json block. The run's `Prompting` may replace its system message, override its templates, show a worked
example in it, or put worked examples before it as earlier turns (`puzzles.instruction_prompt`). A sample is one
(model, instance, sample index) request. When nothing parseable comes back, the model gets up to `format_retries`
short corrective follow-ups in the same conversation (PuzzlePlex's 5 by default); then the sample is `no_answer`. The
answer read from the reply is kept like a program (its JSON text, content-keyed) and its verdict like an execution, so
resume, reports and comparisons treat both modes alike.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from puzzles import Prompting, Puzzle, PuzzleError, Record, get_puzzle, instruction_prompt, read_answer

from ..errors import InputError
from ..judge import judge_answer
from ..keys import program_key
from ..types import Completion, Limits, ModeName, Program, Prompt, Reading, Sample, SampleJob, Status
from . import FORMAT_RETRIES, Bench, ChatModel, Execution, Mode, Question, Reply
from ._hedging import hedges

ANSWER_ENTRY = "answer"  # what an instruction-mode "program" is: the answer's JSON text, not code
FORMAT_REMINDER = ("I could not find your answer: your reply must end with one JSON object in a ```json code block "
                   "that follows the schema above. Reply again, ending with that block.")


def render_instruction_prompt(puzzle: Puzzle[Any], record: Record, prompting: Prompting | None = None) -> Prompt:
    """The instruction-mode prompt for one instance: `puzzles.instruction_prompt`'s messages.

    Raises:
        InputError: the templates folder or the puzzle's template is missing (the message says where), or a template
            fails to render (the message names its file and Jinja's error).
    """
    try:
        messages = instruction_prompt(puzzle, record, prompting)
    except PuzzleError as exc:
        raise InputError(str(exc)) from None
    return Prompt(puzzle.name, InstructionMode.name, tuple((message["role"], message["content"]) for message in messages))


class InstructionMode(Mode):
    """One prompt per instance; each sample's answer is judged on that instance only."""

    name = ModeName.INSTRUCTION
    uses_sandbox = False

    def __init__(self, format_retries: int = FORMAT_RETRIES, prompting: Prompting | None = None) -> None:
        super().__init__(prompting)
        self.format_retries = format_retries

    def questions(self, puzzle: Puzzle[Any], records: tuple[Record, ...], limits: Limits) -> tuple[Question, ...]:
        return tuple(Question(render_instruction_prompt(puzzle, record, self.prompting), (record,), record.id)
                     for record in records)

    async def ask(self, job: SampleJob, model: ChatModel) -> Reply:
        messages = job.prompt.as_messages()
        spent: Completion | None = None  # the tokens and time of the turns before the last
        retried: list[str] = []  # their replies
        for retries in range(self.format_retries + 1):
            completion = _after(spent, await model.complete(messages, temperature=job.sampling.temperature,
                                                            max_tokens=job.sampling.max_tokens, seed=job.sampling.seed))
            if completion.error is not None:
                return Reply(completion, Reading(Status.API_ERROR, completion.error, hedged=await _hedged(completion)), retries,
                             tuple(retried))
            answer = (await asyncio.to_thread(read_answer, completion.text)).text  # a big reply holds no event loop
            if answer is not None:
                return Reply(completion, Reading(None, "", Program(program_key(answer), answer, ANSWER_ENTRY),
                                                 await _hedged(completion)), retries, tuple(retried))
            messages = [*messages, {"role": "assistant", "content": completion.text}, {"role": "user", "content": FORMAT_REMINDER}]
            spent = completion
            retried.append(completion.text)
        truncated = " (the last reply was cut off at max_tokens)" if completion.truncated else ""
        return Reply(completion, Reading(Status.NO_ANSWER, f"no parseable answer after {self.format_retries} format "
                                                           f"retries{truncated}", hedged=await _hedged(completion)),
                     self.format_retries, tuple(retried[:-1]))

    async def judge(self, job: SampleJob, sample: Sample, bench: Bench) -> None:
        answer = sample.reading.program
        if answer is None:
            bench.settle(sample.reading.status or Status.NO_ANSWER, len(job.instances))
            return
        puzzle = get_puzzle(job.puzzle)
        for record in job.instances:
            bench.record(answer, Execution.of(answer, record, bench.limits), judge_answer(puzzle, record.instance, answer.source))


def _after(spent: Completion | None, completion: Completion) -> Completion:
    """`completion`, with the tokens and time of the earlier turns of its conversation added."""
    if spent is None:
        return completion
    return replace(completion, prompt_tokens=_plus(spent.prompt_tokens, completion.prompt_tokens),
                   completion_tokens=_plus(spent.completion_tokens, completion.completion_tokens),
                   reasoning_tokens=_plus(spent.reasoning_tokens, completion.reasoning_tokens),
                   latency_s=spent.latency_s + completion.latency_s)


def _plus(first: int | None, second: int | None) -> int | None:
    return None if first is None and second is None else (first or 0) + (second or 0)


async def _hedged(completion: Completion) -> bool:
    """How sure the reply that is kept sounds (a wrong answer's failure mode); read once, off the event loop."""
    return await asyncio.to_thread(hedges, completion.text)
