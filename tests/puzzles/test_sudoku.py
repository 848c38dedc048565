"""Sudoku: unique puzzles on every level, literature grids solved, the strict validator's rejections."""

from __future__ import annotations

import copy
import itertools

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError
from puzzles.sudoku import Sudoku, _box_regions, _Search, _units, solution_count

from .strategies import JSON_VALUES, SCALARS, answers_with_field

SUDOKU = Sudoku()
ESCARGOT = "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3.."
ESCARGOT_SOLUTION = "162857493534129678789643521475312986913586742628794135356478219241935867897261354"
INKALA = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
INKALA_SOLUTION = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"
WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
WIKIPEDIA_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
GIVENS = {1: (6, 8), 2: (16, 20), 3: (36, 45), 4: (28, 32), 5: (23, 26), 6: (16, 19)}


def box9(text: str) -> dict:
    cells = [0 if ch == "." else int(ch) for ch in text]
    return {"size": 9, "box": [3, 3], "regions": None, "grid": [cells[r * 9 : r * 9 + 9] for r in range(9)]}


def rows(text: str) -> list[list[int]]:
    return box9(text)["grid"]


def search(instance: dict) -> tuple[int, int]:
    """(solutions up to 2, branch nodes) from the independent bitmask search, not the SAT encoding."""
    n = instance["size"]
    regions = instance["regions"] or _box_regions(n, instance["box"][0])
    engine = _Search(n, _units(n, regions))
    count = engine.count(engine.start([v for row in instance["grid"] for v in row]))
    return count, engine.nodes


@pytest.fixture(scope="module")
def records() -> dict[tuple[int, int], object]:
    return {(level, seed): SUDOKU.generate(level, seed) for level in range(1, 7) for seed in range(10)}


@pytest.mark.parametrize("level", range(1, 7))
def test_every_level_is_unique_in_band_and_solved(records: dict, level: int) -> None:
    for seed in range(10):
        record = records[level, seed]
        inst, meta = record.instance, record.meta
        n = inst["size"]
        givens = sum(v != 0 for row in inst["grid"] for v in row)
        assert GIVENS[level][0] <= givens <= GIVENS[level][1]
        assert meta["complexity"]["givens"] == givens and meta["complexity"]["q"] == n * n - givens
        assert solution_count(inst, limit=3) == 1
        assert search(inst) == (1, meta["complexity"]["tau"])
        answer = SUDOKU.solve(inst)
        assert SUDOKU.validate(inst, answer).ok
        jsonschema.Draft202012Validator(SUDOKU.instance_schema).validate(inst)
        jsonschema.Draft202012Validator(SUDOKU.answer_schema).validate(answer)


def test_level_shapes_and_logic(records: dict) -> None:
    shapes = {level: (records[level, 0].instance["size"], records[level, 0].instance["box"]) for level in range(1, 7)}
    assert shapes == {1: (4, [2, 2]), 2: (6, [2, 3]), 3: (9, [3, 3]), 4: (9, [3, 3]), 5: (9, [3, 3]), 6: (9, None)}
    for seed in range(10):
        assert records[1, seed].meta["singles_solvable"] and records[1, seed].meta["complexity"]["tau"] == 0
        for level in range(2, 7):  # beyond singles from the first level whose grid allows it, τ at least the level's target
            meta = records[level, seed].meta
            assert not meta["singles_solvable"] and meta["complexity"]["tau"] >= SUDOKU.levels[level]["tau_target"] > 0


def test_lambda_rises_with_level(records: dict) -> None:
    def mean(level: int, key: str) -> float:
        return sum(records[level, s].meta["complexity"][key] for s in range(10)) / 10

    assert [mean(level, "q") for level in range(1, 7)] == sorted(mean(level, "q") for level in range(1, 7))
    assert mean(3, "delta") < mean(4, "delta") < mean(5, "delta") < mean(6, "delta")
    taus = [mean(level, "tau") for level in range(1, 7)]
    assert taus == sorted(set(taus))  # strictly rising: every level needs more search than the one below


def test_jigsaw_regions_are_connected_partitions(records: dict) -> None:
    for seed in range(10):
        regions = records[6, seed].instance["regions"]
        assert regions != _box_regions(9, 3)
        for rid in range(9):
            cells = {(r, c) for r in range(9) for c in range(9) if regions[r][c] == rid}
            assert len(cells) == 9
            seen, stack = {min(cells)}, [min(cells)]
            while stack:
                r, c = stack.pop()
                for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if nb in cells and nb not in seen:
                        seen.add(nb)
                        stack.append(nb)
            assert seen == cells


def test_generation_is_deterministic() -> None:
    assert SUDOKU.generate(6, 3) == SUDOKU.generate(6, 3)
    assert SUDOKU.generate(4, 1).instance != SUDOKU.generate(4, 2).instance


@pytest.mark.parametrize(
    ("puzzle", "solution", "nodes"),
    [(ESCARGOT, ESCARGOT_SOLUTION, 71), (INKALA, INKALA_SOLUTION, 160), (WIKIPEDIA, WIKIPEDIA_SOLUTION, 0)],
)
def test_literature_puzzles_are_unique_and_solved(puzzle: str, solution: str, nodes: int) -> None:
    instance = box9(puzzle)
    answer = SUDOKU.solve(instance)
    assert answer == {"grid": rows(solution)}
    assert SUDOKU.validate(instance, answer).ok
    assert solution_count(instance) == 1 and search(instance) == (1, nodes)


def test_known_solved_grid_passes_as_its_own_puzzle() -> None:
    instance = box9(WIKIPEDIA_SOLUTION)
    assert SUDOKU.validate(instance, {"grid": rows(WIKIPEDIA_SOLUTION)}).ok
    assert solution_count(instance) == 1


def test_uniqueness_checker_sees_multiple_and_no_solutions() -> None:
    grid = rows(WIKIPEDIA_SOLUTION)  # blank a "deadly rectangle" a b / b a spanning two boxes of one band
    band_rows = [(a, b) for a in range(9) for b in range(a + 1, a // 3 * 3 + 3)]  # two rows of one band
    box_cols = [(a, b) for a in range(9) for b in range(a // 3 * 3 + 3, 9)]  # two columns of different boxes
    rectangles = [(r1, r2, c1, c2) for (r1, r2), (c1, c2) in itertools.product(band_rows, box_cols)]
    r1, r2, c1, c2 = next(x for x in rectangles if grid[x[0]][x[2]] == grid[x[1]][x[3]] and grid[x[0]][x[3]] == grid[x[1]][x[2]])
    for r, c in ((r1, c1), (r1, c2), (r2, c1), (r2, c2)):
        grid[r][c] = 0
    deadly = {"size": 9, "box": [3, 3], "regions": None, "grid": grid}
    assert solution_count(deadly, limit=5) == 2 and search(deadly)[0] == 2
    assert solution_count(box9("." * 81)) == 2
    contradiction = box9("55" + "." * 79)
    assert solution_count(contradiction) == 0 and search(contradiction)[0] == 0


def reference(level: int = 4, seed: int = 0) -> tuple[dict, dict]:
    instance = SUDOKU.generate(level, seed).instance
    return instance, SUDOKU.solve(instance)


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (None, IssueCode.MALFORMED),
        ([], IssueCode.MALFORMED),
        (ESCARGOT_SOLUTION, IssueCode.MALFORMED),  # the paper's 81-char string is not our answer shape
        ({}, IssueCode.MALFORMED),
        ({"grid": "1234"}, IssueCode.MALFORMED),
        ({"Grid": []}, IssueCode.MALFORMED),
    ],
)
def test_answer_shape_rejections(answer: object, code: IssueCode) -> None:
    instance, _ = reference()
    assert SUDOKU.validate(instance, answer).codes == {code}


@pytest.mark.parametrize(
    ("mutate", "count"),
    [
        (lambda g: g.pop(), 1),  # 8 rows
        (lambda g: g.append(list(g[0])), 1),  # 10 rows
        (lambda g: g[3].pop(), 1),  # ragged row
        (lambda g: g[3].append(10), 1),  # Enigmata's hole: a 10th entry
        (lambda g: (g[1].pop(), g[7].append(1)), 2),  # every bad row is reported
        (lambda g: g.__setitem__(2, "123456789"), 1),
    ],
)
def test_grid_shape_rejections(mutate, count: int) -> None:
    instance, answer = reference()
    mutate(answer["grid"])
    verdict = SUDOKU.validate(instance, answer)
    assert verdict.codes == {IssueCode.MALFORMED} and len(verdict.issues) == count


@pytest.mark.parametrize("value", [True, 5.0, "5", None, 0, 10, -1, [5]])
def test_bad_values(value: object) -> None:
    instance, answer = reference()
    blank = next((r, c) for r in range(9) for c in range(9) if instance["grid"][r][c] == 0)
    answer["grid"][blank[0]][blank[1]] = value
    verdict = SUDOKU.validate(instance, answer)
    assert verdict.codes == {IssueCode.BAD_VALUE} and len(verdict.issues) == 1


def test_every_bad_cell_is_reported() -> None:
    instance, _ = reference(1, 0)
    verdict = SUDOKU.validate(instance, {"grid": [["x"] * 4 for _ in range(4)]})
    assert verdict.codes == {IssueCode.BAD_VALUE} and len(verdict.issues) == 16


def test_each_altered_given_is_reported() -> None:
    instance, answer = reference()
    cells = [(r, c) for r in range(9) for c in range(9) if instance["grid"][r][c]][:2]
    for r, c in cells:
        answer["grid"][r][c] = answer["grid"][r][c] % 9 + 1
    verdict = SUDOKU.validate(instance, answer)
    assert [i.code for i in verdict.issues if i.code == IssueCode.GIVEN_ALTERED] == [IssueCode.GIVEN_ALTERED] * 2
    assert verdict.codes == {IssueCode.GIVEN_ALTERED, IssueCode.CONFLICT}


def test_another_valid_grid_must_alter_givens() -> None:
    """Relabelling digits keeps every rule but, the puzzle being unique, changes clues: rules, not equality."""
    instance, answer = reference()
    swapped = {"grid": [[{1: 2, 2: 1}.get(v, v) for v in row] for row in answer["grid"]]}
    changed = sum(v in (1, 2) for row in instance["grid"] for v in row)
    verdict = SUDOKU.validate(instance, swapped)
    assert verdict.codes == {IssueCode.GIVEN_ALTERED} and len(verdict.issues) == changed


def test_a_changed_blank_conflicts_in_row_column_and_box() -> None:
    instance, answer = reference()
    r, c = next((r, c) for r in range(9) for c in range(9) if instance["grid"][r][c] == 0)
    digit = answer["grid"][r][c] % 9 + 1
    answer["grid"][r][c] = digit
    messages = [i.message for i in SUDOKU.validate(instance, answer).issues]
    assert messages == [f"row {r} repeats {digit}", f"column {c} repeats {digit}", f"box {r // 3 * 3 + c // 3} repeats {digit}"]


def test_swapped_blanks_and_jigsaw_regions_conflict() -> None:
    instance, answer = reference(6, 1)
    grid = answer["grid"]
    givens, regions = instance["grid"], instance["regions"]
    triples = [(r, a, b) for r in range(9) for a in range(9) for b in range(a + 1, 9)]
    r, c1, c2 = next((r, a, b) for r, a, b in triples if givens[r][a] == givens[r][b] == 0 and regions[r][a] != regions[r][b])
    grid[r][c1], grid[r][c2] = grid[r][c2], grid[r][c1]
    verdict = SUDOKU.validate(instance, answer)
    assert verdict.codes == {IssueCode.CONFLICT}
    assert any(i.message.startswith("region ") for i in verdict.issues) and not any("row" in i.message for i in verdict.issues)


def test_extra_fields_and_duplicate_keys() -> None:
    instance, answer = reference(1, 0)
    assert SUDOKU.validate(instance, {**answer, "note": "done"}).codes == {IssueCode.EXTRA}
    text = '{"grid": %s, "grid": %s}' % (answer["grid"], answer["grid"])
    assert SUDOKU.validate_json(instance, text).codes == {IssueCode.DUPLICATE_KEY}
    assert SUDOKU.validate_json(instance, '{"grid": [[1, 2]').codes == {IssueCode.INVALID_JSON}


@pytest.mark.parametrize(
    "change",
    [
        {"box": [3, 2]},  # rows·cols ≠ N
        {"box": None},  # neither boxes nor regions
        {"regions": [[0] * 9 for _ in range(9)]},  # both, and one region of 81 cells
        {"size": 10},
        {"grid": [[0] * 9] * 8},
    ],
)
def test_malformed_instances_give_a_verdict(change: dict) -> None:
    instance, answer = reference()
    verdict = SUDOKU.validate({**instance, **change}, answer)
    assert verdict.codes == {IssueCode.MALFORMED} and verdict.issues[0].message.startswith("instance is malformed")
    assert SUDOKU.validate(None, answer).codes == {IssueCode.MALFORMED}  # type: ignore[arg-type]


def test_other_shapes_by_params() -> None:
    shapes = [{"size": 8, "box_rows": 4, "givens": 30}, {"size": 12, "box_rows": 3, "givens": 80}]
    for params in shapes + [{"size": 6, "box_rows": 3, "jigsaw": True, "givens": 14}]:
        record = SUDOKU.generate(params=params, seed=1)
        assert solution_count(record.instance) == 1
        assert SUDOKU.validate(record.instance, SUDOKU.solve(record.instance)).ok


def test_render_draws_boxes_and_blanks() -> None:
    picture = SUDOKU.render(SUDOKU.generate(1, 0).instance)
    assert picture.splitlines() == [
        "+-------+-------+",
        "| 3   4 | 2   . |",
        "| 1   . | .   . |",
        "+-------+-------+",
        "| 4   . | .   . |",
        "| .   . | 3   . |",
        "+-------+-------+",
    ]
    jigsaw = SUDOKU.render(SUDOKU.generate(6, 0).instance).splitlines()
    assert sum(line.startswith("|") and "." in line for line in jigsaw) == 9


@pytest.mark.parametrize(
    "params",
    [
        {"size": 3},
        {"size": 17},
        {"size": 9, "box_rows": 2},
        {"size": 9, "box_rows": 1},
        {"size": 9, "givens": 81},
        {"size": 9, "givens": 0},
        {"logic": "hard"},
        {"size": 9.0},
        {"jigsaw": 1},
        {"colour": 1},
        {"size": 4, "box_rows": 2, "givens": 2},  # below the 4×4 minimum of 4 clues: unreachable
    ],
)
def test_bad_params_raise(params: dict) -> None:
    with pytest.raises(ParamError):
        SUDOKU.generate(params=params, seed=0)


@settings(max_examples=300, deadline=None)
@given(answers_with_field("grid"))
def test_validate_never_raises_on_arbitrary_json(answer: object) -> None:
    instance, _ = reference(1, 0)
    verdict = SUDOKU.validate(instance, answer)
    assert verdict.ok == (not verdict.issues) and not verdict.ok


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), SCALARS | JSON_VALUES), max_size=4), st.booleans())
def test_near_valid_answers_never_raise(edits: list, drop_row: bool) -> None:
    instance, answer = reference(1, 0)
    grid = copy.deepcopy(answer["grid"])
    for r, c, value in edits:
        grid[r][c] = value
    if drop_row:
        grid.pop()
    verdict = SUDOKU.validate(instance, {"grid": grid})
    assert verdict.ok == (not verdict.issues)
    all_ints = all(type(v) is int for row in grid for v in row)
    assert verdict.ok == (all_ints and grid == answer["grid"])  # unique puzzle: the only valid grid
