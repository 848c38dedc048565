"""The vocabulary every stage shares: statuses, limits, sandbox facts, outcomes, programs, prompts, jobs, samples, rows.

The only place a status word is spelled. Imports the standard library and `puzzles` only, so any stage can
import it without loading another stage.

Glossary (one word, one concept; where each lives):
- instance: one generated puzzle at a level and seed (`puzzles.Record`); its `level` is the named step of difficulty
  (L1-L6), its complexity λ the generator's own measure (`meta`).
- question: what a mode asks a model once (`modes.Question`): code mode one per puzzle (a program for every level),
  instruction mode one per instance.
- mode: how a model is asked (`ModeName`, spelled only here): code or instruction; the object that asks and judges
  in a mode is a `modes.Mode` (`--mode both` runs the two on the same instances).
- sample: one request for a question and its reply (`SampleJob` planned, `Sample` stored): the n of pass@k.
- program: code a model wrote, or an instruction-mode answer judged the same way (`Program`); its `key` is its content.
- execution: a program run on one instance under `Limits`, or an answer judged on it (`modes.Execution`); the
  sandbox reports `Facts`, the judge turns them into an `Outcome`.
- outcome: the judged result of one execution or answer: a `Status`, a detail, the validator's issues, measurements.
  A game's end is a `puzzles.games.GameOutcome` (scores and results per seat), never an outcome.
- status: one word per (sample, instance), spelled only here (`Status`). Infrastructure statuses (`sandbox_error`,
  `api_error`) say nothing about the model: counted apart, never in a rate, redone on resume.
- limits: what one execution may use (`Limits`: CPU, wall, memory, output); a game's limits (`GameLimits`: CPU per
  move and per game) bind a sandboxed player. A budget is the run's alone: `--max-cost`, `--max-tokens-total`
  (run/pipeline.py), which hold requests back.
- game, match: a game is one of PuzzlePlex's engines (`puzzles.games.Game`); a match is one planned game at a level
  and seed between entrants (`games.plan.MatchJob`), stored with its record (`GameRow`).
- seat: a place at a game's table (0, 1); a player sits in it: a built-in strategy, a model's program (`ProgramSeat`,
  run by a sandbox worker held for it: `sandbox.HeldWorker`) or a model answering turn by turn (`ChatSeat`).
- strategy: a callable or a program's `Strategy` class that picks a move from an observation.
- cell: the report's unit: one model × mode × puzzle × level (`analysis.metrics.CellMetrics`).
- run: the results in one directory's `run.sqlite` (the store, `run.store.Store`), keyed by content (`keys`): the
  same question, sample, program and instance always have the same key, so a run resumes.
- not counted: a planned result a rate leaves out, with its reason (not asked, not run, infrastructure, void, not
  played: `run.results`); every report and export says how many.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from puzzles import Issue, Record

MIB = 1 << 20


class Status(StrEnum):
    """One per (sample, instance). Stored in results: values are never renamed."""

    LEGAL = "legal"  # valid and the goal reached
    RULE_VIOLATION = "rule_violation"  # the validator or the schema rejects the answer
    RUNTIME_ERROR = "runtime_error"  # exception, crash, signal, memory or output limit
    SYNTAX_ERROR = "syntax_error"  # the program does not compile
    TIMEOUT = "timeout"  # CPU or wall limit, from the harness's own kill record
    NO_CODE = "no_code"  # nothing extractable, or the entry point is missing
    NO_ANSWER = "no_answer"  # instruction mode: nothing parseable came back (collapse)
    SANDBOX_ERROR = "sandbox_error"  # infrastructure: retried, never counted against the program
    API_ERROR = "api_error"  # infrastructure: the model endpoint gave no usable reply

    @property
    def is_infrastructure(self) -> bool:
        """Says nothing about the model: counted apart, never in a denominator, redone on resume."""
        return self in INFRASTRUCTURE_STATUSES


INFRASTRUCTURE_STATUSES = frozenset({Status.SANDBOX_ERROR, Status.API_ERROR})
COUNTED_STATUSES = tuple(s for s in Status if s not in INFRASTRUCTURE_STATUSES)  # the report's column order
INFRASTRUCTURE_ORDER = tuple(s for s in Status if s in INFRASTRUCTURE_STATUSES)


class ModeName(StrEnum):
    """How a model is asked (`--mode`). Stored in results and keys: values are never renamed."""

    CODE = "code"  # writes one solver program per puzzle, run in the sandbox on every instance
    INSTRUCTION = "instruction"  # answers one instance directly; the answer is judged as a program's would be


class ReplySource(StrEnum):
    """Where a reply came from. Stored with a sample's and a game turn's tokens: values are never renamed."""

    API = "api"  # asked of the endpoint directly (paid at its price)
    BATCH = "batch"  # asked through the provider's Batch API (paid at its batch rate)
    CACHE = "cache"  # found in the response cache (`--cache`): asked and paid for before, free now


class ResultKind(StrEnum):
    """What the supervisor's child reported about itself (`Facts.result["kind"]`): its wire format."""

    ANSWER = "answer"
    LOADED = "loaded"
    READY = "ready"  # a game's player: Strategy(setup) stands
    ENDED = "ended"  # a game's player: stopped and cleaned up
    NO_CODE = "no_code"
    NOT_JSON = "not_json"
    EXCEPTION = "exception"
    SYNTAX_ERROR = "syntax_error"
    NONE = "none"  # the child exited without a report
    GARBLED = "garbled"
    TOO_LARGE = "too_large"


SUPERVISOR_OVERHEAD_MIB = 96  # the warm supervisor (numpy imported) that shares a worker's memory limit
MAX_CPU_S = 3600.0  # per instance: past an hour a typo, not a limit
MEMORY_MIB_RANGE = (16, 65536)  # per instance: below, Python itself does not start; above, no machine this runs on


@dataclass(frozen=True)
class Limits:
    """Per-instance limits. `wall_s` defaults to 3 × `cpu_s` (a busy 2-core host inflates wall time)."""

    cpu_s: float = 10.0
    wall_s: float | None = None
    memory_mib: int = 512
    output_bytes: int = MIB  # per stream (stdout, stderr); beyond it the run is killed: output_limit
    answer_bytes: int = 64 * MIB  # JSON text of the returned answer (Hanoi n=20 is 16 MB)
    file_bytes: int = 64 * MIB  # RLIMIT_FSIZE
    tmpfs_mib: int = 64  # scratch space; it counts against the container's memory
    processes: int = 64  # RLIMIT_NPROC of the solver uid; the container's pids limit is twice that

    def __post_init__(self) -> None:
        if self.cpu_s <= 0 or (self.wall_s is not None and self.wall_s <= 0):
            raise ValueError("cpu_s and wall_s must be positive")
        if min(self.memory_mib, self.output_bytes, self.answer_bytes, self.file_bytes, self.tmpfs_mib, self.processes) <= 0:
            raise ValueError("limits must be positive")

    @property
    def worker_memory_mib(self) -> int:
        """A worker's memory limit (container or cgroup): the program's, plus the warm supervisor beside it."""
        return self.memory_mib + SUPERVISOR_OVERHEAD_MIB

    @property
    def wall_limit_s(self) -> float:
        return self.wall_s if self.wall_s is not None else 3 * self.cpu_s

    @property
    def cpu_limit_s(self) -> int:
        """The CPU seconds a child really gets: RLIMIT_CPU counts whole seconds, never below what was asked."""
        return max(1, math.ceil(self.cpu_s))

    def for_supervisor(self) -> dict[str, Any]:
        """What the in-container supervisor enforces itself (its wire format)."""
        return {
            "cpu_s": self.cpu_limit_s,
            "wall_s": self.wall_limit_s,
            "output_bytes": self.output_bytes,
            "answer_bytes": self.answer_bytes,
            "file_bytes": self.file_bytes,
            "processes": self.processes,
        }


@dataclass(frozen=True)
class GameLimits:
    """A game's limits for one sandboxed player: CPU for the whole game (PuzzlePlex's 300 s: everything the player's
    processes burn, between moves too, by the worker cgroup's count), CPU and wall time per move (its setup,
    `Strategy(setup)`, gets one move's); `move_wall_s` defaults to 3 × `move_cpu_s`."""

    game_cpu_s: float = 300.0
    move_cpu_s: float = 10.0
    move_wall_s: float | None = None

    def __post_init__(self) -> None:
        if min(self.game_cpu_s, self.move_cpu_s, self.move_wall_s or 1.0) <= 0 or self.game_cpu_s > 10 * MAX_CPU_S:
            raise ValueError("game and move limits must be positive (and a game's CPU at most 10 hours)")

    @property
    def move_wall_limit_s(self) -> float:
        return self.move_wall_s if self.move_wall_s is not None else 3 * self.move_cpu_s

    def for_supervisor(self) -> dict[str, float]:
        return {"game_cpu_s": self.game_cpu_s, "move_cpu_s": self.move_cpu_s, "move_wall_s": self.move_wall_limit_s}


@dataclass(frozen=True)
class Facts:
    """What the supervisor recorded about one child process (the program's import, or one instance).

    `result` is the child's own report (its `kind` is a ResultKind); everything else is the supervisor's
    record. `infra_error` is set instead when the sandbox itself failed.
    """

    phase: str  # "load" or "run"; a game's player: "start", "move", "end"
    result: dict[str, Any] = field(default_factory=dict)
    killed: str | None = None  # wall_limit, cpu_limit, output_limit:stdout|stderr, answer_limit
    exit_code: int | None = None
    signal: int | None = None
    oom: bool = False
    cpu_s: float = 0.0
    wall_s: float = 0.0
    game_cpu_s: float = 0.0  # a game's player: its CPU over the game so far
    peak_mib: float = 0.0
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    leftovers: int = 0  # processes of the program still alive after it finished (all killed)
    survivors: int = 0  # processes that could not be killed: the container is recycled
    clean: bool = True  # the supervisor proved the slate clean afterwards; False: the worker is rebuilt before reuse
    clean_s: float = 0.0  # the supervisor's time to kill what was left, reset the writable places and check them
    infra_error: str | None = None

    @classmethod
    def from_supervisor(cls, phase: str, facts: dict[str, Any]) -> Facts:
        known = {name for name in cls.__dataclass_fields__}
        return cls(phase=phase, **{k: v for k, v in facts.items() if k in known and k != "phase"})

    @classmethod
    def infrastructure(cls, phase: str, error: str) -> Facts:
        return cls(phase=phase, infra_error=error)

    @property
    def kind(self) -> str | None:
        return self.result.get("kind")

    @property
    def loaded(self) -> bool:
        return self.phase == "load" and self.kind == ResultKind.LOADED and not self.killed and not self.oom

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Outcome:
    """A judged execution or answer: status, a detail code, the validator's issues and the measurements."""

    status: Status
    detail: str = ""
    issues: tuple[Issue, ...] = ()
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mib: float = 0.0
    stdout: str = ""
    stderr: str = ""
    first_illegal_step: int | None = None  # trajectory puzzles: the first rejected step
    steps_applied: int | None = None  # trajectory puzzles: legal steps simulated before stopping (how far it got)

    def to_json(self) -> dict[str, Any]:
        return {"status": str(self.status), "detail": self.detail, "issues": [issue.to_json() for issue in self.issues],
                "cpu_s": self.cpu_s, "wall_s": self.wall_s, "peak_mib": self.peak_mib, "stdout": self.stdout, "stderr": self.stderr,
                "first_illegal_step": self.first_illegal_step, "steps_applied": self.steps_applied}


# -- the sandbox's work ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Program:
    """Source text to run in the sandbox; `key` identifies it (a content hash, or any id the caller picks)."""

    key: str
    source: str
    entry: str = "solve"


@dataclass(frozen=True)
class Task:
    """One execution of a batch's program on one instance; `key` says where its result belongs."""

    key: str
    instance: dict[str, Any]


@dataclass(frozen=True)
class Batch:
    """One program and the instances to run it on: the unit a sandbox backend takes."""

    program: Program
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class Result:
    """What a backend streams back: one task of one batch and the facts of its execution."""

    batch: Batch
    task: Task
    facts: Facts


# -- the model's work -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Prompt:
    """The chat messages of one prompt: (role, content) pairs, system first."""

    puzzle: str
    mode: str
    messages: tuple[tuple[str, str], ...]

    def as_messages(self) -> list[dict[str, str]]:
        """The messages as the OpenAI chat API takes them."""
        return [{"role": role, "content": content} for role, content in self.messages]

    @property
    def text(self) -> str:
        """Canonical JSON of the messages: what identifies the prompt (hashed into request keys)."""
        return json.dumps(self.as_messages(), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Sampling:
    """The sampling parameters of one request (hashed into its key, so their names are part of the format)."""

    temperature: float
    max_tokens: int | None
    seed: int


@dataclass(frozen=True)
class SampleJob:
    """One request to a model in one mode: the prompt, a sample index (its own seed), and the instances it is judged on."""

    key: str
    model: str
    mode: str
    puzzle: str
    sample: int
    prompt: Prompt
    sampling: Sampling
    instances: tuple[Record, ...]
    instance_id: str | None = None  # set when the prompt shows one instance (instruction mode)


@dataclass(frozen=True)
class Completion:
    """One reply. `error` set means no usable answer (HTTP 400, a malformed or empty body, retries exhausted):
    an infrastructure failure for that sample, not a verdict on the model."""

    text: str
    finish_reason: str | None
    truncated: bool
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    server_model: str | None
    error: str | None
    reasoning: str | None = None  # what a reasoning model returned beside its answer (`reasoning_content`), if any
    reasoning_tokens: int | None = None  # usage.completion_tokens_details.reasoning_tokens, if the server counts them
    notes: tuple[str, ...] = ()  # what the client changed in the reply to keep it sane (lone surrogates, a cut, odd counts)
    reply_source: ReplySource = ReplySource.API  # where this reply came from (a conversation's: its last reply's)


@dataclass(frozen=True)
class Reading:
    """What a mode read from a reply: something to judge (`program`), or a status that holds for every instance."""

    status: Status | None  # None: judge `program` on the instances; else no_code, syntax_error, api_error, …
    detail: str
    program: Program | None = None
    hedged: bool = False  # the reply's text hedges (`modes._hedging`): decided as the reply is read, stored with the sample


@dataclass(frozen=True)
class Sample:
    """One request and what was read from its reply, as the store keeps it."""

    key: str
    model: str
    base_url: str
    mode: str
    puzzle: str
    sample: int
    instance_id: str | None
    prompt: str
    sampling: Sampling
    completion: Completion
    reading: Reading
    format_retries: int = 0
    retried_replies: tuple[str, ...] = ()  # instruction mode: the replies before the last, none of them parseable
    reply_sources: tuple[SampleUsage, ...] = ()  # the tokens of its requests not asked directly, one usage per ReplySource


# -- what reports read ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExecutionRow:
    """One sample judged on one instance, as the run store reports it."""

    model: str
    mode: str
    puzzle: str
    level: int
    instance_id: str
    sample: int
    status: str  # a Status value (older stores or other tools may hold others: reported as they are)
    detail: str
    complexity: float | None  # the instance's scalar λ; None → the level number
    progress: float | None = None  # trajectory puzzles: the fraction of the shortest solution's length the legal steps reached (≤ 1)
    first_illegal_step: int | None = None  # trajectory puzzles: where the first illegal step was
    issue_codes: tuple[str, ...] = ()  # the validator's issue codes, in its order (conflict, illegal_move, missing, …)
    steps_applied: int | None = None  # trajectory puzzles: the legal steps applied before the first illegal one or the end
    shortest: int | None = None  # the instance's stored minimal solution length, where one is known
    truncated: bool = False  # the reply was cut off (finish_reason "length")
    hedged: bool = False  # the reply's text hedges (its sample's `Reading.hedged`)
    prompt_tokens: int | None = None  # the sample's usage; a code-mode sample's repeat on every instance it is judged on
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None


@dataclass(frozen=True)
class PlannedCell:
    """How many results (sample × instance) the plan asks of one model × mode × puzzle × level: what tells a cell's
    missing work (an interrupted run, a budget) from work done."""

    model: str
    mode: str
    puzzle: str
    level: int
    results: int


@dataclass(frozen=True)
class SearchStep:
    """One result of an adaptive search (`run --adaptive`): the complexity the design chose at `step`, the fresh instance
    asked there, the sample that answered it and the result's status (an infrastructure status is not counted)."""

    model: str
    mode: str
    puzzle: str
    step: int
    complexity: int
    instance_id: str
    sample_key: str
    status: Status


@dataclass(frozen=True)
class SampleUsage:
    """One stored sample's (or game seat's) token counts, as the cost analysis and the budgets read them."""

    model: str
    mode: str
    puzzle: str  # or the game
    prompt_tokens: int
    completion_tokens: int  # reasoning tokens included, as OpenAI-compatible servers count them
    reasoning_tokens: int
    requests: int = 1  # the requests they add up: format retries included; a game seat's every reply
    uncounted: int = 0  # of those, the ones whose server gave no token count (or none the client believed): 0 in the sums
    reply_source: str = ReplySource.API  # where the replies came from (a ReplySource): what a request costs depends on it

    def __add__(self, other: SampleUsage) -> SampleUsage:
        """Both usages' tokens and requests, under this one's model, mode, puzzle and source."""
        return replace(self, prompt_tokens=self.prompt_tokens + other.prompt_tokens,
                       completion_tokens=self.completion_tokens + other.completion_tokens,
                       reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens, requests=self.requests + other.requests,
                       uncounted=self.uncounted + other.uncounted)

    @classmethod
    def of_seat(cls, model: str, game: str, kept: dict[str, Any], reply_source: str | None = None) -> SampleUsage:
        """An instruction-mode game seat's tokens, over every reply it kept (format retries included); `reply_source`:
        over those that came from there only (a reply record names its source unless it was asked directly)."""
        replies = [reply for turn in kept.get("turns") or () for reply in turn.get("replies") or ()
                   if reply_source is None or reply.get("reply_source", ReplySource.API) == reply_source]
        prompt, completion, reasoning = (sum(reply.get(count) or 0 for reply in replies)
                                         for count in ("prompt_tokens", "completion_tokens", "reasoning_tokens"))
        uncounted = sum(reply.get("prompt_tokens") is None or reply.get("completion_tokens") is None for reply in replies)
        return cls(model, "instruction", game, prompt, completion, reasoning, len(replies), uncounted,
                   reply_source or ReplySource.API)


@dataclass(frozen=True)
class InstanceFacts:
    """One planned instance's reference metrics (its generator's `meta`), as the difficulty table reads them."""

    puzzle: str
    level: int
    instance_id: str
    meta: dict[str, Any]
    alike: tuple[str, ...] = ()  # the ids of the other seeds that drew this same instance (planned and counted once)


@dataclass(frozen=True)
class GameRow:
    """One game played, as the run store reports it: the setup, the players by seat (as rated), the whole record
    (`codebench.match.MatchRecord.to_json`: moves, statuses, outcome, what each seat kept)."""

    key: str
    game: str
    level: int
    seed: int
    players: tuple[str, ...]
    record: dict[str, Any]
    secret: str = ""  # the run's games' secret: the setup is `setup(level, seed, secret)` (never shown in a report)


@dataclass(frozen=True)
class ExecutionDetail:
    """What was recorded of one program (or instruction-mode answer) run on one instance, beyond its verdict."""

    issues: tuple[dict[str, Any], ...]  # the validator's issues as stored: {"code", "message", "step"}
    first_illegal_step: int | None
    steps_applied: int | None
    cpu_s: float | None
    wall_s: float | None
    peak_mib: float | None
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Judgement:
    """One instance a sample is judged on, as a report row counts it, with the execution behind the verdict."""

    instance_id: str
    level: int
    status: str  # a Status value (older stores may hold others: shown as they are)
    detail: str
    execution: ExecutionDetail | None  # None: the reply's read status (no_code, api_error, …) holds, nothing ran


@dataclass(frozen=True)
class SampleDetail:
    """One stored sample and every instance it was judged on so far: one entry of the drill-down."""

    sample: Sample
    judged: tuple[Judgement, ...]


_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")


def harmless(text: str) -> str:
    """`text` with each control character (ESC, NUL, CR, C1 codes, bidi overrides and isolates, lone surrogates)
    written as a visible escape (\\x1b, \\u202e, \\ud800): a program's strings can then neither drive a terminal,
    nor reorder what a reader sees, nor make an XML file invalid. Tabs and newlines stay."""
    return _UNSAFE.sub(lambda match: repr(match.group())[1:-1], text)


_BREAKS = re.compile("[\n\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` harmless and on one line (its line breaks written as escapes): what an `error:` line quotes (a path, a
    label, a server's message) can then not forge a second line."""
    return _BREAKS.sub(lambda match: repr(match.group())[1:-1], harmless(text))
