"""Readers for DIMACS files, so published benchmarks (SATLIB uf*/uuf*, DIMACS COLOR) become instances.

`read_cnf` gives a `sat` instance, `read_col` a `coloring` instance, `dimacs_record` a whole record
chosen by file suffix. All raise InstanceFormatError naming the line and the problem; none touches the
file system (pass the text).
"""

from __future__ import annotations

import re

from . import coloring, sat
from ._errors import InstanceFormatError, ParamError
from ._protocol import JSON, Record, clip, is_int
from .coloring import MAX_SOLVE_CLAUSES, MAX_SOLVE_NODES, encoding_size, find_coloring

INTEGER = re.compile(r"[+-]?[0-9]+")  # ASCII only: int() would also take other scripts' digits
MAX_COL_NODES = MAX_SOLVE_NODES  # the colouring encoding grows with n·k: refuse what solve would refuse, early


def _error(line: int, problem: str) -> InstanceFormatError:
    return InstanceFormatError(f"line {line}: {problem}")


def _integer(token: str, line: int, what: str) -> int:
    if INTEGER.fullmatch(token):
        try:
            return int(token)
        except ValueError:  # more digits than int() accepts
            pass
    raise _error(line, f"{what} {clip(token)} is not an integer")


def _header(tokens: list[str], line: int, kinds: tuple[str, ...]) -> tuple[int, int]:
    """(count of variables or nodes, count of clauses or edges) from a `p <kind> a b` line."""
    if len(tokens) != 4 or tokens[1] not in kinds:
        raise _error(line, f"header must be 'p {' or p '.join(kinds)} <count> <count>', got {clip(' '.join(tokens))}")
    first, second = (_integer(token, line, "header count") for token in tokens[2:])
    if first < 1 or second < 0:
        raise _error(line, f"header counts must be >= 1 and >= 0, got {clip(first)} and {clip(second)}")
    return first, second


def _content_lines(text: str) -> list[tuple[int, list[str]]]:
    """(line number, tokens) of each non-blank, non-comment line; SATLIB's `%` line ends the data."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if tokens and tokens[0].startswith("%"):
            break
        if tokens and not tokens[0].startswith("c"):
            lines.append((number, tokens))
    return lines


def read_cnf(text: str) -> dict[str, JSON]:
    """A `sat` instance {"num_vars", "clauses"} from DIMACS CNF text (clauses may span lines, end with 0).

    Raises:
        InstanceFormatError: no or repeated header, a non-integer or out-of-range literal, an empty
            or unterminated clause, or a clause count that differs from the header.
    """
    lines = _content_lines(text)
    if not lines or lines[0][1][0] != "p":
        raise _error(lines[0][0] if lines else 1, "expected the header 'p cnf <variables> <clauses>' first")
    n, m = _header(lines[0][1], lines[0][0], ("cnf",))
    clauses: list[list[int]] = []
    current: list[int] = []
    for number, tokens in lines[1:]:
        if tokens[0] == "p":
            raise _error(number, "a second header")
        for token in tokens:
            literal = _integer(token, number, "literal")
            if literal == 0:
                if not current:
                    raise _error(number, f"clause {len(clauses) + 1} is empty")
                clauses.append(current)
                current = []
            elif abs(literal) > n:
                raise _error(number, f"literal {clip(literal)} names a variable outside 1..{clip(n)}")
            else:
                current.append(literal)
    last = lines[-1][0]
    if current:
        raise _error(last, f"the last clause {clip(current)} is not terminated by 0")
    if len(clauses) != m:
        raise _error(last, f"the header announces {clip(m)} clauses but the file has {len(clauses)}")
    return {"num_vars": n, "clauses": clauses}


def read_col(text: str, num_colors: int | None = None) -> dict[str, JSON]:
    """A `coloring` instance from DIMACS .col text: `p edge n m` (or `p col`), `e u v` with 1-based nodes.

    Repeated and reversed edges collapse to one [u, v] with u < v (0-based). The header's edge count
    may count either the `e` lines or the distinct edges. Without `num_colors` the instance asks
    for the chromatic number, found by SAT for k = 1, 2, … (fine for small graphs such as myciel3).

    Raises:
        InstanceFormatError: no or repeated header, more than MAX_COL_NODES nodes, an unknown line,
            a bad or self-loop edge, or a wrong edge count.
        ParamError: `num_colors` is not a positive integer or too few for this graph.
    """
    lines = _content_lines(text)
    if not lines or lines[0][1][0] != "p":
        raise _error(lines[0][0] if lines else 1, "expected the header 'p edge <nodes> <edges>' first")
    n, m = _header(lines[0][1], lines[0][0], ("edge", "col"))
    if n > MAX_COL_NODES:
        raise _error(lines[0][0], f"{clip(n)} nodes is more than this reader takes ({MAX_COL_NODES})")
    edges: set[tuple[int, int]] = set()
    for number, tokens in lines[1:]:
        if tokens[0] != "e" or len(tokens) != 3:
            raise _error(number, f"expected an edge line 'e <u> <v>', got {clip(' '.join(tokens))}")
        u, v = (_integer(token, number, "node") for token in tokens[1:])
        if not (1 <= u <= n and 1 <= v <= n):
            raise _error(number, f"edge {clip(u)} {clip(v)} names a node outside 1..{n}")
        if u == v:
            raise _error(number, f"self-loop on node {u}: such a graph has no colouring")
        edges.add((min(u, v) - 1, max(u, v) - 1))
    if m not in (len(lines) - 1, len(edges)):
        found = f"{len(lines) - 1} edge lines ({len(edges)} distinct)"
        raise _error(lines[-1][0], f"the header announces {clip(m)} edges but the file has {found}")
    edge_list = [list(edge) for edge in sorted(edges)]
    return {"num_nodes": n, "edges": edge_list, "num_colors": _colour_count(n, edge_list, num_colors)}


def _colour_count(n: int, edges: list[list[int]], num_colors: int | None) -> int:
    """The requested palette size, checked to suffice, or the chromatic number."""
    if num_colors is None:
        return next(k for k in range(1, n + 1) if find_coloring(n, edges, k) is not None)
    if not is_int(num_colors) or num_colors < 1:
        raise ParamError(f"num_colors={clip(num_colors)}: expected an integer >= 1")
    if num_colors > MAX_SOLVE_CLAUSES or encoding_size(n, len(edges), num_colors) > MAX_SOLVE_CLAUSES:
        raise ParamError(f"num_colors={clip(num_colors)}: the colouring encoding would exceed {MAX_SOLVE_CLAUSES} clauses")
    if find_coloring(n, edges, num_colors) is None:
        raise ParamError(f"num_colors={num_colors}: this graph cannot be coloured with so few colours")
    return num_colors


def dimacs_record(file_name: str, text: str, num_colors: int | None = None) -> Record:
    """A `.cnf` file as a `sat` record or a `.col` file as a `coloring` record, id `<puzzle>/file/<name>`.

    Raises:
        InstanceFormatError: an unknown suffix, a malformed file (with the line), or an instance beyond the
            family's rules and bounds (`check_instance`: what `solve` and `validate` would refuse).
        ParamError: `num_colors` too small for the graph.
    """
    stem, _, suffix = file_name.rpartition(".")
    if suffix == "cnf":
        puzzle, instance, describe = sat.Sat, read_cnf(text), sat.complexity
    elif suffix == "col":
        puzzle, instance, describe = coloring.GraphColoring, read_col(text, num_colors), coloring.complexity
    else:
        shown = suffix if len(suffix) <= 20 else suffix[:19] + "…"
        raise InstanceFormatError(f"expected a .cnf (DIMACS CNF) or .col (DIMACS graph) file, not .{shown}")
    puzzle().check_instance(instance)
    meta = {"version": puzzle.version, "source": file_name, "complexity": describe(instance)}
    return Record(f"{puzzle.name}/file/{stem or file_name}", puzzle.name, None, 0, {}, instance, meta)
