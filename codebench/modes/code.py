"""Code mode: the model writes `solve(instance) -> answer` once per sample; the sandbox runs it on every instance.

The prompt (`templates/code/<puzzle>.md.j2`) holds no instance: it states the rules, the fixed API,
both JSON Schemas with one small level-1 example, the sandbox limits and the output format, so one
program runs on every level's instances. Imports `puzzles`, the shared types, the templates, the
extraction and the validate stage.
"""

from __future__ import annotations

import asyncio
from typing import Any

from puzzles import Prompting, Puzzle, Record, get_puzzle

from ..judge import judge_execution
from ..keys import program_key
from ..types import Facts, Limits, ModeName, Outcome, Program, Prompt, Reading, Sample, SampleJob, Sampling, Status
from . import Bench, ChatModel, Execution, Mode, Question, Reply
from ._extract import extract_program
from ._hedging import hedges
from ._templates import compact_json, example_answer, limits_context, render, system_message

ENTRY = "solve"
EXAMPLE_LEVEL, EXAMPLE_SEED = 1, 0


def render_code_prompt(puzzle: Puzzle[Any], limits: Limits, prompting: Prompting | None = None) -> Prompt:
    """The code-mode prompt for `puzzle` under `limits`, posed as `prompting` says (default: the shipped templates).

    Raises:
        InputError: the templates folder or the puzzle's template is missing (the message says where), or a template
            fails to render (the message names its file and Jinja's error).
    """
    prompting = prompting or Prompting()
    record = puzzle.generate(EXAMPLE_LEVEL, EXAMPLE_SEED)
    answer_text, answer_note = example_answer(puzzle, puzzle.solve(record.instance))
    example = {"instance_json": compact_json(record.instance), "answer_json": answer_text, "answer_note": answer_note}
    context = {
        "mode": CodeMode.name,
        "name": puzzle.name,
        "title": puzzle.title,
        "entry": ENTRY,
        "levels": {level: dict(band) for level, band in puzzle.levels.items()},
        "instance_schema": compact_json(puzzle.instance_schema),
        "answer_schema": compact_json(puzzle.answer_schema),
        "examples": [example][:prompting.examples(CodeMode.name)],
        "limits": limits_context(limits),
    }
    user = render(CodeMode.name, puzzle.name, context, prompting)
    return Prompt(puzzle.name, CodeMode.name, (("system", system_message(CodeMode.name, context, prompting)), ("user", user)))


class CodeMode(Mode):
    """One prompt per puzzle; each sample's program is judged on every instance of the plan."""

    name = ModeName.CODE

    def questions(self, puzzle: Puzzle[Any], records: tuple[Record, ...], limits: Limits) -> tuple[Question, ...]:
        return (Question(render_code_prompt(puzzle, limits, self.prompting), records),)

    async def ask(self, job: SampleJob, model: ChatModel) -> Reply:
        """The reply's program defining `solve`."""
        return await ask_program(job.prompt, job.sampling, model, ENTRY)

    async def judge(self, job: SampleJob, sample: Sample, bench: Bench) -> None:
        """Run the program on every instance."""
        program = sample.reading.program
        if program is None:
            bench.settle(sample.reading.status or Status.NO_CODE, len(job.instances))
            return
        puzzle = get_puzzle(job.puzzle)
        executions = [Execution.of(program, record, bench.limits) for record in job.instances]

        def judged(execution: Execution, facts: Facts) -> Outcome:
            return judge_execution(facts, puzzle, execution.record.instance, bench.limits)

        await bench.execute(program, executions, judged)


async def ask_program(prompt: Prompt, sampling: Sampling, model: ChatModel, entry: str) -> Reply:
    """One request, and the program read from its reply: it must define `entry` (`solve`, or a game's `Strategy`)."""
    completion = await model.complete(prompt.as_messages(), temperature=sampling.temperature, max_tokens=sampling.max_tokens,
                                      seed=sampling.seed)
    hedged = await asyncio.to_thread(hedges, completion.text)  # how sure it sounds: a wrong program's failure mode
    if completion.error is not None:
        return Reply(completion, Reading(Status.API_ERROR, completion.error, hedged=hedged))
    extraction = await asyncio.to_thread(extract_program, completion.text, entry)  # a big reply holds no event loop
    if extraction.status is not None or extraction.source is None:
        return Reply(completion, Reading(extraction.status or Status.NO_CODE, extraction.detail, hedged=hedged))
    return Reply(completion, Reading(None, extraction.detail, Program(program_key(extraction.source), extraction.source, entry),
                                     hedged))
