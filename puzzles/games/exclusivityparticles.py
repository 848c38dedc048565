"""ExclusivityParticles (PuzzlePlex §2.10): two players place particles on the d-dimensional binary hypercube.

A particle is a point of {0, 1}^d, written as a string of d characters "0"/"1". On a turn a player places one at
Hamming distance at least k from every particle already placed (so never twice the same point, as k ≥ 1). A player
who cannot place one loses. Setup as PuzzlePlex: d from the level's band, then a helper n uniform in 2..d and k
uniform in 1..d + 1 − n (so k ≤ d − 1).

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.10, §6):
- A player to move with no legal point loses at once: the game ends there (PuzzlePlex makes them move and scores the
  forced illegal move, or the None the code prompt asks for, as the loss; the result is the same).
- A move is {"particle": "0110"}: a JSON string of exactly d characters 0 and 1. The particles placed so far are one
  string in every observation, in the order placed, separated by single spaces ("000 011"): with k = 1 a game has
  2^d moves (4096 at d = 12), and a list of that many particles, copied into every observation, would make a game
  cost O(moves²); a string is shown as it is.
- The prompts' example is wrong: after 000, 011, 101 in d = 3 with k = 2 the second player can still place 110
  (at distance 2 from all three), and then the first player is the one stuck.
- Nothing is hidden.
The game is decided from the start, whatever d and k: the second player wins by answering every particle x with its
complement x̄. Before each of the first player's moves the placed set is closed under complement, so for every
other particle y, d(x̄, y) = d(x, ȳ) ≥ k (ȳ is placed too), and d(x̄, x) = d ≥ k: the reply is always legal, and
the first player is the one who runs out. The meta records it (`first_player_wins`: false).
Levels 1 and 2 are PuzzlePlex's easy (d 3–7) and normal (d 8–12). There is no level 3: at d = 13 a game with k = 1
already has 8192 moves, and nothing about the game changes. λ = (d, k).
The reference strategy: as second player, the complement of the opponent's particle whenever the other particles are
closed under complement (the winning strategy above). Otherwise it solves the position exactly when it is small: a
move at x removes x and every free point within distance < k of it, so the game is Node Kayles on the graph of free
points joined when closer than k, whose value is the XOR of its components' Grundy values (each component of at
most COMPONENT_LIMIT points, searched within SEARCH_NODES positions a move). A won position is played to a win; in a
lost one of at most COMPONENT_LIMIT points it picks the move that leaves the opponent the smallest share of winning
replies. A position too big to solve (the opening, for small k) is played at the free point that leaves the fewest
free points, which hastens the endgame the solver can see; with k = 1 every point is alone and any will do.
"""

from __future__ import annotations

import functools
import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, reject
from ._masks import members
from ._protocol import Game, State, WinnerTakesAll

JSON = Any
COMPONENT_LIMIT = 30  # points in one component of free points that the solver takes on
SEARCH_NODES = 5_000  # Grundy values the solver may compute a move
_SAMPLE_WORK = 200_000  # free points × ball size the fallback weighs at most (beyond, a sample of the points)


class ExclusivityParticles(WinnerTakesAll):
    name: ClassVar[str] = "exclusivityparticles"
    title: ClassVar[str] = "ExclusivityParticles"
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"dimension": (3, 7)}, 2: {"dimension": (8, 12)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["particle"], "additionalProperties": False,
        "properties": {"particle": {"type": "string", "pattern": "^[01]+$",
                                    "description": "d characters 0/1, at distance ≥ k from every particle placed"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        dimension = params["dimension"]
        distance = rng.randint(1, dimension + 1 - rng.randint(2, dimension))
        return ({"dimension": dimension, "distance": distance, "particles": "", "last": None, "to_move": 0, "winner": None},
                {"complexity": {"dimension": dimension, "distance": distance}, "first_player_wins": False})

    def _observe(self, state: State, player: int) -> JSON:
        return {"dimension": state["dimension"], "distance": state["distance"], "particles": state["particles"],
                "opponent_last_particle": state["last"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"particle"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"particle": "0110…"}')
        particle, dimension, distance = move["particle"], state["dimension"], state["distance"]
        if type(particle) is not str:
            return reject(IssueCode.BAD_VALUE, f"particle {clip(particle)} is not a string of 0s and 1s")
        if len(particle) != dimension or particle.strip("01"):
            return reject(IssueCode.BAD_VALUE, f"particle {clip(particle)} is not {dimension} characters 0 and 1")
        point = int(particle, 2)
        if _blocked(dimension, distance, state["particles"])[point]:
            near = next(p for p in state["particles"].split() if (int(p, 2) ^ point).bit_count() < distance)
            return reject(IssueCode.ILLEGAL_MOVE, f"{particle} is at distance {(int(near, 2) ^ point).bit_count()} from {near}, "
                                                  f"less than {distance}")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        particle = move["particle"]
        state["particles"] = f"{state['particles']} {particle}" if state["particles"] else particle
        state["last"] = particle
        state["to_move"] = 1 - player
        if 0 not in _blocked(state["dimension"], state["distance"], state["particles"]):
            state["winner"] = player  # the next player has nowhere to go
        return state

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        dimension = observation["dimension"]
        board = _blocked(dimension, observation["distance"], observation["particles"])
        return [{"particle": format(point, f"0{dimension}b")} for point, taken in enumerate(board) if not taken]

    def random_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A uniformly random legal point, by rejection from the whole cube (no list of up to 2^d moves is built)."""
        dimension = observation["dimension"]
        board = _blocked(dimension, observation["distance"], observation["particles"])
        if 0 not in board:
            return None
        while True:
            point = rng.randrange(len(board))
            if not board[point]:
                return {"particle": format(point, f"0{dimension}b")}

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """The complement of the opponent's particle when that keeps the placed set symmetric, else the solver's move."""
        dimension, distance, particles = observation["dimension"], observation["distance"], observation["particles"]
        last = observation["opponent_last_particle"]
        if last is not None and particles.count(" ") % 2 == 0:  # an odd number placed: this is the second move of a pair
            full = (1 << dimension) - 1
            rest = {int(p, 2) for p in particles.split()} - {int(last, 2)}
            if all(p ^ full in rest for p in rest):
                return {"particle": format(int(last, 2) ^ full, f"0{dimension}b")}
        board = _blocked(dimension, distance, particles)
        free = [point for point, taken in enumerate(board) if not taken]
        if not free:
            return None
        if distance == 1:  # every point stands alone: the moves left are as many whatever is played
            return {"particle": format(free[0], f"0{dimension}b")}
        ball = _ball(dimension, distance)
        point = _solved_move(free, board, ball)
        if point is None:
            sample = free if len(free) * len(ball) <= _SAMPLE_WORK else rng.sample(free, max(1, _SAMPLE_WORK // len(ball)))
            point = min(sample, key=lambda p: sum(not board[p ^ offset] for offset in ball))
        return {"particle": format(point, f"0{dimension}b")}

    def render(self, state: State) -> str:
        status = f"winner: player {state['winner']}" if state["winner"] is not None else f"to move: player {state['to_move']}"
        return f"d = {state['dimension']}, k = {state['distance']}\nparticles: {state['particles'] or 'none'}\n{status}"


@functools.lru_cache(maxsize=None)
def _ball(dimension: int, distance: int) -> tuple[int, ...]:
    """The offsets of weight < distance: the points a particle rules out, as XOR masks (0 first)."""
    return tuple(sorted((mask for mask in range(1 << dimension) if mask.bit_count() < distance), key=int.bit_count))


_LAST_BOARD: dict[tuple[int, int], tuple[str, bytes]] = {}  # per (d, k), the last board computed: the next adds a particle


def _blocked(dimension: int, distance: int, particles: str) -> bytes:
    """For each point of the cube, 1 if it is within distance < k of a placed particle (0: a legal move).

    Computed from the last board of the same (d, k) when `particles` extends it, as it does move after move, so a
    move costs one ball of updates, not one per particle placed.
    """
    known, board_known = _LAST_BOARD.get((dimension, distance), ("", b""))
    if known and particles.startswith(known) and particles[len(known):len(known) + 1] in ("", " "):
        board, new = bytearray(board_known), particles[len(known):]
    else:
        board, new = bytearray(1 << dimension), particles
    ball = _ball(dimension, distance)
    for particle in new.split():
        point = int(particle, 2)
        for offset in ball:
            board[point ^ offset] = 1
    result = bytes(board)
    _LAST_BOARD[(dimension, distance)] = (particles, result)
    return result


class _OutOfNodes(Exception):
    """The solver's budget is spent: the position counts as too big."""


def _solved_move(free: list[int], board: bytes, ball: tuple[int, ...]) -> int | None:
    """The solver's point (see the module docstring), or None when the position is too big to solve."""
    parts = _components(free, board, ball)
    if parts is None:
        return None
    budget = [SEARCH_NODES]
    try:
        games = [_Kayles(part, ball, budget) for part in parts if len(part) > 1]
        values = [kayles.grundy(kayles.everything) for kayles in games]
        total = functools.reduce(int.__xor__, values, (len(parts) - len(games)) % 2)  # a lone point is worth 1
        if total == 1 and len(games) < len(parts):
            return next(part[0] for part in parts if len(part) == 1)
        for kayles, value in zip(games, values):
            if total and value ^ total < value:  # such a move exists: the value is the mex of the moves' values
                return kayles.move_to(value ^ total)
        if len(free) > COMPONENT_LIMIT:
            return None  # lost, with too many replies to weigh
        whole = _Kayles(free, ball, budget)
        return whole.points[min(members(whole.everything), key=lambda i: whole.winning_share(whole.everything & ~whole.closed[i]))]
    except _OutOfNodes:
        return None


def _components(free: list[int], board: bytes, ball: tuple[int, ...]) -> list[list[int]] | None:
    """The free points grouped by closeness (< k, chains of it), or None as soon as one group passes COMPONENT_LIMIT."""
    seen = bytearray(len(board))
    parts = []
    for start in free:
        if seen[start]:
            continue
        seen[start] = 1
        part, stack = [start], [start]
        while stack:
            point = stack.pop()
            for offset in ball[1:]:
                near = point ^ offset
                if not board[near] and not seen[near]:
                    seen[near] = 1
                    part.append(near)
                    stack.append(near)
            if len(part) > COMPONENT_LIMIT:
                return None
        parts.append(part)
    return parts


class _Kayles:
    """Node Kayles on some free points: a move takes a point and every point of them closer than k to it."""

    def __init__(self, points: list[int], ball: tuple[int, ...], budget: list[int]) -> None:
        self.points = points
        index = {point: i for i, point in enumerate(points)}
        self.closed = [sum(1 << index[point ^ offset] for offset in ball if point ^ offset in index) for point in points]
        self.everything = (1 << len(points)) - 1
        self.memo: dict[int, int] = {}
        self.budget = budget  # shared by the games of one move

    def move_to(self, target: int) -> int | None:
        """A point whose move leaves a position of Grundy value `target`, if there is one."""
        return next((self.points[i] for i in members(self.everything) if self.grundy(self.everything & ~self.closed[i]) == target), None)

    def winning_share(self, position: int) -> float:
        """The share of the moves in `position` that win for the player to move there."""
        moves = members(position)
        return sum(self.grundy(position & ~self.closed[i]) == 0 for i in moves) / len(moves) if moves else 0.0

    def grundy(self, position: int) -> int:
        """The Grundy value of `position` (a bit mask of the points), its components XORed."""
        if not position:
            return 0
        known = self.memo.get(position)
        if known is not None:
            return known
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise _OutOfNodes
        part = reach = position & -position
        while reach:  # the component of the lowest point
            grown = 0
            for i in members(reach):
                grown |= self.closed[i]
            reach = grown & position & ~part
            part |= reach
        if part != position:
            value = self.grundy(part) ^ self.grundy(position & ~part)
        else:
            options = {self.grundy(position & ~self.closed[i]) for i in members(position)}
            value = next(v for v in range(len(options) + 1) if v not in options)
        self.memo[position] = value
        return value
