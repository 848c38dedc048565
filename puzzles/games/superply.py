"""Superply and SuperplyM (PuzzlePlex §2.11): two players claim cells of an N×N board, a random hint saying which.

Player 1 (seat 0) writes 1s and wants a path of 1s from the left column to the right one; player 2 writes 2s and
wants one from the top row to the bottom row. A path steps to any of the 8 neighbours (sides and corners). Each turn
has a hint "<operation> <condition>" on the cell's 1-based (row, col): the operation is the sum r + c, the product
r·c or the difference |r − c|; the condition "is less than v1", "is greater than v1", "contains digit v1", "is even",
"is odd" or "is between v1 and v2, inclusive". A move names a cell: an empty cell the hint allows is claimed, and a
new hint is drawn; any other cell of the board (taken, or not allowed) is a miss: nothing changes, the hint stays,
and the mover's error count goes up. The turn passes either way. Whoever completes their path wins; whoever reaches
15 errors loses. A full board always holds a path (a board without an 8-connected left–right path of 1s has a
4-connected top–bottom path of 2s), so the game cannot end in a tie. Hints are drawn as PuzzlePlex draws them: an
operation and a condition uniformly, v1 from 0..N² for less/greater, 0..9 for a digit, and for between v1 from
0..N²−1 then v2 from v1+1..N²; redrawn until some empty cell satisfies them. The first hint comes from the setup's
RNG, every later one from `env_rng`, which no player touches.

Decisions where PuzzlePlex's engine and prompts differ or are silent (spec §2.11, §6):
- The hint is kept as data ({"text", "operation", "condition", "v1", "v2"}) and judged from it, never re-parsed
  from its text: PuzzlePlex's re-parse breaks "between v1 and v2" whenever str(v1) is inside str(v2), leaving a hint
  no cell satisfies for the rest of the game (§6.4).
- Hints come from the environment's own RNG: in PuzzlePlex they shared `random` with the players' code (§6.2).
- A move is {"row": r, "col": c} with JSON integers 1..N; anything else is refused and loses (PuzzlePlex let 0 and
  negative indices wrap to the far side, and counted other junk as a miss). Taken or hint-breaking cells are misses,
  as the prompts say ("no changes are made, and the turn passes"); the 15-error limit, which the prompts never state,
  is in every observation (`max_errors`).
- Players are 1 and 2 in the observation (`player`), as the code prompt says; PuzzlePlex's engine sent 0 and 1.
- SuperplyM draws player 2 blue, as its prompt says (PuzzlePlex drew green), so the row and column labels are dark
  grey rather than blue; sizes and positions are PuzzlePlex's: (N+1)·60 + 80 pixels, discs of radius 20 on the line
  crossings, numbered labels on all four sides (Pillow's bundled font, so the bytes follow the Pillow version). The
  picture is put together from cached bands of one board row each (`_png`), so a move re-draws one band.
- The prompts' example ("product contains digit 6" on the empty 6×6 board) lists five cells and misses (4, 4),
  whose product 16 holds a 6: the rule is applied, not the example.
- `legal_moves` lists the claims the hint allows. Every other cell of the board is legal too, but a miss only burns an
  error and hands the opponent the same hint, so it is never listed (nor played by `random`).
Levels 1 and 2 are PuzzlePlex's easy (6×6) and normal (9×9); 3 is 12×12. λ = N.
The reference strategy wins at once when it can; otherwise it weighs each allowed claim by the race it leaves. A
player's race is the turns it still needs, about its shortest completion (cells still to claim, 8-connected, over
empty and own cells) over the chance that a hint allows one of the cells on such a completion, computed exactly from
PuzzlePlex's hint distribution over the empty cells. It takes the claim with the most turns for the opponent less
its own.
"""

from __future__ import annotations

import base64
import functools
import itertools
import random
from collections import deque
from dataclasses import dataclass
from typing import Any, ClassVar

from .._protocol import IssueCode, Verdict, clip, is_int, reject
from ._png import Band, band, palette_png
from ._protocol import Game, State, WinnerTakesAll

JSON = Any
OPERATIONS = ("sum", "product", "difference")
CONDITIONS = ("is less than v1", "is greater than v1", "contains digit v1", "is even", "is odd", "is between v1 and v2, inclusive")
MAX_ERRORS = 15
GOALS = ("a path of 1s from the left column to the right column", "a path of 2s from the top row to the bottom row")
_FAR = 1 << 20  # a distance no path reaches


class Superply(WinnerTakesAll):
    name: ClassVar[str] = "superply"
    title: ClassVar[str] = "Superply"
    levels: ClassVar[dict[int, dict[str, object]]] = {1: {"size": 6}, 2: {"size": 9}, 3: {"size": 12}}
    move_schema: ClassVar[dict[str, JSON]] = {
        "type": "object", "required": ["row", "col"], "additionalProperties": False,
        "properties": {"row": {"type": "integer", "minimum": 1, "description": "1-based row, at most the board size"},
                       "col": {"type": "integer", "minimum": 1, "description": "1-based column, at most the board size"}}}

    def _initial(self, params: dict[str, JSON], rng: random.Random) -> tuple[State, dict[str, JSON]]:
        size = params["size"]
        grid = [[0] * size for _ in range(size)]
        return ({"grid": grid, "hint": _draw_hint(grid, rng), "errors": [0, 0], "to_move": 0, "last_move": None, "winner": None},
                {"complexity": {"size": size}})

    def _observe(self, state: State, player: int) -> JSON:
        return {"size": len(state["grid"]), "grid": state["grid"], "hint": state["hint"], "player": player + 1, "goal": GOALS[player],
                "my_errors": state["errors"][player], "opponent_errors": state["errors"][1 - player], "max_errors": MAX_ERRORS,
                "opponent_last_move": state["last_move"]}

    def _legal(self, state: State, player: int, move: JSON) -> Verdict:
        if type(move) is not dict or set(move) != {"row", "col"}:
            return reject(IssueCode.MALFORMED, 'a move is an object {"row": r, "col": c}')
        size = len(state["grid"])
        for key in ("row", "col"):
            if not is_int(move[key]) or not 1 <= move[key] <= size:
                return reject(IssueCode.BAD_VALUE, f"{key} {clip(move[key])} is not an integer 1..{size}")
        return Verdict(True)

    def _apply(self, state: State, player: int, move: JSON) -> State:
        row, col, grid = move["row"], move["col"], state["grid"]
        claimed = grid[row - 1][col - 1] == 0 and _holds(state["hint"], row, col)
        if claimed:
            grid[row - 1][col - 1] = player + 1
            if _has_path(grid, player + 1):
                state["winner"] = player
            else:
                state["hint"] = _draw_hint(grid, self.env_rng(state))
        else:
            state["errors"][player] += 1
            if state["errors"][player] >= MAX_ERRORS:
                state["winner"] = 1 - player
        state["last_move"] = {"row": row, "col": col, "claimed": claimed}
        state["to_move"] = 1 - player
        return state

    def legal_moves(self, observation: JSON, player: int) -> list[JSON]:
        """The claims the hint allows (every other cell is a legal miss, never worth an error: see the docstring)."""
        grid, hint = observation["grid"], observation["hint"]
        return [{"row": r + 1, "col": c + 1} for r, line in enumerate(grid) for c, cell in enumerate(line)
                if cell == 0 and _holds(hint, r + 1, c + 1)]

    def reference_move(self, game: Game, observation: JSON, player: int, rng: random.Random) -> JSON:
        """A winning claim if there is one, else the claim leaving the best race (see the module docstring)."""
        moves = self.legal_moves(observation, player)
        if not moves:
            return None
        size, mark = observation["size"], observation["player"]
        flat = [cell for line in observation["grid"] for cell in line]
        hints = _open_hints(size, sum(1 << cell for cell in range(size * size) if flat[cell] == 0))
        turns = functools.cache(functools.partial(_turns, hints=hints))
        mine, theirs = _race(flat, size, mark), _race(flat, size, 3 - mark)
        best, best_score = moves[0], -float("inf")
        for move in moves:
            index = (move["row"] - 1) * size + move["col"] - 1
            if mine.through[index] == 1:
                return move
            flat[index] = mark  # only a claim on or beside a shortest completion changes a race
            after = _race(flat, size, mark) if mine.through[index] - 1 <= mine.cells else mine
            blocked = _race(flat, size, 3 - mark) if theirs.useful >> index & 1 else theirs
            flat[index] = 0
            score = turns(blocked.cells, blocked.useful) - turns(after.cells, after.useful)
            if score > best_score:
                best, best_score = move, score
        return best

    def render(self, state: State) -> str:
        rows = [" ".join(".XO"[cell] for cell in line) for line in state["grid"]]
        seat = state["winner"] if state["winner"] is not None else state["to_move"]
        who = f"player {seat} (writes {seat + 1}s, {('left to right', 'top to bottom')[seat]})"
        status = f"winner: {who}" if state["winner"] is not None else f"to move: {who}"
        return "\n".join([*rows, f"hint: {state['hint']['text']}", f"errors {state['errors'][0]} / {state['errors'][1]}", status])

    def render_png(self, state: State) -> bytes:
        """PuzzlePlex's board picture: grid lines, labelled rows and columns, a red or blue disc per claimed cell."""
        grid = state["grid"]
        size = len(grid)
        width = (size + 1) * _CELL + 2 * _MARGIN
        bands = [_band(size, 0, ()), *(_band(size, r + 1, tuple(line)) for r, line in enumerate(grid)), _band(size, size + 1, ())]
        return palette_png(width, width, 4, _PALETTE, bands)


class SuperplyM(Superply):
    """Superply with the board also shown as a PNG image (base64, under "image") in every observation."""

    name: ClassVar[str] = "superplym"
    title: ClassVar[str] = "SuperplyM"

    def _observe(self, state: State, player: int) -> JSON:
        return {**super()._observe(state, player), "image": base64.b64encode(self.render_png(state)).decode("ascii")}


# -- hints ----------------------------------------------------------------------------------------------------------
def _draw_hint(grid: list[list[int]], rng: random.Random) -> dict[str, JSON]:
    """PuzzlePlex's hint distribution, redrawn until some empty cell satisfies it."""
    size = len(grid)
    while True:
        operation, condition = rng.choice(OPERATIONS), rng.choice(CONDITIONS)
        v1 = v2 = None
        if condition in ("is less than v1", "is greater than v1"):
            v1 = rng.randint(0, size * size)
        elif condition == "contains digit v1":
            v1 = rng.randint(0, 9)
        elif condition == "is between v1 and v2, inclusive":
            v1 = rng.randint(0, size * size - 1)
            v2 = rng.randint(v1 + 1, size * size)
        text = f"{operation} {condition}".replace("v1", str(v1)).replace("v2", str(v2))
        hint = {"text": text, "operation": operation, "condition": condition, "v1": v1, "v2": v2}
        if any(cell == 0 and _holds(hint, r + 1, c + 1) for r, line in enumerate(grid) for c, cell in enumerate(line)):
            return hint


def _holds(hint: dict[str, JSON], row: int, col: int) -> bool:
    """Whether the 1-based cell (row, col) satisfies the hint."""
    operation, condition, v1 = hint["operation"], hint["condition"], hint["v1"]
    value = row + col if operation == "sum" else row * col if operation == "product" else abs(row - col)
    if condition == "is less than v1":
        return value < v1
    if condition == "is greater than v1":
        return value > v1
    if condition == "contains digit v1":
        return str(v1) in str(value)
    if condition == "is even":
        return value % 2 == 0
    if condition == "is odd":
        return value % 2 == 1
    return v1 <= value <= hint["v2"]


# -- paths ----------------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """The 8-neighbours of each cell of a size×size board, cells numbered row by row."""
    return tuple(tuple((r + dr) * size + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                       if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size) for r in range(size) for c in range(size))


def _sides(size: int, mark: int) -> tuple[range, range]:
    """The cells of the side `mark`'s path starts from and of the side it must reach."""
    if mark == 1:
        return range(0, size * size, size), range(size - 1, size * size, size)
    return range(size), range(size * (size - 1), size * size)


def _has_path(grid: list[list[int]], mark: int) -> bool:
    """Whether `mark`'s cells join its two sides (a search over its own cells only)."""
    size = len(grid)
    flat = [cell for line in grid for cell in line]
    starts, ends = _sides(size, mark)
    seen = {cell for cell in starts if flat[cell] == mark}
    stack, neighbours, goal = list(seen), _neighbours(size), set(ends)
    while stack:
        cell = stack.pop()
        if cell in goal:
            return True
        for other in neighbours[cell]:
            if flat[other] == mark and other not in seen:
                seen.add(other)
                stack.append(other)
    return False


def _distances(flat: list[int], size: int, mark: int, sources: range) -> list[int]:
    """Cells still to claim to reach each cell from `sources` (0-1 BFS: own cells cost 0, empty ones 1, the
    opponent's are walls; _FAR where unreachable)."""
    dist = [_FAR] * (size * size)
    queue: deque[int] = deque()
    for cell in sources:
        if flat[cell] in (0, mark):
            dist[cell] = 0 if flat[cell] else 1
            queue.append(cell)
    neighbours, push, push_front, pop = _neighbours(size), queue.append, queue.appendleft, queue.popleft
    while queue:
        cell = pop()
        here = dist[cell]
        step = here + 1
        for other in neighbours[cell]:
            value = flat[other]
            if value == mark:
                if here < dist[other]:
                    dist[other] = here
                    push_front(other)
            elif value == 0 and step < dist[other]:
                dist[other] = step
                push(other)
    return dist


@dataclass(frozen=True)
class _Race:
    """One player's race: the cells still to claim (_FAR if blocked), the empty cells on a shortest completion (a bit
    mask), and for each cell the cells to claim by the best completion through it."""

    cells: int
    useful: int
    through: list[int]


def _race(flat: list[int], size: int, mark: int) -> _Race:
    starts, ends = _sides(size, mark)
    forward = _distances(flat, size, mark, starts)
    best = min(forward[cell] for cell in ends)
    backward = _distances(flat, size, mark, ends)
    through = [forward[cell] + backward[cell] - (flat[cell] == 0) for cell in range(size * size)]
    useful = 0 if best >= _FAR else sum(1 << cell for cell in range(size * size) if flat[cell] == 0 and through[cell] == best)
    return _Race(best, useful, through)


def _turns(cells: int, useful: int, hints: tuple[tuple[int, ...], tuple[float, ...]]) -> float:
    """About how many turns a player with this race needs: the cells to claim over the chance a hint allows one of
    the cells on a shortest completion."""
    if cells >= _FAR:
        return float(_FAR)
    masks, weights = hints
    chance = sum(itertools.compress(weights, map(useful.__and__, masks)))
    return cells / max(chance, 1e-9)


@functools.lru_cache(maxsize=4096)
def _open_hints(size: int, empty: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The hints that can be drawn with these empty cells (a bit mask): the cells each allows, and its probability."""
    masks = [(mask & empty, weight) for mask, weight in _hint_masks(size) if mask & empty]
    total = sum(weight for _, weight in masks)
    return tuple(mask for mask, _ in masks), tuple(weight / total for _, weight in masks)


@functools.lru_cache(maxsize=None)
def _hint_masks(size: int) -> tuple[tuple[int, float], ...]:
    """Every hint PuzzlePlex's distribution draws, grouped by the cells it allows (bit masks): (cells, probability)."""
    cells = top = size * size
    grouped: dict[int, float] = {}
    share = 1 / len(OPERATIONS) / len(CONDITIONS)
    for operation in OPERATIONS:
        values = [r + c if operation == "sum" else r * c if operation == "product" else abs(r - c)
                  for r in range(1, size + 1) for c in range(1, size + 1)]
        below = [0] * (top + 2)  # below[x]: the cells whose value is less than x
        for x in range(1, top + 2):
            below[x] = below[x - 1] | sum(1 << cell for cell in range(cells) if values[cell] == x - 1)
        options = [(below[v1], share / (top + 1)) for v1 in range(top + 1)]
        options += [(below[top + 1] & ~below[v1 + 1], share / (top + 1)) for v1 in range(top + 1)]
        options += [(sum(1 << cell for cell in range(cells) if str(digit) in str(values[cell])), share / 10) for digit in range(10)]
        options += [(sum(1 << cell for cell in range(cells) if values[cell] % 2 == parity), share) for parity in (0, 1)]
        options += [(below[v2 + 1] & ~below[v1], share / top / (top - v1)) for v1 in range(top) for v2 in range(v1 + 1, top + 1)]
        for mask, weight in options:
            grouped[mask] = grouped.get(mask, 0.0) + weight
    return tuple((mask, weight) for mask, weight in grouped.items() if mask)


# -- the picture ----------------------------------------------------------------------------------------------------
_CELL, _MARGIN, _DISC, _LABEL = 60, 40, 20, 15
_PALETTE = ((255, 255, 255), (200, 200, 200), (96, 96, 96), (255, 0, 0), (0, 0, 255))  # white, lines, labels, 1, 2


@functools.lru_cache(maxsize=4096)
def _band(size: int, row: int, cells: tuple[int, ...]) -> Band:
    """The pixel rows of band `row`: 0 the top labels, 1..size a board row with its discs, size + 1 the bottom labels."""
    from PIL import ImageDraw

    width = (size + 1) * _CELL + 2 * _MARGIN
    top = 0 if row == 0 else _MARGIN + row * _CELL - _CELL // 2
    bottom = width if row == size + 1 else _MARGIN + row * _CELL + _CELL // 2
    image = _empty_board(size).crop((0, top, width, bottom))
    draw = ImageDraw.Draw(image)
    for col, cell in enumerate(cells, start=1):
        if cell:
            x, y = _MARGIN + col * _CELL, _MARGIN + row * _CELL - top
            draw.ellipse([x - _DISC, y - _DISC, x + _DISC, y + _DISC], fill=2 + cell)
    packed = image.tobytes("raw", "P;4")
    stride = width // 2
    return band(b"".join(b"\0" + packed[at:at + stride] for at in range(0, len(packed), stride)))


@functools.lru_cache(maxsize=None)
def _empty_board(size: int) -> Any:
    """The picture without discs: grid lines and the numbered labels on all four sides (a PIL image)."""
    from PIL import Image, ImageDraw, ImageFont

    width = (size + 1) * _CELL + 2 * _MARGIN
    image = Image.new("P", (width, width), 0)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"  # no anti-aliasing: five palette colours only
    font = ImageFont.load_default(18)
    for i in range(1, size + 1):
        at = _MARGIN + i * _CELL
        draw.line([(at, _MARGIN), (at, width - _MARGIN)], fill=1)
        draw.line([(_MARGIN, at), (width - _MARGIN, at)], fill=1)
        for x, y in ((at, _MARGIN // 2), (at, width - _MARGIN // 2), (_MARGIN // 2, at), (width - _MARGIN // 2, at)):
            draw.ellipse([x - _LABEL, y - _LABEL, x + _LABEL, y + _LABEL], fill=2)
            draw.text((x, y), str(i), fill=0, font=font, anchor="mm")
    return image
