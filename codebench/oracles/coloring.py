"""Graph colouring oracle: DSATUR-ordered backtracking with forward checking.

Every node keeps a bitmask of colours still allowed. The next node to colour is the one with the
fewest colours left (highest saturation), ties broken by most uncoloured neighbours. Colouring a
node removes its colour from its neighbours' masks (forward checking); a neighbour left with no
colour is a dead end, and one left with a single colour is coloured at once (propagation). Colour
symmetry is broken by never opening more than one new colour at a time. Answer colours are 1..k.
"""

import sys


def solve(instance):
    n, k = instance["num_nodes"], instance["num_colors"]
    neighbours = [set() for _ in range(n)]
    for u, v in instance["edges"]:
        if u == v:
            raise ValueError(f"node {u} has a self-loop")
        neighbours[u].add(v)
        neighbours[v].add(u)
    allowed = [(1 << k) - 1] * n  # bit c set: colour c + 1 still possible
    colour = [0] * n  # 0 = uncoloured

    def assign(node, c, changes):
        """Colour `node` with c and propagate singletons; log (node, None) or (node, old mask) for undo."""
        stack = [(node, c)]
        while stack:
            v, c = stack.pop()
            if colour[v]:
                if colour[v] != c:
                    return False
                continue
            colour[v] = c
            changes.append((v, None))
            bit = 1 << (c - 1)
            for w in neighbours[v]:
                if allowed[w] & bit:
                    if colour[w] == c:
                        return False
                    changes.append((w, allowed[w]))
                    allowed[w] &= ~bit
                    if allowed[w] == 0:
                        return False
                    if not colour[w] and allowed[w] & (allowed[w] - 1) == 0:
                        stack.append((w, allowed[w].bit_length()))
        return True

    def undo(changes):
        for v, old in reversed(changes):
            if old is None:
                colour[v] = 0
            else:
                allowed[v] = old

    def pick():
        """DSATUR: fewest colours left, then most uncoloured neighbours; None when all are coloured."""
        best, best_key = None, None
        for v in range(n):
            if not colour[v]:
                key = (bin(allowed[v]).count("1"), -sum(1 for w in neighbours[v] if not colour[w]))
                if best_key is None or key < best_key:
                    best, best_key = v, key
        return best

    def search(opened):
        node = pick()
        if node is None:
            return True
        for c in range(1, min(k, opened + 1) + 1):
            if allowed[node] >> (c - 1) & 1:
                changes = []
                if assign(node, c, changes) and search(max(colour)):
                    return True
                undo(changes)
        return False

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 2 * n + 100))
    if not search(0):
        raise ValueError(f"the graph has no {k}-colouring")
    return {"coloring": {str(v): colour[v] for v in range(n)}}
