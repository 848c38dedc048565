"""Rubik's Cube 3×3×3: turn a scrambled cube into the target state with face turns (half-turn metric).

λ = (ℓ, η): ℓ is the scramble length in face turns; η is the scramble rule, the same at every level: canonical
scrambles (never two turns of one face in a row; opposite faces only in the order U→D, R→L, F→B, so no X Y X on
one axis), which keeps the optimal distance ≤ ℓ, and = ℓ for ℓ ≤ 4 (checked exhaustively). The scramble is hidden unless
`reveal_scramble` (the paper's prompt gives it, which makes its inverse a trivial answer).

States are kociemba facelet strings: faces U R F D L B, each face's 9 stickers row-major as drawn in the net,
a letter naming the face whose centre has that colour. Answer: {"moves": "R U R' U2"}.

Bounds: scramble_length ≤ MAX_SCRAMBLE = 100 for generate. solve requires two well-formed cube
strings (54 facelets of URFDLB, 9 of each, centres in order) that are both reachable from the solved
cube, checked cubie by cubie before any search: every corner and edge present once and not
mirrored, corner twists summing to 0 mod 3, edge flips to 0 mod 2, and corner and edge permutations
of equal parity (colour counts alone admit 11 of every 12 unreachable states). Then the search is
bounded by construction: a meet-in-the-middle search to SOLVE_RADIUS = 3 turns each side, else
kociemba's two-phase search to KOCIEMBA_DEPTH = 24 turns (≤ 0.2 s measured).

Complexity axis: λ = ℓ (scramble_length), 1..MAX_SCRAMBLE; η and the solved target stay as at every level. Past about
20 turns a canonical scramble is close to a random state (God's number is 20), so the top of the axis grows no harder.
"""

from __future__ import annotations

import functools
import operator
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ._errors import InstanceFormatError
from ._protocol import JSON, ComplexityAxis, IssueCode, Puzzle, Verdict, check_param, clip, open_answer, reject

FACES = "URFDLB"  # kociemba order; the opposite of face i is face (i + 3) % 6
SOLVED = "".join(face * 9 for face in FACES)
MOVES = tuple(face + suffix for face in FACES for suffix in ("", "2", "'"))  # index 3·face + quarter turns − 1
MOVE_INDEX = {move: index for index, move in enumerate(MOVES)}
MAX_SCRAMBLE = 100
TARGET_SCRAMBLE = 25  # length of the canonical scramble that makes a random target
SOLVE_RADIUS = 3  # the solver's meet-in-the-middle search is optimal up to 2 × this many moves
PROOF_RADIUS = 4  # build proves the optimal distance up to 2 × this + 1 moves
KOCIEMBA_DEPTH = 24  # kociemba's default: ≤ 0.15 s at L6 (max_depth 20 can take 40 s); it returns ≤ 22 moves there
SPACE = r"[ \t\n\r]"  # tokens are separated by runs of ASCII spaces, tabs and newlines, nothing else
TOKEN = re.compile(r"[^ \t\n\r]+")
MOVES_PATTERN = f"^{SPACE}*([URFDLB][2']?({SPACE}+[URFDLB][2']?)*)?{SPACE}*$"
Vector = tuple[int, int, int]


def _facelets() -> list[tuple[Vector, Vector]]:
    """(cubie position, outward normal) of each facelet in URFDLB row-major order; x right, y up, z front."""
    frames = {  # face: normal, down the rows, along a row, as the face is drawn in the net
        "U": ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
        "R": ((1, 0, 0), (0, -1, 0), (0, 0, -1)),
        "F": ((0, 0, 1), (0, -1, 0), (1, 0, 0)),
        "D": ((0, -1, 0), (0, 0, -1), (1, 0, 0)),
        "L": ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
        "B": ((0, 0, -1), (0, -1, 0), (-1, 0, 0)),
    }
    facelets = []
    for face in FACES:
        normal, down, along = frames[face]
        for row in range(3):
            for col in range(3):
                position = tuple(normal[i] + (row - 1) * down[i] + (col - 1) * along[i] for i in range(3))
                facelets.append((position, normal))
    return facelets  # type: ignore[return-value]


def _clockwise(v: Vector, axis: Vector) -> Vector:
    """Rotate v by 90° clockwise as seen looking at the face whose outward normal is `axis`: v ↦ a(a·v) − a×v."""
    dot = sum(a * b for a, b in zip(axis, v))
    cross = (axis[1] * v[2] - axis[2] * v[1], axis[2] * v[0] - axis[0] * v[2], axis[0] * v[1] - axis[1] * v[0])
    return (dot * axis[0] - cross[0], dot * axis[1] - cross[1], dot * axis[2] - cross[2])


def _move_tables() -> list[tuple[int, ...]]:
    """The 18 face turns as facelet permutations p (new[i] = old[p[i]]): quarter turns by geometry, then composed."""
    facelets = _facelets()
    where = {facelet: index for index, facelet in enumerate(facelets)}
    tables = []
    for face in range(6):
        axis = facelets[9 * face + 4][1]
        quarter = list(range(54))
        for source, (position, normal) in enumerate(facelets):
            if sum(a * b for a, b in zip(axis, position)) == 1:
                quarter[where[(_clockwise(position, axis), _clockwise(normal, axis))]] = source
        turn = tuple(quarter)
        for _ in range(3):
            tables.append(turn)
            turn = tuple(turn[i] for i in quarter)
    return tables


_TURNS = [operator.itemgetter(*table) for table in _move_tables()]


def apply_moves(state: str, moves: Iterable[int]) -> str:
    """The facelet string after turning `state` by each move index in order."""
    for move in moves:
        state = "".join(_TURNS[move](state))
    return state


def inverse(moves: list[int]) -> list[int]:
    """The move indices that undo `moves` (X ↔ X', X2 stays)."""
    return [move + 2 - 2 * (move % 3) for move in reversed(moves)]


def canonical_next(previous: int | None) -> list[int]:
    """Move indices allowed after a move on face `previous`: another face, and never D→U, L→R or B→F."""
    return [m for m in range(18) if previous is None or m // 3 not in (previous, previous - 3)]


def _scramble(rng: random.Random, length: int) -> list[int]:
    """A canonical scramble, each turn uniform among those the η rule allows after the previous one."""
    moves: list[int] = []
    for _ in range(length):
        moves.append(rng.choice(canonical_next(moves[-1] // 3 if moves else None)))
    return moves


def _ball(start: str, radius: int) -> dict[str, tuple[int, ...]]:
    """Every state within `radius` turns of `start`, with a shortest move sequence reaching it (BFS, canonical only)."""
    reached: dict[str, tuple[int, ...]] = {start: ()}
    frontier = [start]
    for _ in range(radius):
        next_frontier = []
        for state in frontier:
            path = reached[state]
            for move in canonical_next(path[-1] // 3 if path else None):
                child = "".join(_TURNS[move](state))
                if child not in reached:
                    reached[child] = path + (move,)
                    next_frontier.append(child)
        frontier = next_frontier
    return reached


_target_ball = functools.lru_cache(maxsize=4)(_ball)  # targets repeat (the solved cube); states do not


def shortest(state: str, target: str, radius: int) -> list[int] | None:
    """An optimal move list from state to target if one has ≤ 2·radius moves, else None (meet in the middle)."""
    ahead, behind = _ball(state, radius), _target_ball(target, radius)
    meetings = [(len(path) + len(behind[middle]), middle) for middle, path in ahead.items() if middle in behind]
    if not meetings:
        return None
    _, middle = min(meetings)
    return list(ahead[middle]) + inverse(list(behind[middle]))


def _proven_distance(state: str, target: str, length: int) -> int | None:
    """The exact optimal distance of a canonical ℓ-turn scramble if cheap to prove (ℓ ≤ 2·PROOF_RADIUS + 1), else None."""
    if length > 2 * PROOF_RADIUS + 1:
        return None
    path = shortest(state, target, length // 2)
    return length if path is None else len(path)  # no path of ≤ 2·(ℓ // 2) ≥ ℓ − 1 moves: the distance is ℓ


def _format(moves: list[int]) -> str:
    return " ".join(MOVES[move] for move in moves)


def _cubies() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Facelet indices of each corner and edge position, in a fixed order per cubie.

    A corner lists its U/D facelet first, then the other two in the same rotational sense at every corner;
    an edge lists its U/D facelet first, or in the middle layer its F/B facelet. The first facelet is
    the reference: a cubie's twist or flip is how far its own reference colour (U/D, else F/B) sits
    from it.
    """
    by_position: dict[Vector, list[int]] = {}
    for index, (position, _) in enumerate(_facelets()):
        by_position.setdefault(position, []).append(index)
    normals = [normal for _, normal in _facelets()]
    corners, edges = [], []
    for _, indices in sorted(by_position.items()):
        if len(indices) == 3:
            first = next(i for i in indices if normals[i][1] != 0)
            a, b = (i for i in indices if i != first)
            n0, n1, n2 = normals[first], normals[a], normals[b]
            det = (n0[0] * (n1[1] * n2[2] - n1[2] * n2[1]) - n0[1] * (n1[0] * n2[2] - n1[2] * n2[0])
                   + n0[2] * (n1[0] * n2[1] - n1[1] * n2[0]))
            corners.append((first, a, b) if det > 0 else (first, b, a))
        elif len(indices) == 2:
            axis = 1 if any(normals[i][1] for i in indices) else 2
            first = next(i for i in indices if normals[i][axis] != 0)
            edges.append((first, next(i for i in indices if i != first)))
    return corners, edges


_CORNERS, _EDGES = _cubies()


def _parity(permutation: list[int]) -> int:
    """0 for an even permutation of range(len(permutation)), 1 for an odd one."""
    seen, parity = [False] * len(permutation), 0
    for start in range(len(permutation)):
        length, item = 0, start
        while not seen[item]:
            seen[item], item, length = True, permutation[item], length + 1
        parity ^= (length - 1) & 1 if length else 0
    return parity


def reachability_problem(cube: str) -> str | None:
    """Why a well-formed facelet string cannot be reached from the solved cube by face turns, or None.

    The classic invariants: each corner and edge cubie present once with its colours in their own
    cyclic order, total corner twist 0 mod 3, total edge flip 0 mod 2, equal permutation parities.
    """
    permutations = []
    for kind, positions, modulus in (("corner", _CORNERS, 3), ("edge", _EDGES, 2)):
        homes = {frozenset(SOLVED[i] for i in cubie): (slot, tuple(SOLVED[i] for i in cubie)) for slot, cubie in enumerate(positions)}
        permutation, total = [], 0
        for facelets in positions:
            colours = tuple(cube[i] for i in facelets)
            home = homes.get(frozenset(colours))
            if home is None or home[0] in permutation:
                return f"no single {kind} cubie has the colours {''.join(colours)} (or it appears twice)"
            slot, reference = home
            turn = next((k for k in range(len(colours)) if colours[k:] + colours[:k] == reference), None)
            if turn is None:
                return f"the {kind} cubie {''.join(colours)} has its colours in mirror order"
            permutation.append(slot)
            total += turn
        if total % modulus:
            return f"the {kind} {'twists' if kind == 'corner' else 'flips'} sum to {total}, not a multiple of {modulus}"
        permutations.append(permutation)
    if _parity(permutations[0]) != _parity(permutations[1]):
        return "the corner and edge permutations have different parity (two cubies swapped)"
    return None


def _instance_problem(instance: JSON) -> str | None:
    """Why the instance is not a pair of well-formed cube strings (Alg. 9 steps 0–2), or None."""
    if type(instance) is not dict:
        return "instance must be an object"
    for key in ("state", "target"):
        cube = instance.get(key)
        if type(cube) is not str or len(cube) != 54:
            return f"{key} must be a string of 54 facelets"
        if set(cube) - set(FACES):
            return f"{key} has letters outside {FACES}: {''.join(sorted(set(cube) - set(FACES)))}"
        if any(cube.count(face) != 9 for face in FACES):
            return f"{key} does not have 9 facelets of each of {FACES}"
        if cube[4::9] != FACES:
            return f"{key} centres read {cube[4::9]}, expected {FACES}"
    return None


@dataclass(frozen=True)
class RubikParams:
    """ℓ canonical scramble turns; `reveal_scramble` puts them in the instance; `random_target` scrambles the goal."""

    scramble_length: int = 1
    reveal_scramble: bool = False
    random_target: bool = False

    def __post_init__(self) -> None:
        check_param(1 <= self.scramble_length <= MAX_SCRAMBLE, "scramble_length", self.scramble_length, f"1..{MAX_SCRAMBLE}")


class RubiksCube(Puzzle[RubikParams]):
    name = "rubik"
    version = 1
    title = "Rubik's Cube 3×3×3"
    trajectory_field = "moves"
    presentation_params = frozenset({"reveal_scramble"})
    params_type = RubikParams
    levels = {
        1: {"scramble_length": 1},
        2: {"scramble_length": 2},
        3: {"scramble_length": (3, 4)},
        4: {"scramble_length": (5, 6)},
        5: {"scramble_length": (7, 10)},
        6: {"scramble_length": (15, 25)},
    }
    axis = ComplexityAxis.along("scramble_length", levels, lowest=1, highest=MAX_SCRAMBLE,
                                limit=f"scrambles are drawn up to {MAX_SCRAMBLE} turns (past ~20 they grow no harder)")
    instance_schema = {
        "type": "object",
        "required": ["state", "target", "scramble"],
        "properties": {
            "state": {
                "type": "string",
                "pattern": "^[URFDLB]{54}$",
                "description": "the cube now: faces U R F D L B in turn, each face's 9 stickers row by row as drawn in the "
                "net (U above F, then L F R B left to right, D below F); a letter names the face whose centre has that colour",
            },
            "target": {
                "type": "string",
                "pattern": "^[URFDLB]{54}$",
                "description": f"the state the moves must reach, same layout (solved: {SOLVED})",
            },
            "scramble": {
                "type": ["string", "null"],
                "description": "the face turns that turned target into state, when revealed; null when hidden",
            },
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["moves"],
        "properties": {
            "moves": {
                "type": "string",
                "pattern": MOVES_PATTERN,
                "description": "face turns applied to state in order, separated by spaces (any run of spaces, tabs or "
                "newlines; leading and trailing ones allowed): U R F D L B turn that face 90° clockwise as seen facing it, "
                "X' counterclockwise, X2 a half turn; nothing else (no slices, wide turns, rotations or commas); "
                "empty only if state equals target",
            }
        },
    }

    def build(self, params: RubikParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        meta: dict[str, JSON] = {"complexity": {"scramble_length": params.scramble_length}}
        target = SOLVED
        if params.random_target:
            target_moves = _scramble(rng, TARGET_SCRAMBLE)
            target = apply_moves(SOLVED, target_moves)
            meta["target_scramble"] = _format(target_moves)
        moves = _scramble(rng, params.scramble_length)
        state = apply_moves(target, moves)
        meta["scramble"] = _format(moves)
        distance = _proven_distance(state, target, params.scramble_length)
        if distance is not None:
            meta["min_solution_length"] = distance
        instance = {"state": state, "target": target, "scramble": meta["scramble"] if params.reveal_scramble else None}
        return instance, meta

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        problem = _instance_problem(instance)
        if problem is not None:
            return reject(IssueCode.MALFORMED, f"invalid instance: {problem}")
        opened = open_answer(answer, "moves", str, 'one string of face turns such as "R U2 F\\\'"')
        if isinstance(opened, Verdict):
            return opened
        moves, issues = opened
        tokens = TOKEN.findall(moves)
        state, target = instance["state"], instance["target"]
        for index, token in enumerate(tokens):
            move = MOVE_INDEX.get(token)
            if move is None:
                message = f"move {index} {clip(token)}: not one of the 18 face turns {' '.join(MOVES)}"
                issues.add(IssueCode.UNKNOWN_TOKEN, message, step=index)
                return issues.verdict(steps_applied=index)
            state = "".join(_TURNS[move](state))
        if state != target:
            wrong = sum(a != b for a, b in zip(state, target))
            issues.add(IssueCode.GOAL_NOT_REACHED, f"{wrong} of 54 facelets differ from the target after {len(tokens)} moves")
        return issues.verdict(steps_applied=len(tokens))

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        problem = _instance_problem(instance)
        if problem is None:
            problem = next((f"{key}: {why}" for key in ("state", "target") if (why := reachability_problem(instance[key]))), None)
        if problem is not None:
            raise InstanceFormatError(f"rubik: {problem}")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        state, target = instance["state"], instance["target"]
        path = shortest(state, target, SOLVE_RADIUS)  # optimal up to 6 moves, and [] (not kociemba's 13) if solved
        if path is not None:
            return {"moves": _format(path)}
        import kociemba  # deferred: a solver library, loaded on first solve so `import puzzles` stays cheap

        return {"moves": kociemba.solve(state, target, max_depth=KOCIEMBA_DEPTH)}

    def render(self, instance: dict[str, JSON]) -> str:
        lines = _net(instance["state"])
        if instance["target"] == SOLVED:
            lines.append("target: the solved cube")
        else:
            lines += ["target:", *_net(instance["target"])]
        if instance["scramble"] is not None:
            lines.append(f"scramble: {instance['scramble']}")
        return "\n".join(lines)


def _net(cube: str) -> list[str]:
    """The cube as a net: U on top, L F R B in the middle row, D below (each face as the string stores it)."""
    faces = {face: cube[9 * i : 9 * i + 9] for i, face in enumerate(FACES)}

    def row(face: str, r: int) -> str:
        return " ".join(faces[face][3 * r : 3 * r + 3])

    pad = " " * 7
    return (
        [pad + row("U", r) for r in range(3)]
        + ["  ".join(row(face, r) for face in "LFRB") for r in range(3)]
        + [pad + row("D", r) for r in range(3)]
    )
