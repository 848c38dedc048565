"""MaxMaximalCocktails (PuzzlePlex §2.9): two players add edges to a graph; whoever lowers the cocktail count loses.

Drugs are nodes 1..n, harmful interactions are edges, and a "maximal cocktail" is a maximum independent set: a
largest set of drugs with no interaction among them. The graph starts with no edges (one cocktail: every drug). On
a turn a player adds one edge between two distinct nodes not yet joined. If the number of maximal cocktails is then
lower than before, the mover loses at once; otherwise play goes on. A player to move with no edge left to add loses.

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.9, §6.2–6.3):
- Cocktails are maximum-cardinality independent sets, as the engine counts them and as the instruction prompt says
  ("correspond to the maximum independent sets"); the code prompt's inclusion-maximal sets are not used.
- The prompts' example is wrong under either definition (after (1, 2) and (2, 3) on [1, 2, 3] the count is 1, not
  3). Corrected: (1, 2) makes 2 cocktails ({1, 3}, {2, 3}), then every edge left makes 1, so the second player
  loses.
- A move is {"edge": [u, v]} with two distinct JSON integer nodes. Self-loops (which PuzzlePlex accepted, deleting a
  node) are illegal, and an edge given in either order is the same edge (PuzzlePlex told (u, v) from [u, v]).
- A player with no edge left loses at once (PuzzlePlex made them move illegally; the result is the same). A move
  that lowers the count is legal: it is the rules' way to lose, not a rule violation.
- Nothing is hidden: the edges, the current count and the opponent's last edge are in every observation.
The game is decided from the start: an edge between two nodes that both lie in every maximum independent set (two
untouched nodes) doubles the count, and in a graph of disjoint edges plus untouched nodes every other edge lowers
it. So ⌊n/2⌋ pairings are made and the next player loses: the first player wins iff ⌊n/2⌋ is odd (the meta's
`first_player_wins`, computed by the search below, which the tests check against this rule).
Levels 1 and 2 are PuzzlePlex's easy (4–8 nodes) and normal (8–12); 3 goes on (13–20). λ = n.
The reference strategy is exact: negamax over the graphs reached by moves that keep the count, memoized, with the
moves cut to one per pair of twin classes (nodes with the same neighbours are interchangeable, so such moves lead
to isomorphic graphs). Counts come from a branching count of maximum independent sets split into connected
components.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._masks import members
from ._protocol import Game, State, WinnerTakesAll

JSON = Any
Adjacency = tuple[int, ...]  # node i (0-based) → bit mask of its neighbours


class MaxMaximalCocktails(WinnerTakesAll):
    name: ClassVar[str] = "maxmaximalcocktails"
    title: ClassVar[str] = "MaxMaximalCocktails"
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"nodes": (4, 8)}, 2: {"nodes": (8, 12)}, 3: {"nodes": (13, 20)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["edge"], "additionalProperties": False,
        "properties": {"edge": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "maxItems": 2,
                                "description": "two different nodes [u, v] not yet joined by an edge"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        nodes = params["nodes"]
        return ({"nodes": nodes, "edges": [], "cocktails": 1, "last_edge": None, "to_move": 0, "winner": None},
                {"complexity": {"nodes": nodes}, "first_player_wins": _wins((0,) * nodes, 1, {})})

    def _observe(self, state: State, player: int) -> JSON:
        return {"nodes": list(range(1, state["nodes"] + 1)), "edges": state["edges"], "cocktails": state["cocktails"],
                "opponent_last_edge": state["last_edge"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"edge"} or type(move["edge"]) is not list or len(move["edge"]) != 2:
            return reject(IssueCode.MALFORMED, 'a move is an object {"edge": [u, v]}')
        for node in move["edge"]:
            if not is_int(node):
                return reject(IssueCode.BAD_VALUE, f"node {clip(node)} is not an integer")
            if not 1 <= node <= state["nodes"]:
                return reject(IssueCode.BAD_VALUE, f"node {node} is not one of the nodes 1..{state['nodes']}")
        u, v = move["edge"]
        if u == v:
            return reject(IssueCode.ILLEGAL_MOVE, f"an edge joins two different nodes, not {u} to itself")
        if sorted((u, v)) in state["edges"]:
            return reject(IssueCode.ILLEGAL_MOVE, f"the edge ({u}, {v}) is already there")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        state["edges"].append(sorted(move["edge"]))
        state["last_edge"] = list(move["edge"])
        count = _cocktails(_adjacency(state["nodes"], state["edges"]))
        if count < state["cocktails"]:
            state["winner"] = 1 - player
        elif len(state["edges"]) == state["nodes"] * (state["nodes"] - 1) // 2:
            state["winner"] = player  # no edge is left for the next player
        state["cocktails"] = count
        state["to_move"] = 1 - player
        return state

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        adjacency = _adjacency(len(observation["nodes"]), observation["edges"])
        return [{"edge": [u + 1, v + 1]} for u, v in _non_edges(adjacency)]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A move that keeps the count and leaves the opponent lost, else one that keeps it, else any (all lose)."""
        adjacency = _adjacency(len(observation["nodes"]), observation["edges"])
        memo: dict[Adjacency, bool] = {}
        keeping = _keeping_moves(adjacency, observation["cocktails"])
        for u, v, count in keeping:
            if not _wins(_joined(adjacency, u, v), count, memo):
                return {"edge": [u + 1, v + 1]}
        if keeping:
            u, v, _ = keeping[0]
            return {"edge": [u + 1, v + 1]}
        edges = _non_edges(adjacency)
        return {"edge": [edges[0][0] + 1, edges[0][1] + 1]} if edges else None

    def render(self, state: State) -> str:
        edges = " ".join(f"{u}-{v}" for u, v in state["edges"]) or "none"
        status = f"winner: player {state['winner']}" if state["winner"] is not None else f"to move: player {state['to_move']}"
        return f"nodes 1..{state['nodes']}\nedges {edges}\nmaximal cocktails {state['cocktails']}\n{status}"


def _adjacency(nodes: int, edges: list[list[int]]) -> Adjacency:
    adjacency = [0] * nodes
    for u, v in edges:
        adjacency[u - 1] |= 1 << (v - 1)
        adjacency[v - 1] |= 1 << (u - 1)
    return tuple(adjacency)


def _joined(adjacency: Adjacency, u: int, v: int) -> Adjacency:
    joined = list(adjacency)
    joined[u] |= 1 << v
    joined[v] |= 1 << u
    return tuple(joined)


def _non_edges(adjacency: Adjacency) -> list[tuple[int, int]]:
    nodes = len(adjacency)
    return [(u, v) for u in range(nodes) for v in range(u + 1, nodes) if not adjacency[u] >> v & 1]


def _wins(adjacency: Adjacency, count: int, memo: dict[Adjacency, bool]) -> bool:
    """Whether the player to move wins with best play (a move that lowers the count loses, so only keeping ones count)."""
    known = memo.get(adjacency)
    if known is None:
        known = any(not _wins(_joined(adjacency, u, v), after, memo) for u, v, after in _keeping_moves(adjacency, count))
        memo[adjacency] = known
    return known


def _keeping_moves(adjacency: Adjacency, count: int) -> list[tuple[int, int, int]]:
    """(u, v, count after) for the edges that do not lower the count, one per pair of twin classes."""
    nodes = len(adjacency)
    twin = list(range(nodes))  # the first node with the same neighbours (apart from each other)
    for v in range(nodes):
        twin[v] = next(u for u in range(v + 1) if adjacency[u] & ~(1 << v) == adjacency[v] & ~(1 << u))
    seen, moves = set(), []
    for u, v in _non_edges(adjacency):
        if (twin[u], twin[v]) not in seen:
            seen.add((twin[u], twin[v]))
            after = _cocktails(_joined(adjacency, u, v))
            if after >= count:
                moves.append((u, v, after))
    return moves


def _cocktails(adjacency: Adjacency) -> int:
    """The number of maximum independent sets."""
    memo: dict[int, tuple[int, int]] = {}

    def best(nodes: int) -> tuple[int, int]:
        """(size, number) of the largest independent sets within `nodes` (a bit mask)."""
        if not nodes:
            return 0, 1
        if nodes in memo:
            return memo[nodes]
        alone, pivot, degree = 0, 0, 0
        for v in members(nodes):
            links = (adjacency[v] & nodes).bit_count()
            if not links:
                alone |= 1 << v
            elif links > degree:
                pivot, degree = v, links
        part = reach = nodes & -(nodes & ~alone)
        while reach:  # the connected component of the lowest node with a neighbour
            grown = 0
            for v in members(reach):
                grown |= adjacency[v]
            reach = grown & nodes & ~part
            part |= reach
        if alone or part != nodes:  # nodes alone are in every such set; components multiply
            (size, number), (other_size, other_number) = best(part & ~alone), best(nodes & ~part & ~alone)
            result = size + other_size + alone.bit_count(), number * other_number
        else:
            without, (size, number) = best(nodes & ~(1 << pivot)), best(nodes & ~(1 << pivot) & ~adjacency[pivot])
            with_pivot = size + 1, number
            result = (without[0], without[1] + with_pivot[1]) if without[0] == with_pivot[0] else max(without, with_pivot)
        memo[nodes] = result
        return result

    return best((1 << len(adjacency)) - 1)[1]
