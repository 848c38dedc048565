"""SAT oracle: DPLL with two-watched-literal unit propagation and a MOMs branching heuristic.

Literals are encoded as 2·v (v true) and 2·v + 1 (v false), so `lit ^ 1` negates. Each clause
watches two of its literals; a clause is only looked at when a watched literal becomes false, and
then either finds another literal to watch, becomes unit (its other watch is implied) or conflicts.
Decisions pick the unassigned variable occurring most often in the shortest open clauses
("maximum occurrences in clauses of minimum size") and try its more frequent polarity first.
Undoing a decision pops the trail. Variables left free by a model are set to False.
"""

import sys


def solve(instance):
    n = instance["num_vars"]
    clauses = []
    for clause in instance["clauses"]:
        lits = sorted({2 * abs(x) + (x < 0) for x in clause})
        if any(lits[i] ^ 1 == lits[i + 1] for i in range(len(lits) - 1)):
            continue  # contains x and ¬x: always true
        clauses.append(lits)

    value = [None] * (2 * n + 2)  # value[lit]: True, False or None
    trail = []
    watches = [[] for _ in range(2 * n + 2)]
    units = []
    for index, lits in enumerate(clauses):
        if len(lits) == 1:
            units.append(lits[0])
        else:
            watches[lits[0]].append(index)
            watches[lits[1]].append(index)

    def assign(lit):
        value[lit], value[lit ^ 1] = True, False
        trail.append(lit)

    def propagate(queue):
        """Assign the literals in `queue` and everything they imply; False on a conflict."""
        head = len(trail)
        for lit in queue:
            if value[lit] is False:
                return False
            if value[lit] is None:
                assign(lit)
        while head < len(trail):
            false_lit = trail[head] ^ 1
            head += 1
            watching = watches[false_lit]
            i = 0
            while i < len(watching):
                lits = clauses[watching[i]]
                if lits[0] == false_lit:  # keep the false watch in slot 1
                    lits[0], lits[1] = lits[1], lits[0]
                other = lits[0]
                if value[other] is True:
                    i += 1
                    continue
                for k in range(2, len(lits)):
                    if value[lits[k]] is not False:  # a new literal to watch
                        lits[1], lits[k] = lits[k], lits[1]
                        watches[lits[1]].append(watching[i])
                        watching[i] = watching[-1]
                        watching.pop()
                        break
                else:
                    if value[other] is False:
                        return False
                    assign(other)  # unit
                    i += 1
        return True

    def choose():
        """MOMs: the unassigned variable most frequent in the shortest unsatisfied clauses."""
        best_size, score = None, {}
        for lits in clauses:
            if any(value[x] is True for x in lits):
                continue
            open_lits = [x for x in lits if value[x] is None]
            size = len(open_lits)
            if best_size is None or size < best_size:
                best_size, score = size, {}
            if size == best_size:
                for x in open_lits:
                    score[x] = score.get(x, 0) + 1
        if not score:
            return None
        var = max(range(1, n + 1), key=lambda v: (score.get(2 * v, 0) + 1) * (score.get(2 * v + 1, 0) + 1)
                  if value[2 * v] is None else -1)
        return 2 * var if score.get(2 * var, 0) >= score.get(2 * var + 1, 0) else 2 * var + 1

    def undo(mark):
        while len(trail) > mark:
            lit = trail.pop()
            value[lit] = value[lit ^ 1] = None

    def dpll():
        lit = choose()
        if lit is None:
            return True  # every clause satisfied
        for attempt in (lit, lit ^ 1):
            mark = len(trail)
            if propagate([attempt]) and dpll():
                return True
            undo(mark)
        return False

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * n + 100))
    if not (propagate(units) and dpll()):
        raise ValueError("the formula is unsatisfiable")
    return {"assignment": {str(v): value[2 * v] is True for v in range(1, n + 1)}}
