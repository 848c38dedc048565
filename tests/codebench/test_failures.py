"""Failure modes: each rule of the taxonomy on a hand-made row, their precedence, the per-cell counts, and hedge detection."""

from __future__ import annotations

import pytest

from codebench.analysis.failures import CATEGORY_ORDER, FailureCounts, FailureMode, classify, failure_modes
from codebench.modes._hedging import HEDGES, hedges
from codebench.types import ExecutionRow, Status

STATE, CONSTRAINT, INCOMPLETE, CONFIDENT, MALFORMED = (FailureMode.STATE_INCONSISTENCY, FailureMode.CONSTRAINT_VIOLATION,
                                                       FailureMode.INCOMPLETE_REASONING, FailureMode.CONFIDENT_ERROR,
                                                       FailureMode.MALFORMED)


def row(status: str = Status.RULE_VIOLATION, *codes: str, model: str = "m", mode: str = "instruction", puzzle: str = "hanoi",
        level: int = 1, instance: str = "i", sample: int = 0, first_illegal_step: int | None = None,
        steps_applied: int | None = None, shortest: int | None = None, truncated: bool = False, hedged: bool = False) -> ExecutionRow:
    return ExecutionRow(model, mode, puzzle, level, instance, sample, str(status), "", None, first_illegal_step=first_illegal_step,
                        issue_codes=codes, steps_applied=steps_applied, shortest=shortest, truncated=truncated, hedged=hedged)


# the rules, one by one


@pytest.mark.parametrize("status", [Status.LEGAL, Status.SANDBOX_ERROR, Status.API_ERROR])
def test_legal_and_infrastructure_rows_have_no_category(status: Status) -> None:
    assert classify(row(status)) is None
    assert classify(row(status, "illegal_move", truncated=True, hedged=True)) is None


@pytest.mark.parametrize("status", [Status.RUNTIME_ERROR, Status.SYNTAX_ERROR, Status.TIMEOUT, Status.NO_CODE])
def test_rule_1_code_statuses_are_their_own_category(status: Status) -> None:
    assert classify(row(status)) == status
    assert classify(row(status, truncated=True, hedged=True)) == status  # even a cut-off reply: the program failed


def test_rule_2_a_truncated_reply_is_incomplete_reasoning() -> None:
    assert classify(row(Status.RULE_VIOLATION, "goal_not_reached", truncated=True)) == INCOMPLETE


def test_rule_3_no_answer_is_its_own_category() -> None:
    assert classify(row(Status.NO_ANSWER)) == Status.NO_ANSWER


def test_rule_4_an_unknown_status_is_its_own_category() -> None:
    assert classify(row("vanished", "illegal_move")) == "vanished"


@pytest.mark.parametrize("codes", [("invalid_json",), ("duplicate_key",), ("malformed",), ("bad_value",), ("unknown_token",),
                                   ("extra",), ("too_many_issues",), ("bad_value", "extra", "too_many_issues")])
def test_rule_5_only_format_codes_is_malformed(codes: tuple[str, ...]) -> None:
    assert classify(row(Status.RULE_VIOLATION, *codes)) == MALFORMED


def test_rule_5_needs_every_code_a_format_code() -> None:
    assert classify(row(Status.RULE_VIOLATION, "extra", "conflict")) == CONSTRAINT  # rule 7
    assert classify(row(Status.RULE_VIOLATION, "bad_value", "missing")) == INCOMPLETE  # rule 8


@pytest.mark.parametrize(("step", "expected"), [(1, STATE), (7, STATE), (0, CONSTRAINT), (None, CONSTRAINT)])
def test_rule_6_an_illegal_move_after_the_first_step_is_a_state_inconsistency(step: int | None, expected: str) -> None:
    assert classify(row(Status.RULE_VIOLATION, "illegal_move", first_illegal_step=step)) == expected


@pytest.mark.parametrize("code", ["conflict", "given_altered"])
def test_rule_7_a_broken_constraint_or_clue_is_a_constraint_violation(code: str) -> None:
    assert classify(row(Status.RULE_VIOLATION, code, hedged=True)) == CONSTRAINT


def test_rule_8_a_missing_key_is_incomplete_reasoning() -> None:
    assert classify(row(Status.RULE_VIOLATION, "missing", "goal_not_reached", steps_applied=9, shortest=3)) == INCOMPLETE


@pytest.mark.parametrize(("steps", "shortest", "hedged", "expected"), [
    (3, 7, False, INCOMPLETE),  # a valid prefix that stops short
    (7, 7, True, INCOMPLETE),  # full length, but hedged
    (7, 7, False, CONFIDENT),
    (9, 7, False, CONFIDENT),  # longer than the shortest, still wrong
    (None, 7, False, CONFIDENT),  # how far it got unknown: nothing says it stopped short
    (3, None, False, CONFIDENT),  # the shortest unknown
    (3, None, True, INCOMPLETE),
])
def test_rule_9_goal_not_reached(steps: int | None, shortest: int | None, hedged: bool, expected: str) -> None:
    assert classify(row(Status.RULE_VIOLATION, "goal_not_reached", steps_applied=steps, shortest=shortest, hedged=hedged)) == expected


@pytest.mark.parametrize(("codes", "hedged", "expected"), [((), False, CONFIDENT), ((), True, INCOMPLETE),
                                                           (("something_new",), False, CONFIDENT), (("something_new",), True, INCOMPLETE)])
def test_rule_10_otherwise_hedging_decides(codes: tuple[str, ...], hedged: bool, expected: str) -> None:
    assert classify(row(Status.RULE_VIOLATION, *codes, hedged=hedged)) == expected


# precedence


@pytest.mark.parametrize("failed", [row(Status.RULE_VIOLATION, "illegal_move", "conflict", first_illegal_step=3),
                                    row(Status.RULE_VIOLATION, "invalid_json"), row(Status.NO_ANSWER), row("vanished")])
def test_truncation_beats_everything_but_the_code_statuses(failed: ExecutionRow) -> None:
    assert classify(row(failed.status, *failed.issue_codes, first_illegal_step=failed.first_illegal_step, truncated=True)) == INCOMPLETE


def test_an_illegal_move_beside_a_conflict_follows_rule_6() -> None:
    assert classify(row(Status.RULE_VIOLATION, "conflict", "illegal_move", first_illegal_step=2)) == STATE
    assert classify(row(Status.RULE_VIOLATION, "conflict", "illegal_move", first_illegal_step=0)) == CONSTRAINT
    assert classify(row(Status.RULE_VIOLATION, "illegal_move", "invalid_json", first_illegal_step=2)) == STATE  # not only format


def test_categories_are_plain_strings() -> None:
    category = classify(row(Status.RULE_VIOLATION, "conflict"))
    assert type(category) is str and category == "constraint_violation"
    assert type(classify(row(Status.TIMEOUT))) is str


# counts per cell


def fixture() -> list[ExecutionRow]:
    hanoi = {"model": "m", "mode": "instruction", "puzzle": "hanoi", "level": 3}
    sat = {"model": "m", "mode": "code", "puzzle": "sat", "level": 2}
    return [
        row(Status.LEGAL, instance="h0", **hanoi),  # not a failure
        row(Status.RULE_VIOLATION, "illegal_move", instance="h1", first_illegal_step=4, **hanoi),  # state_inconsistency
        row(Status.RULE_VIOLATION, "illegal_move", instance="h2", first_illegal_step=0, **hanoi),  # constraint_violation
        row(Status.RULE_VIOLATION, "goal_not_reached", instance="h3", steps_applied=5, shortest=7, **hanoi),  # incomplete_reasoning
        row(Status.RULE_VIOLATION, "goal_not_reached", instance="h4", steps_applied=7, shortest=7, **hanoi),  # confident_error
        row(Status.NO_ANSWER, instance="h5", truncated=True, **hanoi),  # incomplete_reasoning (rule 2)
        row(Status.API_ERROR, instance="h6", **hanoi),  # infrastructure
        row(Status.RULE_VIOLATION, "invalid_json", instance="h7", **hanoi),  # malformed
        row(Status.TIMEOUT, instance="s0", **sat),
        row(Status.RUNTIME_ERROR, instance="s1", **sat),
        row(Status.RULE_VIOLATION, "conflict", instance="s2", **sat),  # constraint_violation
        row("vanished", instance="s3", **sat),  # unknown status: its own category, after the known ones
        row(Status.NO_ANSWER, instance="s4", **sat),
        row(Status.SANDBOX_ERROR, instance="s5", **sat),  # infrastructure
        row(Status.LEGAL, instance="s6", **sat),
        row(Status.LEGAL, instance="x0", puzzle="sat", level=1),  # a cell without failures: absent
        row(Status.API_ERROR, instance="x1", puzzle="sat", level=1),
    ]


def test_failure_counts_of_a_fixed_fixture() -> None:
    cells = failure_modes(reversed(fixture()))
    assert cells == [
        FailureCounts("m", "code", "sat", 2, 5, {"constraint_violation": 1, "no_answer": 1, "runtime_error": 1, "timeout": 1,
                                                  "vanished": 1}),
        FailureCounts("m", "instruction", "hanoi", 3, 6, {"state_inconsistency": 1, "constraint_violation": 1,
                                                          "incomplete_reasoning": 2, "confident_error": 1, "malformed": 1}),
    ]
    assert [list(cell.counts) for cell in cells] == [["constraint_violation", "no_answer", "runtime_error", "timeout", "vanished"],
                                                     ["state_inconsistency", "constraint_violation", "incomplete_reasoning",
                                                      "confident_error", "malformed"]]


def test_category_order_is_fixed_and_unknown_categories_follow_alphabetically() -> None:
    assert list(CATEGORY_ORDER) == ["state_inconsistency", "constraint_violation", "incomplete_reasoning", "confident_error",
                                    "malformed", "no_answer", "runtime_error", "syntax_error", "timeout", "no_code"]
    rows = [row(status, instance=str(i)) for i, status in enumerate(["zebra", Status.NO_CODE, "aardvark", Status.SYNTAX_ERROR,
                                                                     Status.NO_CODE])]
    [cell] = failure_modes(rows)
    assert list(cell.counts.items()) == [("syntax_error", 1), ("no_code", 2), ("aardvark", 1), ("zebra", 1)]
    assert cell.failures == 5


def test_no_failures_no_cells() -> None:
    assert failure_modes([row(Status.LEGAL), row(Status.SANDBOX_ERROR, instance="j")]) == []
    assert failure_modes([]) == []


# hedges


@pytest.mark.parametrize("text", ["I think the answer is 3.", "This is PROBABLY right", "Perhaps: [1, 2]", "maybe.", "It might  be",
                                  "I'm not sure", "I’m not certain this works", "it\nseems so", "likely optimal", "possibly",
                                  "approximately 12 moves", "I guess", "the order is unclear", "I cannot be certain",
                                  "this may not be minimal", "I believe so", "(maybe)"])
def test_hedging_phrases_match_as_whole_words_in_any_case(text: str) -> None:
    assert hedges(text)


@pytest.mark.parametrize("text", ["", "The answer is [[0, 2], [0, 1]].", "Maybelline", "the likelihood", "unlikely", "impossibly hard",
                                  "improbably", "nuclear", "I thinking", "this might", "I am sure", "mightbe"])
def test_words_containing_a_hedge_do_not_match(text: str) -> None:
    assert not hedges(text)


def test_every_hedge_phrase_matches_itself() -> None:
    assert all(hedges(f"Well, {phrase.upper()}, yes.") for phrase in HEDGES)
