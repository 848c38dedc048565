"""Boolean satisfiability: give every variable of a random 3-CNF formula a truth value that makes each clause true.

λ = (n, m) with clause density α = m/n; random 3-SAT is hardest near α ≈ 4.26. Instances are drawn
SATLIB-style (unforced: uniform clauses, kept only when a complete solver proves them satisfiable).
Answer: {"assignment": {"1": true, "2": false, …}}, keys the decimal variable numbers.

Bounds: generate draws 3..MAX_VARS = 200 variables. solve takes any well-formed CNF (DIMACS imports
included) with at most MAX_SOLVE_VARS = 100,000 variables and MAX_SOLVE_LITERALS = 2,000,000
literals in all, every literal a non-zero integer naming a variable 1..num_vars and every clause
non-empty; SAT is NP-complete, so the search itself is bounded too: it gives up, with an error,
after SOLVE_CONFLICTS = 1,000,000 solver conflicts (deterministic; generated instances need < 10^4).

Complexity axis: λ = n (num_vars), 4..MAX_VARS, at the threshold density: m = round(4.26 n) as levels 4 and 6 draw,
so λ moves size alone (3 variables hold only 8 distinct clauses, fewer than 13). Levels 1, 3 and 5 pin SATLIB's sizes
instead (m = 15, 91, 218 against 21, 85, 213 on the axis); the axis keeps one density rather than step at them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

from ._errors import InstanceFormatError, ParamError
from ._protocol import JSON, ComplexityAxis, IssueCode, Issues, Puzzle, Verdict, check_param, clip, index_key, is_int, listing, open_answer
from ._sat import decisions, solve_within

if TYPE_CHECKING:
    from pysat.solvers import Solver

CLAUSE_WIDTH = 3
MAX_VARS = 200  # variables generate draws
MAX_SOLVE_VARS = 100_000  # variables solve accepts (SATLIB's largest uf/flat files have a few hundred)
MAX_SOLVE_LITERALS = 2_000_000  # literals over all clauses solve accepts
SOLVE_CONFLICTS = 1_000_000  # conflicts the reference solver may spend before refusing (deterministic budget)
THRESHOLD_RATIO = 4.26  # clause density of the random 3-SAT phase transition
MAX_ATTEMPTS = 100  # formula draws before giving up on a satisfiable one
MODEL_CAP = 100  # stop counting models here: the count is a fact, not a budget that decides anything
SOLVER = "cadical195"
COUNTER = "glucose4"  # incremental blocking clauses are cheaper in a MiniSat-style solver


@dataclass(frozen=True)
class SatParams:
    """num_vars variables and num_clauses distinct 3-literal clauses; None means round(4.26 · num_vars)."""

    num_vars: int = 20
    num_clauses: int | None = 91

    def __post_init__(self) -> None:
        check_param(CLAUSE_WIDTH <= self.num_vars <= MAX_VARS, "num_vars", self.num_vars, f"{CLAUSE_WIDTH}..{MAX_VARS}")
        most = 2**CLAUSE_WIDTH * comb(self.num_vars, CLAUSE_WIDTH)
        null = "null" if self.num_clauses is not None else f"null with more variables (here null means {self.clause_count})"
        check_param(1 <= self.clause_count <= most, "num_clauses", self.num_clauses, f"1..{most} or {null}")

    @property
    def clause_count(self) -> int:
        return self.num_clauses if self.num_clauses is not None else round(THRESHOLD_RATIO * self.num_vars)


def complexity(instance: dict[str, JSON]) -> dict[str, JSON]:
    """λ of a formula: variables n, clauses m and their ratio α (hardest near 4.26 for 3-SAT)."""
    n, m = instance["num_vars"], len(instance["clauses"])
    return {"n": n, "m": m, "alpha": round(m / n, 3)}


def _solver(name: str, clauses: list[list[int]]) -> Solver:
    from pysat.solvers import Solver  # deferred: a solver library, loaded on first solve so `import puzzles` stays cheap

    return Solver(name=name, bootstrap_with=clauses)


def find_model(clauses: list[list[int]]) -> tuple[list[int] | None, int]:
    """A satisfying model as signed literals (None: the formula is unsatisfiable), and the decisions it took."""
    with _solver(SOLVER, clauses) as solver:
        model = solver.get_model() if solve_within(solver, None) else None
        return model, decisions(solver)


def count_models(clauses: list[list[int]], num_vars: int, cap: int = MODEL_CAP) -> int:
    """Models over variables 1..num_vars, counted up to `cap` (free variables double the count)."""
    occurring = {abs(literal) for clause in clauses for literal in clause}
    free = num_vars - len(occurring)
    count = 0
    with _solver(COUNTER, clauses) as solver:
        while count < cap and solve_within(solver, None):
            count += 2**free
            solver.add_clause([-literal for literal in solver.get_model() if abs(literal) in occurring])
    return min(count, cap)


class Sat(Puzzle[SatParams]):
    name = "sat"
    version = 1
    title = "Boolean satisfiability (random 3-SAT)"
    params_type = SatParams
    levels = {
        1: {"num_vars": 5, "num_clauses": 15},
        2: {"num_vars": 10, "num_clauses": 43},
        3: {"num_vars": 20, "num_clauses": 91},
        4: {"num_vars": (30, 35), "num_clauses": None},
        5: {"num_vars": 50, "num_clauses": 218},
        6: {"num_vars": (75, 100), "num_clauses": None},
    }
    axis = ComplexityAxis.along(
        "num_vars", levels, lowest=4, highest=MAX_VARS, also={"num_clauses"},  # λ decides the clause count too
        limit=f"generate draws at most {MAX_VARS} variables (a satisfiable formula at n = {MAX_VARS} takes 5–13 s to draw and "
              "prove, and the solver's proofs grow exponentially past it)",
        disagree={1: "level 1 pins 15 clauses (α = 3, a sanity check); the axis draws round(4.26 n) = 21 at n = 5",
                  3: "level 3 pins SATLIB's uf20-91 (91 clauses); the axis draws round(4.26 n) = 85 at n = 20",
                  5: "level 5 pins SATLIB's uf50-218 (218 clauses); the axis draws round(4.26 n) = 213 at n = 50"})

    def band_at(self, lam: int) -> dict[str, object]:
        """n = λ at the threshold density (num_clauses null) whatever the level below pins."""
        return {"num_vars": lam, "num_clauses": None}
    instance_schema = {
        "type": "object",
        "required": ["num_vars", "clauses"],
        "properties": {
            "num_vars": {"type": "integer", "minimum": 1, "description": "variables are numbered 1..num_vars"},
            "clauses": {
                "type": "array",
                "description": "CNF: every clause must hold; literal v means variable v is true, -v means it is false",
                "items": {"type": "array", "minItems": 1, "items": {"type": "integer", "not": {"const": 0}}},
            },
        },
    }
    answer_schema = {
        "type": "object",
        "required": ["assignment"],
        "properties": {
            "assignment": {
                "type": "object",
                "description": 'variable number as a decimal string ("1", "2", …) → true/false; every variable '
                "that occurs in a clause must be assigned, variables occurring in no clause may be omitted",
                "propertyNames": {"pattern": "^[1-9][0-9]*$"},
                "additionalProperties": {"type": "boolean"},
            }
        },
    }

    def build(self, params: SatParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        n, m = params.num_vars, params.clause_count
        for attempt in range(1, MAX_ATTEMPTS + 1):  # noqa: B007 (recorded in meta)
            clauses = _random_formula(n, m, rng)
            model, nodes = find_model(clauses)
            if model is not None:
                break
        else:
            raise ParamError(
                f"sat: {MAX_ATTEMPTS} draws of {n} variables, {m} clauses gave no satisfiable formula; lower num_clauses"
            )
        count = count_models(clauses, n)
        meta = {
            "complexity": complexity({"num_vars": n, "clauses": clauses}),
            "model_count": count,
            "model_count_capped": count >= MODEL_CAP,
            "search_nodes": nodes,
            "attempts": attempt,
        }
        return {"num_vars": n, "clauses": clauses}, meta

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        opened = open_answer(answer, "assignment", dict, 'an object mapping "1".."n" to true/false')
        if isinstance(opened, Verdict):
            return opened
        assignment, issues = opened
        values = _read_assignment(assignment, instance["num_vars"], issues)
        clauses = instance["clauses"]
        occurring = sorted({abs(literal) for clause in clauses for literal in clause})
        missing = [v for v in occurring if str(v) not in assignment]
        if missing:
            issues.add(IssueCode.MISSING, f"variables {listing(missing)} occur in clauses but are not assigned")
        for index, clause in enumerate(clauses):
            known = all(abs(literal) in values for literal in clause)  # unassigned variables are reported above
            if known and not any(values[abs(literal)] == (literal > 0) for literal in clause):
                issues.add(IssueCode.CONFLICT, f"clause {index} {clip(clause)} has every literal false")
        return issues.verdict()

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        n, clauses = instance.get("num_vars"), instance.get("clauses")
        if not is_int(n) or not 1 <= n <= MAX_SOLVE_VARS:
            raise InstanceFormatError(f"sat: num_vars={clip(n)}: expected an integer 1..{MAX_SOLVE_VARS}")
        if type(clauses) is not list:
            raise InstanceFormatError(f"sat: clauses {clip(clauses)}: expected a list of clauses")
        literals = 0
        for index, clause in enumerate(clauses):
            if type(clause) is not list or not clause:
                raise InstanceFormatError(f"sat: clause {index} {clip(clause)}: expected a non-empty list of literals")
            literals += len(clause)
            if literals > MAX_SOLVE_LITERALS:
                raise InstanceFormatError(f"sat: more than {MAX_SOLVE_LITERALS} literals: the solve bound is {MAX_SOLVE_LITERALS}")
            if not all(is_int(literal) and literal != 0 and -n <= literal <= n for literal in clause):
                raise InstanceFormatError(f"sat: clause {index} {clip(clause)}: literals must be non-zero integers within ±{n}")

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        with _solver(SOLVER, instance["clauses"]) as solver:
            found = solve_within(solver, SOLVE_CONFLICTS)
            model = solver.get_model() if found else None
        if found is None:
            raise InstanceFormatError(f"sat: no model found within the solve budget of {SOLVE_CONFLICTS} conflicts")
        if model is None:
            raise InstanceFormatError("sat: the formula is unsatisfiable")
        true = {literal for literal in model if literal > 0}
        return {"assignment": {str(v): v in true for v in range(1, instance["num_vars"] + 1)}}

    def render(self, instance: dict[str, JSON]) -> str:
        n, clauses = instance["num_vars"], instance["clauses"]
        lines = [f"{n} variables x1..x{n}, {len(clauses)} clauses (α = {len(clauses) / n:.2f}); make every clause true:"]
        width = len(str(len(clauses)))
        for index, clause in enumerate(clauses):
            literals = " ∨ ".join(f"x{lit}" if lit > 0 else f"¬x{-lit}" for lit in clause)
            lines.append(f"{index:>{width}}: ({literals})")
        return "\n".join(lines)


def _random_formula(n: int, m: int, rng: random.Random) -> list[list[int]]:
    """m distinct clauses of 3 distinct variables with fair random signs (SATLIB's unforced model)."""
    seen: set[tuple[int, ...]] = set()
    clauses: list[list[int]] = []
    while len(clauses) < m:
        variables = sorted(rng.sample(range(1, n + 1), CLAUSE_WIDTH))
        clause = [v if rng.random() < 0.5 else -v for v in variables]
        if tuple(clause) not in seen:
            seen.add(tuple(clause))
            clauses.append(clause)
    return clauses


def _read_assignment(assignment: dict[object, JSON], n: int, issues: Issues) -> dict[int, bool]:
    """The well-formed entries as {variable: value}; every other entry becomes an issue."""
    values: dict[int, bool] = {}
    for key, value in assignment.items():
        variable = index_key(key, 1, n, issues, "variable")
        if variable is not None and type(value) is not bool:
            issues.add(IssueCode.BAD_VALUE, f"variable {key}: value {clip(value)} is not true or false")
        elif variable is not None:
            values[variable] = value
    return values
