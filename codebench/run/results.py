"""A run's results as typed rows, for Python and for `codebench export`: what the report counts, one row per thing it
counts, with what it does not count present and marked.

`load_run(runs)` reads one run, or several joined as `codebench report` joins them (`joined`: a run given twice,
or two holding one model in one mode, is refused; a game of built-in players only, the same game in every run played
under one secret, is counted once), through the store's own readers, so every status is the report's. Six kinds of
rows (`KINDS`), each a frozen dataclass whose docstring says what it is a row of:

- `RunSample`: one planned request (instruction mode: model × puzzle × instance × sample; code mode: model × puzzle ×
  sample, its program judged on every instance of the puzzle), with the reply and what was read from it;
- `RunExecution`: one planned sample judged on one instance: the report's unit (its cells count these rows). A
  program shared by two samples ran once on an instance but is counted for each sample, as the report counts it; a
  plain join of the database's tables miscounts (a program's execution joins every sample that wrote it, on every
  instance, under every limit it ran with);
- `RunGame`: one planned game, its seats, scores and statuses;
- `RunUsage`: the tokens of one stored request or game seat, or of replies no stored sample or game holds: what the
  cost table adds up;
- `RunInstance`: one distinct planned instance and its generator's reference metrics;
- `RunStep`: one step of an adaptive search (`run --adaptive`): the complexity its design chose, the fresh instance
  asked there, the result's status and the reply behind it (an adaptive run plans no sample: its steps are its rows).

Rows the report does not count are kept, with `not_counted` saying why (None: counted): a request not asked yet, a
program not run yet on an instance, an infrastructure failure (api_error, sandbox_error: counted apart, in no rate),
a void game, a game not played, a game counted with an earlier run. So a cell's legal rate is, exactly, the legal rows
over the rows with `not_counted` None among its executions, and its "missing" the rows not asked or not run.

`LoadedRun.frame(kind)` is a pandas DataFrame of one kind (pandas comes with the `export` extra).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..types import INFRASTRUCTURE_STATUSES, ExecutionRow, GameRow, harmless
from ._fields import shown

if TYPE_CHECKING:
    import pandas

    from .store import Store

DATABASE = "run.sqlite"  # a run directory's database
NOT_ASKED = "not asked yet: the run was interrupted or a budget held it (re-running its command asks it)"
NOT_RUN = "not judged yet: its program has not run on this instance (re-running the run's command runs it)"
VOID = "void: the sandbox or the endpoint broke it (re-running the run's command plays it again)"
NOT_PLAYED = "not played: the run was interrupted or a budget held it (re-running its command plays it)"
EXPORT_EXTRA = "pip install codebench-puzzles[export]"


def infrastructure(status: str) -> str:
    """Why a result whose request or execution failed outside the model is not counted."""
    return f"{status}: the endpoint or the sandbox failed, not the model; counted apart, in no rate's denominator"


@dataclass(frozen=True)
class RunSample:
    """One planned request: in instruction mode a model × puzzle × instance × sample, in code mode a model × puzzle ×
    sample (`instance_id` None: its program is judged on every instance of its puzzle, see `RunExecution`). The
    verdicts are the executions' rows; a sample with a `read_status` (no_code, no_answer, api_error, …) has it on every
    instance it is judged on. A code-mode game's strategy (`puzzle` a game) is judged on no instance: its results are
    the games its program plays. Fields from `base_url` on are None while it is not asked."""

    run: str  # the run directory, as given
    sample_id: int  # its position in its run's plan: what its executions name
    key: str  # the request's content key (the same request asked again has the same key)
    model: str
    mode: str
    puzzle: str
    instance_id: str | None
    level: int | None  # instruction mode: its instance's level
    sample: int  # the sample index (its own seed)
    not_counted: str | None  # why the report counts none of its results (not asked; no usable reply); None: counted
    base_url: str | None = None
    prompt: str | None = None  # the chat messages as canonical JSON
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    response: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    truncated: bool | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None  # reasoning tokens included, as OpenAI-compatible servers count them
    reasoning_tokens: int | None = None
    latency_s: float | None = None
    server_model: str | None = None
    error: str | None = None  # the endpoint gave no usable reply
    format_retries: int | None = None
    retried_replies: tuple[str, ...] = ()  # instruction mode: the replies before the last, none of them readable
    read_status: str | None = None  # a status that holds for every instance; None: `program` is judged on each
    read_detail: str | None = None
    program_key: str | None = None
    program: str | None = None  # the program's source (code mode) or the answer's JSON text (instruction mode)


@dataclass(frozen=True)
class RunExecution:
    """One planned sample judged on one instance it is judged on: what the report's cells count, one row each.
    `status` None: not judged yet (`not_counted` says why). `ran` False: nothing ran, the reply's read status holds."""

    run: str
    sample_id: int  # the RunSample it belongs to (with `run`)
    model: str
    mode: str
    puzzle: str
    level: int | None  # None only for an instance the run does not hold (a damaged plan)
    instance_id: str
    sample: int
    status: str | None
    detail: str
    not_counted: str | None  # None: counted in the report's rates
    complexity: float | None = None  # the instance's scalar λ; None → the level number
    progress: float | None = None  # trajectory puzzles: legal steps over the shortest solution's length (≤ 1)
    first_illegal_step: int | None = None
    steps_applied: int | None = None
    shortest: int | None = None  # the instance's minimal solution length, where known
    issue_codes: tuple[str, ...] = ()  # the validator's issue codes, in its order
    ran: bool = False
    cpu_s: float | None = None
    wall_s: float | None = None
    peak_mib: float | None = None


@dataclass(frozen=True)
class RunGame:
    """One planned game: its setup, the players by seat (as rated) and, when stored with a result, each seat's score,
    status and usage and the whole record (`codebench.games`' MatchRecord: moves, what each seat kept)."""

    run: str
    key: str
    game: str
    level: int
    seed: int
    players: tuple[str, ...]
    void: bool
    not_counted: str | None  # void, not played, or counted with an earlier run; None: counted
    scores: tuple[float, ...] | None = None
    results: tuple[str, ...] | None = None  # two-player games: win, draw, loss per seat
    statuses: tuple[str, ...] | None = None  # how each seat ended: legal, or the status that ended its game
    usage: tuple[dict[str, Any] | None, ...] | None = None  # an instruction-mode model seat's tokens; None for others
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class RunUsage:
    """The tokens of one stored request (format retries included), one instruction-mode game seat, or the replies no
    stored sample or game holds (per model, mode and puzzle or game): what the cost table and the budgets add up."""

    run: str
    model: str
    mode: str
    puzzle: str  # or the game
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    requests: int
    uncounted: int  # of the requests, those without a token count (0 in the sums)
    reply_source: str  # where the replies came from (api, batch, cache): what they cost depends on it


@dataclass(frozen=True)
class RunInstance:
    """One distinct planned instance with its generator's reference metrics (`meta`) and the ids of the other seeds that
    drew it (planned and counted once)."""

    run: str
    puzzle: str
    level: int
    instance_id: str
    alike: tuple[str, ...]
    meta: dict[str, Any]


@dataclass(frozen=True)
class RunStep:
    """One step of an adaptive search: the complexity λ its design chose from the steps before it, the fresh instance
    asked there, the sample that answered it (code mode: the search's one program) and the result's status. A step
    whose result the endpoint or the sandbox failed is not counted by its search (which stopped there: the same command
    asks it again)."""

    run: str
    model: str
    mode: str
    puzzle: str
    step: int
    complexity: int
    instance_id: str
    status: str
    not_counted: str | None  # None: counted by the search
    sample_key: str
    response: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    read_status: str | None = None  # a status that holds before anything ran (no_code, no_answer, api_error, …)
    program_key: str | None = None


KINDS = {"samples": RunSample, "executions": RunExecution, "games": RunGame, "usage": RunUsage, "instances": RunInstance,
         "steps": RunStep}


@dataclass(frozen=True)
class LoadedRun:
    """One run, or several joined, as rows of each kind (`KINDS`), each in its run's plan order."""

    runs: tuple[str, ...]  # each run directory, as its rows name it
    samples: tuple[RunSample, ...]
    executions: tuple[RunExecution, ...]
    games: tuple[RunGame, ...]
    usage: tuple[RunUsage, ...]
    instances: tuple[RunInstance, ...]
    steps: tuple[RunStep, ...] = ()
    folders: tuple[Path, ...] = dataclasses.field(default=(), repr=False)  # where they were read: report and compare read them anew

    def rows(self, kind: str) -> tuple[Any, ...]:
        """The rows of one kind.

        Raises:
            InputError: not a kind.
        """
        if kind not in KINDS:
            raise InputError(f"{kind!r} is not a kind of rows: choose {', '.join(KINDS)}")
        rows: tuple[Any, ...] = getattr(self, kind)
        return rows

    def frame(self, kind: str) -> pandas.DataFrame:
        """The rows of one kind as a pandas DataFrame, one column per field (in order, also when there are no rows).

        Raises:
            InputError: not a kind, or pandas is not installed.
        """
        rows = self.rows(kind)
        try:
            import pandas
        except ImportError:
            raise InputError(f"a DataFrame needs pandas: {EXPORT_EXTRA}") from None
        columns = [field.name for field in dataclasses.fields(KINDS[kind])]
        return pandas.DataFrame([_values(row) for row in rows], columns=columns)

    def to_pandas(self) -> dict[str, pandas.DataFrame]:
        """Every kind's DataFrame, by kind."""
        return {kind: self.frame(kind) for kind in KINDS}


Runs = str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | LoadedRun  # one run directory or several, or loaded


def _values(row: Any) -> list[Any]:
    """A row's field values, as they are (not copied deep, as `astuple` would)."""
    return [getattr(row, field.name) for field in dataclasses.fields(row)]


def load_run(runs: Runs) -> LoadedRun:
    """Read one run directory, or several joined as `codebench report` joins them; nothing is written.

    Raises:
        InputError: no run directory given, one without a run.sqlite, a run given twice, runs that cannot be joined.
        StoreError: a run database that cannot be read, or is damaged.
    """
    with opened(runs) as stores:
        return _loaded(stores)


def databases(runs: Runs) -> list[Path]:
    """Each run directory's database.

    Raises:
        InputError: no run directory, or one that holds no run.sqlite.
    """
    folders = [Path(runs)] if isinstance(runs, str | os.PathLike) else list(runs.folders) if isinstance(runs, LoadedRun) \
        else [Path(run) for run in runs]
    if not folders:
        raise InputError("give the directory of a run (its --out)")
    for folder in folders:
        if not (folder / DATABASE).is_file():
            raise InputError(f"{folder} holds no {DATABASE}: give the --out directory of a run")
    return [folder / DATABASE for folder in folders]


def store_files(runs: Runs) -> list[Path]:
    """The files the runs' stores are: each database, and SQLite's log and index beside it (an output there would lose
    commits), for an output to be checked against.

    Raises:
        InputError: no run directory, or one that holds no run.sqlite.
    """
    return [database.with_name(database.name + suffix) for database in databases(runs) for suffix in ("", "-wal", "-shm")]


@contextmanager
def opened(runs: Runs) -> Iterator[list[Store]]:
    """The runs' stores, open for reading (never written) until the block ends.

    Raises:
        InputError: no run directory, or one that holds no run.sqlite.
        StoreError: a run database codebench cannot read.
    """
    from .store import Store

    with ExitStack() as opening:
        stores = []
        for database in databases(runs):
            stores.append(Store.for_reading(database))
            opening.callback(stores[-1].close)
        yield stores


def once(databases: Sequence[Path]) -> None:
    """Refuse a run directory given twice, under one name or two (a link, another spelling of the path)."""
    seen: dict[tuple[int, int], Path] = {}
    for database in databases:
        found = os.stat(database)
        first = seen.get((found.st_dev, found.st_ino))
        if first is not None:
            raise InputError(f"{database.parent} is given twice: give each run once" if first == database else
                             f"{first.parent} and {database.parent} are one run directory given twice: give each run once")
        seen[(found.st_dev, found.st_ino)] = database


@dataclass(frozen=True)
class _Part:
    """One run's share of a join: its report rows, its stored games and, for each, the run it is counted with when an
    earlier one holds the same game (None: counted here)."""

    store: Store
    rows: list[ExecutionRow]
    games: list[GameRow]
    counted_with: list[Path | None]


def joined(stores: Sequence[Store]) -> tuple[list[ExecutionRow], list[GameRow]]:
    """The rows and the games of every run, each result once: a game whose seats are all built-in players (ref against
    random) is the same game in every run played under one secret, whatever its models, so it is counted once.

    Raises:
        InputError: a run given twice (one directory under two names, or two holding the same samples by content key:
            a copy, or the same requests asked again), two runs holding one model in one mode (their cells would merge),
            or games played under different secrets (the same seed is another setup).
    """
    parts = _joined(stores)
    return ([row for part in parts for row in part.rows],
            [game for part in parts for game, other in zip(part.games, part.counted_with) if other is None])


def _joined(stores: Sequence[Store]) -> list[_Part]:
    """`joined`, run by run (the refusals are `joined`'s)."""
    from ..games.plan import BUILTINS

    once([store.path for store in stores])
    owners: dict[str, Path] = {}  # the content key of each planned sample and model-seated game -> its run's directory
    holders: dict[tuple[str, str], Path] = {}
    counted: dict[str, Path] = {}  # each game's key -> the run it is counted with
    secrets: dict[str, Path] = {}
    parts = []
    for store in stores:
        folder = store.path.parent
        plan, secret = store.plan(), store.games_secret() or ""  # a game is its key's setup under its run's secret
        keys = [] if plan is None else [*(s.key for s in plan.samples),
                                        *(f"{m.key}:{secret}" for m in plan.matches if not set(m.players) <= set(BUILTINS))]
        shared = Counter(owners[key] for key in set(keys) if key in owners)
        if shared:
            other, count = shared.most_common(1)[0]
            raise InputError(f"{other} and {folder} hold the same samples ({count} content keys in common: one is a copy of "
                             "the other, or asks the same requests again): give each run once")
        owners.update(dict.fromkeys(keys, folder))
        found_rows = store.report_rows()
        for model, mode in sorted({(row.model, row.mode) for row in found_rows}):
            if holders.setdefault((model, mode), folder) != folder:
                raise InputError(f"{holders[model, mode]} and {folder} both hold {model} in {mode} mode: report them one at "
                                 "a time, or pair them with `codebench compare`")
        stored_games = store.game_rows()
        if stored_games:
            secrets.setdefault(stored_games[0].secret, folder)
        counted_with: list[Path | None] = []
        for game in stored_games:
            counted_with.append(counted.get(game.key))
            counted.setdefault(game.key, folder)
        parts.append(_Part(store, found_rows, stored_games, counted_with))
    if len(secrets) > 1:  # seed s is another setup under another secret: pooled, the games would not be the same games
        from ..keys import secret_fingerprint

        raise InputError("these runs played their games under different secrets (" + ", ".join(
            f"{folder}: {secret_fingerprint(secret)}" for secret, folder in secrets.items()) + "), so their seeds are "
            "different setups: report them one by one, or play them again with one --game-secret-file")
    return parts


def _loaded(stores: Sequence[Store]) -> LoadedRun:
    """Every kind of row of the joined runs."""
    kinds: dict[str, list[Any]] = {kind: [] for kind in KINDS}
    for part in _joined(stores):
        run = harmless(str(part.store.path.parent))
        samples, executions = _requests(run, part)
        kinds["samples"] += samples
        kinds["executions"] += executions
        kinds["games"] += _games(run, part)
        kinds["usage"] += [RunUsage(run, *_values(usage)) for usage in part.store.usage()]
        kinds["instances"] += [RunInstance(run, fact.puzzle, fact.level, fact.instance_id, fact.alike, fact.meta)
                               for fact in part.store.instance_facts()]
        kinds["steps"] += _steps(run, part.store)
    return LoadedRun(tuple(harmless(str(store.path.parent)) for store in stores),
                     *(tuple(kinds[kind]) for kind in KINDS), folders=tuple(store.path.parent for store in stores))


def _steps(run: str, store: Store) -> list[RunStep]:
    """The run's adaptive search steps, each with the reply that answered it."""
    steps = store.search_steps()
    samples = store.samples(step.sample_key for step in steps)
    rows = []
    for step in steps:
        sample = samples.get(step.sample_key)
        reply = () if sample is None else (
            sample.completion.text, sample.completion.prompt_tokens, sample.completion.completion_tokens,
            None if sample.reading.status is None else str(sample.reading.status),
            sample.reading.program.key if sample.reading.program else None)
        rows.append(RunStep(run, step.model, step.mode, step.puzzle, step.step, step.complexity, step.instance_id,
                            str(step.status), infrastructure(step.status) if step.status in INFRASTRUCTURE_STATUSES else None,
                            step.sample_key, *reply))
    return shown(rows)


def _requests(run: str, part: _Part) -> tuple[list[RunSample], list[RunExecution]]:
    """The run's planned samples and each one's results on the instances it is judged on, the report's rows among
    them (joined to the execution behind each: `sample_details` joins as `report_rows` does)."""
    store = part.store
    plan = store.plan()
    if plan is None:
        return [], []
    plan = shown(plan)
    levels = {fact.instance_id: fact.level for fact in store.instance_facts()}
    details = store.sample_details()  # the stored samples, in plan order
    stored = {detail.sample.key for detail in details}
    following = iter(details)
    counted = {(row.model, row.mode, row.puzzle, row.instance_id, row.sample): row for row in part.rows}
    samples, executions = [], []
    for sample_id, planned in enumerate(plan.samples):
        judged = plan.judged_on(planned)
        level = levels.get(planned.instance_id) if planned.instance_id is not None else None  # instruction mode's
        if planned.key not in stored:
            samples.append(RunSample(run, sample_id, planned.key, planned.model, planned.mode, planned.puzzle,
                                     planned.instance_id, level, planned.sample, NOT_ASKED))
            executions += [RunExecution(run, sample_id, planned.model, planned.mode, planned.puzzle, levels.get(instance_id),
                                        instance_id, planned.sample, None, "", NOT_ASKED) for instance_id in judged]
            continue
        detail = next(following)
        found = detail.sample
        completion, reading = found.completion, found.reading
        read_status = None if reading.status is None else str(reading.status)
        samples.append(RunSample(
            run, sample_id, planned.key, planned.model, planned.mode, planned.puzzle, planned.instance_id,
            level, planned.sample,
            infrastructure(read_status) if read_status in INFRASTRUCTURE_STATUSES else None,
            found.base_url, found.prompt, found.sampling.temperature, found.sampling.max_tokens, found.sampling.seed,
            completion.text, completion.reasoning, completion.finish_reason, completion.truncated, completion.prompt_tokens,
            completion.completion_tokens, completion.reasoning_tokens, completion.latency_s, completion.server_model,
            completion.error, found.format_retries, found.retried_replies, read_status, reading.detail,
            None if reading.program is None else reading.program.key, None if reading.program is None else reading.program.source))
        judgements = {judgement.instance_id: judgement for judgement in detail.judged}
        for instance_id in judged:
            row = counted.get((planned.model, planned.mode, planned.puzzle, instance_id, planned.sample))
            if row is None:
                executions.append(RunExecution(run, sample_id, planned.model, planned.mode, planned.puzzle,
                                               levels.get(instance_id), instance_id, planned.sample, None, "", NOT_RUN))
                continue
            ran = judgements[instance_id].execution if instance_id in judgements else None
            executions.append(RunExecution(
                run, sample_id, row.model, row.mode, row.puzzle, row.level, row.instance_id, row.sample, row.status,
                row.detail, infrastructure(row.status) if row.status in INFRASTRUCTURE_STATUSES else None, row.complexity,
                row.progress, row.first_illegal_step, row.steps_applied, row.shortest, row.issue_codes, ran is not None,
                *((ran.cpu_s, ran.wall_s, ran.peak_mib) if ran is not None else ())))
    return samples, executions


def _games(run: str, part: _Part) -> list[RunGame]:
    """The run's planned games: played (counted here, or with the earlier run that holds the same game), void or not
    played. The store reads no void game's record; a planned game stored at all is one `matches_settled` finds with no
    play asked of it."""
    store = part.store
    plan = store.plan()
    if plan is None or not plan.matches:
        return []
    stored = {harmless(key) for key in store.matches_settled([m.key for m in plan.matches], 0)}
    played = {game.key for game in part.games}
    following = iter(zip(part.games, part.counted_with))  # `game_rows`: the planned games played, in plan order
    games = []
    for planned in shown(plan.matches):
        if planned.key not in played:
            void = planned.key in stored
            games.append(RunGame(run, planned.key, planned.game, planned.level, planned.seed, planned.players, void,
                                 VOID if void else NOT_PLAYED))
            continue
        game, other = next(following)
        record = game.record
        outcome = record["outcome"]
        games.append(RunGame(
            run, game.key, game.game, game.level, game.seed, game.players, False,
            None if other is None else f"counted with {harmless(str(other))}: the same game of built-in players",
            tuple(outcome["scores"]), None if outcome["results"] is None else tuple(outcome["results"]),
            tuple(record["statuses"]), tuple(record.get("usage") or (None,) * len(game.players)), record))
    return games
