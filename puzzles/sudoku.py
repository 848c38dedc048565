"""Sudoku on an N×N grid with rectangular boxes or jigsaw regions: fill every blank with 1..N.

Every row, column and region holds each digit once. λ = (q empty cells, δ average candidates per
empty cell after eliminating the givens' peers, τ branch nodes of a fixed MRV search with naked and
hidden singles that finds the solution and proves it unique). Every instance has exactly one
solution. A level chooses which givens to keep: from level 2 on every puzzle needs more than singles
and τ reaches the level's `tau_target`, which rises level by level. Level 1 cannot: all 255,984 unique
4×4 puzzles of 6–8 givens (on the 12 grids whose first row is 1 2 3 4, which stand for all 288 up to
relabelling) fall to singles. Answer: {"grid": N×N list of int rows}.

Bounds: size N ≤ MAX_SIZE = 16 for generate and solve (the SAT encoding has N³ ≤ 4096 variables).
solve requires a well-formed instance (exactly one of box [rows, cols] with rows·cols = N and N×N
regions of N cells per id; an N×N grid of 0..N), refuses givens that repeat a digit in a row,
column or region (naming the unit), and refuses a grid without completion; the SAT search gives up,
with an error, after SOLVE_CONFLICTS = 1,000,000 conflicts (deterministic; generated puzzles need
a few hundred).

Complexity axis: λ = q, the blank cells of a 9×9 puzzle (givens = 81 − q), 1..67. Up to q = 58, level 5's top, boxes
with the logic and τ target of the level below (none below level 3's 36 blanks, where no puzzle of 46+ givens
needs more than singles); past it, where box puzzles run out (22 givens took up to 334 fresh grids, 21 none in
1000), jigsaw regions as level 6 draws them, down to 14 givens (13 took ~300 of MAX_ATTEMPTS grids). Levels 1 and 2
change the grid (4×4, 6×6) along with the blanks: they lie off the axis.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass

from ._errors import InstanceFormatError, ParamError
from ._protocol import JSON, ComplexityAxis, IssueCode, Issues, Puzzle, Verdict, check_param, clip, is_int, open_answer, reject
from ._sat import solve_within

MAX_SIZE = 16  # N, for generate and solve
SOLVE_CONFLICTS = 1_000_000  # conflicts the reference solver may spend before refusing (deterministic budget)
LOGICS = ("singles", "any", "beyond_singles")
MAX_ATTEMPTS = 1000  # fresh grids tried before a givens/logic/τ target is declared unreachable (level 2 needs ~30)
CONFLICT_BUDGET = 10_000  # per SAT call while generating; some jigsaw partitions are hard to refute
TAU_BUDGET = 10_000  # search nodes (~2.5 s on 9×9) after which τ is reported as capped
SAT_SOLVER = "cadical153"  # honours set_phases, which randomises the full grid
BOX_BLANKS = 58  # the complexity axis's last box puzzle (23 givens, level 5's top); past it jigsaw regions
MAX_BLANKS = 67  # the complexity axis's top (14 givens, jigsaw)


@dataclass(frozen=True)
class SudokuParams:
    """size N, boxes of box_rows × (N / box_rows); `jigsaw` perturbs the boxes into random regions.

    `givens` is the exact clue count; `logic` requires the puzzle to be solvable by naked and hidden
    singles alone ("singles"), not solvable that way ("beyond_singles"), or either ("any");
    `tau_target` is the least τ the puzzle may have (τ ≥ 1 is the same as beyond singles).
    """

    size: int = 9
    box_rows: int = 3
    jigsaw: bool = False
    givens: int = 30
    logic: str = "any"
    tau_target: int = 0

    def __post_init__(self) -> None:
        check_param(4 <= self.size <= MAX_SIZE, "size", self.size, f"4..{MAX_SIZE}")
        ok_box = 2 <= self.box_rows <= self.size // 2 and self.size % self.box_rows == 0
        check_param(ok_box, "box_rows", self.box_rows, f"a divisor of size={self.size} leaving boxes at least 2 wide")
        check_param(1 <= self.givens < self.size**2, "givens", self.givens, f"1..{self.size**2 - 1}")
        check_param(self.logic in LOGICS, "logic", self.logic, " or ".join(LOGICS))
        check_param(0 <= self.tau_target <= TAU_BUDGET, "tau_target", self.tau_target, f"0..{TAU_BUDGET}")
        check_param(self.logic != "singles" or self.tau_target == 0, "tau_target", self.tau_target, '0 with logic="singles" (τ = 0)')


def _box_regions(n: int, rows: int) -> list[list[int]]:
    cols = n // rows
    return [[(r // rows) * (n // cols) + c // cols for c in range(n)] for r in range(n)]


def _units(n: int, regions: list[list[int]]) -> list[list[int]]:
    """Rows, then columns, then regions (by id) as lists of cell indices r·N + c."""
    rows = [[r * n + c for c in range(n)] for r in range(n)]
    cols = [[r * n + c for r in range(n)] for c in range(n)]
    regs: list[list[int]] = [[] for _ in range(n)]
    for cell in range(n * n):
        regs[regions[cell // n][cell % n]].append(cell)
    return rows + cols + regs


def _geometry(instance: JSON) -> tuple[int, list[list[int]]]:
    """(N, region-id grid) of an instance; ValueError says what is malformed (instances are ours)."""
    if type(instance) is not dict:
        raise ValueError("an instance is an object")
    n, box, regions, grid = (instance.get(k) for k in ("size", "box", "regions", "grid"))
    if not is_int(n) or not 1 <= n <= MAX_SIZE:
        raise ValueError(f"size {clip(n)} is not an integer 1..{MAX_SIZE}")
    if not _is_square(grid, n, range(n + 1)):
        raise ValueError(f"grid is not {n}×{n} integers 0..{n}")
    if (box is None) == (regions is None):
        raise ValueError("exactly one of box and regions must be given")
    if box is not None:
        if type(box) is not list or len(box) != 2 or not all(is_int(b) and b >= 1 for b in box) or box[0] * box[1] != n:
            raise ValueError(f"box {clip(box)} is not [rows, cols] with rows·cols = {n}")
        return n, _box_regions(n, box[0])
    if not _is_square(regions, n, range(n)) or any(sum(row.count(k) for row in regions) != n for k in range(n)):
        raise ValueError(f"regions is not a {n}×{n} grid of ids 0..{n - 1}, {n} cells each")
    return n, regions


def _unit_names(instance: dict[str, JSON], n: int) -> list[str]:
    """Names of the units in `_units` order: rows, columns, then boxes or (jigsaw) regions."""
    kind = "region" if instance.get("box") is None else "box"
    return [f"row {i}" for i in range(n)] + [f"column {i}" for i in range(n)] + [f"{kind} {i}" for i in range(n)]


def _is_square(grid: JSON, n: int, values: range) -> bool:
    """True when `grid` is n lists of n integers from `values`."""
    if type(grid) is not list or len(grid) != n:
        return False
    return all(type(row) is list and len(row) == n and all(is_int(v) and v in values for v in row) for row in grid)


def _neighbours(cell: int, n: int) -> list[int]:
    r, c = divmod(cell, n)
    return [x for x, ok in ((cell - n, r > 0), (cell + n, r < n - 1), (cell - 1, c > 0), (cell + 1, c < n - 1)) if ok]


def _connected(cells: list[int], n: int) -> bool:
    inside, seen, stack = set(cells), {cells[0]}, [cells[0]]
    while stack:
        for x in _neighbours(stack.pop(), n):
            if x in inside and x not in seen:
                seen.add(x)
                stack.append(x)
    return len(seen) == len(cells)


def _jigsaw_regions(n: int, box_rows: int, rng: random.Random) -> list[list[int]]:
    """Perturb the boxes by 5·N cell trades (of at most 40·N tries) between adjacent regions that keep both connected."""
    reg = [rid for row in _box_regions(n, box_rows) for rid in row]
    done = 0
    for _ in range(40 * n):
        if done == 5 * n:
            break
        a = rng.randrange(n * n)
        foreign = [b for b in _neighbours(a, n) if reg[b] != reg[a]]
        if not foreign:
            continue
        b = rng.choice(foreign)
        home, away = reg[a], reg[b]
        reg[b] = home
        back = [d for d in range(n * n) if reg[d] == home and d != b and any(reg[e] == away for e in _neighbours(d, n))]
        if back:
            d = rng.choice(back)
            reg[d] = away
            if all(_connected([x for x in range(n * n) if reg[x] == k], n) for k in (home, away)):
                done += 1
                continue
            reg[d] = home
        reg[b] = away
    return [reg[r * n : (r + 1) * n] for r in range(n)]


class _Sat:
    """The extended CNF encoding; uniqueness of a known solution S is one incremental call."""

    def __init__(self, n: int, units: list[list[int]]) -> None:
        from pysat.solvers import Solver  # deferred: a solver library, loaded on first solve so `import puzzles` stays cheap

        self.n, self.solver = n, Solver(name=SAT_SOLVER)
        groups = [[self.var(cell, d) for d in range(n)] for cell in range(n * n)]
        groups += [[self.var(cell, d) for cell in unit] for unit, d in itertools.product(units, range(n))]
        for lits in groups:  # exactly one digit per cell, exactly one cell per digit and unit
            self.solver.add_clause(lits)
            self.solver.append_formula([[-a, -b] for a, b in itertools.combinations(lits, 2)])

    def var(self, cell: int, digit: int) -> int:
        return cell * self.n + digit + 1

    def satisfiable(self, grid: list[int], budget: int | None) -> bool | None:
        """Satisfiable under the grid's clues? None when the conflict budget (deterministic) runs out."""
        return solve_within(self.solver, budget, self._clues(grid))

    def solution(self, grid: list[int], rng: random.Random | None = None, budget: int | None = None) -> list[int] | None:
        """A completion of the flat grid (0 = blank); random phases from `rng` vary which one."""
        if rng is not None:
            self.solver.set_phases([v if rng.random() < 0.5 else -v for v in range(1, self.n**3 + 1)])
        if not self.satisfiable(grid, budget):
            return None
        return self.model_grid()

    def model_grid(self) -> list[int]:
        """The flat grid of the last satisfiable call's model."""
        model = self.solver.get_model()
        return [next(d + 1 for d in range(self.n) if model[self.var(cell, d) - 1] > 0) for cell in range(self.n**2)]

    def exclude(self, solution: list[int]) -> None:
        """Forbid `solution` for good: afterwards, clues are unique iff they are unsatisfiable."""
        self.solver.add_clause([-self.var(cell, v - 1) for cell, v in enumerate(solution)])

    def _clues(self, grid: list[int]) -> list[int]:
        return [self.var(cell, v - 1) for cell, v in enumerate(grid) if v]

    def reduce(self, solution: list[int], givens: int, keep: Callable[[list[int]], bool], rng: random.Random) -> list[int] | None:
        """A puzzle of `givens` clues whose only completion is `solution` and for which `keep` holds, or None.

        Blanks cells in random order, each only if the solution stays unique, down to a minimal puzzle; then gives
        clues back in random order, each only if `keep` still holds, until `givens` are left. `keep` (beyond singles,
        τ at least a target) only gets harder to hold as clues come back, so a hard minimal puzzle stays hard while
        it regains the level's clue count. None when the minimal puzzle has more clues, fails `keep`, or gets stuck.
        """
        self.exclude(solution)
        grid = list(solution)
        order = list(range(self.n**2))
        rng.shuffle(order)
        for cell in order:
            grid[cell] = 0
            if self.satisfiable(grid, CONFLICT_BUDGET) is not False:  # not proven unique: keep the clue
                grid[cell] = solution[cell]
        if self.n**2 - grid.count(0) > givens or not keep(grid):
            return None
        blanks = [cell for cell in order if grid[cell] == 0]
        rng.shuffle(blanks)
        for cell in blanks:
            if self.n**2 - grid.count(0) == givens:
                break
            grid[cell] = solution[cell]
            if not keep(grid):
                grid[cell] = 0
        return grid if self.n**2 - grid.count(0) == givens else None

    def __enter__(self) -> _Sat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.solver.delete()


def solution_count(instance: dict[str, JSON], limit: int = 2) -> int:
    """Completions of the instance's grid, counted up to `limit` with the generator's SAT check."""
    n, regions = _geometry(instance)
    grid, count = [v for row in instance["grid"] for v in row], 0
    with _Sat(n, _units(n, regions)) as sat:
        while count < limit and (found := sat.solution(grid)) is not None:
            sat.exclude(found)
            count += 1
    return count


class _Search:
    """Bitmask candidates, naked + hidden singles, MRV branching: the fixed solver that measures δ and τ."""

    def __init__(self, n: int, units: list[list[int]]) -> None:
        self.units, self.full = units, (1 << n) - 1
        peers: list[set[int]] = [set() for _ in range(n * n)]
        for unit in units:
            for cell in unit:
                peers[cell].update(unit)
        self.peers = [sorted(p - {cell}) for cell, p in enumerate(peers)]
        self.nodes, self.cap = 0, TAU_BUDGET

    def start(self, grid: list[int]) -> list[int]:
        return [self.full if v == 0 else 1 << (v - 1) for v in grid]

    def delta(self, grid: list[int]) -> float:
        """Average count of digits no peer holds, over the blank cells."""
        n = self.full.bit_length()
        counts = [n - len({grid[p] for p in self.peers[cell]} - {0}) for cell, v in enumerate(grid) if v == 0]
        return round(sum(counts) / len(counts), 3) if counts else 0.0

    def propagate(self, cands: list[int]) -> bool:
        """Apply singles to a fixpoint in place; False on a contradiction."""
        changed = True
        while changed:
            changed = False
            for cell, mask in enumerate(cands):
                if mask & (mask - 1) == 0:
                    for p in self.peers[cell]:
                        if cands[p] & mask:
                            cands[p] &= ~mask
                            changed = True
            if 0 in cands:
                return False
            for unit in self.units:
                once, twice = 0, 0
                for cell in unit:
                    twice |= once & cands[cell]
                    once |= cands[cell]
                if once != self.full:
                    return False
                for cell in unit:
                    hidden = cands[cell] & once & ~twice
                    if hidden and hidden != cands[cell]:
                        cands[cell] = hidden
                        changed = True
        return True

    def singles(self, grid: list[int]) -> bool:
        """True when naked and hidden singles alone complete the flat grid."""
        cands = self.start(grid)
        return self.propagate(cands) and all(mask & (mask - 1) == 0 for mask in cands)

    def tau(self, grid: list[int], cap: int = TAU_BUDGET) -> int:
        """τ of the flat grid: the branchings `count` takes to find its solution and prove it unique, counted up to `cap`."""
        self.nodes, self.cap = 0, cap
        self.count(self.start(grid))
        return self.nodes

    def hard_enough(self, grid: list[int], params: SudokuParams) -> bool:
        """Beyond singles where `params` ask for it, and τ ≥ tau_target."""
        beyond = params.logic != "beyond_singles" or not self.singles(grid)
        return beyond and (params.tau_target == 0 or self.tau(grid, params.tau_target) >= params.tau_target)

    def count(self, cands: list[int], limit: int = 2) -> int:
        """Solutions below `cands` up to `limit`; `nodes` counts branchings.

        Past `cap` nodes (TAU_BUDGET unless `tau` was given another) it gives up and answers `limit` (callers read
        `nodes` to tell).
        """
        if not self.propagate(cands):
            return 0
        open_cells = [(mask.bit_count(), cell) for cell, mask in enumerate(cands) if mask & (mask - 1)]
        if not open_cells:
            return 1
        if self.nodes >= self.cap:
            return limit
        self.nodes += 1
        cell = min(open_cells)[1]
        total, mask = 0, cands[cell]
        while mask and total < limit:
            bit = mask & -mask
            mask ^= bit
            total += self.count([bit if i == cell else m for i, m in enumerate(cands)], limit - total)
        return total


class Sudoku(Puzzle[SudokuParams]):
    name = "sudoku"
    version = 2
    title = "Sudoku (boxes or jigsaw regions)"
    params_type = SudokuParams
    levels = {
        1: {"size": 4, "box_rows": 2, "givens": (6, 8)},
        2: {"size": 6, "box_rows": 2, "givens": (16, 20), "logic": "beyond_singles", "tau_target": 1},
        3: {"size": 9, "box_rows": 3, "givens": (36, 45), "logic": "beyond_singles", "tau_target": 2},
        4: {"size": 9, "box_rows": 3, "givens": (28, 32), "logic": "beyond_singles", "tau_target": 4},
        5: {"size": 9, "box_rows": 3, "givens": (23, 26), "logic": "beyond_singles", "tau_target": 8},
        6: {"size": 9, "box_rows": 3, "jigsaw": True, "givens": (16, 19), "logic": "beyond_singles", "tau_target": 30},
    }
    axis = ComplexityAxis(
        "q", 1, MAX_BLANKS,
        limit=f"below {81 - MAX_BLANKS} givens even jigsaw regions rarely leave a unique puzzle "
              f"({80 - MAX_BLANKS} took ~300 of {MAX_ATTEMPTS} fresh grids)",
        levels={level: (81 - band["givens"][1], 81 - band["givens"][0]) for level, band in levels.items() if band["size"] == 9},
        sets=frozenset({"givens"}),
        disagree={1: "level 1 is a 4×4 grid, off the 9×9 axis (it changes the grid size with the blanks)",
                  2: "level 2 is a 6×6 grid, off the 9×9 axis (it changes the grid size with the blanks)"},
    )

    def band_at(self, lam: int) -> dict[str, object]:
        """81 − λ givens: plain boxes below level 3, then the band of the level below, jigsaw (level 6's) past BOX_BLANKS."""
        if lam < self.complexity_axis().levels[3][0]:
            return {"size": 9, "box_rows": 3, "givens": 81 - lam}
        return {**self.levels[6 if lam > BOX_BLANKS else self.level_at(lam)], "givens": 81 - lam}
    instance_schema = {
        "type": "object",
        "required": ["size", "box", "regions", "grid"],
        "properties": {
            "size": {"type": "integer", "minimum": 4, "maximum": MAX_SIZE, "description": "N: the grid is N×N and takes digits 1..N"},
            "box": {
                "type": ["array", "null"],
                "items": {"type": "integer", "minimum": 1},
                "minItems": 2,
                "maxItems": 2,
                "description": "[rows, cols] of every rectangular box (rows·cols = N); null when regions is given",
            },
            "regions": {
                "type": ["array", "null"],
                "items": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                "description": "N×N region ids 0..N−1, each id on N cells (jigsaw); null when box is given",
            },
            "grid": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                "description": "N rows of N integers: 0 is a blank, 1..N a given",
            },
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["grid"],
        "additionalProperties": False,
        "properties": {
            "grid": {
                "type": "array",
                "description": "the completed grid: N rows of N integers 1..N, every given unchanged",
                "items": {"type": "array", "items": {"type": "integer", "minimum": 1}},
            }
        },
    }

    def build(self, params: SudokuParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        n = params.size
        for attempt in range(1, MAX_ATTEMPTS + 1):
            regions = _jigsaw_regions(n, params.box_rows, rng) if params.jigsaw else _box_regions(n, params.box_rows)
            units = _units(n, regions)
            search = _Search(n, units)
            keep = functools.partial(search.hard_enough, params=params)
            with _Sat(n, units) as sat:
                solution = sat.solution([0] * n * n, rng, CONFLICT_BUDGET)
                grid = None if solution is None else sat.reduce(solution, params.givens, keep, rng)
            if grid is None:
                continue
            singles = search.singles(grid)
            if params.logic == ("beyond_singles" if singles else "singles"):
                continue
            search.tau(grid)
            instance = {
                "size": n,
                "box": None if params.jigsaw else [params.box_rows, n // params.box_rows],
                "regions": regions if params.jigsaw else None,
                "grid": [grid[r * n : (r + 1) * n] for r in range(n)],
            }
            complexity = {"q": grid.count(0), "delta": search.delta(grid), "tau": search.nodes, "givens": params.givens}
            facts = {"tau_capped": search.nodes >= TAU_BUDGET, "singles_solvable": singles, "solution_count": 1, "attempts": attempt}
            return instance, {"complexity": complexity, **facts}
        raise ParamError(
            f"sudoku: no unique {n}×{n} puzzle with {params.givens} givens, logic={params.logic} and τ ≥ {params.tau_target} "
            f"in {MAX_ATTEMPTS} attempts"
        )

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        try:
            n, regions = _geometry(instance)
        except ValueError as exc:
            return reject(IssueCode.MALFORMED, f"instance is malformed: {exc}")
        opened = open_answer(answer, "grid", None, "[[...], ...]")
        if isinstance(opened, Verdict):
            return opened
        grid, issues = opened
        if not self._shape_ok(grid, n, issues):
            return issues.verdict()
        for r, c in itertools.product(range(n), repeat=2):
            value, given = grid[r][c], instance["grid"][r][c]
            if not is_int(value) or not 1 <= value <= n:
                issues.add(IssueCode.BAD_VALUE, f"grid[{r}][{c}] = {clip(value)} is not an integer 1..{n}")
            elif given and value != given:
                issues.add(IssueCode.GIVEN_ALTERED, f"grid[{r}][{c}] = {value} changes the given {given}")
        for name, unit in zip(_unit_names(instance, n), _units(n, regions)):
            digits = [v for v in (grid[cell // n][cell % n] for cell in unit) if is_int(v) and 1 <= v <= n]
            repeated = sorted(d for d in set(digits) if digits.count(d) > 1)
            if repeated:
                issues.add(IssueCode.CONFLICT, f"{name} repeats {', '.join(map(str, repeated))}")
        return issues.verdict()

    @staticmethod
    def _shape_ok(grid: JSON, n: int, issues: Issues) -> bool:
        """Report a grid that is not N lists of N entries (all such rows), so cells can be indexed."""
        if type(grid) is not list:
            issues.add(IssueCode.MALFORMED, '"grid" must be a list of rows')
            return False
        if len(grid) != n:
            issues.add(IssueCode.MALFORMED, f'"grid" has {len(grid)} rows, expected {n}')
        bad = [r for r, row in enumerate(grid) if type(row) is not list or len(row) != n]
        for r in bad:
            issues.add(IssueCode.MALFORMED, f"row {r} must be a list of {n} entries")
        return len(grid) == n and not bad

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        try:
            n, regions = _geometry(instance)
        except ValueError as exc:
            raise InstanceFormatError(f"sudoku: the instance is malformed: {exc}") from None
        grid = instance["grid"]
        for name, unit in zip(_unit_names(instance, n), _units(n, regions)):
            givens = [v for v in (grid[cell // n][cell % n] for cell in unit) if v]
            repeated = sorted(d for d in set(givens) if givens.count(d) > 1)
            if repeated:
                raise InstanceFormatError(f"sudoku: the givens conflict: {name} repeats {', '.join(map(str, repeated))}")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        n, regions = _geometry(instance)
        flat: list[int] | None = None
        with _Sat(n, _units(n, regions)) as sat:
            grid = [v for row in instance["grid"] for v in row]
            found = sat.satisfiable(grid, SOLVE_CONFLICTS)
            if found:
                flat = sat.model_grid()
        if found is None:
            raise InstanceFormatError(f"sudoku: no completion found within the solve budget of {SOLVE_CONFLICTS} conflicts")
        if flat is None:
            raise InstanceFormatError("sudoku: the givens are consistent but have no completion: the sudoku has no solution")
        return {"grid": [flat[r * n : (r + 1) * n] for r in range(n)]}

    def render(self, instance: dict[str, JSON]) -> str:
        n, regions = _geometry(instance)
        width = len(str(n)) + 2

        def cut(a: tuple[int, int], b: tuple[int, int]) -> bool:
            """True where a region boundary (or the border) runs between two cells."""
            ids = [regions[r][c] if 0 <= r < n and 0 <= c < n else None for r, c in (a, b)]
            return ids[0] != ids[1]

        lines = []
        for r in range(n + 1):
            line = ""
            for c in range(n + 1):
                across = cut((r - 1, c - 1), (r, c - 1)) or cut((r - 1, c), (r, c))
                down = cut((r - 1, c - 1), (r - 1, c)) or cut((r, c - 1), (r, c))
                line += "+" if across and down else "-" if across else "|" if down else " "
                line += ("-" if cut((r - 1, c), (r, c)) else " ") * width * (c < n)
            if line.strip(" |"):
                lines.append(line)
            if r < n:
                cells = [("|" if cut((r, c - 1), (r, c)) else " ") + f" {instance['grid'][r][c] or '.':>{width - 2}} " for c in range(n)]
                lines.append("".join(cells) + "|")
        return "\n".join(lines)
