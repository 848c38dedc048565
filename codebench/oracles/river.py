"""River crossing (jealous husbands) oracle: breadth-first search over couple-type counts.

Couples are interchangeable, so a state is the boat's side plus how many couples are in each
situation: (husband side, wife side) ∈ {LL, LR, RL, RR}. A trip takes from the boat's bank some
whole couples, lone husbands or lone wives of couples that are both there, and husbands or wives
whose spouse is already across. A group (boat or bank) is safe when it holds no husband or every
wife in it has her husband with her. BFS gives a minimal plan in counts, which is then replayed
with concrete labels (the lowest-numbered couples of each kind).
"""

from collections import deque
from itertools import product


def safe(husbands, lone_wives):
    """Is a group with `husbands` husbands and `lone_wives` wives (husband elsewhere) safe?"""
    return husbands == 0 or lone_wives == 0


def bank_ok(counts, side):
    """Is the bank `side` ("L"/"R") safe?  counts maps (husband side, wife side) to a number."""
    husbands = sum(k for (h, _), k in counts.items() if h == side)
    lone_wives = sum(k for (h, w), k in counts.items() if w == side and h != side)
    return safe(husbands, lone_wives)


def trips(counts, side, capacity):
    """Safe boat loads from bank `side`: (couples, lone husbands, lone wives, split husbands, split wives)."""
    here = (side, side)
    husband_only = (side, "R" if side == "L" else "L")
    wife_only = husband_only[::-1]
    both, hus, wif = counts[here], counts[husband_only], counts[wife_only]
    small = min(capacity, max(both, hus, wif)) + 1  # no count on a boat exceeds its capacity
    for couples, lone_h, lone_w, split_h, split_w in product(range(small), repeat=5):
        people = 2 * couples + lone_h + lone_w + split_h + split_w
        if not 1 <= people <= capacity or couples + lone_h + lone_w > both or split_h > hus or split_w > wif:
            continue
        if safe(couples + lone_h + split_h, lone_w + split_w):
            yield couples, lone_h, lone_w, split_h, split_w


def cross(counts, side, load):
    """Counts after the boat carries `load` from `side` to the other bank."""
    other = "R" if side == "L" else "L"
    couples, lone_h, lone_w, split_h, split_w = load
    new = dict(counts)
    new[(side, side)] -= couples + lone_h + lone_w
    new[(other, other)] += couples + split_h + split_w
    new[(other, side)] += lone_h - split_w  # husband crossed, wife stayed; split wives rejoin husbands
    new[(side, other)] += lone_w - split_h
    return new


def key(counts, side):
    return side, tuple(sorted(counts.items()))


def solve(instance):
    capacity = instance["capacity"]
    couples = sorted({int(label[2:]) for label in instance["people"]})
    empty = {(h, w): 0 for h in "LR" for w in "LR"}
    start, finish = dict(empty), dict(empty)
    start[("L", "L")] = finish[("R", "R")] = len(couples)
    goal = key(finish, "R")
    parent = {key(start, "L"): None}
    queue = deque([(start, "L")])
    while queue:
        counts, side = queue.popleft()
        if key(counts, side) == goal:
            break
        for load in trips(counts, side, capacity):
            new, new_side = cross(counts, side, load), "R" if side == "L" else "L"
            if bank_ok(new, "L") and bank_ok(new, "R") and key(new, new_side) not in parent:
                parent[key(new, new_side)] = (key(counts, side), load)
                queue.append((new, new_side))
    else:
        raise ValueError(f"{len(couples)} couples cannot cross with a boat for {capacity}")
    loads = []
    state = goal
    while parent[state] is not None:
        state, load = parent[state]
        loads.append(load)
    return {"trips": replay(couples, loads[::-1])}


def replay(couples, loads):
    """Turn count loads into passenger labels, tracking where each husband and wife is."""
    where = {i: ["L", "L"] for i in couples}  # couple -> [husband side, wife side]
    trips_out = []
    for step, (n_couples, lone_h, lone_w, split_h, split_w) in enumerate(loads):
        side = "LR"[step % 2]
        both = [i for i in couples if where[i] == [side, side]]
        husband_only = [i for i in couples if where[i][0] == side != where[i][1]]
        wife_only = [i for i in couples if where[i][1] == side != where[i][0]]
        riders = [(i, True, True) for i in both[:n_couples]]
        riders += [(i, True, False) for i in both[n_couples:n_couples + lone_h]]
        riders += [(i, False, True) for i in both[n_couples + lone_h:n_couples + lone_h + lone_w]]
        riders += [(i, True, False) for i in husband_only[:split_h]] + [(i, False, True) for i in wife_only[:split_w]]
        other = "R" if side == "L" else "L"
        labels = []
        for couple, husband, wife in riders:
            if husband:
                labels.append(f"A_{couple}")
                where[couple][0] = other
            if wife:
                labels.append(f"a_{couple}")
                where[couple][1] = other
        trips_out.append(labels)
    return trips_out
