"""Rubik's Cube oracle: Thistlethwaite's four-phase algorithm, pruning tables built at start-up.

The cube is read from kociemba facelet strings (faces U R F D L B, 9 stickers each) into cubies:
corner and edge permutations and orientations. It then descends the subgroup chain

    G0 = <U, D, R, L, F, B>            all cubes
    G1 = <U, D, R, L, F2, B2>          every edge oriented              (2048 states,   table)
    G2 = <U, D, R2, L2, F2, B2>        corners oriented, E edges in E   (2187 × 495,    IDA*)
    G3 = <U2, D2, R2, L2, F2, B2>      corners in the half-turn group,  (420 × 70,      table)
                                       M and S edges in their slices
    G4 = solved                        (96 × 24 × 24 × 24 / 2,           IDA*)

Each phase only uses moves of its group, so it never undoes earlier phases. A general target is
handled by solving the relative cube target⁻¹ · state. Solutions are ~30–45 moves, never minimal.
"""

from itertools import permutations

FACES = "URFDLB"
MOVE_NAMES = [face + suffix for face in FACES for suffix in ("", "2", "'")]  # index 3·face + (quarter turns − 1)

# Cubie names (kociemba): corners URF UFL ULB UBR DFR DLF DBL DRB, edges UR UF UL UB DR DF DL DB FR FL BL BR.
# Sticker indices of each cubie position (U1 = 0, R1 = 9, F1 = 18, D1 = 27, L1 = 36, B1 = 45), first
# sticker on the U/D face; and the colours (face letters) of each cubie in the same order.
CORNER_FACELETS = [(8, 9, 20), (6, 18, 38), (0, 36, 47), (2, 45, 11), (29, 26, 15), (27, 44, 24), (33, 53, 42), (35, 17, 51)]
CORNER_COLOURS = ["URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB"]
EDGE_FACELETS = [(5, 10), (7, 19), (3, 37), (1, 46), (32, 16), (28, 25), (30, 43), (34, 52),
                 (23, 12), (21, 41), (50, 39), (48, 14)]
EDGE_COLOURS = ["UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR"]

# The six clockwise quarter turns as cubie cubes (cp, co, ep, eo): after the turn, position i holds
# what position cp[i] held, with its twist increased by co[i] (edges likewise).
QUARTER_TURNS = {
    "U": ([3, 0, 1, 2, 4, 5, 6, 7], [0] * 8, [3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11], [0] * 12),
    "R": ([4, 1, 2, 0, 7, 5, 6, 3], [2, 0, 0, 1, 1, 0, 0, 2], [8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0], [0] * 12),
    "F": ([1, 5, 2, 3, 0, 4, 6, 7], [1, 2, 0, 0, 2, 1, 0, 0], [0, 9, 2, 3, 4, 8, 6, 7, 1, 5, 10, 11],
          [0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0]),
    "D": ([0, 1, 2, 3, 5, 6, 7, 4], [0] * 8, [0, 1, 2, 3, 5, 6, 7, 4, 8, 9, 10, 11], [0] * 12),
    "L": ([0, 2, 6, 3, 4, 1, 5, 7], [0, 1, 2, 0, 0, 2, 1, 0], [0, 1, 10, 3, 4, 5, 9, 7, 8, 2, 6, 11], [0] * 12),
    "B": ([0, 1, 3, 7, 4, 5, 2, 6], [0, 0, 1, 2, 0, 0, 2, 1], [0, 1, 2, 11, 4, 5, 6, 10, 8, 9, 3, 7],
          [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1]),
}


def multiply(a, b):
    """The cube a followed by the cube b (cubes are tuples (cp, co, ep, eo))."""
    acp, aco, aep, aeo = a
    bcp, bco, bep, beo = b
    return (
        tuple(acp[j] for j in bcp),
        tuple((aco[j] + o) % 3 for j, o in zip(bcp, bco)),
        tuple(aep[j] for j in bep),
        tuple((aeo[j] + o) % 2 for j, o in zip(bep, beo)),
    )


def inverse(a):
    """The cube b with a · b = solved."""
    cp, co, ep, eo = a
    icp, iep = [0] * 8, [0] * 12
    for i, j in enumerate(cp):
        icp[j] = i
    for i, j in enumerate(ep):
        iep[j] = i
    return (tuple(icp), tuple((-co[j]) % 3 for j in icp), tuple(iep), tuple((-eo[j]) % 2 for j in iep))


SOLVED_CUBE = (tuple(range(8)), (0,) * 8, tuple(range(12)), (0,) * 12)
MOVES = []  # cubie cube of each of the 18 moves, in MOVE_NAMES order
for _face in FACES:
    _quarter = tuple(tuple(part) for part in QUARTER_TURNS[_face])
    _turn = _quarter
    for _ in range(3):
        MOVES.append(_turn)
        _turn = multiply(_turn, _quarter)


def from_facelets(facelets):
    """The cubie cube of a 54-letter facelet string; ValueError if a cubie is not a real one."""
    if not isinstance(facelets, str) or len(facelets) != 54 or facelets[4::9] != FACES:
        raise ValueError("a cube is 54 letters URFDLB with centres in URFDLB order")
    cp, co, ep, eo = [], [], [], []
    for stickers in CORNER_FACELETS:
        colours = [facelets[i] for i in stickers]
        twist = next((k for k in range(3) if colours[k] in "UD"), None)
        if twist is None:
            raise ValueError(f"corner stickers {''.join(colours)} have no U or D colour")
        name = "".join(colours[(twist + k) % 3] for k in range(3))
        if name not in CORNER_COLOURS:
            raise ValueError(f"no corner has colours {name}")
        cp.append(CORNER_COLOURS.index(name))
        co.append(twist)
    for stickers in EDGE_FACELETS:
        name = "".join(facelets[i] for i in stickers)
        if name in EDGE_COLOURS:
            ep.append(EDGE_COLOURS.index(name))
            eo.append(0)
        elif name[::-1] in EDGE_COLOURS:
            ep.append(EDGE_COLOURS.index(name[::-1]))
            eo.append(1)
        else:
            raise ValueError(f"no edge has colours {name}")
    if sorted(cp) != list(range(8)) or sorted(ep) != list(range(12)):
        raise ValueError("a cubie appears twice")
    return tuple(cp), tuple(co), tuple(ep), tuple(eo)


def parity(perm):
    """0 for an even permutation, 1 for an odd one (one flip per cycle of even length)."""
    seen, odd = set(), 0
    for start in range(len(perm)):
        length, i = 0, start
        while i not in seen:
            seen.add(i)
            i = perm[i]
            length += 1
        if length and length % 2 == 0:
            odd ^= 1
    return odd


# ---- coordinates: parts of the cube that a phase's moves act on by themselves ---------------------
# A coordinate value is a tuple (the twists, the flips, a corner permutation, or which edge sits at
# each position with the others blanked out); explore() numbers the values reachable from the goal
# and tabulates how each move changes the number.

def explore(goal, act, moves):
    """BFS over the values a coordinate takes under `moves`, from the goal value.

    Returns (index of each value, move table table[i][k], distance of each index to the goal).
    The move sets are closed under inverses, so the distance from the goal is the distance to it.
    """
    index, values, dist = {goal: 0}, [goal], [0]
    table = []
    i = 0
    while i < len(values):
        row = []
        for m in moves:
            value = act(values[i], MOVES[m])
            if value not in index:
                index[value] = len(values)
                values.append(value)
                dist.append(dist[i] + 1)
            row.append(index[value])
        table.append(row)
        i += 1
    return index, table, dist


def act_corner_perm(t, move):  # these four are the parts of multiply(cube, move)
    return tuple(t[j] for j in move[0])


def act_twist(t, move):
    return tuple((t[j] + o) % 3 for j, o in zip(move[0], move[1]))


def act_edge_perm(t, move):
    return tuple(t[j] for j in move[2])


def act_flip(t, move):
    return tuple((t[j] + o) % 2 for j, o in zip(move[2], move[3]))


def slice_of(ep, edges):
    """Which edge of `edges` sits at each position (-1 for the others)."""
    return tuple(e if e in edges else -1 for e in ep)


def combine(table_a, table_b):
    """Move table of the pair (a, b) coded a · len(table_b) + b."""
    return [[ra[k] * len(table_b) + rb[k] for k in range(len(ra))] for ra in table_a for rb in table_b]


def pair_distances(table_a, table_b, goal, max_depth=255):
    """BFS distances over pairs (a, b) coded a · len(table_b) + b, from `goal`.

    With max_depth, the search stops there and every pair not reached gets max_depth + 1, a lower
    bound on its true distance: a partial pattern database, still admissible for IDA*.
    """
    width = len(table_b)
    dist = bytearray([255]) * (len(table_a) * width)
    dist[goal] = 0
    frontier = [goal]
    for depth in range(1, max_depth + 1):
        reached = []
        for code in frontier:
            a, b = divmod(code, width)
            for na, nb in zip(table_a[a], table_b[b]):
                n = na * width + nb
                if dist[n] == 255:
                    dist[n] = depth
                    reached.append(n)
        if not reached:
            break
        frontier = reached
    if max_depth < 255:
        dist = dist.replace(bytes([255]), bytes([max_depth + 1]))
    return dist


ALL = list(range(18))
G1_MOVES = [m for m in ALL if m // 3 in (0, 3, 1, 4) or m % 3 == 1]  # U D R L any, F2 B2
G2_MOVES = [m for m in ALL if m // 3 in (0, 3) or m % 3 == 1]  # U D any, R2 L2 F2 B2
G3_MOVES = [m for m in ALL if m % 3 == 1]  # half turns only
E_EDGES, M_EDGES, S_EDGES = (8, 9, 10, 11), (1, 3, 5, 7), (0, 2, 4, 6)

# Phase 1: edge orientation.
FLIP_INDEX, FLIP_MOVE, FLIP_DIST = explore((0,) * 12, act_flip, ALL)
# Phase 2: corner twist and which positions hold E-slice edges.
TWIST_INDEX, TWIST_MOVE, TWIST_DIST = explore((0,) * 8, act_twist, G1_MOVES)
SLICE_INDEX, SLICE_MOVE, SLICE_DIST = explore(tuple(e in E_EDGES for e in range(12)), act_edge_perm, G1_MOVES)
PHASE2_DIST = pair_distances(TWIST_MOVE, SLICE_MOVE, 0, max_depth=7)  # depth ≤ 10; the full table costs 2 s
# Phase 4 needs H, the corner permutations of G3 (96 of them); phase 3 needs the cosets {h ∘ p : h ∈ H}:
# p ∘ moves lands in H exactly when the moves take p's coset to H's own (the coset of the identity).
HCORNER_INDEX, HCORNER_MOVE, _ = explore(tuple(range(8)), act_corner_perm, G3_MOVES)


def cosets(group):
    """Number each corner permutation p by its coset {h ∘ p : h ∈ group}; also one p per coset."""
    coset_of, representatives = {}, []
    for p in permutations(range(8)):  # the identity comes first: its coset gets number 0
        if p not in coset_of:
            for h in group:
                coset_of[tuple(h[x] for x in p)] = len(representatives)
            representatives.append(p)
    return coset_of, representatives


COSET_OF, _representatives = cosets(list(HCORNER_INDEX))
COSET_MOVE = [[COSET_OF[act_corner_perm(p, MOVES[m])] for m in G2_MOVES] for p in _representatives]
# Phase 3: corner coset and which of the U/D-layer positions hold M-slice edges.
SPLIT_INDEX, SPLIT_MOVE, _ = explore(tuple(e in M_EDGES for e in range(12)), act_edge_perm, G2_MOVES)
PHASE3_DIST = pair_distances(COSET_MOVE, SPLIT_MOVE, 0)  # goal values always have number 0
# Phase 4: corners in H, and the permutation inside each slice.
M_INDEX, M_MOVE, _ = explore(slice_of(range(12), M_EDGES), act_edge_perm, G3_MOVES)
S_INDEX, S_MOVE, _ = explore(slice_of(range(12), S_EDGES), act_edge_perm, G3_MOVES)
E_INDEX, E_MOVE, _ = explore(slice_of(range(12), E_EDGES), act_edge_perm, G3_MOVES)
CMS_DIST = pair_distances(combine(HCORNER_MOVE, M_MOVE), S_MOVE, 0)
CE_DIST = pair_distances(HCORNER_MOVE, E_MOVE, 0)


# ---- search --------------------------------------------------------------------------------------

def allowed(move, previous):
    """Skip a second turn of the same face, and of opposite faces in the order D→U, L→R, B→F."""
    if previous is None:
        return True
    face, last = move // 3, previous // 3
    return face != last and face != last - 3


def descend(code, dist, step, moves):
    """Follow a complete distance table down to 0; step(code, k) is the code after moves[k]."""
    path = []
    while dist[code]:
        code, k = next((step(code, k), k) for k in range(len(moves)) if dist[step(code, k)] < dist[code])
        path.append(moves[k])
    return path


def ida_star(start, heuristic, step, moves):
    """Iterative-deepening A*: a shortest list of moves[k] from start to a state of heuristic 0."""
    path = []

    def search(state, depth, bound, previous):
        h = heuristic(state)
        if h == 0:
            return True
        if depth + h > bound:
            return False
        for k, m in enumerate(moves):
            if allowed(m, previous):
                path.append(m)
                if search(step(state, k), depth + 1, bound, m):
                    return True
                path.pop()
        return False

    bound = heuristic(start)
    while not search(start, 0, bound, None):
        bound += 1
    return path


def phase1(cube):
    """Orient every edge (≤ 7 moves, read off the table)."""
    return descend(FLIP_INDEX[cube[3]], FLIP_DIST, lambda c, k: FLIP_MOVE[c][k], ALL)


def phase2(cube):
    """Orient every corner and put the E-slice edges into the E slice (≤ 10 moves, IDA*)."""
    width = len(SLICE_MOVE)
    start = (TWIST_INDEX[cube[1]], SLICE_INDEX[tuple(e in E_EDGES for e in cube[2])])
    return ida_star(
        start,
        lambda s: max(PHASE2_DIST[s[0] * width + s[1]], TWIST_DIST[s[0]], SLICE_DIST[s[1]]),
        lambda s, k: (TWIST_MOVE[s[0]][k], SLICE_MOVE[s[1]][k]),
        G1_MOVES,
    )


def phase3(cube):
    """Corners into the half-turn group's coset, M and S edges into their slices (≤ 13 moves, table)."""
    width = len(SPLIT_MOVE)
    code = COSET_OF[cube[0]] * width + SPLIT_INDEX[tuple(e in M_EDGES for e in cube[2])]

    def step(c, k):
        coset, split = divmod(c, width)
        return COSET_MOVE[coset][k] * width + SPLIT_MOVE[split][k]

    return descend(code, PHASE3_DIST, step, G2_MOVES)


def phase4(cube):
    """Solve with half turns only (≤ 15 moves, IDA*)."""
    ep = cube[2]
    start = (HCORNER_INDEX[cube[0]], M_INDEX[slice_of(ep, M_EDGES)], S_INDEX[slice_of(ep, S_EDGES)], E_INDEX[slice_of(ep, E_EDGES)])
    return ida_star(
        start,
        lambda s: max(CMS_DIST[(s[0] * 24 + s[1]) * 24 + s[2]], CE_DIST[s[0] * 24 + s[3]]),
        lambda s, k: (HCORNER_MOVE[s[0]][k], M_MOVE[s[1]][k], S_MOVE[s[2]][k], E_MOVE[s[3]][k]),
        G3_MOVES,
    )


def apply(cube, moves):
    """The cube after the moves (indices into MOVES)."""
    for m in moves:
        cube = multiply(cube, MOVES[m])
    return cube


def solve_cube(cube):
    """Move indices taking the cubie cube to solved."""
    if sum(cube[1]) % 3 or sum(cube[3]) % 2 or parity(cube[0]) != parity(cube[2]):
        raise ValueError("the cube cannot be solved (a twisted corner, a flipped edge or a swapped pair)")
    moves = []
    for phase in (phase1, phase2, phase3, phase4):
        found = phase(cube)
        cube = apply(cube, found)
        moves += found
    assert cube == SOLVED_CUBE
    return simplify(moves)


def simplify(moves):
    """Merge consecutive turns of one face (R R → R2, R R' → nothing)."""
    out = []
    for m in moves:
        if out and out[-1] // 3 == m // 3:
            face, quarters = m // 3, (out[-1] % 3 + m % 3 + 2) % 4
            out.pop()
            if quarters:
                out.append(3 * face + quarters - 1)
        else:
            out.append(m)
    return out


def solve(instance):
    state = from_facelets(instance["state"])
    target = from_facelets(instance.get("target") or "".join(f * 9 for f in FACES))
    relative = multiply(inverse(target), state)  # state · M = target  ⟺  relative · M = solved
    return {"moves": " ".join(MOVE_NAMES[m] for m in solve_cube(relative))}
