"""SAT: ladder, satisfiable instances (checked by brute force), strict assignments, mutations rejected."""

from __future__ import annotations

import json
from math import comb

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError
from puzzles.sat import Sat

from .strategies import JSON_VALUES, answers_with_field

SAT = Sat()
SEEDS = range(10)
TINY = {"num_vars": 4, "clauses": [[1, -2, 3], [-1, 2, -3], [-1, 2]]}  # variable 4 occurs nowhere


def brute_force_models(n: int, clauses: list[list[int]]) -> int:
    """Models over 1..n by bitsets: bit a of a mask is assignment a (variable v = bit v−1 of a)."""
    size = 1 << n
    full = (1 << size) - 1
    masks = {}
    for v in range(1, n + 1):
        width = 1 << v  # the pattern "2^(v−1) zeros, 2^(v−1) ones" repeats every `width` bits
        mask = ((1 << width // 2) - 1) << width // 2
        while width < size:
            mask, width = mask | mask << width, 2 * width
        masks[v] = mask
    models = full
    for clause in clauses:
        satisfied = 0
        for literal in clause:
            satisfied |= masks[literal] if literal > 0 else full ^ masks[-literal]
        models &= satisfied
    return models.bit_count()


def false_clauses(clauses: list[list[int]], assignment: dict[str, bool]) -> list[int]:
    return [i for i, clause in enumerate(clauses) if not any(assignment[str(abs(lit))] == (lit > 0) for lit in clause)]


def test_brute_force_counter_on_known_formulas() -> None:
    assert brute_force_models(3, []) == 8
    assert brute_force_models(2, [[1, 2]]) == 3
    assert brute_force_models(3, [[1], [-2], [3]]) == 1
    assert brute_force_models(1, [[1], [-1]]) == 0


@pytest.mark.parametrize("level", range(1, 7))
def test_reference_answer_validates_and_instances_follow_the_generator(level: int) -> None:
    for seed in SEEDS:
        record = SAT.generate(level, seed)
        n, clauses = record.instance["num_vars"], record.instance["clauses"]
        assert jsonschema.Draft202012Validator(SAT.instance_schema).is_valid(record.instance)
        assert len({tuple(sorted(c)) for c in clauses}) == len(clauses) == record.meta["complexity"]["m"]
        assert all(len({abs(lit) for lit in c}) == 3 and all(1 <= abs(lit) <= n for lit in c) for c in clauses)
        answer = SAT.solve(record.instance)
        assert jsonschema.Draft202012Validator(SAT.answer_schema).is_valid(answer)
        assert SAT.validate(record.instance, answer).ok
        assert not false_clauses(clauses, answer["assignment"])


def test_levels_follow_the_satlib_ladder() -> None:
    fixed = {1: (5, 15), 2: (10, 43), 3: (20, 91), 5: (50, 218)}
    banded = {4: (30, 35), 6: (75, 100)}
    for seed in SEEDS:
        for level, (n, m) in fixed.items():
            assert SAT.generate(level, seed).meta["complexity"] == {"n": n, "m": m, "alpha": round(m / n, 3)}
        for level, (low, high) in banded.items():
            n = SAT.generate(level, seed).instance["num_vars"]
            assert low <= n <= high and len(SAT.generate(level, seed).instance["clauses"]) == round(4.26 * n)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_instances_are_satisfiable_and_model_counts_exact_by_brute_force(level: int) -> None:
    for seed in SEEDS:
        record = SAT.generate(level, seed)
        models = brute_force_models(record.instance["num_vars"], record.instance["clauses"])
        assert models >= 1
        assert record.meta["model_count"] == min(models, 100)
        assert record.meta["model_count_capped"] == (models >= 100)


def test_golden_instance() -> None:
    record = SAT.generate(1, 0)
    assert record.instance["clauses"][:3] == [[2, 4, 5], [2, 3, 5], [-1, -3, 5]]
    assert record.meta["model_count"] == brute_force_models(5, record.instance["clauses"])


def test_flipping_each_variable_is_judged_by_its_false_clauses() -> None:
    instance = SAT.generate(3, 1).instance
    reference = SAT.solve(instance)["assignment"]
    rejected = 0
    for v in range(1, 21):
        assignment = {**reference, str(v): not reference[str(v)]}
        expected = false_clauses(instance["clauses"], assignment)
        verdict = SAT.validate(instance, {"assignment": assignment})
        assert verdict.ok == (not expected)
        assert [issue.code for issue in verdict.issues] == [IssueCode.CONFLICT] * len(expected)
        assert all(f"clause {i} " in issue.message for i, issue in zip(expected, verdict.issues, strict=True))
        rejected += not verdict.ok
    assert rejected >= 10  # near the threshold most single flips break a clause


@pytest.mark.parametrize(
    "answer", [None, [], "1 -2 3", 7, True, {}, {"assignmnet": {}}, {"assignment": [True, False]}, {"assignment": None}]
)
def test_wrong_shapes_are_malformed(answer: object) -> None:
    assert SAT.validate(TINY, answer).codes == {IssueCode.MALFORMED}


def tiny_answer(**changes: object) -> dict:
    """The all-true answer to TINY, with `v2=value` style changes."""
    return {"assignment": {"1": True, "2": True, "3": True, **{key.removeprefix("v"): value for key, value in changes.items()}}}


def test_tiny_reference_passes_and_unused_variables_may_be_omitted_or_given() -> None:
    assert SAT.validate(TINY, tiny_answer()).ok
    assert SAT.validate(TINY, tiny_answer(v4=False)).ok


@pytest.mark.parametrize("key", ["0", "5", "10", "1" * 5000])
def test_keys_outside_the_variables_are_extra(key: str) -> None:
    verdict = SAT.validate(TINY, {"assignment": {**tiny_answer()["assignment"], key: True}})
    assert verdict.codes == {IssueCode.EXTRA} and len(verdict.issues) == 1


@pytest.mark.parametrize("key", ["x3", "03", " 3", "3 ", "3\n", "-3", "+3", "3.0", "", "٣", "x"])
def test_other_key_styles_are_unknown_tokens(key: str) -> None:
    assignment = {"1": True, "2": True, key: True}
    verdict = SAT.validate(TINY, {"assignment": assignment})
    assert verdict.codes == {IssueCode.UNKNOWN_TOKEN, IssueCode.MISSING}
    assert "variables 3 occur" in next(i.message for i in verdict.issues if i.code == IssueCode.MISSING)


def test_python_int_keys_are_unknown_tokens() -> None:
    verdict = SAT.validate(TINY, {"assignment": {1: True, 2: True, 3: True}})
    assert IssueCode.UNKNOWN_TOKEN in verdict.codes and not verdict.ok


@pytest.mark.parametrize("value", [1, 0, "True", "true", None, 1.0, [True], {}])
def test_non_boolean_values_are_bad_values(value: object) -> None:
    verdict = SAT.validate(TINY, tiny_answer(v2=value))
    assert verdict.codes == {IssueCode.BAD_VALUE}
    assert verdict.issues[0].message.startswith("variable 2:")


def test_missing_variables_are_listed_in_one_issue() -> None:
    verdict = SAT.validate(TINY, {"assignment": {"2": True}})
    assert verdict.codes == {IssueCode.MISSING}
    assert verdict.issues[0].message == "variables 1, 3 occur in clauses but are not assigned"


def test_every_false_clause_is_reported_with_its_index() -> None:
    verdict = SAT.validate(TINY, tiny_answer(v2=False))  # 1, 3 true, 2 false: clauses 1 and 2 are false
    assert [issue.code for issue in verdict.issues] == [IssueCode.CONFLICT, IssueCode.CONFLICT]
    assert verdict.issues[0].message == "clause 1 [-1, 2, -3] has every literal false"
    assert verdict.issues[1].message == "clause 2 [-1, 2] has every literal false"


def test_extra_top_level_fields_are_extra() -> None:
    verdict = SAT.validate(TINY, {**tiny_answer(), "explanation": "x1 true"})
    assert verdict.codes == {IssueCode.EXTRA}


def test_duplicate_keys_are_caught_even_when_the_last_value_is_right() -> None:
    text = '{"assignment": {"1": false, "1": true, "2": true, "3": true}}'
    assert json.loads(text) == tiny_answer()  # what a lenient reader would see
    verdict = SAT.validate_json(TINY, text)
    assert not verdict.ok and verdict.codes == {IssueCode.DUPLICATE_KEY}
    assert SAT.validate_json(TINY, json.dumps(tiny_answer())).ok


def test_solve_refuses_an_unsatisfiable_formula() -> None:
    with pytest.raises(ValueError, match="unsatisfiable"):
        SAT.solve({"num_vars": 1, "clauses": [[1], [-1]]})


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"num_vars": 2}, "num_vars"),
        ({"num_vars": 201}, "num_vars"),
        ({"num_vars": True}, "num_vars"),
        ({"num_vars": 5, "num_clauses": 0}, "num_clauses"),
        ({"num_vars": 5, "num_clauses": 8 * comb(5, 3) + 1}, "num_clauses"),
        ({"num_clauses": 2.5}, "num_clauses"),
        ({"num_vars": 3, "num_clauses": None}, "null means 13"),  # 13 clauses of 8 possible: it used to draw forever
    ],
)
def test_bad_params_raise_config_error(params: dict, field: str) -> None:
    with pytest.raises(ParamError, match=field):
        SAT.generate(params=params)


def test_params_with_no_satisfiable_formula_raise_config_error() -> None:
    with pytest.raises(ParamError, match="no satisfiable formula"):
        SAT.generate(params={"num_vars": 3, "num_clauses": 8})  # all 8 sign patterns: unsatisfiable


def test_default_clause_count_is_the_threshold() -> None:
    record = SAT.generate(params={"num_vars": 40, "num_clauses": None})
    assert len(record.instance["clauses"]) == 170 and SAT.validate(record.instance, SAT.solve(record.instance)).ok


def test_render_shows_every_clause() -> None:
    text = SAT.render(TINY)
    assert text.splitlines()[0].startswith("4 variables x1..x4, 3 clauses")
    assert "1: (¬x1 ∨ x2 ∨ ¬x3)" in text and text.splitlines()[3] == "2: (¬x1 ∨ x2)"


@settings(max_examples=300)
@given(answers_with_field("assignment"))
def test_arbitrary_json_never_raises(answer: object) -> None:
    verdict = SAT.validate(TINY, answer)
    assert verdict.ok == (not verdict.issues)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["1", "2", "3", "4", "0", "5", "01", "x2"]), st.booleans() | JSON_VALUES, max_size=8))
def test_near_valid_assignments_pass_only_when_every_clause_holds(assignment: dict) -> None:
    verdict = SAT.validate(TINY, {"assignment": assignment})
    well_formed = set(assignment) >= {"1", "2", "3"} and set(assignment) <= {"1", "2", "3", "4"}
    well_formed = well_formed and all(type(value) is bool for value in assignment.values())
    assert verdict.ok == (well_formed and not false_clauses(TINY["clauses"], assignment))
