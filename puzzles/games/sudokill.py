"""SudoKill and SudoKillM (PuzzlePlex §2.8): two players take turns filling one empty cell of a Sudoku grid.

The grid is N×N (N = 4 or 9, boxes √N×√N) with 0 for an empty cell. A move fills an empty cell of the allowed set
with a value 1..N not yet in its row, column or box. The allowed set is every empty cell at first; after a move at
(r, c) it is every empty cell of row r or column c, and when there is none, every empty cell of the board ("empty"
means unfilled, even when no value fits there). A player who has no legal move loses: a full board is the case where
the last mover wins. Setup as PuzzlePlex: a complete grid by backtracking (cells in row-major order, each trying
the values in a random order), then the cells shuffled and the first `blanks` of them emptied.

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.8, §6):
- A player to move with no legal move loses at once: the game ends there (PuzzlePlex makes them move and scores the
  forced illegal move as the loss; the result is the same).
- A move is the object {"row": r, "col": c, "value": v}, 0-based JSON integers as in the prompts; no tuples, no
  lists, no strings.
- Nothing is hidden: the grid and the opponent's last move are in every observation (PuzzlePlex handed strategies
  its live grid; here it is a copy).
- SudoKillM shows the same observation plus the board as a PNG (base64, under "image"): PuzzlePlex's picture, 450
  pixels square, cells 450 // N, lines 4 pixels wide every √N cells and 2 otherwise, digits centred at 48 pt (4×4) or
  33 pt (9×9). It is black on white without anti-aliasing, in Pillow's bundled font rather than DejaVuSans (which
  not every machine has), so the picture is the same bytes wherever the Pillow version is the same; it is put together from
  cached bands of one row of cells each (`_png`), so a move re-draws one band instead of the whole picture. Its setups
  are its own (the setup's RNG is named after the game): seed s is not SudoKill's seed s.
Levels 1 and 2 are PuzzlePlex's easy (4×4, 8–12 blanks) and normal (9×9, 30–40 blanks); 3 empties more (9×9,
41–50). λ = (N, blanks); at level 1 the meta holds the exact game value (`first_player_wins`).
The reference strategy searches: a three-valued negamax (won, lost, unknown at the depth reached) with a table of
proven positions, to the end at once when at most EXHAUSTIVE_EMPTY cells are empty (within EXHAUSTIVE_NODES
positions: every 4×4 game is solved outright), else by iterative deepening within SEARCH_NODES positions a move
(9×9 games get solved from about 20–25 empty cells on); about 0.05 s a move, at most 0.15 s. It plays a proven win
when it finds one; otherwise, among the moves not proven lost, the one that leaves the opponent the most replies:
an open position keeps a fallible opponent choosing among many moves, several of them blunders, while the search
closes in on the endgame (in trials, leaving the fewest replies instead won 51 of 60 9×9 games against random where
this won 59).
Measured over the 50 level-2 seeds in each seat: 49 and 48 wins against random, 48 and 45 against PuzzlePlex's
killer-move baseline (42 and 42 at level 1, where the reference is exact).
"""

from __future__ import annotations

import base64
import functools
import math
import random
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._png import Band, band, palette_png
from ._protocol import Game, State, WinnerTakesAll

JSON = Any
SEARCH_NODES = 5000  # positions the reference examines a move, at most, when it deepens step by step
EXHAUSTIVE_EMPTY = 16  # empty cells up to which it searches to the end at once
EXHAUSTIVE_NODES = 20_000  # positions it examines then, at most (small positions are quick to examine)
_BOARD_PX = 450


class SudoKill(WinnerTakesAll):
    name: ClassVar[str] = "sudokill"
    title: ClassVar[str] = "SudoKill"
    levels: ClassVar[dict[int, dict[str, object]]] = {
        1: {"size": 4, "blanks": (8, 12)}, 2: {"size": 9, "blanks": (30, 40)}, 3: {"size": 9, "blanks": (41, 50)}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["row", "col", "value"], "additionalProperties": False,
        "properties": {
            "row": {"type": "integer", "minimum": 0, "description": "0-based row of an empty cell you may fill"},
            "col": {"type": "integer", "minimum": 0, "description": "0-based column of that cell"},
            "value": {"type": "integer", "minimum": 1, "description": "1..N, not yet in the cell's row, column or box"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        size, blanks = params["size"], params["blanks"]
        grid = _solution(size, rng)
        cells = [(r, c) for r in range(size) for c in range(size)]
        rng.shuffle(cells)
        for r, c in cells[:blanks]:
            grid[r][c] = 0
        meta: dict[str, JSON] = {"complexity": {"size": size, "blanks": blanks}}
        if size == 4:
            meta["first_player_wins"] = _Board(grid).solve()
        return {"grid": grid, "last_move": None, "to_move": 0, "winner": None}, meta

    def _observe(self, state: State, player: int) -> JSON:
        return {"grid": state["grid"], "opponent_last_move": state["last_move"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"row", "col", "value"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"row": r, "col": c, "value": v}')
        grid = state["grid"]
        size = len(grid)
        for key, low, high in (("row", 0, size - 1), ("col", 0, size - 1), ("value", 1, size)):
            if not is_int(move[key]):
                return reject(IssueCode.BAD_VALUE, f"{key} {clip(move[key])} is not an integer")
            if not low <= move[key] <= high:
                return reject(IssueCode.BAD_VALUE, f"{key} {move[key]} is outside {low}..{high}")
        row, col, value = move["row"], move["col"], move["value"]
        if grid[row][col]:
            return reject(IssueCode.ILLEGAL_MOVE, f"cell ({row}, {col}) is already filled")
        last = state["last_move"]
        if last is not None and row != last["row"] and col != last["col"] and (
                0 in grid[last["row"]] or any(line[last["col"]] == 0 for line in grid)):
            return reject(IssueCode.ILLEGAL_MOVE,
                          f"cell ({row}, {col}) is neither in row {last['row']} nor in column {last['col']} of the last move")
        box = math.isqrt(size)
        top, left = row - row % box, col - col % box
        if (value in grid[row] or any(line[col] == value for line in grid)
                or any(value in grid[r][left:left + box] for r in range(top, top + box))):
            return reject(IssueCode.ILLEGAL_MOVE, f"{value} is already in row {row}, column {col} or their box")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        state["grid"][move["row"]][move["col"]] = move["value"]
        state["last_move"] = {"row": move["row"], "col": move["col"], "value": move["value"]}
        state["to_move"] = 1 - player
        if not _Board(state["grid"]).can_move(move["row"] * len(state["grid"]) + move["col"]):
            state["winner"] = player  # the next player cannot move (a full board is one such case): they lose
        return state

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        grid = observation["grid"]
        size = len(grid)
        return [_move(cell, value, size) for cell, value in _Board(grid).moves(_last_cell(observation["opponent_last_move"], size))]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A proven win if the search finds one, else the unrefuted move leaving the opponent the most replies."""
        grid = observation["grid"]
        size = len(grid)
        choice = _Board(grid).choose(_last_cell(observation["opponent_last_move"], size))
        return _move(*choice, size) if choice else None

    def render(self, state: State) -> str:
        rows = [" ".join(str(v) if v else "." for v in row) for row in state["grid"]]
        last = state["last_move"]
        rows.append(f"last move: ({last['row']}, {last['col']}) = {last['value']}" if last else "no move yet")
        rows.append(f"winner: player {state['winner']}" if state["winner"] is not None else f"to move: player {state['to_move']}")
        return "\n".join(rows)

    def render_png(self, state: State) -> bytes:
        """PuzzlePlex's picture of the grid: black digits in a ruled square, empty cells blank."""
        grid = state["grid"]
        bands = [_band(len(grid), r, tuple(row)) for r, row in enumerate(grid)]
        return palette_png(_BOARD_PX, _BOARD_PX, 1, ((255, 255, 255), (0, 0, 0)), bands)


class SudoKillM(SudoKill):
    """SudoKill with the board also shown as a PNG image (base64, under "image") in every observation."""

    name: ClassVar[str] = "sudokillm"
    title: ClassVar[str] = "SudoKillM"

    def _observe(self, state: State, player: int) -> JSON:
        return {**super()._observe(state, player), "image": base64.b64encode(self.render_png(state)).decode("ascii")}


def _move(cell: int, value: int, size: int) -> JSON:
    return {"row": cell // size, "col": cell % size, "value": value}


def _last_cell(last_move: JSON, size: int) -> int | None:
    return None if last_move is None else last_move["row"] * size + last_move["col"]


def _solution(size: int, rng: random.Random) -> list[list[int]]:
    """A complete grid, as PuzzlePlex builds it: backtracking over the cells in row-major order, values shuffled."""
    grid = [[0] * size for _ in range(size)]
    box = math.isqrt(size)

    def fits(r: int, c: int, value: int) -> bool:
        top, left = r - r % box, c - c % box
        return (value not in grid[r] and all(grid[i][c] != value for i in range(size))
                and all(grid[i][j] != value for i in range(top, top + box) for j in range(left, left + box)))

    def fill(cell: int) -> bool:
        if cell == size * size:
            return True
        r, c = divmod(cell, size)
        for value in rng.sample(range(1, size + 1), size):
            if fits(r, c, value):
                grid[r][c] = value
                if fill(cell + 1):
                    return True
                grid[r][c] = 0
        return False

    fill(0)
    return grid


@functools.lru_cache(maxsize=None)
def _units(size: int) -> tuple[tuple[int, int, int], ...]:
    """The row, column and box of each cell (row-major), as indices into `_Board.used`."""
    box = math.isqrt(size)
    return tuple((cell // size, size + cell % size, 2 * size + (cell // size) // box * box + (cell % size) // box)
                 for cell in range(size * size))


_VALUES = tuple(tuple(value for value in range(1, 10) if mask >> value & 1) for mask in range(1 << 10))  # mask → values


class _OutOfNodes(Exception):
    """The search budget is spent: the deepening iteration under way is dropped."""


class _Board:
    """A grid as flat cell values with the values used per row, column and box as bit masks, for fast search."""

    def __init__(self, grid: list[list[int]]) -> None:
        self.size = size = len(grid)
        self.values = [v for row in grid for v in row]
        self.units = _units(size)
        self.all_values = (1 << (size + 1)) - 2
        self.used = used = [0] * (3 * size)  # rows, then columns, then boxes
        for cell, value in enumerate(self.values):
            if value:
                for unit in self.units[cell]:
                    used[unit] |= 1 << value
        self.nodes = 0
        self.proven: dict[tuple[bytes, int | None], int] = {}

    def place(self, cell: int, value: int) -> None:
        row, col, box = self.units[cell]
        bit = 1 << value
        self.used[row] |= bit
        self.used[col] |= bit
        self.used[box] |= bit
        self.values[cell] = value

    def clear(self, cell: int, value: int) -> None:
        row, col, box = self.units[cell]
        bit = ~(1 << value)
        self.used[row] &= bit
        self.used[col] &= bit
        self.used[box] &= bit
        self.values[cell] = 0

    def region(self, last: int | None) -> tuple[list[int], int | None]:
        """The allowed cells after a move at `last`, and `last` if its row and column bound them (None: anywhere)."""
        size, values = self.size, self.values
        if last is not None:
            row, col = divmod(last, size)
            cells = [i for i in range(row * size, row * size + size) if not values[i]]
            cells += [i for i in range(col, size * size, size) if not values[i] and i // size != row]
            if cells:
                return cells, last
        return [i for i, value in enumerate(values) if not value], None

    def moves_in(self, cells: list[int]) -> list[tuple[int, int]]:
        """Every (cell, value) that fits, over `cells`."""
        used, units, everything = self.used, self.units, self.all_values
        found = []
        for cell in cells:
            row, col, box = units[cell]
            found += [(cell, value) for value in _VALUES[everything & ~(used[row] | used[col] | used[box])]]
        return found

    def moves(self, last: int | None) -> list[tuple[int, int]]:
        return self.moves_in(self.region(last)[0])

    def can_move(self, last: int | None) -> bool:
        used, units, everything = self.used, self.units, self.all_values
        return any(everything & ~(used[units[cell][0]] | used[units[cell][1]] | used[units[cell][2]]) for cell in self.region(last)[0])

    def solve(self) -> bool:
        """Whether the player to move at the start wins with best play (an exhaustive search)."""
        self.nodes = 1 << 62
        return self._value(None, self.size * self.size) == 1

    def choose(self, last: int | None) -> tuple[int, int] | None:
        """The reference's move after a move at `last` (see the module docstring), or None if there is none."""
        moves = self.moves(last)
        if not moves:
            return None
        empty = self.values.count(0)
        exhaustive = empty <= EXHAUSTIVE_EMPTY  # small enough to search to the end at once, rather than deepening
        values, depth = [0] * len(moves), empty if exhaustive else 1
        self.nodes = EXHAUSTIVE_NODES if exhaustive else SEARCH_NODES
        try:
            while 1 not in values and 0 in values and depth <= empty:
                found: list[int] = []
                for cell, value in moves:
                    found.append(-self._after(cell, value, depth - 1))
                    if found[-1] == 1:
                        break
                values = found + [0] * (len(moves) - len(found))
                depth += 1
        except _OutOfNodes:
            pass
        if 1 in values:
            return moves[values.index(1)]
        open_moves = [move for move, value in zip(moves, values) if value == 0] or moves
        return max(open_moves, key=lambda move: self._replies(*move))

    def _after(self, cell: int, value: int, depth: int) -> int:
        self.place(cell, value)
        try:
            return self._value(cell, depth)
        finally:
            self.clear(cell, value)

    def _replies(self, cell: int, value: int) -> int:
        self.place(cell, value)
        count = len(self.moves(cell))
        self.clear(cell, value)
        return count

    def _value(self, last: int | None, depth: int) -> int:
        """1 if the player to move wins, −1 if they lose, 0 if `depth` more moves cannot tell; proofs are kept."""
        cells, bound = self.region(last)
        key = (bytes(self.values), bound)
        known = self.proven.get(key)
        if known is not None:
            return known
        self.nodes -= 1
        if self.nodes < 0:
            raise _OutOfNodes
        moves = self.moves_in(cells)
        if not moves:
            self.proven[key] = -1
            return -1
        if depth == 0:
            return 0
        best = -1
        for cell, value in moves:
            result = -self._after(cell, value, depth - 1)
            if result == 1:
                self.proven[key] = 1
                return 1
            best = max(best, result)
        if best == -1:
            self.proven[key] = -1
        return best


@functools.lru_cache(maxsize=2048)
def _band(size: int, row: int, values: tuple[int, ...]) -> Band:
    """The pixel rows of one row of cells (the last one down to the picture's edge), with its digits."""
    cell = _BOARD_PX // size
    top, bottom = row * cell, _BOARD_PX if row == size - 1 else (row + 1) * cell
    image = _empty_board(size).crop((0, top, _BOARD_PX, bottom))
    for col, value in enumerate(values):
        if value:
            image.paste(1, (col * cell, 0), _digit(size, value))
    packed = image.tobytes("raw", "P;1")
    stride = (_BOARD_PX + 7) // 8
    return band(b"".join(b"\0" + packed[at:at + stride] for at in range(0, len(packed), stride)))


@functools.lru_cache(maxsize=None)
def _digit(size: int, value: int) -> Any:
    """A cell-sized mask of the digit, centred (a PIL image): glyphs are drawn once, then pasted."""
    from PIL import Image, ImageDraw, ImageFont

    cell = _BOARD_PX // size
    mask = Image.new("1", (cell, cell), 0)
    draw = ImageDraw.Draw(mask)
    draw.text((cell // 2, cell // 2), str(value), fill=1, font=ImageFont.load_default(48 if size == 4 else 33), anchor="mm")
    return mask


@functools.lru_cache(maxsize=None)
def _empty_board(size: int) -> Any:
    """The ruled square without digits (a PIL image, palette 0 white, 1 black)."""
    from PIL import Image, ImageDraw

    cell, box = _BOARD_PX // size, math.isqrt(size)
    image = Image.new("P", (_BOARD_PX, _BOARD_PX), 0)
    draw = ImageDraw.Draw(image)
    for i in range(size + 1):
        width = 4 if i % box == 0 else 2
        draw.line([(i * cell, 0), (i * cell, _BOARD_PX)], fill=1, width=width)
        draw.line([(0, i * cell), (_BOARD_PX, i * cell)], fill=1, width=width)
    return image
