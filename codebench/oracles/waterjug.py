"""Water Jug oracle: breadth-first search over the (A, B) contents, which finds a shortest plan.

From (0, 0) each of the six actions leads to one state; BFS stops at the first state where either
jug holds the target and replays the parent links. At most (a + 1)(b + 1) states are visited.
"""

from collections import deque

ACTIONS = ("Fill A", "Fill B", "Empty A", "Empty B", "Pour A to B", "Pour B to A")


def apply(state, action, a, b):
    x, y = state
    if action == "Fill A":
        return a, y
    if action == "Fill B":
        return x, b
    if action == "Empty A":
        return 0, y
    if action == "Empty B":
        return x, 0
    if action == "Pour A to B":
        moved = min(x, b - y)
        return x - moved, y + moved
    moved = min(y, a - x)
    return x + moved, y - moved


def solve(instance):
    a, b = instance["capacities"]["A"], instance["capacities"]["B"]
    target = instance["target"]
    start = (0, 0)
    parent = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if target in state:
            steps = []
            while parent[state] is not None:
                state, action = parent[state]
                steps.append(action)
            return {"steps": steps[::-1]}
        for action in ACTIONS:
            nxt = apply(state, action, a, b)
            if nxt not in parent:
                parent[nxt] = (state, action)
                queue.append(nxt)
    raise ValueError(f"{target} cannot be measured with jugs of {a} and {b}")
