"""Modes: how a model is asked and how its reply is judged, one module per mode behind `Mode`.

The pipeline walks every sample through the same stages and asks the sample's mode at three of them:
`questions` (which prompts, judged on which instances) → `ask` (the conversation, and what is read
from the reply) → `judge` (the outcomes on the instances, through the `Bench` the pipeline lends).
A new mode is a module here and one line in `get_mode`; the pipeline does not change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from puzzles import Prompting, Puzzle, Record

from ..errors import ConfigError
from ..keys import execution_key
from ..types import Completion, Facts, Limits, ModeName, Outcome, Program, Prompt, Reading, Sample, SampleJob, Status

MODES = tuple(ModeName)
FORMAT_RETRIES = 5  # instruction mode's corrective follow-ups by default, as PuzzlePlex


@dataclass(frozen=True)
class Question:
    """One prompt of a mode and the instances its reply is judged on."""

    prompt: Prompt
    instances: tuple[Record, ...]
    instance_id: str | None = None  # the one instance the prompt shows, if it shows one


@dataclass(frozen=True)
class Reply:
    """What `ask` brings back: the final completion, what was read from it, and the format retries it took
    (with the replies that needed them, for the report's drill-down)."""

    completion: Completion
    reading: Reading
    format_retries: int = 0
    retried_replies: tuple[str, ...] = ()


@dataclass(frozen=True)
class Execution:
    """One run of a sample's program on one instance; `key` is where its outcome is stored."""

    key: str
    record: Record

    @classmethod
    def of(cls, program: Program, record: Record, limits: Limits) -> Execution:
        """The execution of `program` (code, or an answer's JSON text) on `record` under `limits`."""
        return cls(execution_key(program.key, record.id, record.meta, limits), record)


class ChatModel(Protocol):
    """The model stage as modes see it (`codebench.model.ModelClient`, or a fake in tests)."""

    @property
    def base_url(self) -> str: ...

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion: ...


Judge = Callable[[Execution, Facts], Outcome]


class Bench(Protocol):
    """What the pipeline lends a mode while it judges one sample: the sandbox, the store, the progress counters."""

    limits: Limits

    async def execute(self, program: Program, executions: Sequence[Execution], judge: Judge) -> None:
        """Run `program` on every execution not stored yet, judge and store each as it finishes."""

    def settle(self, status: Status, instances: int) -> None:
        """The sample's own status (no_code, api_error, …) stands for its `instances` instances."""

    def record(self, program: Program, execution: Execution, outcome: Outcome) -> None:
        """Store an outcome judged on the host without the sandbox (an answer given directly), unless stored already."""


class Mode(ABC):
    """One way of asking a model; see the module docstring."""

    name: ClassVar[ModeName]
    uses_sandbox: ClassVar[bool] = True  # False: nothing of this mode runs a program, so a run needs no sandbox

    def __init__(self, prompting: Prompting | None = None) -> None:
        self.prompting = prompting or Prompting()  # how its questions are posed beyond the shipped templates

    @abstractmethod
    def questions(self, puzzle: Puzzle[Any], records: tuple[Record, ...], limits: Limits) -> tuple[Question, ...]:
        """The prompts for one model × puzzle; each is sent once per sample."""

    @abstractmethod
    async def ask(self, job: SampleJob, model: ChatModel) -> Reply:
        """Hold the sample's conversation with the model and read its reply."""

    @abstractmethod
    async def judge(self, job: SampleJob, sample: Sample, bench: Bench) -> None:
        """Judge a stored sample on its instances through `bench`."""


def get_mode(name: str, format_retries: int = FORMAT_RETRIES, prompting: Prompting | None = None) -> Mode:
    """The mode called `name` (`format_retries`: instruction mode's follow-ups when nothing parseable came back), posing
    its questions as `prompting` says (default: the shipped templates).

    Raises:
        ConfigError: no such mode (the message lists the known ones).
    """
    if name == ModeName.CODE:
        from .code import CodeMode

        return CodeMode(prompting)
    if name == ModeName.INSTRUCTION:
        from .instruction import InstructionMode

        return InstructionMode(format_retries, prompting)
    raise ConfigError(f"--mode {name!r}: choose one of {', '.join(MODES)}")


__all__ = ["FORMAT_RETRIES", "MODES", "Bench", "ChatModel", "Execution", "Judge", "Mode", "Question", "Reply", "get_mode"]
