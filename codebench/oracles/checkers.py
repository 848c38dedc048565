"""Checker Jumping oracle: the known optimal pattern of (n + 1)² − 1 moves.

The board starts R^n _ B^n and must become B^n _ R^n; red moves right, blue moves left, by a slide
into the hole or a jump over one opposing checker. The solution moves colours in alternating runs of
1, 2, …, n, n, n, n − 1, …, 1 moves, starting with red; within a run every move goes into the hole,
by a slide when the checker next to the hole has the run's colour and otherwise by a jump. Each move
is checked as it is made, so a wrong assumption fails loudly instead of returning garbage.
"""


def solve(instance):
    n = instance["n"]
    board = list(instance["board"])
    direction = {"R": 1, "B": -1}
    runs = list(range(1, n)) + [n, n, n] + list(range(n - 1, 0, -1))
    hole = board.index("_")
    moves = []
    for run_index, length in enumerate(runs):
        colour = "RB"[run_index % 2]
        other = "B" if colour == "R" else "R"
        step = direction[colour]
        for _ in range(length):
            slide_from, jump_from = hole - step, hole - 2 * step
            if 0 <= slide_from < len(board) and board[slide_from] == colour:
                source = slide_from
            elif 0 <= jump_from < len(board) and board[jump_from] == colour and board[slide_from] == other:
                source = jump_from
            else:
                raise RuntimeError(f"no {colour} move into the hole at {hole}: {''.join(board)}")
            board[source], board[hole] = "_", colour
            moves.append([colour, source, hole])
            hole = source
    if "".join(board) != "B" * n + "_" + "R" * n:
        raise RuntimeError("the pattern did not reach the goal")
    return {"moves": moves}
