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
- A move is {"edge": [u, v]} with two distinct JSON integer nodes. Self-loops are illegal, and an edge given in
  either order is the same edge (PuzzlePlex told (u, v) from [u, v]). PuzzlePlex accepted a self-loop [u, u], once per
  drug, and its count then left u out of every cocktail. This decision changes who wins (below): the first player wins
  at n = 3 only under this rule and at n = 5, in the easy range, only under PuzzlePlex's. The game
  `maxmaximalcocktails-puzzleplex` is this one under PuzzlePlex's rule, to reproduce its numbers: `get_game` finds it,
  but it is not among the games "all" means. Its setups are its own (its seed s may draw another n than this game's).
- A player with no edge left loses at once (PuzzlePlex made them move illegally; the result is the same). A move
  that lowers the count is legal: it is the rules' way to lose, not a rule violation.
- Nothing is hidden: the edges, the current count and the opponent's last edge are in every observation.
The game is decided from the start. An edge between two nodes that both lie in every maximum independent set (two
untouched nodes) doubles the count, and in a graph of disjoint edges plus untouched nodes every other edge lowers it.
So ⌊n/2⌋ pairings are made and the next player loses: the first player wins iff ⌊n/2⌋ is odd. Under PuzzlePlex's rule
a self-loop on an untouched node keeps the count too (one on a paired node halves it), and so does any edge with a
self-looped end: those spare edges are moves that change nothing, and the first player wins iff ⌈n/2⌉ is odd. The
meta's `first_player_wins` comes from the search below; the tests check both rules against a plain search.
Levels 1 and 2 are PuzzlePlex's easy (4–8 nodes) and normal (8–12); 3 goes on (13–20). λ = n.
The reference strategy is exact: it plays a move that keeps the count and leaves the opponent lost, where a position
reached by such moves is decided by its shape (untouched drugs, pairs, spare edges) through negamax over shapes; the
moves are listed one per pair of twin classes (nodes with the same neighbours and self-loop are interchangeable, so
such moves lead to isomorphic graphs). Counts come from a branching count of maximum independent sets split into connected
components.
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._masks import members
from ._protocol import Game, State, WinnerTakesAll

JSON = Any
Adjacency = tuple[int, ...]  # node i (0-based) → bit mask of its neighbours (its own bit: a self-loop)


def _edge_schema(description: str) -> dict[str, JSON]:
    return {"type": "object", "required": ["edge"], "additionalProperties": False,
            "properties": {"edge": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "maxItems": 2,
                                    "description": description}}}


class MaxMaximalCocktails(WinnerTakesAll):
    name: ClassVar[str] = "maxmaximalcocktails"
    title: ClassVar[str] = "MaxMaximalCocktails"
    self_loops: ClassVar[bool] = False  # True: PuzzlePlex's rule, a self-loop [u, u] is a move (once per node)
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"nodes": (4, 8)}, 2: {"nodes": (8, 12)}, 3: {"nodes": (13, 20)}}
    move_schema: ClassVar[dict[str, JSON]] = _edge_schema("two different nodes [u, v] not yet joined by an edge")

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        nodes = params["nodes"]
        return ({"nodes": nodes, "edges": [], "cocktails": 1, "last_edge": None, "to_move": 0, "winner": None},
                {"complexity": {"nodes": nodes}, "first_player_wins": _wins((0,) * nodes, self.self_loops)})

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
        if u == v and not self.self_loops:
            return reject(IssueCode.ILLEGAL_MOVE, f"an edge joins two different nodes, not {u} to itself")
        if sorted((u, v)) in state["edges"]:
            return reject(IssueCode.ILLEGAL_MOVE, f"the edge ({u}, {v}) is already there")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        state["edges"].append(sorted(move["edge"]))
        state["last_edge"] = list(move["edge"])
        adjacency = _adjacency(state["nodes"], state["edges"])
        count = _cocktails(adjacency)
        if count < state["cocktails"]:
            state["winner"] = 1 - player
        elif not _non_edges(adjacency, self.self_loops):
            state["winner"] = player  # no edge is left for the next player
        state["cocktails"] = count
        state["to_move"] = 1 - player
        return state

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        adjacency = _adjacency(len(observation["nodes"]), observation["edges"])
        return [{"edge": [u + 1, v + 1]} for u, v in _non_edges(adjacency, self.self_loops)]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A move that keeps the count and leaves the opponent lost, else one that keeps it, else any (all lose)."""
        adjacency = _adjacency(len(observation["nodes"]), observation["edges"])
        keeping = _keeping_moves(adjacency, observation["cocktails"], self.self_loops)
        for u, v in keeping:
            if not _wins(_joined(adjacency, u, v), self.self_loops):
                return {"edge": [u + 1, v + 1]}
        if keeping:
            u, v = keeping[0]
            return {"edge": [u + 1, v + 1]}
        edges = _non_edges(adjacency, self.self_loops)
        return {"edge": [edges[0][0] + 1, edges[0][1] + 1]} if edges else None

    def render(self, state: State) -> str:
        edges = " ".join(f"{u}-{v}" for u, v in state["edges"]) or "none"
        status = f"winner: player {state['winner']}" if state["winner"] is not None else f"to move: player {state['to_move']}"
        return f"nodes 1..{state['nodes']}\nedges {edges}\nmaximal cocktails {state['cocktails']}\n{status}"


class MaxMaximalCocktailsPuzzlePlex(MaxMaximalCocktails):
    """The same game under PuzzlePlex's rule: a self-loop is a move, and its drug is in no cocktail after it."""

    name: ClassVar[str] = "maxmaximalcocktails-puzzleplex"
    title: ClassVar[str] = "MaxMaximalCocktails (PuzzlePlex's self-loops)"
    self_loops: ClassVar[bool] = True
    move_schema: ClassVar[dict[str, JSON]] = _edge_schema("two nodes [u, v] not yet joined by an edge (u = v: a self-loop)")


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


def _non_edges(adjacency: Adjacency, loops: bool) -> list[tuple[int, int]]:
    """The edges (u ≤ v) not yet there: self-loops too under PuzzlePlex's rule."""
    nodes = len(adjacency)
    return [(u, v) for u in range(nodes) for v in range(u if loops else u + 1, nodes) if not adjacency[u] >> v & 1]


def _wins(adjacency: Adjacency, loops: bool) -> bool:
    """Whether the player to move wins with best play, in a position that moves keeping the count have reached."""
    return _shape_wins(*_shape(adjacency), loops)


def _shape(adjacency: Adjacency) -> tuple[int, int, int]:
    """(untouched drugs, pairs, spare edges): what decides a position reached by moves keeping the count. Its drugs
    without a self-loop form pairs and untouched drugs, since any other edge or self-loop among them lowers the count;
    an edge with a self-looped end changes nothing, and the spare ones are those not added yet."""
    nodes = len(adjacency)
    looped = sum(1 << v for v in range(nodes) if adjacency[v] >> v & 1)
    free = [v for v in range(nodes) if not looped >> v & 1]
    untouched = sum(1 for v in free if not adjacency[v] & ~looped)
    ends = looped.bit_count()
    added = sum(1 for u, v in itertools.combinations(range(nodes), 2) if (looped >> u | looped >> v) & 1 and adjacency[u] >> v & 1)
    return untouched, (len(free) - untouched) // 2, ends * (ends - 1) // 2 + ends * len(free) - added


@functools.cache
def _shape_wins(untouched: int, pairs: int, spare: int, loops: bool) -> bool:
    """Negamax over shapes: pair two untouched drugs (the count doubles), give one a self-loop (it keeps: every other
    drug without one can now be joined to it), or add a spare edge."""
    moves = [(untouched - 2, pairs + 1, spare)] if untouched >= 2 else []
    if loops and untouched:
        moves.append((untouched - 1, pairs, spare + untouched - 1 + 2 * pairs))
    if spare:
        moves.append((untouched, pairs, spare - 1))
    return any(not _shape_wins(*move, loops) for move in moves)


def _keeping_moves(adjacency: Adjacency, count: int, loops: bool) -> list[tuple[int, int]]:
    """The edges (self-loops too under PuzzlePlex's rule) that do not lower the count, one per pair of twin classes
    (drugs with the same neighbours apart from each other and the same self-loop, so such moves lead to isomorphic
    graphs)."""
    nodes = len(adjacency)

    def apart(u: int, v: int) -> tuple[int, int]:
        return adjacency[u] & ~(1 << u | 1 << v), adjacency[u] >> u & 1

    twin = [next(u for u in range(v + 1) if apart(u, v) == apart(v, u)) for v in range(nodes)]
    seen, moves = set(), []
    for u, v in _non_edges(adjacency, loops):
        if (twin[u], twin[v], u == v) not in seen:
            seen.add((twin[u], twin[v], u == v))
            if _cocktails(_joined(adjacency, u, v)) >= count:
                moves.append((u, v))
    return moves


def _cocktails(adjacency: Adjacency) -> int:
    """The number of maximum independent sets (a node with a self-loop is in none)."""
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

    return best(sum(1 << v for v, links in enumerate(adjacency) if not links >> v & 1))[1]
