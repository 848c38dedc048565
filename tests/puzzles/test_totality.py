"""Validators are total: any JSON value or text gives a Verdict, never an exception (issue 8, items 4 and 6).

Only the public API (`validate`, `validate_json`, `solve`, `generate`) is used, so this module also runs
against older versions of the package, where its explicit cases (5000-digit integers, 100,000-deep lists)
raised ValueError and RecursionError.
"""

from __future__ import annotations

import functools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import PUZZLES, IssueCode, Puzzle, Verdict

from .strategies import HOSTILE_JSON, HOSTILE_TEXT, edit_at, json_paths, nest, perturb

FIELDS = {puzzle.name: next(iter(puzzle.answer_schema["required"])) for puzzle in PUZZLES}
MESSAGE_LIMIT = 400  # longer than any fixed text plus quoted data: a message embedding raw user data is far longer
DEEP = 100_000
HUGE = 10**5000
FAMILY = pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)


@functools.cache
def _record(name: str, level: int) -> tuple[dict, dict]:
    puzzle = next(p for p in PUZZLES if p.name == name)
    record = puzzle.generate(level, 0)
    return record.instance, puzzle.solve(record.instance)


def _deep_list(depth: int = DEEP) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _check(verdict: object, expect_ok: bool | None = False) -> Verdict:
    """A well-formed Verdict whose messages stay short; `expect_ok` None when either outcome is fine."""
    assert isinstance(verdict, Verdict)
    assert verdict.ok == (not verdict.issues)
    if expect_ok is not None:
        assert verdict.ok == expect_ok, verdict.issues[:3]
    for issue in verdict.issues:
        assert isinstance(issue.code, IssueCode) and isinstance(issue.message, str)
        assert len(issue.message) <= MESSAGE_LIMIT, issue.message[:200]
    json.dumps(verdict.to_json())  # storable: no value the results writer could choke on
    return verdict


def _dumps(value: object) -> str | None:
    """Strict JSON text of `value`, or None when it has none (NaN, infinities, 4300+ digit integers)."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        return None


# (a) random hostile JSON values


@settings(max_examples=2000, deadline=5000)
@given(HOSTILE_JSON, st.dictionaries(HOSTILE_TEXT, HOSTILE_JSON, max_size=2))
def test_random_json_answers_give_a_failing_verdict_in_every_family(value: object, extra: dict) -> None:
    """Each example is judged by all nine families, bare and under each one's answer field: 2000 per family."""
    for puzzle in PUZZLES:
        instance, _ = _record(puzzle.name, 2)
        field = FIELDS[puzzle.name]
        for answer in (value, {field: value}, {**extra, field: value}):
            _check(puzzle.validate(instance, answer))


# (b) reference answers with one element perturbed


@FAMILY
@pytest.mark.parametrize("level", [1, 3])
def test_mutated_reference_answers_never_raise(puzzle: Puzzle, level: int) -> None:
    instance, reference = _record(puzzle.name, level)
    paths = json_paths(reference)

    @settings(max_examples=300, deadline=5000)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        path = data.draw(st.sampled_from(paths))
        mutated = edit_at(reference, path, lambda element: perturb(data, element))
        verdict = _check(puzzle.validate(instance, mutated), expect_ok=None)
        text = _dumps(mutated)
        if text is not None:  # the text path agrees with the value path wherever the value has strict JSON text
            assert puzzle.validate_json(instance, text).to_json() == verdict.to_json()
        elif (loose := _loose_dumps(mutated)) is not None:  # NaN, Infinity: tokens strict JSON refuses
            assert _check(puzzle.validate_json(instance, loose)).codes == {IssueCode.INVALID_JSON}

    check()


def _loose_dumps(value: object) -> str | None:
    """json.dumps' text, NaN and Infinity included, or None (an integer past the int-to-string limit)."""
    try:
        return json.dumps(value)
    except ValueError:
        return None


# (c) explicit cases, at every position of a reference answer

HOSTILE_VALUES: dict[str, object] = {
    "5000-digit int": HUGE,
    "negative 5000-digit int": -HUGE,
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
    "-0.0": -0.0,
    "1e308": 1e308,
    "true": True,
    "1 MB string": "x" * 1_000_000,
    "100,000-deep list": None,  # built per use: sharing one is fine, but keep the intent obvious
    "long list": list(range(100_000)),
}
HOSTILE_TEXTS: dict[str, tuple[str, set[IssueCode] | None]] = {  # JSON token → the codes it must give (None: any failure)
    "5000-digit int": ("1" * 5000, {IssueCode.INVALID_JSON}),
    "negative 5000-digit int": ("-" + "9" * 5000, {IssueCode.INVALID_JSON}),
    "NaN": ("NaN", {IssueCode.INVALID_JSON}),
    "Infinity": ("Infinity", {IssueCode.INVALID_JSON}),
    "-Infinity": ("-Infinity", {IssueCode.INVALID_JSON}),
    "1e400": ("1e400", {IssueCode.INVALID_JSON}),
    "-0.0": ("-0.0", None),
    "1e308": ("1e308", None),
    "1 MB string": ('"' + "x" * 1_000_000 + '"', None),
    "100,000-deep list": ("[" * DEEP + "]" * DEEP, None),
}
SENTINEL = "\x00sentinel\x00"


def _positions(name: str) -> list[tuple]:
    """Up to 12 positions of the level-1 reference answer (the root, the field, the first elements, a key)."""
    _, reference = _record(name, 1)
    paths = json_paths(reference)
    return paths[:12]


def _hostile(label: str) -> object:
    return _deep_list() if label == "100,000-deep list" else HOSTILE_VALUES[label]


@FAMILY
@pytest.mark.parametrize("label", list(HOSTILE_VALUES))
def test_hostile_values_at_every_position_give_a_failing_verdict(puzzle: Puzzle, label: str) -> None:
    instance, reference = _record(puzzle.name, 1)
    value = _hostile(label)
    for path in _positions(puzzle.name):
        mutated = edit_at(reference, path, lambda _: value)
        sat_truth = puzzle.name == "sat" and value is True  # true is a legal SAT value: the verdict may pass
        _check(puzzle.validate(instance, mutated), expect_ok=None if sat_truth else False)
        if path:  # and as an extra answer field, next to the valid one
            _check(puzzle.validate(instance, {**reference, "extra": mutated}), expect_ok=False)
    for key in ("9" * 5000, "x" * 1_000_000, "\ud800"):  # hostile object keys
        field = FIELDS[puzzle.name]
        inner = reference[field]
        with_key = {field: {**inner, key: value}} if isinstance(inner, dict) else {field: inner, key: value}
        _check(puzzle.validate(instance, with_key), expect_ok=False)


@FAMILY
@pytest.mark.parametrize("label", list(HOSTILE_TEXTS))
def test_hostile_json_text_at_every_position_gives_a_failing_verdict(puzzle: Puzzle, label: str) -> None:
    instance, reference = _record(puzzle.name, 1)
    token, codes = HOSTILE_TEXTS[label]
    for path in _positions(puzzle.name):
        text = json.dumps(edit_at(reference, path, lambda _: SENTINEL)).replace(json.dumps(SENTINEL), token)
        for form in (text, text.encode()):
            verdict = _check(puzzle.validate_json(instance, form), expect_ok=False)
            if codes is not None:
                assert verdict.codes == codes, (path, verdict.issues)


@FAMILY
def test_deep_and_odd_text_is_a_verdict(puzzle: Puzzle) -> None:
    instance, reference = _record(puzzle.name, 1)
    valid = json.dumps(reference)
    for text in ("[" * DEEP, "{" * DEEP, '{"a":' * DEEP + "1" + "}" * DEEP, "[" * DEEP + "]" * DEEP, "1" * 100_000):
        _check(puzzle.validate_json(instance, text), expect_ok=False)
    for raw in (b"\xff\xfe\xfd", b'{"a": "\xff"}', valid.encode()[:-1] + b"\xc3", b"\xc3" + valid.encode()):
        assert _check(puzzle.validate_json(instance, raw)).codes == {IssueCode.INVALID_JSON}
    assert _check(puzzle.validate_json(instance, valid.encode("utf-16")), expect_ok=True)  # json.loads detects UTF-16
    for not_text in (None, 5, [valid], {"answer": valid}):
        assert _check(puzzle.validate_json(instance, not_text)).codes == {IssueCode.INVALID_JSON}  # type: ignore[arg-type]
    # just inside and just past the depth guard, as values and as text
    for depth in (40, 63, 64, 65, 500):
        for answer in (nest(reference, depth), {FIELDS[puzzle.name]: nest(1, depth)}):
            _check(puzzle.validate(instance, answer))
            _check(puzzle.validate_json(instance, json.dumps(answer)))


@FAMILY
def test_reference_answers_are_still_valid_through_both_paths(puzzle: Puzzle) -> None:
    for level in (1, 3):
        instance, reference = _record(puzzle.name, level)
        _check(puzzle.validate(instance, reference), expect_ok=True)
        _check(puzzle.validate_json(instance, json.dumps(reference)), expect_ok=True)
