"""Sudoku oracle: bitmask candidates, naked and hidden singles, MRV backtracking.

Works for any N×N grid whose regions are rectangular boxes ("box": [rows, cols]) or a jigsaw
("regions": N×N region ids). Each cell holds a bitmask of digits no peer excludes (bit d − 1 for
digit d). Propagation repeats two rules to a fixpoint: a cell with one candidate removes it from
its peers (naked single), and a digit with one possible cell in a unit goes there (hidden single).
If cells remain open, the search branches on the cell with the fewest candidates (MRV) on a copy.
"""


def solve(instance):
    n, grid = instance["size"], instance["grid"]
    if instance.get("regions") is not None:
        region = [row[:] for row in instance["regions"]]
    else:
        box_rows, box_cols = instance["box"]
        region = [[(r // box_rows) * (n // box_cols) + c // box_cols for c in range(n)] for r in range(n)]

    units = [[r * n + c for c in range(n)] for r in range(n)]
    units += [[r * n + c for r in range(n)] for c in range(n)]
    by_region = {}
    for r in range(n):
        for c in range(n):
            by_region.setdefault(region[r][c], []).append(r * n + c)
    units += list(by_region.values())
    peers = [set() for _ in range(n * n)]
    for unit in units:
        for cell in unit:
            peers[cell].update(unit)
    peers = [sorted(p - {cell}) for cell, p in enumerate(peers)]
    full = (1 << n) - 1

    def propagate(cands):
        """Naked and hidden singles to a fixpoint, in place; False on a contradiction."""
        changed = True
        while changed:
            changed = False
            for cell in range(n * n):
                mask = cands[cell]
                if mask == 0:
                    return False
                if mask & (mask - 1) == 0:
                    for p in peers[cell]:
                        if cands[p] & mask:
                            cands[p] &= ~mask
                            if cands[p] == 0:
                                return False
                            changed = True
            for unit in units:
                seen_once = seen_twice = 0
                for cell in unit:
                    seen_twice |= seen_once & cands[cell]
                    seen_once |= cands[cell]
                if seen_once != full:
                    return False  # some digit has no place in this unit
                only_here = seen_once & ~seen_twice
                if only_here:
                    for cell in unit:
                        hidden = cands[cell] & only_here
                        if hidden and cands[cell] != hidden:
                            if hidden & (hidden - 1):
                                return False  # two digits that must both go in one cell
                            cands[cell] = hidden
                            changed = True
        return True

    def search(cands):
        if not propagate(cands):
            return None
        open_cells = [(bin(mask).count("1"), cell) for cell, mask in enumerate(cands) if mask & (mask - 1)]
        if not open_cells:
            return cands
        _, cell = min(open_cells)
        mask = cands[cell]
        while mask:
            bit = mask & -mask
            mask ^= bit
            trial = cands[:]
            trial[cell] = bit
            found = search(trial)
            if found is not None:
                return found
        return None

    start = [full if v == 0 else 1 << (v - 1) for row in grid for v in row]
    solved = search(start)
    if solved is None:
        raise ValueError("the sudoku has no solution")
    flat = [mask.bit_length() for mask in solved]
    return {"grid": [flat[r * n:(r + 1) * n] for r in range(n)]}
