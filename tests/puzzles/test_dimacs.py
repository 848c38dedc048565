"""DIMACS readers: raw SATLIB CNF and DIMACS .col files become valid, solvable family instances."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import InstanceFormatError, ParamError
from puzzles.coloring import GraphColoring, find_coloring
from puzzles.dimacs import read_cnf, read_col
from puzzles.sat import Sat

from .test_sat import brute_force_models

DATA = Path(__file__).parent / "data"
SAT, COLORING = Sat(), GraphColoring()


def test_raw_satlib_file_reads_solves_and_has_two_models() -> None:
    text = (DATA / "uf20-91-codebench.cnf").read_text()
    assert "p cnf 20  91 \n" in text and text.endswith("%\n0\n\n")  # the SATLIB quirks are really there
    instance = read_cnf(text)
    assert instance["num_vars"] == 20 and len(instance["clauses"]) == 91
    assert instance["clauses"][0] == [-18, -11, 16] and instance["clauses"][-1] == [11, 20, 17]
    assert jsonschema.Draft202012Validator(SAT.instance_schema).is_valid(instance)
    assert SAT.validate(instance, SAT.solve(instance)).ok
    assert brute_force_models(20, instance["clauses"]) == 2


def test_the_fixture_is_level_3_seed_7_with_shuffled_literals() -> None:
    instance = read_cnf((DATA / "uf20-91-codebench.cnf").read_text())
    generated = SAT.generate(3, 7)
    assert [sorted(c, key=abs) for c in instance["clauses"]] == generated.instance["clauses"]
    assert generated.meta["model_count"] == 2


def test_clauses_may_span_lines_share_lines_and_stop_at_percent() -> None:
    text = "c a comment\n\np  cnf\t3 4\n1 -2\n 3 0 -1 0\nc between\n2 3 0 -3\n\n0\n%\n0\ngarbage after the trailer\n"
    assert read_cnf(text) == {"num_vars": 3, "clauses": [[1, -2, 3], [-1], [2, 3], [-3]]}


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("", 1, "expected the header"),
        ("c only a comment\n", 1, "expected the header"),
        ("1 2 0\np cnf 2 1\n", 1, "expected the header"),
        ("p cnf 2\n1 0\n", 1, "header must be"),
        ("p dnf 2 1\n1 0\n", 1, "header must be"),
        ("p cnf two 1\n1 0\n", 1, "header count 'two'"),
        ("p cnf 0 0\n", 1, "header counts"),
        ("p cnf 2 1\np cnf 2 1\n1 0\n", 2, "a second header"),
        ("p cnf 2 1\n1 3 0\n", 2, "literal 3 names a variable outside 1..2"),
        ("p cnf 2 1\n1 -3 0\n", 2, "literal -3"),
        ("p cnf 2 1\n1 1.5 0\n", 2, "literal '1.5' is not an integer"),
        ("p cnf 2 1\n1 \u0662 0\n", 2, "is not an integer"),
        ("p cnf 2 1\n" + "9" * 5000 + " 0\n", 2, "is not an integer"),
        ("p cnf 2 2\n1 0\n0\n", 3, "clause 2 is empty"),
        ("p cnf 2 1\n1 2\n", 2, "not terminated by 0"),
        ("p cnf 2 2\n1 2 0\n", 2, "announces 2 clauses but the file has 1"),
        ("p cnf 2 1\n1 0\n2 0\n%\n", 3, "announces 1 clauses but the file has 2"),
    ],
)
def test_malformed_cnf_names_the_line_and_problem(text: str, line: int, problem: str) -> None:
    with pytest.raises(InstanceFormatError, match=f"^line {line}: .*{problem}"):
        read_cnf(text)


def test_myciel3_has_eleven_nodes_twenty_edges_and_needs_four_colours() -> None:
    instance = read_col((DATA / "myciel3.col").read_text())
    n, edges = instance["num_nodes"], instance["edges"]
    assert (n, len(edges), instance["num_colors"]) == (11, 20, 4)
    assert edges[:4] == [[0, 1], [0, 3], [0, 6], [0, 8]] and edges[-1] == [9, 10]
    edge_set = {tuple(edge) for edge in edges}
    assert not any({(a, b), (a, c), (b, c)} <= edge_set for a, b, c in combinations(range(n), 3))  # triangle-free
    assert find_coloring(n, edges, 3) is None
    assert jsonschema.Draft202012Validator(COLORING.instance_schema).is_valid(instance)
    assert COLORING.validate(instance, COLORING.solve(instance)).ok


def test_myciel3_is_the_mycielskian_of_the_five_cycle() -> None:
    edges = {tuple(edge) for edge in read_col((DATA / "myciel3.col").read_text())["edges"]}
    cycle = {(a, b) for a, b in edges if b < 5}
    assert len(cycle) == 5 and all(sum(v in edge for edge in cycle) == 2 for v in range(5))
    for shadow in range(5, 10):  # node 5 + i copies the cycle neighbours of node i, and meets node 10
        copied = {a for a, b in edges if b == shadow and a < 5}
        assert copied == {w for edge in cycle if shadow - 5 in edge for w in edge} - {shadow - 5}
        assert (shadow, 10) in edges


def test_a_given_palette_is_kept_when_it_suffices() -> None:
    text = (DATA / "myciel3.col").read_text()
    assert read_col(text, num_colors=5)["num_colors"] == 5
    for bad in (3, 0, True, 4.0):
        with pytest.raises(ParamError, match="num_colors"):
            read_col(text, num_colors=bad)  # type: ignore[arg-type]


def test_repeated_and_reversed_edges_collapse_and_p_col_is_accepted() -> None:
    text = "c triangle with repeats\np col 4 5\ne 1 2\ne 2 1\ne 3 2\ne 1 3\ne 1 2\n"
    assert read_col(text) == {"num_nodes": 4, "edges": [[0, 1], [0, 2], [1, 2]], "num_colors": 3}
    assert read_col(text.replace("p col 4 5", "p edge 4 3"))["edges"] == [[0, 1], [0, 2], [1, 2]]
    assert read_col("p edge 3 0\n") == {"num_nodes": 3, "edges": [], "num_colors": 1}


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("e 1 2\n", 1, "expected the header"),
        ("p edge 3\n", 1, "header must be"),
        ("p graph 3 1\ne 1 2\n", 1, "header must be"),
        ("p edge 20000 0\n", 1, "more than this reader takes"),
        ("p edge 3 1\ne 2 2\n", 2, "self-loop on node 2"),
        ("p edge 3 1\ne 0 2\n", 2, "outside 1..3"),
        ("p edge 3 1\ne 1 4\n", 2, "outside 1..3"),
        ("p edge 3 1\ne 1\n", 2, "expected an edge line"),
        ("p edge 3 1\nn 1 5\n", 2, "expected an edge line"),
        ("p edge 3 1\ne 1 x\n", 2, "node 'x' is not an integer"),
        ("p edge 3 1\np edge 3 1\n", 2, "expected an edge line"),
        ("p edge 3 4\ne 1 2\ne 2 3\ne 2 1\n", 4, "announces 4 edges but the file has 3 edge lines \\(2 distinct\\)"),
    ],
)
def test_malformed_col_names_the_line_and_problem(text: str, line: int, problem: str) -> None:
    with pytest.raises(InstanceFormatError, match=f"^line {line}: .*{problem}"):
        read_col(text)


SOUP = st.lists(st.sampled_from(["p", "cnf", "edge", "e", "c", "%", "0", "1", "-1", "x", "\n", " "]), max_size=30).map(" ".join)


@st.composite
def cnf_texts(draw: st.DrawFn) -> str:
    """Mostly well-formed CNF: clauses of literals in ±4, sometimes out of range, unterminated or miscounted."""
    n = draw(st.integers(2, 4))
    clauses = draw(st.lists(st.lists(st.integers(-4, 4).filter(bool), min_size=1, max_size=3), max_size=5))
    tokens = [str(literal) for clause in clauses for literal in [*clause, 0]]
    if tokens and draw(st.integers(0, 3)) == 0:
        del tokens[draw(st.integers(0, len(tokens) - 1))]
    separators = draw(st.lists(st.sampled_from([" ", "\n", "\nc note\n"]), min_size=len(tokens), max_size=len(tokens)))
    body = "".join(token + separator for token, separator in zip(tokens, separators, strict=True))
    return f"p cnf {n} {len(clauses) + draw(st.sampled_from([0, 0, 0, 1, -1]))}\n{body}"


@st.composite
def col_texts(draw: st.DrawFn) -> str:
    """Mostly well-formed .col: 1-based edges, sometimes loops, nodes 0 or n + 1, repeats or a bad count."""
    n = draw(st.integers(3, 6))
    node = st.sampled_from([*range(1, n + 1)] * 6 + [0, n + 1])
    edges = draw(st.lists(st.tuples(node, node), max_size=8))
    m = draw(st.sampled_from([len(edges), len(set(edges)), len(edges) + 1]))
    return f"p edge {n} {m}\n" + "".join(f"e {u} {v}\n" for u, v in edges)


@settings(max_examples=300)
@given(SOUP | cnf_texts())
def test_cnf_reader_raises_only_format_errors_and_returns_sound_instances(text: str) -> None:
    try:
        instance = read_cnf(text)
    except InstanceFormatError:
        return
    header = next(line.split() for line in text.splitlines() if line.split()[:1] == ["p"])
    n, header_m = int(header[2]), int(header[3])
    assert instance["num_vars"] == n and len(instance["clauses"]) == header_m
    assert all(clause and all(0 < abs(lit) <= n for lit in clause) for clause in instance["clauses"])
    assert jsonschema.Draft202012Validator(SAT.instance_schema).is_valid(instance)


@settings(max_examples=300)
@given(SOUP | col_texts())
def test_col_reader_raises_only_format_errors_and_returns_sound_instances(text: str) -> None:
    try:
        instance = read_col(text)
    except InstanceFormatError:
        return
    n, edges = instance["num_nodes"], instance["edges"]
    assert edges == sorted(edges) and all(0 <= u < v < n for u, v in edges) and len({tuple(e) for e in edges}) == len(edges)
    assert COLORING.validate(instance, COLORING.solve(instance)).ok
    assert find_coloring(n, edges, instance["num_colors"] - 1) is None
