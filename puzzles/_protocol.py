"""The puzzle contract shared by every family: parameters, levels, records, issues and verdicts.

Totality. `Puzzle.validate` and `Puzzle.validate_json` judge *any* JSON value (or text) and never
raise. Before a family's `_validate` sees an answer, `json_shape_problem` checks it cheaply and
without recursion: at most MAX_DEPTH nested lists/objects and MAX_CONTAINERS of them in all.
Families may then recurse or compare freely; they quote user data only through `clip`, which
renders at most QUOTE_LIMIT characters whatever it is given (a 5000-digit integer, a 1 MB string,
NaN), so no message formats an unbounded or unprintable value.

Bounds. `Puzzle.solve` first calls `Puzzle.check_instance`, total over any JSON value: the same
shape check, then the family's `_check_instance` (structure, consistency and complexity bounds,
stated in each module's docstring); only then its `_solve` search, which may itself refuse
(unsolvable, or a deterministic search budget spent). Every refusal is an InstanceFormatError
naming the rule. `generate` checks its parameters (ParamError) before drawing anything.

Complexity axis. Besides its six levels, a family may declare the one integer λ an adaptive search moves along
(`ComplexityAxis`): `generate(complexity=λ)` draws an instance at any λ its generator supports, and refuses one
outside the range saying where and why the generator stops.

Imports only the standard library and this package's `_errors` and `_json`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import random
import re
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from ._errors import InstanceFormatError, ParamError
from ._json import StrictJSONError, dumps_canonical, loads_strict

JSON = Any  # a value json.loads can return
MAX_ISSUES = 100  # a verdict reports at most this many issues, then one summarising the rest
LEVELS = range(1, 7)
MAX_SEED = 2**64 - 1  # seeds are 0..2^64 − 1 (a larger integer cannot even be written into an id)
MAX_DEPTH = 64  # nesting of lists and objects in an answer or instance; every family needs at most 4
MAX_CONTAINERS = 2**25  # lists and objects in one answer or instance (Hanoi n = 24 has 2^24 + 1)
QUOTE_LIMIT = 60  # characters of user data a message quotes, via clip()
LIST_LIMIT = 20  # numbers a message lists, via listing()


def clip(value: object, limit: int = QUOTE_LIMIT) -> str:
    """Python's repr of `value`, cut to at most `limit` characters (ending in "…" when cut).

    Safe and cheap for anything: it renders only the first `limit` characters' worth of a list,
    object or string, writes an integer too long to convert (or merely to quote) as
    "<integer of ~N digits>", and stops descending once the budget is spent, so a 100,000-deep
    list costs `limit` steps, not a RecursionError.
    """
    out: list[str] = []
    size = 0
    for piece in _pieces(value, limit):
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    text = "".join(out)
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def _pieces(value: object, limit: int) -> typing.Iterator[str]:
    """The repr of `value` in small pieces; the caller stops reading once it has enough."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        yield repr(value)
    elif isinstance(value, int):
        if value.bit_length() <= 200:  # ≤ 61 digits: cheap, and far below int-to-str limits
            yield repr(value)
        else:
            yield f"<{'negative ' if value < 0 else ''}integer of ~{int(value.bit_length() * 0.30103) + 1} digits>"
    elif isinstance(value, str):
        yield repr(value[: limit + 1])
    elif isinstance(value, (list, tuple)):
        yield "["
        for index, item in enumerate(value):
            if index:
                yield ", "
            yield from _pieces(item, limit)
        yield "]"
    elif isinstance(value, dict):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            if index:
                yield ", "
            yield from _pieces(key, limit)
            yield ": "
            yield from _pieces(item, limit)
        yield "}"
    else:
        yield f"<{type(value).__name__}>"


def _name(key: object) -> str:
    """A parameter name as given when it is a short string, else through clip."""
    return key if type(key) is str and len(key) <= QUOTE_LIMIT else clip(key)


def listing(numbers: typing.Sequence[int], limit: int = LIST_LIMIT) -> str:
    """"1, 4, 7", or the first `limit` numbers and how many more, so a message stays short."""
    shown = ", ".join(map(str, numbers[:limit]))
    return shown if len(numbers) <= limit else f"{shown} … ({len(numbers)} in all)"


_CONTAINERS = frozenset((list, dict))


def json_shape_problem(value: object) -> str | None:
    """Why `value` is too deep or too big to judge (see MAX_DEPTH, MAX_CONTAINERS), or None.

    Iterative, one pass over the containers, level by level: safe on a 100,000-deep list and on
    non-JSON Python values too (a cycle is reported as too deep).
    """
    level = [value] if type(value) in _CONTAINERS else []
    depth = count = 0
    while level:
        depth += 1
        count += len(level)
        if depth > MAX_DEPTH:
            return f"nests lists and objects more than {MAX_DEPTH} deep"
        if count > MAX_CONTAINERS:
            return f"holds more than {MAX_CONTAINERS} lists and objects"
        level = [child for item in level for child in (item.values() if type(item) is dict else item) if type(child) in _CONTAINERS]
    return None


class IssueCode(StrEnum):
    """Why an answer was rejected; stored in results, so values are never renamed."""

    INVALID_JSON = "invalid_json"  # the answer text is not strict JSON
    DUPLICATE_KEY = "duplicate_key"  # an object repeats a key (json.loads would keep the last)
    MALFORMED = "malformed"  # wrong shape: not an object, missing field, wrong arity
    BAD_VALUE = "bad_value"  # a number of the wrong type or range: bool for int, float, index out of bounds
    UNKNOWN_TOKEN = "unknown_token"  # where a name (peg, colour, move, label) is due, anything else
    MISSING = "missing"  # a required key (variable, node, letter, cell) is absent
    EXTRA = "extra"  # a key the instance does not have
    ILLEGAL_MOVE = "illegal_move"  # a trajectory step breaks the rules
    CONFLICT = "conflict"  # a constraint is violated (clause, edge, row, sum, leading zero …)
    GIVEN_ALTERED = "given_altered"  # a clue of the instance was changed
    GOAL_NOT_REACHED = "goal_not_reached"  # every step legal, but the final state is wrong
    TOO_MANY_ISSUES = "too_many_issues"  # issues beyond MAX_ISSUES, summarised


@dataclass(frozen=True)
class Issue:
    """One reason an answer fails; `step` is the 0-based trajectory index where it applies."""

    code: IssueCode
    message: str
    step: int | None = None

    def to_json(self) -> dict[str, JSON]:
        return {"code": str(self.code), "message": self.message, "step": self.step}


@dataclass(frozen=True)
class Verdict:
    """The validator's decision.

    `first_illegal_step` is the index of the first rejected step of a trajectory (None when every
    step was legal or the answer is not a trajectory); `steps_applied` counts the legal steps
    simulated before stopping, i.e. how far the trajectory got.
    """

    ok: bool
    issues: tuple[Issue, ...] = ()
    first_illegal_step: int | None = None
    steps_applied: int | None = None

    @property
    def codes(self) -> set[IssueCode]:
        return {issue.code for issue in self.issues}

    def to_json(self) -> dict[str, JSON]:
        return {
            "ok": self.ok,
            "issues": [issue.to_json() for issue in self.issues],
            "first_illegal_step": self.first_illegal_step,
            "steps_applied": self.steps_applied,
        }


class Issues:
    """Collects issues while a validator runs, capped at MAX_ISSUES, and builds the Verdict."""

    def __init__(self) -> None:
        self._issues: list[Issue] = []
        self._dropped = 0
        self.first_illegal_step: int | None = None

    def __bool__(self) -> bool:
        return bool(self._issues)

    def add(self, code: IssueCode, message: str, step: int | None = None) -> None:
        if step is not None and self.first_illegal_step is None:
            self.first_illegal_step = step
        if len(self._issues) < MAX_ISSUES:
            self._issues.append(Issue(code, message, step))
        else:
            self._dropped += 1

    def verdict(self, steps_applied: int | None = None) -> Verdict:
        issues = list(self._issues)
        if self._dropped:
            issues.append(Issue(IssueCode.TOO_MANY_ISSUES, f"{self._dropped} more issues not listed"))
        return Verdict(not issues, tuple(issues), self.first_illegal_step, steps_applied)


def reject(code: IssueCode, message: str, step: int | None = None, steps_applied: int | None = None) -> Verdict:
    """A verdict with a single issue, for validators that must stop at the first problem."""
    issues = Issues()
    issues.add(code, message, step)
    return issues.verdict(steps_applied)


def open_answer(answer: JSON, field: str, kind: type | None, shape: str) -> tuple[Any, Issues] | Verdict:
    """Unwrap an answer object {field: value}: every family's answer is one such field.

    Returns a rejecting Verdict when the answer is not such an object or the value is not of `kind`
    (None: any); otherwise the value and an Issues collector holding an `extra` issue per other field.
    """
    if type(answer) is not dict or field not in answer:
        return reject(IssueCode.MALFORMED, f'answer must be an object {{"{field}": {shape}}}')
    value = answer[field]
    if kind is not None and type(value) is not kind:
        return reject(IssueCode.MALFORMED, f'"{field}" must be {shape}')
    issues = Issues()
    for key in sorted(set(answer) - {field}):
        issues.add(IssueCode.EXTRA, f"unexpected answer field {clip(key)}")
    return value, issues


DECIMAL_KEY = re.compile(r"0|[1-9][0-9]*")  # the one accepted spelling of a numbered key: no sign, padding or spaces


def index_key(key: object, low: int, high: int, issues: Issues, what: str) -> int | None:
    """The index a JSON object key names ("7", never "07", " 7", "+7" or 7), or None after adding the issue.

    Another spelling is `unknown_token`; a plain number outside low..high is `extra`.
    """
    if type(key) is not str or not DECIMAL_KEY.fullmatch(key):
        issues.add(IssueCode.UNKNOWN_TOKEN, f'{what} key {clip(key)}: {what}s are written "{low}".."{high}"')
        return None
    if len(key) > len(str(high)) or not low <= int(key) <= high:  # length first: int() refuses 4300+ digits
        issues.add(IssueCode.EXTRA, f"{what} key {clip(key)}: there are {what}s {low}..{high} only")
        return None
    return int(key)


def is_int(value: object) -> bool:
    """True for JSON integers only: Python's bool is an int subclass, JSON's true is not a number."""
    return type(value) is int


@dataclass(frozen=True)
class Record:
    """One generated instance with its provenance: the JSONL line the CLI reads and writes."""

    id: str
    puzzle: str
    level: int | None
    seed: int
    params: dict[str, JSON]
    instance: dict[str, JSON]
    meta: dict[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return dataclasses.asdict(self)


P = TypeVar("P")
T = TypeVar("T")
Band = tuple[int, int]  # an inclusive integer range a level draws a parameter from


def _as_band(value: Any) -> Band:
    """A level's value of a parameter as a Band: a fixed value v is (v, v)."""
    return value if isinstance(value, tuple) else (value, value)


@dataclass(frozen=True)
class ComplexityAxis:
    """The one integer λ an adaptive search moves a family along: `name` is what λ counts, lowest..highest where the
    generator goes, `limit` why it goes no further (the end of a sentence "… cannot go past λ because <limit>").

    `levels` holds the λ range each level draws; `sets` the parameters λ decides (the family's `band_at` says how
    the others follow λ); a level the axis meets only in part, or not at all (absent from `levels`), is named in
    `disagree` with the reason. Every other level's band equals the axis's band at each of its λ but for `sets`.
    """

    name: str
    lowest: int
    highest: int
    limit: str
    levels: Mapping[int, Band]
    sets: frozenset[str]
    disagree: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def along(cls, name: str, levels: Mapping[int, Mapping[str, object]], lowest: int, highest: int, limit: str,
              also: Iterable[str] = (), disagree: Mapping[int, str] | None = None) -> ComplexityAxis:
        """The axis whose λ is the parameter `name` itself: each level's λ range is its value of `name`; λ sets `also`
        those parameters."""
        ranges = {level: _as_band(band[name]) for level, band in levels.items()}
        return cls(name, lowest, highest, limit, ranges, frozenset({name, *also}), dict(disagree or {}))

    def check(self, puzzle: str, lam: object) -> int:
        """λ itself when it lies on the axis.

        Raises:
            ParamError: λ is not an integer within lowest..highest (the message says the range and why it ends).
        """
        if not is_int(lam):
            raise ParamError(f"{puzzle}: complexity {clip(lam)}: expected an integer {self.name}={self.lowest}..{self.highest}")
        if not self.lowest <= lam <= self.highest:
            raise ParamError(f"{puzzle}: complexity {self.name}={clip(lam)} is outside {self.lowest}..{self.highest}: "
                             f"this puzzle's generator cannot go past {self.name}={self.highest} because {self.limit}")
        return lam  # type: ignore[return-value]

    def to_json(self) -> dict[str, JSON]:
        return {"name": self.name, "lowest": self.lowest, "highest": self.highest, "limit": self.limit,
                "levels": {str(level): list(band) for level, band in sorted(self.levels.items())},
                "sets": sorted(self.sets), "disagree": {str(level): why for level, why in sorted(self.disagree.items())}}


def first_reaching(candidates: Iterable[tuple[float, T]], target: float, tries: int) -> tuple[int, float, T]:
    """(candidates weighed, hardness, candidate): the first of at most `tries` (hardness, candidate) pairs to reach
    `target`, else the hardest of them (the earliest of equals).

    A level leaves its generator free to choose among instances (which words, which graph); choosing by a reference
    metric, from the instance's own RNG, makes every level harder than the one below, and the bound keeps it quick.
    """
    best: tuple[float, T] | None = None
    weighed = 0
    for hardness, candidate in itertools.islice(candidates, tries):
        weighed += 1
        if best is None or hardness > best[0]:
            best = (hardness, candidate)
        if hardness >= target:
            break
    if best is None:
        raise ValueError("no candidate to choose from")
    return weighed, best[0], best[1]


def check_param(ok: bool, name: str, value: object, expected: str) -> None:
    """Raise ParamError naming the parameter when `ok` is false (used in Params.__post_init__)."""
    if not ok:
        raise ParamError(f"parameter {name}={clip(value)}: expected {expected}")


def _accepts(hint: object, value: object) -> bool:
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for option in options:
        if option is type(None) and value is None:
            return True
        if option is bool and type(value) is bool:
            return True
        if option is int and is_int(value):
            return True
        if option is float and (is_int(value) and abs(value) <= 2**53 or type(value) is float and math.isfinite(value)):
            return True
        if option is str and type(value) is str:
            return True
    return False


_TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string", type(None): "null"}


def _described(hint: object) -> str:
    """A parameter's type as a user would write it: `true or false`, `an integer or null`."""
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return " or ".join(_TYPE_WORDS.get(option, str(option)) for option in options)  # type: ignore[call-overload]


def params_from_mapping(params_cls: type[P], values: Mapping[str, object]) -> P:
    """Build a Params dataclass from user values, checking names and types before its own checks.

    Raises:
        ParamError: an unknown name, a value of the wrong type, or a value out of range.
    """
    hints = typing.get_type_hints(params_cls)
    names = [f.name for f in dataclasses.fields(params_cls)]  # type: ignore[arg-type]
    unknown = sorted(_name(k) for k in values if k not in names)
    if unknown:
        raise ParamError(f"unknown parameter(s) {', '.join(unknown)}; this puzzle takes {', '.join(names)}")
    for name, value in values.items():
        if not _accepts(hints[name], value):
            raise ParamError(f"parameter {name}={clip(value)}: expected {_described(hints[name])}")
    coerced = {k: float(v) if hints[k] is float else v for k, v in values.items()}
    return params_cls(**coerced)


class Puzzle(ABC, Generic[P]):
    """One puzzle family. Subclasses set the class attributes and implement build, _validate, _check_instance, _solve.

    `levels` maps 1..6 to a band of parameters: each value is fixed, or a Band the level draws
    from with the instance's own RNG.
    """

    name: ClassVar[str]
    version: ClassVar[int]
    kind: ClassVar[str] = "single"
    trajectory_field: ClassVar[str | None] = None  # answer field holding a step list (or move string)
    title: ClassVar[str]
    params_type: ClassVar[type[Any]]
    levels: ClassVar[Mapping[int, Mapping[str, object]]]
    instance_schema: ClassVar[dict[str, JSON]]
    answer_schema: ClassVar[dict[str, JSON]]
    presentation_params: ClassVar[frozenset[str]] = frozenset()  # shape what is shown, not what is drawn
    # Levels the first seed's own parameters make easier than the level below on a reference metric, and why: the
    # generators choose instances so every other step rises, and a difficulty report names these as the seed's doing.
    easier_levels: ClassVar[Mapping[int, str]] = {}
    axis: ClassVar[ComplexityAxis | None] = None  # the λ an adaptive search moves along; None: the family has none

    def generate(self, level: int | None = None, seed: int = 0, *, params: Mapping[str, object] | None = None,
                 complexity: int | None = None) -> Record:
        """Make the instance for (level, params or complexity, seed): same inputs, same bytes, in any process.

        With a level or a complexity λ (see `axis`), `params` may set only presentation parameters
        (such as the cube's `reveal_scramble`): they change what the instance shows, never which
        instance is drawn, so the same (level, seed) gives the same puzzle with or without them.
        A complexity record's id is `<name>/c<λ>/s<seed>`, its level None and its meta["lambda"] λ.

        Raises:
            ParamError: none or two of level and complexity and params, an unknown level, a complexity off the
                axis (or no axis), a bad seed or parameter.
        """
        if not is_int(seed) or not 0 <= seed <= MAX_SEED:
            raise ParamError(f"seed {clip(seed)}: expected an integer 0..2^64-1")
        if level is None and params is None and complexity is None:
            raise ParamError("give a level, a complexity, explicit parameters, or a level with presentation parameters")
        if level is not None and complexity is not None:
            raise ParamError("give a level or a complexity, not both")
        given = dict(params or {})
        shown = {k: given[k] for k in sorted(k for k in given if k in self.presentation_params)}
        extra: dict[str, JSON] = {}
        if complexity is not None:
            lam = self.complexity_axis().check(self.name, complexity)
            self._check_presentation_only(given, "complexity")
            rng = random.Random(f"{self.name}|c{lam}|{seed}")
            chosen = self.draw(self.band_at(lam), rng, shown)
            record_id = f"{self.name}/c{lam}/s{seed}"
            extra = {"lambda": lam}
        elif level is None:
            chosen = params_from_mapping(self.params_type, given)
            drawn = dumps_canonical({k: v for k, v in dataclasses.asdict(chosen).items() if k not in self.presentation_params})
            rng = random.Random(f"{self.name}|{drawn}|{seed}")
            record_id = f"{self.name}/p{hashlib.sha256(drawn.encode()).hexdigest()[:10]}/s{seed}"
        else:
            self._check_level(level, given)
            rng = random.Random(f"{self.name}|L{level}|{seed}")
            chosen = self.params_for_level(level, rng, shown)
            record_id = f"{self.name}/L{level}/s{seed}"
        record_id += "".join(f"+{k}={dumps_canonical(v)}" for k, v in shown.items())
        instance, meta = self.build(chosen, rng)
        return Record(record_id, self.name, level, seed, dataclasses.asdict(chosen), instance,
                      {"version": self.version, **meta, **extra})

    def _check_level(self, level: object, given: Mapping[str, object]) -> None:
        if not is_int(level) or level not in self.levels:
            raise ParamError(f"{self.name}: level {clip(level)} does not exist; levels are {min(self.levels)}-{max(self.levels)}")
        self._check_presentation_only(given, "level")

    def _check_presentation_only(self, given: Mapping[str, object], what: str) -> None:
        drawn = sorted(_name(k) for k in given if k not in self.presentation_params)
        if drawn:
            allowed = ", ".join(sorted(self.presentation_params)) or "none for this puzzle"
            raise ParamError(f"parameter(s) {', '.join(drawn)} cannot be combined with a {what} "
                              f"(presentation parameters only: {allowed}); drop the {what} to set them")

    def params_for_level(self, level: int, rng: random.Random, shown: Mapping[str, object] | None = None) -> P:
        """Draw this level's parameters (each Band in sorted field order), then apply presentation ones."""
        return self.draw(self.levels[level], rng, shown)

    def draw(self, band: Mapping[str, object], rng: random.Random, shown: Mapping[str, object] | None = None) -> P:
        """Parameters from a band (each Band drawn in sorted field order), then the presentation ones applied."""
        values = {k: rng.randint(*v) if isinstance(v, tuple) else v for k, v in sorted(band.items())}
        return params_from_mapping(self.params_type, {**values, **(shown or {})})

    def complexity_axis(self) -> ComplexityAxis:
        """The family's complexity axis.

        Raises:
            ParamError: the family declares none (a plugin need not).
        """
        if self.axis is None:
            raise ParamError(f"puzzle {self.name} declares no complexity axis; adaptive search needs one")
        return self.axis

    def band_at(self, lam: int) -> dict[str, object]:
        """The parameters at λ, written as a level's band (a value, or a Band the instance's RNG draws from).

        By default the band of the highest level whose λ range starts at or below λ (level 1's below the ladder),
        with λ's own parameter set to λ: the levels' other parameters carry on between and beyond them. A family
        whose other parameters follow λ otherwise overrides this (and says how in its module docstring).
        """
        return {**self.levels[self.level_at(lam)], self.complexity_axis().name: lam}

    def level_at(self, lam: int) -> int:
        """The level whose band λ carries on: the highest whose λ range starts at or below λ (else the lowest on the axis)."""
        ranges = self.complexity_axis().levels
        return max((level for level, (low, _) in ranges.items() if low <= lam), default=min(ranges))

    @abstractmethod
    def build(self, params: P, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        """Return (instance, meta); meta holds `complexity` (λ) and what is known of solution size."""

    def validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        """Judge any JSON value as an answer to a well-formed instance. Never raises.

        A template method: the shape guard (depth, size) first, then the family's `_validate`.
        """
        problem = json_shape_problem(answer)
        if problem is not None:
            return reject(IssueCode.MALFORMED, f"answer {problem}")
        return self._validate(instance, answer)

    @abstractmethod
    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        """Judge an answer no deeper than MAX_DEPTH; quote user data only through `clip`. Never raises."""

    def solve(self, instance: dict[str, JSON]) -> JSON:
        """Reference solver: a valid answer for every instance this puzzle generates.

        A template method: `check_instance` first, so nothing is searched before every rule holds.

        Raises:
            InstanceFormatError: the instance is malformed, inconsistent, beyond the family's stated
                bounds, or unsolvable (the message names the rule).
        """
        self.check_instance(instance)
        return self._solve(instance)

    def check_instance(self, instance: JSON) -> None:
        """Check any JSON value as an instance of this puzzle, cheaply and without search.

        Raises:
            InstanceFormatError: naming the first rule broken: the shape guard (depth, size), then the
                family's structure, consistency and complexity bounds (stated in its module docstring).
        """
        problem = json_shape_problem(instance)
        if problem is not None:
            raise InstanceFormatError(f"{self.name}: the instance {problem}")
        if type(instance) is not dict:
            raise InstanceFormatError(f"{self.name}: an instance is an object, not {clip(instance)}")
        self._check_instance(instance)

    @abstractmethod
    def _check_instance(self, instance: dict[str, JSON]) -> None:
        """Raise InstanceFormatError naming the first structural, consistency or bound rule the object breaks.

        Total over objects no deeper than MAX_DEPTH: any such object gives None or that error, never another exception.
        """

    @abstractmethod
    def _solve(self, instance: dict[str, JSON]) -> JSON:
        """Solve an instance that passed `check_instance`; raise InstanceFormatError if it has no solution."""

    def render(self, instance: dict[str, JSON]) -> str:
        """Human rendering for `codebench puzzles show`; families override with boards and grids."""
        return dumps_canonical(instance)

    def validate_json(self, instance: dict[str, JSON], text: str | bytes) -> Verdict:
        """Validate answer text as it arrives from a program or file: strict JSON, no repeated keys. Never raises."""
        try:
            answer, repeated = loads_strict(text)  # total: any failure, even a text of the wrong type, is a StrictJSONError
        except StrictJSONError as exc:
            return reject(IssueCode.INVALID_JSON, f"answer is not valid JSON: {exc}")
        return with_repeated_keys(self.validate(instance, answer), repeated)


def with_repeated_keys(verdict: Verdict, repeated: list[str]) -> Verdict:
    """Fail a verdict for keys the answer's JSON text repeated (JSON Pointers): its meaning is ambiguous."""
    if not repeated:
        return verdict
    extra = [Issue(IssueCode.DUPLICATE_KEY, f"key repeated at JSON pointer {_cut(pointer)}") for pointer in repeated[:MAX_ISSUES]]
    if len(repeated) > MAX_ISSUES:
        extra.append(Issue(IssueCode.TOO_MANY_ISSUES, f"{len(repeated) - MAX_ISSUES} more repeated keys not listed"))
    return dataclasses.replace(verdict, ok=False, issues=tuple(extra) + verdict.issues)


def _cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
