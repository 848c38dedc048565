"""The contract every registered puzzle keeps, checked for all of them at once."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from puzzles import LEVELS, PUZZLES, IssueCode, ParamError, Puzzle, UnknownPuzzleError, get_puzzle, puzzle_names
from puzzles._protocol import first_reaching

from .strategies import JSON_VALUES, answers_with_field

SEEDS = range(3)


def _schema_ok(schema: dict, value: object) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def test_names_are_unique_snake_case_and_lookup_fails_clearly() -> None:
    assert len(set(puzzle_names())) == len(PUZZLES) == 9
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name in puzzle_names())
    with pytest.raises(UnknownPuzzleError, match="known puzzles: hanoi"):
        get_puzzle("towers")


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_schemas_are_valid_json_schemas(puzzle: Puzzle) -> None:
    jsonschema.Draft202012Validator.check_schema(puzzle.instance_schema)
    jsonschema.Draft202012Validator.check_schema(puzzle.answer_schema)
    assert set(puzzle.levels) == set(LEVELS)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_reference_answer_passes_on_every_level(puzzle: Puzzle, level: int) -> None:
    for seed in SEEDS:
        record = puzzle.generate(level, seed)
        assert record.id == f"{puzzle.name}/L{level}/s{seed}"
        assert record.to_json() == puzzle.generate(level, seed).to_json()
        assert json.loads(json.dumps(record.to_json())) == record.to_json()
        assert _schema_ok(puzzle.instance_schema, record.instance)
        assert isinstance(record.meta["complexity"], dict) and record.meta["version"] == puzzle.version
        answer = puzzle.solve(record.instance)
        assert _schema_ok(puzzle.answer_schema, answer)
        verdict = puzzle.validate(record.instance, answer)
        assert verdict.ok, verdict.issues
        assert puzzle.validate_json(record.instance, json.dumps(answer)).ok


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_explicit_params_reproduce_a_level_instance(puzzle: Puzzle) -> None:
    record = puzzle.generate(3, 5)
    again = puzzle.generate(params=record.params, seed=5)
    assert again.params == record.params and again.level is None
    assert again.id.startswith(f"{puzzle.name}/p") and again.to_json() == puzzle.generate(params=record.params, seed=5).to_json()
    assert puzzle.validate(again.instance, puzzle.solve(again.instance)).ok


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_bad_levels_seeds_and_params_raise_config_error(puzzle: Puzzle) -> None:
    for level in (0, 7, True, "3"):
        with pytest.raises(ParamError, match="level"):
            puzzle.generate(level, 0)  # type: ignore[arg-type]
    with pytest.raises(ParamError, match="seed"):
        puzzle.generate(1, -1)
    with pytest.raises(ParamError, match="no_such_param"):
        puzzle.generate(params={"no_such_param": 1})
    with pytest.raises(ParamError, match="give a level"):
        puzzle.generate()
    with pytest.raises(ParamError, match="cannot be combined with a level"):
        puzzle.generate(1, 0, params={"no_such_param": 1})
    assert puzzle.generate(1, 0, params={}) == puzzle.generate(1, 0)
    field = next(iter(puzzle.generate(1, 0).params))
    with pytest.raises(ParamError, match=field):
        puzzle.generate(params={field: [1, 2]})


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_validator_is_total_and_no_looser_than_the_schema(puzzle: Puzzle) -> None:
    instance = puzzle.generate(2, 0).instance
    field = next(iter(puzzle.answer_schema["required"]))

    @settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(answers_with_field(field))
    def check(answer: object) -> None:
        verdict = puzzle.validate(instance, answer)
        assert verdict.ok == (not verdict.issues)
        if not _schema_ok(puzzle.answer_schema, answer):
            assert not verdict.ok, f"schema rejects {answer!r} but the validator accepts it"

    check()


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_garbage_text_is_a_verdict_not_a_crash(puzzle: Puzzle) -> None:
    instance = puzzle.generate(1, 0).instance
    for text in ("", "{", "NaN", "[1, 2", '{"a": Infinity}', "\udcff"):
        verdict = puzzle.validate_json(instance, text)
        assert verdict.codes == {IssueCode.INVALID_JSON}


@given(JSON_VALUES)
def test_arbitrary_json_never_raises_for_any_puzzle(answer: object) -> None:
    for puzzle in PUZZLES:
        puzzle.validate(puzzle.generate(1, 0).instance, answer)


def test_levels_a_seed_makes_easier_are_named_with_a_reason() -> None:
    easier = {puzzle.name: dict(puzzle.easier_levels) for puzzle in PUZZLES if puzzle.easier_levels}
    assert easier == {"river": {3: "the seed's level 3 boat holds 3 (level 2: 2)", 5: "the seed's level 5 boat holds 4 (level 4: 3)"}}
    river = get_puzzle("river")
    for level in easier["river"]:  # the reason is the seed's level definition: a bigger boat than the level below
        assert river.levels[level]["capacity"] > river.levels[level - 1]["capacity"]


def test_first_reaching_keeps_the_first_to_reach_the_target_else_the_hardest() -> None:
    drawn = [(3, "a"), (9, "b"), (12, "c"), (20, "d")]
    assert first_reaching(iter(drawn), 10, tries=4) == (3, 12, "c")  # stops at the first to reach it
    assert first_reaching(iter(drawn), 10, tries=2) == (2, 9, "b")  # the hardest of the tries
    assert first_reaching(iter([(5, "x"), (5, "y")]), 8, tries=5) == (2, 5, "x")  # the earliest of equals
    assert first_reaching(iter(drawn), 0, tries=4) == (1, 3, "a")
    with pytest.raises(ValueError, match="no candidate"):
        first_reaching(iter([]), 1, tries=3)
