"""Rubik's Cube: the facelet simulator against known vectors, hidden scrambles, strict tokens, mutations rejected."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import kociemba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError
from puzzles.rubik import MOVE_INDEX, MOVES, SOLVED, RubiksCube, apply_moves, canonical_next, inverse, shortest

from .strategies import JSON_VALUES, answers_with_field

RUBIK = RubiksCube()
ROOT = Path(__file__).resolve().parents[2]
ANSWER_SCHEMA = jsonschema.Draft202012Validator(RUBIK.answer_schema)
AFTER_R = "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB"
README_STATE = "DRLUUBFBRBLURRLRUBLRDDFDLFUFUFFDBRDUBRUFLLFDDBFLUBLRBD"
README_SOLUTION = "D2 R' D' F2 B D R2 D2 R' F2 D' F2 U' B2 L2 U2 D R2 U"
SUPERFLIP = "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2"


def turn(state: str, moves: str) -> str:
    return apply_moves(state, [MOVE_INDEX[token] for token in moves.split()])


def instance(state: str, target: str = SOLVED) -> dict:
    return {"state": state, "target": target, "scramble": None}


def test_solved_string_and_single_turn_vectors() -> None:
    assert SOLVED == "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
    assert turn(SOLVED, "R") == AFTER_R
    assert turn(SOLVED, "U") == "UUUUUUUUUBBBRRRRRRRRRFFFFFFDDDDDDDDDFFFLLLLLLLLLBBBBBB"
    assert turn(AFTER_R, "R'") == SOLVED


def test_kociemba_readme_vector_is_solved_by_our_simulator() -> None:
    verdict = RUBIK.validate(instance(README_STATE), {"moves": README_SOLUTION})
    assert verdict.ok and verdict.steps_applied == 19


def test_superflip_flips_every_edge_and_nothing_else() -> None:
    state = turn(SOLVED, SUPERFLIP)
    assert state == "UBULURUFURURFRBRDRFUFLFRFDFDFDLDRDBDLULBLFLDLBUBRBLBDB"
    corners_and_centres = [i for i in range(54) if i % 9 in (0, 2, 4, 6, 8)]
    assert all(state[i] == SOLVED[i] for i in corners_and_centres)
    assert all(state[i] != SOLVED[i] for i in range(54) if i % 9 in (1, 3, 5, 7))


@pytest.mark.parametrize("face", "URFDLB")
def test_each_face_turn_has_order_four(face: str) -> None:
    states = [SOLVED]
    for _ in range(4):
        states.append(turn(states[-1], face))
    assert states[4] == SOLVED and len(set(states[:4])) == 4
    assert turn(SOLVED, f"{face}2") == states[2] and turn(SOLVED, f"{face}'") == states[3]
    moved = sum(a != b for a, b in zip(SOLVED, states[1]))
    assert moved == 12  # a quarter turn of a solved cube recolours the 12 side stickers of its layer


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 17), max_size=30))
def test_sequence_then_inverse_is_identity(moves: list[int]) -> None:
    state = apply_moves(README_STATE, moves)
    assert apply_moves(state, inverse(moves)) == README_STATE


def test_htm_position_counts_by_depth() -> None:
    """Plain BFS over all 18 turns (no canonical pruning): 1, 18, 243, 3240 positions at depth 0..3."""
    seen, frontier, counts = {SOLVED}, [SOLVED], []
    for _ in range(3):
        frontier = [child for state in frontier for m in range(18) if (child := apply_moves(state, [m])) not in seen]
        frontier = list(dict.fromkeys(frontier))
        seen.update(frontier)
        counts.append(len(frontier))
    assert counts == [18, 243, 3240]
    for state in frontier[::97]:  # the meet-in-the-middle search finds every depth-3 state at exactly 3
        path = shortest(state, SOLVED, 2)
        assert path is not None and len(path) == 3 and apply_moves(state, path) == SOLVED


def test_canonical_scramble_counts() -> None:
    """η: no face twice in a row and no D→U, L→R, B→F; there are 18, 243, 3240, 43254 such sequences."""

    def count(length: int, previous: int | None) -> int:
        return 1 if length == 0 else sum(count(length - 1, m // 3) for m in canonical_next(previous))

    assert [count(n, None) for n in range(1, 5)] == [18, 243, 3240, 43254]


@pytest.mark.parametrize("level", range(1, 7))
def test_reference_answer_validates_and_meta_is_consistent(level: int) -> None:
    for seed in range(10):
        record = RUBIK.generate(level, seed)
        ell = record.meta["complexity"]["scramble_length"]
        band = RUBIK.levels[level]["scramble_length"]
        lo, hi = band if isinstance(band, tuple) else (band, band)
        assert lo <= ell <= hi and len(record.meta["scramble"].split()) == ell
        assert record.instance["scramble"] is None and record.instance["target"] == SOLVED
        assert turn(record.instance["target"], record.meta["scramble"]) == record.instance["state"]
        jsonschema.validate(record.instance, RUBIK.instance_schema)
        answer = RUBIK.solve(record.instance)
        jsonschema.validate(answer, RUBIK.answer_schema)
        verdict = RUBIK.validate(record.instance, answer)
        assert verdict.ok, (record.id, verdict)
        if ell <= 3:
            assert record.meta["min_solution_length"] == ell
        if ell <= 9:
            assert 1 <= record.meta["min_solution_length"] <= ell
        else:
            assert "min_solution_length" not in record.meta
        if level <= 4:  # the solver's meet-in-the-middle answer is optimal up to 6 moves
            assert len(answer["moves"].split()) == record.meta["min_solution_length"]


def test_scrambles_obey_the_canonical_rule() -> None:
    for seed in range(20):
        moves = [MOVE_INDEX[t] for t in RUBIK.generate(6, seed).meta["scramble"].split()]
        for previous, move in zip(moves, moves[1:]):
            assert move in canonical_next(previous // 3)
            assert move // 3 != previous // 3 and (previous // 3, move // 3) not in {(3, 0), (4, 1), (5, 2)}


def test_a_canonical_scramble_can_be_longer_than_the_optimum() -> None:
    record = RUBIK.generate(5, 53)
    assert record.meta["scramble"] == "F' B2 D2 B L2 D2 B2 U" and record.meta["min_solution_length"] == 7
    state = record.instance["state"]
    assert shortest(state, SOLVED, 3) is None  # nothing within 6 moves
    path = shortest(state, SOLVED, 4)
    assert path is not None and len(path) == 7 and apply_moves(state, path) == SOLVED


def test_revealed_scramble_is_in_the_instance_and_inverts() -> None:
    hidden = RUBIK.generate(params={"scramble_length": 8}, seed=3)
    shown = RUBIK.generate(params={"scramble_length": 8, "reveal_scramble": True}, seed=3)
    assert hidden.instance["scramble"] is None and len(hidden.meta["scramble"].split()) == 8
    assert shown.instance["scramble"] == shown.meta["scramble"]
    assert turn(SOLVED, shown.instance["scramble"]) == shown.instance["state"]
    undo = " ".join(MOVES[m] for m in inverse([MOVE_INDEX[t] for t in shown.meta["scramble"].split()]))
    assert RUBIK.validate(shown.instance, {"moves": undo}).ok
    assert "scramble: " + shown.meta["scramble"] in RUBIK.render(shown.instance)


def test_random_target_is_reached_not_the_solved_cube() -> None:
    record = RUBIK.generate(params={"scramble_length": 12, "random_target": True}, seed=5)
    target = record.instance["target"]
    assert target != SOLVED and turn(SOLVED, record.meta["target_scramble"]) == target
    answer = RUBIK.solve(record.instance)
    assert RUBIK.validate(record.instance, answer).ok
    assert not RUBIK.validate(instance(record.instance["state"]), answer).ok
    assert "target:" in RUBIK.render(record.instance)


def test_generation_is_identical_across_processes() -> None:
    code = "from puzzles.rubik import RubiksCube; r = RubiksCube().generate(5, 7); print(r.instance, r.meta)"
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": str(hash_seed)}).stdout
        for hash_seed in (1, 2)
    }
    record = RUBIK.generate(5, 7)
    assert outputs == {f"{record.instance} {record.meta}\n"}


def test_solved_instance_gets_the_empty_answer_unlike_kociemba() -> None:
    assert len(kociemba.solve(SOLVED).split()) == 13  # the quirk the solver works around
    assert RUBIK.solve(instance(SOLVED)) == {"moves": ""}
    for moves in ("", "   ", "\n", "R R'"):
        assert RUBIK.validate(instance(SOLVED), {"moves": moves}).ok


@pytest.mark.parametrize(
    "token",
    ["R3", "R2'", "R'2", "r", "u", "Rw", "Uw2", "M", "E", "S", "x", "y'", "z2", "R,", ",", "R’", "R`", "X", "R1", "R+", "2R",
     "'", "Ri", "R'U"],
)
def test_tokens_outside_the_18_face_turns(token: str) -> None:
    verdict = RUBIK.validate(instance(AFTER_R), {"moves": f"R2 {token} R"})
    assert verdict.codes == {IssueCode.UNKNOWN_TOKEN}
    assert verdict.first_illegal_step == 1 and verdict.steps_applied == 1 and verdict.issues[0].step == 1


@pytest.mark.parametrize(("moves", "step"), [("R,U", 0), ("R, U", 0), ("R\u00a0U", 0), ("R'\u2003U", 0), ("R' U\u3000", 1)])
def test_commas_and_unicode_spaces_do_not_separate(moves: str, step: int) -> None:
    verdict = RUBIK.validate(instance(AFTER_R), {"moves": moves})
    assert verdict.codes == {IssueCode.UNKNOWN_TOKEN} and verdict.first_illegal_step == step


def test_ascii_whitespace_runs_separate_tokens() -> None:
    state = turn(SOLVED, "F U' R")
    for moves in ("R' U F'", "  R'   U\tF'\n", "\r\nR'\n\nU\t\tF' "):
        verdict = RUBIK.validate(instance(state), {"moves": moves})
        assert verdict.ok and verdict.steps_applied == 3


def test_wrong_final_state_counts_differing_facelets() -> None:
    verdict = RUBIK.validate(instance(AFTER_R), {"moves": "R"})  # R R = R2 ≠ solved
    assert verdict.codes == {IssueCode.GOAL_NOT_REACHED} and verdict.steps_applied == 1
    assert "12 of 54 facelets" in verdict.issues[0].message
    empty = RUBIK.validate(instance(AFTER_R), {"moves": "  "})
    assert empty.codes == {IssueCode.GOAL_NOT_REACHED} and empty.steps_applied == 0
    assert empty.issues[0].message == "12 of 54 facelets differ from the target after 0 moves"


@pytest.mark.parametrize(
    "answer", [None, [], "R'", 3, True, {"move": "R'"}, {"moves": ["R'"]}, {"moves": None}, {"moves": 1}, {"moves": {"R": 1}}]
)
def test_malformed_answers(answer: object) -> None:
    assert RUBIK.validate(instance(AFTER_R), answer).codes == {IssueCode.MALFORMED}


def test_extra_field_is_reported_with_a_correct_solution() -> None:
    verdict = RUBIK.validate(instance(AFTER_R), {"moves": "R'", "explanation": "undo R"})
    assert verdict.codes == {IssueCode.EXTRA} and verdict.steps_applied == 1


def test_duplicate_keys_are_caught() -> None:
    verdict = RUBIK.validate_json(instance(AFTER_R), '{"moves": "R", "moves": "R\'"}')
    assert IssueCode.DUPLICATE_KEY in verdict.codes and not verdict.ok


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ({"state": SOLVED[:53]}, "54 facelets"),
        ({"state": SOLVED + "U"}, "54 facelets"),
        ({"state": 54}, "54 facelets"),
        ({"target": None}, "54 facelets"),
        ({"state": "W" + SOLVED[1:]}, "outside URFDLB: W"),
        ({"state": "R" + SOLVED[1:]}, "9 facelets of each"),
        ({"target": "UUUURUUUU" + "RRRRURRRR" + SOLVED[18:]}, "centres read RUFDLB"),
        ({"state": SOLVED.lower()}, "outside URFDLB"),
    ],
)
def test_broken_instances_fail_without_crashing(bad: dict, reason: str) -> None:
    verdict = RUBIK.validate({**instance(AFTER_R), **bad}, {"moves": "R'"})
    assert verdict.codes == {IssueCode.MALFORMED} and reason in verdict.issues[0].message


@pytest.mark.parametrize("broken", [{"target": SOLVED}, {}, [], None, "state"])
def test_instances_that_are_not_cube_pairs_fail_without_crashing(broken: object) -> None:
    verdict = RUBIK.validate(broken, {"moves": ""})  # type: ignore[arg-type]
    assert verdict.codes == {IssueCode.MALFORMED} and verdict.issues[0].message.startswith("invalid instance")


@pytest.mark.parametrize("mutation", ["drop", "duplicate", "swap", "suffix", "other_face", "lowercase"])
@pytest.mark.parametrize("level", [3, 5, 6])
def test_mutated_reference_is_rejected(level: int, mutation: str) -> None:
    record = RUBIK.generate(level, 1)
    tokens = RUBIK.solve(record.instance)["moves"].split()
    axis = ["URFDLB".index(token[0]) % 3 for token in tokens]
    i = next(j for j in range(len(tokens) - 1) if axis[j] != axis[j + 1])
    if mutation == "drop":
        tokens = tokens[:i] + tokens[i + 1 :]
    elif mutation == "duplicate":
        tokens = tokens[:i] + [tokens[i]] + tokens[i:]
    elif mutation == "swap":  # adjacent turns on different axes never commute
        tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
    elif mutation == "suffix":
        tokens[i] = tokens[i][0] + {"": "2", "2": "'", "'": ""}[tokens[i][1:]]
    elif mutation == "other_face":
        tokens[i] = "URFDLB"["URFDLB".index(tokens[i][0]) - 1] + tokens[i][1:]
    else:
        tokens[i] = tokens[i].lower()
    verdict = RUBIK.validate(record.instance, {"moves": " ".join(tokens)})
    expected = IssueCode.UNKNOWN_TOKEN if mutation == "lowercase" else IssueCode.GOAL_NOT_REACHED
    assert verdict.codes == {expected}
    assert verdict.steps_applied == (i if mutation == "lowercase" else len(tokens))


def test_render_draws_the_net() -> None:
    assert RUBIK.render(instance(AFTER_R)).splitlines() == [
        "       U U F",
        "       U U F",
        "       U U F",
        "L L L  F F D  R R R  U B B",
        "L L L  F F D  R R R  U B B",
        "L L L  F F D  R R R  U B B",
        "       D D B",
        "       D D B",
        "       D D B",
        "target: the solved cube",
    ]


@pytest.mark.parametrize("params", [{"scramble_length": 0}, {"scramble_length": 101}, {"scramble_length": True},
                                    {"scramble_length": 2.0}, {"reveal_scramble": 1}, {"seed": 1}])
def test_bad_params_raise(params: dict) -> None:
    with pytest.raises(ParamError):
        RUBIK.generate(params=params)


@settings(max_examples=300, deadline=None)
@given(answers_with_field("moves"))
def test_arbitrary_json_answers_never_raise(answer: object) -> None:
    verdict = RUBIK.validate(instance(AFTER_R), answer)
    assert verdict.ok == (not verdict.issues)
    assert not verdict.ok


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*MOVES, "R3", "r", "x", "M", "R'2", "’", ",", " ", "\t", "\n", "\u00a0"]), max_size=25))
def test_near_valid_move_strings_never_raise(pieces: list[str]) -> None:
    moves = " ".join(pieces)
    verdict = RUBIK.validate(instance(AFTER_R), {"moves": moves})
    tokens = re.findall(r"[^ \t\n\r]+", moves)
    bad = [i for i, token in enumerate(tokens) if token not in MOVE_INDEX]
    assert ANSWER_SCHEMA.is_valid({"moves": moves}) == (not bad)  # the schema's pattern declares the same policy
    if bad:
        assert verdict.codes == {IssueCode.UNKNOWN_TOKEN} and verdict.first_illegal_step == bad[0] == verdict.steps_applied
    else:
        assert verdict.ok == (turn(AFTER_R, moves) == SOLVED) and verdict.steps_applied == len(tokens)
        assert verdict.ok or verdict.codes == {IssueCode.GOAL_NOT_REACHED}


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_arbitrary_instances_never_raise(value: object) -> None:
    verdict = RUBIK.validate({"state": value, "target": SOLVED, "scramble": None}, {"moves": "R"})
    assert not verdict.ok and verdict.codes == {IssueCode.MALFORMED}
    json.dumps(verdict.to_json())
