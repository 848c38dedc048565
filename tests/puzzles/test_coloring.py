"""Graph colouring: planted graphs that need exactly k colours, strict colourings, mutations rejected."""

from __future__ import annotations

import json
import statistics
from collections import deque

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError
from puzzles.coloring import SOLVE_CONFLICTS, TRIES, GraphColoring, colour_search, find_coloring

from .strategies import JSON_VALUES, answers_with_field

COLORING = GraphColoring()
SEEDS = range(10)
SQUARE = {"num_nodes": 5, "edges": [[0, 1], [0, 3], [1, 2], [2, 3], [3, 4]], "num_colors": 3}  # a 4-cycle plus a leaf


def is_bipartite(n: int, edges: list[list[int]]) -> bool:
    """Breadth-first 2-colouring: an independent check that a graph needs 3 colours."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    side: dict[int, int] = {}
    for start in range(n):
        if start in side:
            continue
        side[start] = 0
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in neighbours[u]:
                if v not in side:
                    side[v] = 1 - side[u]
                    queue.append(v)
                elif side[v] == side[u]:
                    return False
    return True


def conflicts(edges: list[list[int]], coloring: dict[str, int]) -> list[list[int]]:
    return [[u, v] for u, v in edges if coloring[str(u)] == coloring[str(v)]]


def test_bipartite_check_on_known_graphs() -> None:
    assert is_bipartite(4, [[0, 1], [1, 2], [2, 3], [0, 3]])
    assert not is_bipartite(3, [[0, 1], [1, 2], [0, 2]])
    assert not is_bipartite(5, [[0, 1], [1, 2], [2, 3], [3, 4], [0, 4]])


@pytest.mark.parametrize("level", range(1, 7))
def test_reference_answer_validates_and_graphs_need_exactly_three_colours(level: int) -> None:
    for seed in SEEDS:
        record = COLORING.generate(level, seed)
        n, edges, k = record.instance["num_nodes"], record.instance["edges"], record.instance["num_colors"]
        assert jsonschema.Draft202012Validator(COLORING.instance_schema).is_valid(record.instance)
        assert edges == sorted(edges) and all(0 <= u < v < n for u, v in edges)
        assert len({tuple(edge) for edge in edges}) == len(edges) == record.meta["complexity"]["m"]
        assert {node for edge in edges for node in edge} == set(range(n))  # no isolated node
        assert k == 3 == record.meta["chromatic_number"] and not is_bipartite(n, edges)
        answer = COLORING.solve(record.instance)
        assert jsonschema.Draft202012Validator(COLORING.answer_schema).is_valid(answer)
        assert COLORING.validate(record.instance, answer).ok
        assert sorted(answer["coloring"]) == sorted(map(str, range(n))) and not conflicts(edges, answer["coloring"])


def test_levels_follow_the_flat_graph_ladder() -> None:
    for seed in SEEDS:
        complexities = [COLORING.generate(level, seed).meta["complexity"] for level in range(1, 7)]
        assert complexities[0]["n"] == 6 and 6 <= complexities[0]["m"] <= 8
        assert [(c["n"], c["m"]) for c in complexities[1:5]] == [(10, 15), (20, 40), (30, 60), (50, 115)]
        n = complexities[5]["n"]
        assert 75 <= n <= 100 and complexities[5]["m"] == round(2.4 * n)
        assert complexities[5]["avg_degree"] == round(2 * complexities[5]["m"] / n, 3)
        assert [c["n"] for c in complexities] == sorted(c["n"] for c in complexities)


def test_colourings_need_search_from_level_2_and_more_at_every_level() -> None:
    """The reference SAT search decides from level 2 on (six nodes never need it) and its mean rises level by level."""
    means = []
    for level in range(1, 7):
        nodes = []
        for seed in SEEDS:
            record = COLORING.generate(level, seed)
            instance, meta = record.instance, record.meta
            assert meta["search_nodes"] == colour_search(instance["num_nodes"], instance["edges"], 3, SOLVE_CONFLICTS)[1]
            assert meta["search_nodes"] >= COLORING.levels[level].get("search_target", 0) or meta["tries"] == TRIES
            nodes.append(meta["search_nodes"])
        means.append(statistics.fmean(nodes))
    assert means[0] == 0 < means[1] and means == sorted(set(means))


def test_golden_instance() -> None:
    record = COLORING.generate(1, 0)
    edges = [[0, 1], [0, 3], [0, 5], [1, 2], [1, 3], [1, 5], [2, 4], [2, 5]]  # triangles 0-1-3, 0-1-5, 1-2-5
    assert record.instance == {"num_nodes": 6, "edges": edges, "num_colors": 3}


def test_four_colour_graphs_need_four() -> None:
    record = COLORING.generate(params={"num_nodes": 30, "num_edges": 130, "num_colors": 4}, seed=2)
    instance = record.instance
    assert find_coloring(30, instance["edges"], 3) is None and record.meta["chromatic_number"] == 4
    assert COLORING.validate(instance, COLORING.solve(instance)).ok


def test_recolouring_each_node_is_judged_by_its_monochromatic_edges() -> None:
    instance = COLORING.generate(3, 4).instance
    reference = COLORING.solve(instance)["coloring"]
    for node in range(20):
        for colour in {1, 2, 3} - {reference[str(node)]}:
            coloring = {**reference, str(node): colour}
            expected = conflicts(instance["edges"], coloring)
            verdict = COLORING.validate(instance, {"coloring": coloring})
            assert verdict.ok == (not expected)
            assert [issue.message.split(" joins")[0] for issue in verdict.issues] == [f"edge [{u}, {v}]" for u, v in expected]
            assert verdict.codes <= {IssueCode.CONFLICT}


def test_one_colour_everywhere_reports_every_edge() -> None:
    instance = COLORING.generate(5, 0).instance
    verdict = COLORING.validate(instance, {"coloring": {str(v): 2 for v in range(50)}})
    assert [issue.code for issue in verdict.issues] == [IssueCode.CONFLICT] * 100 + [IssueCode.TOO_MANY_ISSUES]
    assert verdict.issues[-1].message == "15 more issues not listed"


@pytest.mark.parametrize(
    "answer", [None, [], "0:1", 3, {}, {"colouring": {}}, {"coloring": [1, 2, 1, 2, 1]}, {"coloring": "1 2 1 2 1"}]
)
def test_wrong_shapes_are_malformed(answer: object) -> None:
    assert COLORING.validate(SQUARE, answer).codes == {IssueCode.MALFORMED}


def square_answer(**changes: object) -> dict:
    """A valid colouring of SQUARE, with `n3=value` style changes."""
    coloring = {"0": 1, "1": 2, "2": 1, "3": 2, "4": 3}
    return {"coloring": {**coloring, **{key.removeprefix("n"): value for key, value in changes.items()}}}


def test_valid_colourings_pass_even_without_using_every_colour() -> None:
    assert COLORING.validate(SQUARE, square_answer()).ok
    assert COLORING.validate(SQUARE, square_answer(n4=1)).ok


def test_missing_nodes_are_listed_in_one_issue() -> None:
    coloring = {key: value for key, value in square_answer()["coloring"].items() if key not in ("1", "4")}
    verdict = COLORING.validate(SQUARE, {"coloring": coloring})
    assert verdict.codes == {IssueCode.MISSING} and verdict.issues[0].message == "nodes 1, 4 have no colour"


@pytest.mark.parametrize("key", ["5", "6", "100", "9" * 5000])
def test_nodes_outside_the_graph_are_extra(key: str) -> None:
    verdict = COLORING.validate(SQUARE, {"coloring": {**square_answer()["coloring"], key: 1}})
    assert verdict.codes == {IssueCode.EXTRA} and len(verdict.issues) == 1


@pytest.mark.parametrize("key", ["00", " 0", "0 ", "a", "-0", "+0", "0.0", "", "٠", "v0"])
def test_other_key_styles_are_unknown_tokens(key: str) -> None:
    coloring = {k: v for k, v in square_answer()["coloring"].items() if k != "0"}
    verdict = COLORING.validate(SQUARE, {"coloring": {key: 1, **coloring}})
    assert verdict.codes == {IssueCode.UNKNOWN_TOKEN, IssueCode.MISSING}


def test_python_int_keys_are_unknown_tokens() -> None:
    verdict = COLORING.validate(SQUARE, {"coloring": {v: c for v, c in enumerate([1, 2, 1, 2, 3])}})
    assert verdict.codes == {IssueCode.UNKNOWN_TOKEN, IssueCode.MISSING} and len(verdict.issues) == 6


@pytest.mark.parametrize("value", [0, 4, -1, True, False, 1.0, 2.5, "1", None, [1]])
def test_colours_outside_the_palette_are_bad_values(value: object) -> None:
    verdict = COLORING.validate(SQUARE, square_answer(n4=value))
    assert verdict.codes == {IssueCode.BAD_VALUE} and verdict.issues[0].message.startswith("node 4:")


def test_each_monochromatic_edge_is_a_conflict() -> None:
    verdict = COLORING.validate(SQUARE, square_answer(n1=1, n4=2))
    assert [issue.message for issue in verdict.issues] == [
        "edge [0, 1] joins two nodes of colour 1",
        "edge [1, 2] joins two nodes of colour 1",
        "edge [3, 4] joins two nodes of colour 2",
    ]


def test_extra_fields_and_duplicate_keys_are_rejected() -> None:
    assert COLORING.validate(SQUARE, {**square_answer(), "k": 3}).codes == {IssueCode.EXTRA}
    text = '{"coloring": {"0": 2, "0": 1, "1": 2, "2": 1, "3": 2, "4": 3}}'
    assert COLORING.validate_json(SQUARE, text).codes == {IssueCode.DUPLICATE_KEY}
    assert COLORING.validate_json(SQUARE, json.dumps(square_answer())).ok


def test_solve_refuses_a_graph_with_too_few_colours() -> None:
    assert find_coloring(3, [[0, 1], [1, 2], [0, 2]], 3) is not None
    with pytest.raises(ValueError, match="no 2-colouring"):
        COLORING.solve({"num_nodes": 3, "edges": [[0, 1], [1, 2], [0, 2]], "num_colors": 2})


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"num_nodes": 1}, "num_nodes"),
        ({"num_nodes": 301}, "num_nodes"),
        ({"num_nodes": 6, "num_edges": 6, "num_colors": 1}, "num_colors"),
        ({"num_nodes": 6, "num_edges": 6, "num_colors": 7}, "num_colors"),
        ({"num_nodes": 6, "num_edges": 13, "num_colors": 3}, "num_edges"),  # only 12 cross-class pairs
        ({"num_nodes": 6, "num_edges": 2, "num_colors": 3}, "num_edges"),  # some node would be isolated
        ({"num_nodes": 6, "num_edges": None, "num_colors": 3}, "num_edges"),  # 2.4 · 6 = 14 > 12
        ({"num_colors": True}, "num_colors"),
    ],
)
def test_bad_params_raise_config_error(params: dict, field: str) -> None:
    with pytest.raises(ParamError, match=field):
        COLORING.generate(params=params)


def test_params_that_never_need_k_colours_raise_config_error() -> None:
    with pytest.raises(ParamError, match="needs all 3 colours"):
        COLORING.generate(params={"num_nodes": 4, "num_edges": 2, "num_colors": 3})  # a perfect matching is bipartite


def test_render_lists_neighbours() -> None:
    assert COLORING.render(SQUARE).splitlines() == [
        "5 nodes, 5 edges, colours 1..3; adjacent nodes need different colours:",
        "0: 1 3",
        "1: 0 2",
        "2: 1 3",
        "3: 0 2 4",
        "4: 3",
    ]


@settings(max_examples=300)
@given(answers_with_field("coloring"))
def test_arbitrary_json_never_raises(answer: object) -> None:
    verdict = COLORING.validate(SQUARE, answer)
    assert verdict.ok == (not verdict.issues)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["0", "1", "2", "3", "4", "5", "00", "a"]), st.integers(0, 4) | JSON_VALUES, max_size=8))
def test_near_valid_colourings_pass_only_when_complete_and_proper(coloring: dict) -> None:
    verdict = COLORING.validate(SQUARE, {"coloring": coloring})
    well_formed = sorted(coloring) == ["0", "1", "2", "3", "4"]
    well_formed = well_formed and all(type(c) is int and 1 <= c <= 3 for c in coloring.values())
    assert verdict.ok == (well_formed and not conflicts(SQUARE["edges"], coloring))
