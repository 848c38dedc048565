"""Cryptarithm: Exercism anchors, solution counts, unique levels, every broken mapping rejected."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError, Record
from puzzles.cryptarithm import COUNT_CAP, TRIES, Cryptarithm, carry_chain, search

from .strategies import JSON_VALUES, answers_with_field

CRYPT = Cryptarithm()
SEND = {"addends": ["SEND", "MORE"], "result": "MONEY"}
SEND_SOLUTION = {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}


def puzzle(text: str) -> dict:
    left, right = text.split(" == ")
    return {"addends": left.split(" + "), "result": right}


# exercism/problem-specifications exercises/alphametics/canonical-data.json (None: no solution)
EXERCISM = [
    ("I + BB == ILL", {"I": 1, "B": 9, "L": 0}),
    ("A == B", None),
    ("ACA + DD == BD", None),
    ("A + A + A + A + A + A + A + A + A + A + A + B == BCC", {"A": 9, "B": 1, "C": 0}),
    ("AS + A == MOM", {"A": 9, "S": 2, "M": 1, "O": 0}),
    ("NO + NO + TOO == LATE", {"N": 7, "O": 4, "T": 9, "L": 1, "A": 0, "E": 2}),
    ("HE + SEES + THE == LIGHT", {"E": 4, "G": 2, "H": 5, "I": 0, "L": 1, "S": 9, "T": 7}),
    ("SEND + MORE == MONEY", SEND_SOLUTION),
    (
        "AND + A + STRONG + OFFENSE + AS + A + GOOD == DEFENSE",
        {"A": 5, "D": 3, "E": 4, "F": 7, "G": 8, "N": 0, "O": 2, "R": 1, "S": 6, "T": 9},
    ),
]


@pytest.mark.parametrize(("text", "expected"), EXERCISM)
def test_exercism_anchors(text: str, expected: dict | None) -> None:
    instance = puzzle(text)
    count, first, branches = search(instance["addends"], instance["result"])
    assert count == (0 if expected is None else 1) and branches >= 0
    assert first == expected
    if expected is not None:
        assert CRYPT.solve(instance) == {"mapping": expected}
        assert CRYPT.validate(instance, {"mapping": expected}).ok


def test_leading_zero_only_solution_is_rejected() -> None:
    # ACA + DD == BD: 010 + 22 = 32 is the arithmetic, but ACA starts with 0
    verdict = CRYPT.validate(puzzle("ACA + DD == BD"), {"mapping": {"A": 0, "C": 1, "D": 2, "B": 3}})
    assert verdict.codes == {IssueCode.CONFLICT} and len(verdict.issues) == 1 and "ACA" in verdict.issues[0].message


def test_solution_counts() -> None:
    assert search(["CP", "IS", "FUN"], "TRUE")[0] == 72
    assert search(["CP", "IS", "FUN"], "TRUE", cap=10)[0] == 10
    assert search(["SEND", "MORE"], "MONEY", cap=2)[:2] == (1, SEND_SOLUTION)
    assert search(["TO", "GO"], "OUT")[0] == 1  # 21 + 81 = 102


def test_the_search_stops_counting_at_a_second_solution() -> None:
    """The branches settle uniqueness only, so a puzzle with many solutions is not made to look hard by counting them."""
    count, _, branches = search(["CP", "IS", "FUN"], "TRUE")
    assert count == 72 and branches == search(["CP", "IS", "FUN"], "TRUE", cap=2)[2] > 0


def test_one_letter_words_may_be_zero() -> None:
    instance = {"addends": ["AB", "C"], "result": "AB"}  # C = 0 is the only way
    count, mapping, _ = search(instance["addends"], instance["result"])
    assert count == 72 and mapping is not None and mapping["C"] == 0
    assert CRYPT.validate(instance, {"mapping": {"A": 1, "B": 2, "C": 0}}).ok


def test_carry_chain() -> None:
    assert carry_chain(["SEND", "MORE"], SEND_SOLUTION) == 2  # columns carry 1, 1, 0, 1
    assert carry_chain(["AB", "CD"], {"A": 1, "B": 2, "C": 3, "D": 4}) == 0
    assert carry_chain(["ABC", "D"], {"A": 9, "B": 9, "C": 9, "D": 1}) == 3


LEVEL_LETTERS = {1: (2, 5), 2: (5, 7), 3: (7, 8), 4: (8, 9), 5: (9, 10), 6: (10, 10)}


@pytest.fixture(scope="module")
def records() -> dict[tuple[int, int], Record]:
    return {(level, seed): CRYPT.generate(level, seed) for level in range(1, 7) for seed in range(10)}


@pytest.mark.parametrize("level", range(1, 7))
def test_reference_answer_validates_on_every_level(records: dict[tuple[int, int], Record], level: int) -> None:
    for seed in range(10):
        record = records[level, seed]
        instance, meta = record.instance, record.meta
        assert CRYPT.validate(instance, CRYPT.solve(instance)).ok
        assert CRYPT.validate(instance, {"mapping": meta["solution"]}).ok
        low, high = LEVEL_LETTERS[level]
        assert low <= meta["complexity"]["letters"] <= high and not meta["solution_count_capped"]
        assert len(instance["addends"]) == record.params["addends"] and min(map(len, instance["addends"])) >= 2
        if level >= 3:
            assert meta["solution_count"] == 1 and CRYPT.solve(instance)["mapping"] == meta["solution"]
        else:
            assert meta["solution_count"] == search(instance["addends"], instance["result"])[0] >= 1


def test_the_search_rises_at_every_level(records: dict[tuple[int, int], Record]) -> None:
    means = [statistics.fmean(records[level, seed].meta["search_nodes"] for seed in range(10)) for level in range(1, 7)]
    assert means == sorted(set(means))
    for record in records.values():  # each the first to reach its level's target, or the hardest of TRIES
        meta, target = record.meta, CRYPT.levels[record.level].get("search_target", 0)
        assert meta["search_nodes"] >= target or meta["tries"] == TRIES
        assert meta["search_nodes"] == search(record.instance["addends"], record.instance["result"], COUNT_CAP)[2]


def test_generation_is_deterministic_and_levels_rise() -> None:
    assert CRYPT.generate(5, 7) == CRYPT.generate(5, 7)
    assert CRYPT.generate(1, 0).instance != CRYPT.generate(1, 1).instance
    lengths = [CRYPT.generate(level, 0).meta["complexity"]["max_word_length"] for level in range(1, 7)]
    assert lengths == sorted(lengths)
    assert CRYPT.generate(6, 0).meta["complexity"]["letters"] == 10


@pytest.mark.parametrize(
    "params",
    [
        {"addends": 1},
        {"addends": 21},
        {"min_len": 1},
        {"min_len": 5, "max_len": 4},
        {"max_len": 11},
        {"min_letters": 1},
        {"min_letters": 8, "max_letters": 7},
        {"max_letters": 11},
        {"addends": 2, "min_len": 2, "max_len": 2, "min_letters": 10},
        {"unique": 1},
    ],
)
def test_bad_params_raise(params: dict) -> None:
    with pytest.raises(ParamError):
        CRYPT.generate(params=params, seed=0)


def test_impossible_filters_raise_after_bounded_draws() -> None:
    with pytest.raises(ParamError, match="draws"):
        CRYPT.generate(params={"addends": 2, "min_len": 5, "max_len": 5, "min_letters": 2, "max_letters": 2}, seed=0)


def issues_of(mapping: object, instance: dict = SEND) -> list[IssueCode]:
    return [issue.code for issue in CRYPT.validate(instance, {"mapping": mapping}).issues]


def with_(**changes: object) -> dict:
    return {**SEND_SOLUTION, **changes}


@pytest.mark.parametrize(
    ("mapping", "codes"),
    [
        (with_(Y=3), [IssueCode.CONFLICT]),  # wrong sum
        (with_(Y=5), [IssueCode.CONFLICT, IssueCode.CONFLICT]),  # repeated digit E=Y=5, and the sum
        (with_(S=2, Y=9), [IssueCode.CONFLICT]),  # swapped digits break the sum
        (with_(M=0, O=1), [IssueCode.CONFLICT, IssueCode.CONFLICT, IssueCode.CONFLICT]),  # MORE, MONEY lead 0; sum
        (with_(Y=10), [IssueCode.BAD_VALUE]),
        (with_(Y=-1), [IssueCode.BAD_VALUE]),
        (with_(Y="2"), [IssueCode.BAD_VALUE]),
        (with_(Y=2.0), [IssueCode.BAD_VALUE]),
        (with_(O=False), [IssueCode.BAD_VALUE]),
        (with_(M=True), [IssueCode.BAD_VALUE]),
        (with_(Y=None), [IssueCode.BAD_VALUE]),
        (with_(Q=3), [IssueCode.EXTRA]),  # extra letter: its digit does not count
        ({k: v for k, v in SEND_SOLUTION.items() if k != "Y"}, [IssueCode.MISSING]),
        ({**{k: v for k, v in SEND_SOLUTION.items() if k != "S"}, "s": 9}, [IssueCode.UNKNOWN_TOKEN, IssueCode.MISSING]),
        ({**{k: v for k, v in SEND_SOLUTION.items() if k != "S"}, " S": 9}, [IssueCode.UNKNOWN_TOKEN, IssueCode.MISSING]),
        ({**{k: v for k, v in SEND_SOLUTION.items() if k != "S"}, "SS": 9}, [IssueCode.UNKNOWN_TOKEN, IssueCode.MISSING]),
        (with_(**{"1": 1}), [IssueCode.UNKNOWN_TOKEN]),
        ({}, [IssueCode.MISSING] * 8),
    ],
)
def test_bad_mappings_are_rejected(mapping: dict, codes: list[IssueCode]) -> None:
    assert sorted(issues_of(mapping)) == sorted(codes)


def test_every_issue_is_reported() -> None:
    verdict = CRYPT.validate(SEND, {"mapping": {"S": 0, "E": 0, "N": "x", "Q": 1}, "explanation": "hi"})
    assert [i.code for i in verdict.issues].count(IssueCode.MISSING) == 5
    assert {IssueCode.EXTRA, IssueCode.BAD_VALUE, IssueCode.CONFLICT, IssueCode.MISSING} == verdict.codes
    assert verdict.steps_applied is None and verdict.first_illegal_step is None


@pytest.mark.parametrize("answer", [None, 7, "S=9", [], {"map": SEND_SOLUTION}, {"mapping": [["S", 9]]}, {"mapping": "S=9"}])
def test_malformed_answers(answer: object) -> None:
    assert CRYPT.validate(SEND, answer).codes == {IssueCode.MALFORMED}


def test_duplicate_json_keys_fail() -> None:
    verdict = CRYPT.validate_json(SEND, '{"mapping": {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2, "Y": 2}}')
    assert verdict.codes == {IssueCode.DUPLICATE_KEY}


@pytest.mark.parametrize("level", [3, 6])
def test_digit_mutations_of_unique_puzzles_are_rejected(level: int) -> None:
    record = CRYPT.generate(level, 1)
    solution = record.meta["solution"]
    for letter in solution:
        for digit in range(10):
            if digit != solution[letter]:
                assert not CRYPT.validate(record.instance, {"mapping": {**solution, letter: digit}}).ok


def test_render_aligns_columns() -> None:
    assert CRYPT.render(SEND).splitlines()[:4] == ["   SEND", "+  MORE", "-------", "  MONEY"]


@settings(max_examples=300)
@given(answers_with_field("mapping"))
def test_validate_never_raises_on_arbitrary_json(answer: object) -> None:
    verdict = CRYPT.validate(SEND, answer)
    assert verdict.ok == (not verdict.issues)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(list("SENDMORYQs") + ["", "SE"]), st.integers(-2, 11) | JSON_VALUES, max_size=11))
def test_near_valid_mappings_never_raise(mapping: dict) -> None:
    verdict = CRYPT.validate(SEND, {"mapping": mapping})
    assert verdict.ok == (not verdict.issues)
    assert verdict.ok == (mapping == SEND_SOLUTION and all(type(v) is int for v in mapping.values()))
