"""Checker Jumping: swap n red and n blue checkers on a 1-D board of 2n + 1 cells.

Start R^n _ B^n, goal B^n _ R^n. Red moves right, blue moves left, one cell into the empty cell
(slide) or two cells over exactly one opposing checker (jump). λ = n; every legal solution has
exactly (n+1)² − 1 moves (n² jumps, 2n slides) and there are exactly two of them.
Answer: {"moves": [[colour, from, to], …]}, colour "R" or "B", cells 0-indexed from the left.

Bounds: 1 ≤ n ≤ MAX_N = 100 for generate and solve (the constructive solver is O(n²): 10,200 moves
at n = 100). solve also requires the board to be exactly R^n _ B^n for the instance's n.

Complexity axis: λ = n, 1..MAX_N, the one parameter (the board is R^n _ B^n at every n).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ._errors import InstanceFormatError
from ._protocol import JSON, ComplexityAxis, IssueCode, Puzzle, Verdict, check_param, clip, is_int, open_answer

MAX_N = 100  # checkers of each colour, for generate and solve
EMPTY = "_"
DIRECTION = {"R": 1, "B": -1}  # the only colour tokens, and the way each colour moves


@dataclass(frozen=True)
class CheckersParams:
    """n checkers of each colour."""

    n: int = 3

    def __post_init__(self) -> None:
        check_param(1 <= self.n <= MAX_N, "n", self.n, f"1..{MAX_N}")


def start_board(n: int) -> str:
    return "R" * n + EMPTY + "B" * n


def goal_board(n: int) -> str:
    return "B" * n + EMPTY + "R" * n


class Checkers(Puzzle[CheckersParams]):
    name = "checkers"
    version = 1
    title = "Checker Jumping"
    trajectory_field = "moves"
    params_type = CheckersParams
    levels = {
        1: {"n": 1},
        2: {"n": 2},
        3: {"n": 3},
        4: {"n": (4, 5)},
        5: {"n": (6, 8)},
        6: {"n": (10, 15)},
    }
    axis = ComplexityAxis.along("n", levels, lowest=1, highest=MAX_N,
                                limit=f"generate and solve share the bound n ≤ {MAX_N} ({(MAX_N + 1) ** 2 - 1} moves)")
    instance_schema = {
        "type": "object",
        "required": ["n", "board"],
        "properties": {
            "n": {"type": "integer", "minimum": 1, "description": "checkers of each colour"},
            "board": {
                "type": "string",
                "pattern": "^R+_B+$",
                "description": "start board R^n _ B^n, cell 0 on the left; the goal is B^n _ R^n",
            },
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["moves"],
        "properties": {
            "moves": {
                "type": "array",
                "description": (
                    "[colour, from_cell, to_cell], cells 0-indexed from the left; R moves right, B moves left, "
                    "one cell into the empty cell or two cells jumping over exactly one opposing checker"
                ),
                "items": {
                    "type": "array",
                    "prefixItems": [{"enum": ["R", "B"]}, {"type": "integer", "minimum": 0}, {"type": "integer", "minimum": 0}],
                    "minItems": 3,
                    "maxItems": 3,
                },
            }
        },
    }

    def build(self, params: CheckersParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        n = params.n
        instance = {"n": n, "board": start_board(n)}
        meta = {
            "complexity": {"n": n},
            "min_solution_length": (n + 1) ** 2 - 1,
            "solution_count": 2,
            "jumps": n * n,
            "slides": 2 * n,
        }
        return instance, meta

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        opened = open_answer(answer, "moves", list, 'a list of [colour, from, to]')
        if isinstance(opened, Verdict):
            return opened
        moves, issues = opened
        board = list(instance["board"])
        for index, move in enumerate(moves):
            problem = self._apply(board, move)
            if problem is not None:
                code, message = problem
                issues.add(code, f"move {index} {clip(move)}: {message}", step=index)
                return issues.verdict(steps_applied=index)
        final, goal = "".join(board), goal_board(instance["n"])
        if final != goal:
            issues.add(IssueCode.GOAL_NOT_REACHED, f"after {len(moves)} moves the board is {final}, not {goal}")
        return issues.verdict(steps_applied=len(moves))

    @staticmethod
    def _apply(board: list[str], move: JSON) -> tuple[IssueCode, str] | None:
        """Apply one move in place, or say why it is illegal; bounds come before any indexing."""
        if type(move) is not list or len(move) != 3:
            return IssueCode.MALFORMED, "a move is a list [colour, from, to]"
        colour, source, target = move
        if type(colour) is not str or colour not in DIRECTION:
            return IssueCode.UNKNOWN_TOKEN, 'colour must be "R" or "B"'
        if type(source) is not int or type(target) is not int:
            return IssueCode.BAD_VALUE, "cells must be integers"
        if not (0 <= source < len(board) and 0 <= target < len(board)):
            return IssueCode.BAD_VALUE, f"cells must be 0..{len(board) - 1}"
        if board[source] != colour:
            return IssueCode.ILLEGAL_MOVE, f"cell {source} holds {board[source]}, not {colour}"
        if board[target] != EMPTY:
            return IssueCode.ILLEGAL_MOVE, f"cell {target} is not empty"
        direction = DIRECTION[colour]
        distance = (target - source) * direction
        if distance < 0:
            return IssueCode.ILLEGAL_MOVE, f"{colour} may only move {'right' if direction > 0 else 'left'}"
        if distance > 2:
            return IssueCode.ILLEGAL_MOVE, "a checker moves one cell (slide) or two (jump)"
        if distance == 2 and board[source + direction] != ("B" if colour == "R" else "R"):
            return IssueCode.ILLEGAL_MOVE, f"a jump must pass over one opposing checker, not {board[source + direction]}"
        board[source], board[target] = EMPTY, colour
        return None

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        n, board = instance.get("n"), instance.get("board")
        if not is_int(n) or not 1 <= n <= MAX_N:
            raise InstanceFormatError(f"checkers: n={clip(n)}: expected an integer 1..{MAX_N}")
        if board != start_board(n):
            raise InstanceFormatError(f"checkers: board {clip(board)} does not match n={n}: expected {clip(start_board(n))}")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        """Runs of 1, 2, …, n−1, n, n, n, n−1, …, 1 moves, colours alternating from R, each into the hole."""
        n = instance["n"]
        board = list(instance["board"])
        hole = board.index(EMPTY)
        runs = [*range(1, n), n, n, n, *range(n - 1, 0, -1)]
        moves: list[list[JSON]] = []
        for k, run in enumerate(runs):
            colour = "RB"[k % 2]
            direction = DIRECTION[colour]
            for _ in range(run):
                source = hole - direction if board[hole - direction] == colour else hole - 2 * direction
                moves.append([colour, source, hole])
                board[source], board[hole] = EMPTY, colour
                hole = source
        return {"moves": moves}

    def render(self, instance: dict[str, JSON]) -> str:
        n = instance["n"]
        width = len(str(2 * n))
        cells = " ".join(str(i).rjust(width) for i in range(2 * n + 1))
        start = " ".join(c.rjust(width) for c in instance["board"])
        goal = " ".join(c.rjust(width) for c in goal_board(n))
        return (
            f"cell:  {cells}\nstart: {start}\ngoal:  {goal}\n"
            "R moves right, B moves left: slide into the empty cell or jump over one opposing checker"
        )
