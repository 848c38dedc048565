"""Graph colouring: give each node one of k colours so that no edge joins two nodes of the same colour.

λ = (n, m, k); 3-colouring is hardest near average degree ≈ 4.7 (SATLIB's "flat" graphs use m ≈ 2.4n).
Graphs hide a balanced k-colouring, provably need all k colours (χ = k) and have no isolated node.
Of up to TRIES such graphs a level keeps the first whose reference search (`search_nodes`, the SAT
solver's decisions) reaches the level's `search_target`, else the hardest: the same n and m, but a
colouring that needs search from level 2 on and more of it at every level (level 1's six nodes never
did in 20,000 draws: CaDiCaL's greedy first passes colour them without a decision).
Answer: {"coloring": {"0": 1, "1": 3, …}}, keys the decimal node numbers, colours 1..k.

Bounds: generate draws 2..MAX_NODES = 300 nodes and takes a search_target ≤ MAX_SEARCH_TARGET.
solve takes any graph (DIMACS imports included) with 1..MAX_SOLVE_NODES = 10,000 nodes, edges
[u, v] between two different nodes 0..n−1, and num_colors ≥ 1, as long as its one-hot CNF (n·k +
n·k(k−1)/2 + m·k clauses) stays within MAX_SOLVE_CLAUSES = 5,000,000; the SAT search gives up, with
an error, after SOLVE_CONFLICTS = 1,000,000 conflicts (deterministic; generated instances need a few thousand at most).

Complexity axis: λ = n (num_nodes), 4..MAX_NODES, the parameter every level raises. The colours (3) and search_target
carry on from the level below (level 1's below the ladder), and so does its density: its edges scaled by λ / its n
(level 6's null stays 2.4 n), which is each level's own edge count at its n (fewer than 4 nodes cannot take level
1's density with three colours).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from math import comb

from ._errors import InstanceFormatError, ParamError
from ._protocol import (
    JSON,
    ComplexityAxis,
    IssueCode,
    Issues,
    Puzzle,
    Verdict,
    check_param,
    clip,
    first_reaching,
    index_key,
    is_int,
    listing,
    open_answer,
)
from ._sat import decisions, solve_within

MAX_NODES = 300  # nodes generate draws
MAX_SOLVE_NODES = 10_000  # nodes solve (and the DIMACS reader) accepts
MAX_SOLVE_CLAUSES = 5_000_000  # clauses of the one-hot encoding solve is willing to build
SOLVE_CONFLICTS = 1_000_000  # conflicts the reference solver may spend before refusing (deterministic budget)
FLAT_RATIO = 2.4  # edges per node of SATLIB's flat 3-colourable graphs (flat75-180, flat100-239)
MAX_ATTEMPTS = 100  # graph draws in a row that need fewer than k colours before giving up
TRIES = 5_000  # graphs weighed against search_target (level 2's ten nodes need search in ~1 of 700)
MAX_SEARCH_TARGET = 1_000_000  # search_target generate accepts
SOLVER = "cadical195"


def _max_cross_edges(n: int, k: int) -> int:
    """Edges available between the classes of a balanced k-partition of n nodes."""
    sizes = [n // k + (i < n % k) for i in range(k)]
    return comb(n, 2) - sum(comb(size, 2) for size in sizes)


@dataclass(frozen=True)
class ColoringParams:
    """num_nodes nodes, num_edges edges (None means round(2.4 · num_nodes)) and num_colors colours; the first of
    TRIES graphs whose search_nodes reaches search_target is kept, else the hardest."""

    num_nodes: int = 20
    num_edges: int | None = 40
    num_colors: int = 3
    search_target: int = 0

    def __post_init__(self) -> None:
        check_param(2 <= self.num_nodes <= MAX_NODES, "num_nodes", self.num_nodes, f"2..{MAX_NODES}")
        check_param(2 <= self.num_colors <= self.num_nodes, "num_colors", self.num_colors, f"2..num_nodes={self.num_nodes}")
        least, most = (self.num_nodes + 1) // 2, _max_cross_edges(self.num_nodes, self.num_colors)
        expected = f"{least}..{most}, or null for {FLAT_RATIO}·num_nodes"
        check_param(least <= self.edge_count <= most, "num_edges", self.num_edges, expected)
        check_param(0 <= self.search_target <= MAX_SEARCH_TARGET, "search_target", self.search_target, f"0..{MAX_SEARCH_TARGET}")

    @property
    def edge_count(self) -> int:
        return self.num_edges if self.num_edges is not None else round(FLAT_RATIO * self.num_nodes)


def complexity(instance: dict[str, JSON]) -> dict[str, JSON]:
    """λ of a graph: nodes n, edges m, colours k and average degree (3-colouring is hardest near 4.69)."""
    n, m = instance["num_nodes"], len(instance["edges"])
    return {"n": n, "m": m, "k": instance["num_colors"], "avg_degree": round(2 * m / n, 3)}


def encoding_size(n: int, m: int, k: int) -> int:
    """Clauses of find_coloring's encoding: one per node, k(k−1)/2 per node, k per edge (and one symmetry fix)."""
    return n + n * k * (k - 1) // 2 + m * k + 1


def find_coloring(n: int, edges: list[list[int]], k: int, budget: int | None = None) -> list[int] | None:
    """Colours 1..k for nodes 0..n−1 with no monochromatic edge, or None if there is none.

    One-hot SAT encoding: variable v·k + c + 1 says node v has colour c + 1. With a conflict
    `budget`, raises InstanceFormatError when the solver spends it without an answer.
    """
    return colour_search(n, edges, k, budget)[0]


def colour_search(n: int, edges: list[list[int]], k: int, budget: int | None = None) -> tuple[list[int] | None, int]:
    """find_coloring's answer, and the decisions its SAT search took."""
    from pysat.solvers import Solver  # deferred: a solver library, loaded on first solve so `import puzzles` stays cheap

    def var(node: int, colour: int) -> int:
        return node * k + colour + 1

    clauses = [[var(v, c) for c in range(k)] for v in range(n)]
    clauses += [[-var(v, a), -var(v, b)] for v in range(n) for a, b in combinations(range(k), 2)]
    clauses += [[-var(u, c), -var(v, c)] for u, v in edges for c in range(k)]
    if edges:
        clauses.append([var(edges[0][0], 0)])  # colour names are interchangeable: fix one
    with Solver(name=SOLVER, bootstrap_with=clauses) as solver:
        found = solve_within(solver, budget)
        if found is None:
            raise InstanceFormatError(f"coloring: no answer within the solve budget of {budget} conflicts")
        nodes = decisions(solver)
        if not found:
            return None, nodes
        true = {literal for literal in solver.get_model() if literal > 0}
    return [next(c + 1 for c in range(k) if var(v, c) in true) for v in range(n)], nodes


class GraphColoring(Puzzle[ColoringParams]):
    name = "coloring"
    version = 2
    title = "Graph colouring"
    params_type = ColoringParams
    levels = {
        1: {"num_nodes": 6, "num_edges": (6, 8), "num_colors": 3},
        2: {"num_nodes": 10, "num_edges": 15, "num_colors": 3, "search_target": 1},
        3: {"num_nodes": 20, "num_edges": 40, "num_colors": 3, "search_target": 8},
        4: {"num_nodes": 30, "num_edges": 60, "num_colors": 3, "search_target": 13},
        5: {"num_nodes": 50, "num_edges": 115, "num_colors": 3, "search_target": 20},
        6: {"num_nodes": (75, 100), "num_edges": None, "num_colors": 3, "search_target": 35},
    }
    axis = ComplexityAxis.along("num_nodes", levels, lowest=4, highest=MAX_NODES,
                                limit=f"generate draws at most {MAX_NODES} nodes (there a graph takes up to ~1.5 s to draw and "
                                      "weigh against the level's search target)")

    def band_at(self, lam: int) -> dict[str, object]:
        """The level below's band at n = λ, its edge count (or band) scaled by λ / its n: the same density."""
        band = dict(self.levels[self.level_at(lam)])
        edges, nodes = band["num_edges"], band["num_nodes"]
        if isinstance(edges, tuple):
            band["num_edges"] = tuple(round(end * lam / nodes) for end in edges)  # type: ignore[operator]
        elif edges is not None:
            band["num_edges"] = round(edges * lam / nodes)  # type: ignore[operator]
        return {**band, "num_nodes": lam}
    instance_schema = {
        "type": "object",
        "required": ["num_nodes", "edges", "num_colors"],
        "properties": {
            "num_nodes": {"type": "integer", "minimum": 1, "description": "nodes are numbered 0..num_nodes-1"},
            "edges": {
                "type": "array",
                "description": "undirected edges [u, v] with u < v, each listed once; their ends must get different colours",
                "items": {"type": "array", "prefixItems": [{"type": "integer", "minimum": 0}] * 2, "minItems": 2, "maxItems": 2},
            },
            "num_colors": {"type": "integer", "minimum": 1, "description": "the colours are 1..num_colors"},
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["coloring"],
        "properties": {
            "coloring": {
                "type": "object",
                "description": 'node number as a decimal string ("0", "1", …) → colour 1..num_colors; colour every node',
                "propertyNames": {"pattern": "^(0|[1-9][0-9]*)$"},
                "additionalProperties": {"type": "integer", "minimum": 1},
            }
        },
    }

    def build(self, params: ColoringParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        n, m, k = params.num_nodes, params.edge_count, params.num_colors
        weighed = ((colour_search(n, edges, k, SOLVE_CONFLICTS)[1], edges) for edges in _needing_all_colours(n, m, k, rng))
        tries, search_nodes, edges = first_reaching(weighed, params.search_target, TRIES)
        meta = {
            "complexity": complexity({"num_nodes": n, "edges": edges, "num_colors": k}),
            "chromatic_number": k,
            "search_nodes": int(search_nodes),  # the reference solver's search for the answer
            "tries": tries,
        }
        return {"num_nodes": n, "edges": edges, "num_colors": k}, meta

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        opened = open_answer(answer, "coloring", dict, 'an object mapping "0".."n-1" to a colour')
        if isinstance(opened, Verdict):
            return opened
        coloring, issues = opened
        n = instance["num_nodes"]
        colours = _read_coloring(coloring, n, instance["num_colors"], issues)
        missing = [v for v in range(n) if str(v) not in coloring]
        if missing:
            issues.add(IssueCode.MISSING, f"nodes {listing(missing)} have no colour")
        for u, v in instance["edges"]:
            if u in colours and v in colours and colours[u] == colours[v]:
                issues.add(IssueCode.CONFLICT, f"edge [{u}, {v}] joins two nodes of colour {colours[u]}")
        return issues.verdict()

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        n, edges, k = (instance.get(key) for key in ("num_nodes", "edges", "num_colors"))
        if not is_int(n) or not 1 <= n <= MAX_SOLVE_NODES:
            raise InstanceFormatError(f"coloring: num_nodes={clip(n)}: expected an integer 1..{MAX_SOLVE_NODES}")
        if not is_int(k) or k < 1:
            raise InstanceFormatError(f"coloring: num_colors={clip(k)}: expected an integer >= 1")
        if type(edges) is not list:
            raise InstanceFormatError(f"coloring: edges {clip(edges)}: expected a list of [u, v]")
        if k > MAX_SOLVE_CLAUSES or encoding_size(n, len(edges), k) > MAX_SOLVE_CLAUSES:
            raise InstanceFormatError(
                f"coloring: {n} nodes, {len(edges)} edges and {clip(k)} colours need more than {MAX_SOLVE_CLAUSES} clauses "
                "(the solve bound)"
            )
        for index, edge in enumerate(edges):
            if type(edge) is not list or len(edge) != 2 or not all(is_int(end) and 0 <= end < n for end in edge):
                raise InstanceFormatError(f"coloring: edge {index} {clip(edge)}: expected [u, v] with nodes 0..{n - 1}")
            if edge[0] == edge[1]:
                raise InstanceFormatError(f"coloring: edge {index} {clip(edge)} is a self-loop: no colouring exists")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        colours = find_coloring(instance["num_nodes"], instance["edges"], instance["num_colors"], SOLVE_CONFLICTS)
        if colours is None:
            raise InstanceFormatError(f"coloring: the graph has no {instance['num_colors']}-colouring")
        return {"coloring": {str(v): colour for v, colour in enumerate(colours)}}

    def render(self, instance: dict[str, JSON]) -> str:
        n, edges, k = instance["num_nodes"], instance["edges"], instance["num_colors"]
        neighbours: list[list[int]] = [[] for _ in range(n)]
        for u, v in edges:
            neighbours[u].append(v)
            neighbours[v].append(u)
        width = len(str(n - 1))
        lines = [f"{n} nodes, {len(edges)} edges, colours 1..{k}; adjacent nodes need different colours:"]
        lines += [f"{v:>{width}}: {' '.join(map(str, sorted(near))) or '-'}" for v, near in enumerate(neighbours)]
        return "\n".join(lines)


def _needing_all_colours(n: int, m: int, k: int, rng: random.Random) -> Iterator[list[list[int]]]:
    """Planted graphs with no isolated node that need all k colours; ParamError after MAX_ATTEMPTS draws in a row without one."""
    while True:
        for _ in range(MAX_ATTEMPTS):
            edges = _planted_graph(n, m, k, rng)
            if len({node for edge in edges for node in edge}) == n and find_coloring(n, edges, k - 1) is None:
                yield edges
                break
        else:
            raise ParamError(
                f"coloring: no {n}-node {m}-edge graph drawn in {MAX_ATTEMPTS} attempts needs all {k} colours "
                "with every node on an edge; add edges"
            )


def _planted_graph(n: int, m: int, k: int, rng: random.Random) -> list[list[int]]:
    """m distinct edges, sorted, between the classes of a hidden balanced k-colouring."""
    hidden = [i % k for i in range(n)]
    rng.shuffle(hidden)
    cross = [(u, v) for u, v in combinations(range(n), 2) if hidden[u] != hidden[v]]
    return [list(edge) for edge in sorted(rng.sample(cross, m))]


def _read_coloring(coloring: dict[object, JSON], n: int, k: int, issues: Issues) -> dict[int, int]:
    """The well-formed entries as {node: colour}; every other entry becomes an issue."""
    colours: dict[int, int] = {}
    for key, value in coloring.items():
        node = index_key(key, 0, n - 1, issues, "node")
        if node is not None and (not is_int(value) or not 1 <= value <= k):
            issues.add(IssueCode.BAD_VALUE, f"node {key}: colour {clip(value)} is not an integer 1..{k}")
        elif node is not None:
            colours[node] = value
    return colours
