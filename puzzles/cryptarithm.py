"""Cryptarithm (alphametic addition): give each letter a digit so that W1 + … + Wk = R holds.

Distinct letters take distinct digits 0–9 and a word of two or more letters does not start with 0
(one-letter words may be 0). λ = (letters, longest word, κ = longest run of columns passing a carry,
taken from the planted solution). `search_nodes` is the branches CP-SAT takes to find a solution and
settle whether a second exists; of up to TRIES puzzles that pass a level's filters it keeps the first
whose search reaches the level's `search_target`, else the hardest, so the search rises at every level.
Answer: {"mapping": {"S": 9, "E": 5, …}}.

Bounds: generate takes 2..MAX_ADDENDS = 20 addends of at most MAX_LENGTH = 10 letters and a
search_target ≤ MAX_SEARCH_TARGET. solve takes 1..MAX_SOLVE_ADDENDS = 100 addends and a result, each
a word of 1..MAX_SOLVE_WORD = 15 uppercase letters A–Z (so CP-SAT's coefficients, up to 101 · 10^15,
stay well inside 64 bits), with at most MAX_LETTERS = 10 distinct letters (more cannot take distinct
digits). With ≤ 10 letters of domain 0–9 the search space is at most 10! assignments, so CP-SAT
ends quickly either way.

Complexity axis: λ = L, the longest addend (max_len), 2..MAX_LENGTH: the one parameter that rises by one at every
level (3..8); the letters saturate at 10 from level 5 on, so they cannot carry an axis. Every other parameter (addends,
min_len, the letter band, unique, search_target) carries on from the level below, level 1's below the ladder, so at
L = 2 addends of exactly two letters. meta's max_word_length counts the result too: L or L + 1.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._errors import InstanceFormatError, ParamError
from ._protocol import JSON, ComplexityAxis, IssueCode, Issues, Puzzle, Verdict, check_param, clip, first_reaching, is_int, open_answer

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

MAX_ADDENDS = 20  # addends generate draws
MAX_LENGTH = 10  # letters per drawn addend
MAX_LETTERS = 10  # distinct letters: one per digit
MAX_SOLVE_ADDENDS = 100  # addends solve accepts
MAX_SOLVE_WORD = 15  # letters per word (addend or result) solve accepts
WORD = re.compile(r"[A-Z]+")
MAX_DRAWS = 1000  # numbers drawn in a row that fail a level's filters (letter band, uniqueness) before giving up
TRIES = 50  # puzzles passing the filters weighed against search_target
MAX_SEARCH_TARGET = 1_000_000  # search_target generate accepts
COUNT_CAP = 10_000  # solutions counted before stopping; meta flags a capped count
Drawn = tuple[list[str], str, dict[str, int], int]  # addends, result, the planted digits, the solution count


@dataclass(frozen=True)
class CryptarithmParams:
    """`addends` words of `min_len`..`max_len` letters; the puzzle uses `min_letters`..`max_letters` letters; the
    first of TRIES such puzzles whose search_nodes reaches search_target is kept, else the hardest."""

    addends: int = 2
    min_len: int = 3
    max_len: int = 4
    min_letters: int = 2
    max_letters: int = 10
    unique: bool = False
    search_target: int = 0

    def __post_init__(self) -> None:
        check_param(2 <= self.addends <= MAX_ADDENDS, "addends", self.addends, f"2..{MAX_ADDENDS}")
        check_param(2 <= self.min_len <= MAX_LENGTH, "min_len", self.min_len, f"2..{MAX_LENGTH} (no one-letter words)")
        check_param(self.min_len <= self.max_len <= MAX_LENGTH, "max_len", self.max_len, f"{self.min_len}..{MAX_LENGTH}")
        check_param(2 <= self.min_letters <= 10, "min_letters", self.min_letters, "2..10")
        check_param(self.min_letters <= self.max_letters <= 10, "max_letters", self.max_letters, f"{self.min_letters}..10")
        slots = (self.addends + 1) * self.max_len + len(str(self.addends))
        check_param(self.min_letters <= slots, "min_letters", self.min_letters, f"at most {slots} for these word lengths")
        check_param(0 <= self.search_target <= MAX_SEARCH_TARGET, "search_target", self.search_target, f"0..{MAX_SEARCH_TARGET}")


def _letters(words: list[str]) -> list[str]:
    return sorted(set("".join(words)))


def _constrain(model: cp_model.CpModel, addends: list[str], result: str) -> dict[str, cp_model.IntVar]:
    """Fill an empty CP-SAT model: all-different digits, no leading zero on multi-letter words, one linear sum."""
    digit = {letter: model.new_int_var(0, 9, letter) for letter in _letters([*addends, result])}
    model.add_all_different(list(digit.values()))
    for word in [*addends, result]:
        if len(word) > 1:
            model.add(digit[word[0]] != 0)
    weight = dict.fromkeys(digit, 0)
    for word, sign in [(word, 1) for word in addends] + [(result, -1)]:
        for place, letter in enumerate(reversed(word)):
            weight[letter] += sign * 10**place
    model.add(sum(weight[letter] * digit[letter] for letter in digit) == 0)
    return digit


def search(addends: list[str], result: str, cap: int = COUNT_CAP) -> tuple[int, dict[str, int] | None, int]:
    """(min(number of valid mappings, cap), the first mapping found or None, the branches the search took to find a
    solution and settle whether a second exists: at its second solution, or at its end).

    One worker and no time limit, so runs repeat exactly; the capped count is a fact about the
    puzzle whatever order the solutions come in. Enumeration mode (presolve keeps every solution)
    also finds a first solution faster than a plain solve on the top levels. The branches stop at a
    second solution on every level, so a many-solution puzzle's count does not inflate its search.
    """
    from ortools.sat.python import cp_model  # deferred: it pulls in numpy and pandas (~0.5 s), so `import puzzles` stays cheap

    class Search(cp_model.CpSolverSolutionCallback):
        """Counts solutions up to `cap` and keeps the first one found."""

        def __init__(self, digit: dict[str, cp_model.IntVar], cap: int) -> None:
            super().__init__()
            self.digit = digit
            self.cap = cap
            self.count = 0
            self.first: dict[str, int] | None = None
            self.branches_at_second: int | None = None

        def on_solution_callback(self) -> None:
            if self.first is None:
                self.first = {letter: self.value(var) for letter, var in self.digit.items()}
            self.count += 1
            if self.count == 2:
                self.branches_at_second = self.num_branches
            if self.count >= self.cap:
                self.stop_search()

    model = cp_model.CpModel()
    digit = _constrain(model, addends, result)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.catch_sigint_signal = False  # else Ctrl-C silently cuts the count short; the search is brief
    found = Search(digit, cap)
    solver.solve(model, found)
    return found.count, found.first, solver.num_branches if found.branches_at_second is None else found.branches_at_second


def carry_chain(addends: list[str], digits: dict[str, int]) -> int:
    """κ: the longest run of consecutive columns (right to left) that pass a non-zero carry on."""
    carry = run = longest = 0
    for column in range(max(len(word) for word in addends)):
        carry = (carry + sum(digits[word[-1 - column]] for word in addends if column < len(word))) // 10
        run = run + 1 if carry else 0
        longest = max(longest, run)
    return longest


def _value(word: str, digits: dict[str, int]) -> int:
    return int("".join(str(digits[letter]) for letter in word))


class Cryptarithm(Puzzle[CryptarithmParams]):
    name = "cryptarithm"
    version = 2
    title = "Cryptarithm (alphametic addition)"
    params_type = CryptarithmParams
    levels = {
        1: {"addends": 2, "min_len": 2, "max_len": 3, "min_letters": 2, "max_letters": 5, "unique": False},
        2: {"addends": 2, "min_len": 3, "max_len": 4, "min_letters": 5, "max_letters": 7, "unique": False},
        3: {"addends": 2, "min_len": 4, "max_len": 5, "min_letters": 7, "max_letters": 8, "unique": True, "search_target": 500},
        4: {"addends": 3, "min_len": 4, "max_len": 6, "min_letters": 8, "max_letters": 9, "unique": True, "search_target": 1500},
        5: {"addends": (4, 5), "min_len": 5, "max_len": 7, "min_letters": 9, "max_letters": 10, "unique": True, "search_target": 3000},
        6: {"addends": (6, 10), "min_len": 6, "max_len": 8, "min_letters": 10, "max_letters": 10, "unique": True, "search_target": 10_000},
    }
    axis = ComplexityAxis.along("max_len", levels, lowest=2, highest=MAX_LENGTH,
                                limit=f"addends are drawn with at most {MAX_LENGTH} letters (at L = {MAX_LENGTH} with 6–10 addends "
                                      "a unique puzzle takes up to ~7 s to find)")
    instance_schema = {
        "type": "object",
        "required": ["addends", "result"],
        "properties": {
            "addends": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[A-Z]+$"},
                "minItems": 1,
                "description": "words added together: addends[0] + addends[1] + … = result",
            },
            "result": {"type": "string", "pattern": "^[A-Z]+$", "description": "the word the addends sum to"},
        },
        "description": (
            "each letter stands for one digit 0-9, different letters for different digits; a word of two or more "
            "letters never starts with a letter worth 0 (a one-letter word may be 0)"
        ),
    }
    answer_schema = {
        "type": "object",
        "required": ["mapping"],
        "properties": {
            "mapping": {
                "type": "object",
                "propertyNames": {"pattern": "^[A-Z]$"},
                "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9},
                "description": "every letter of the puzzle (and no other) mapped to its digit, e.g. {\"S\": 9}",
            }
        },
    }

    def build(self, params: CryptarithmParams, rng: random.Random) -> tuple[dict[str, JSON], dict[str, JSON]]:
        tries, branches, (addends, result, digits, count) = first_reaching(self._passing(params, rng), params.search_target, TRIES)
        instance = {"addends": addends, "result": result}
        meta = {
            "complexity": {
                "letters": len(digits),
                "max_word_length": max(len(word) for word in [*addends, result]),
                "carry_chain": carry_chain(addends, digits),
            },
            "solution_count": count,
            "solution_count_capped": count >= COUNT_CAP,
            "search_nodes": int(branches),  # CP-SAT's branches up to a second solution (or the end of its search)
            "solution": dict(sorted(digits.items())),
            "tries": tries,
        }
        return instance, meta

    def _passing(self, params: CryptarithmParams, rng: random.Random) -> Iterator[tuple[int, Drawn]]:
        """(search_nodes, puzzle with its planted digits and solution count) for every drawn puzzle in the letter band
        (and unique where asked); ParamError after MAX_DRAWS draws in a row without one."""
        while True:
            for _ in range(MAX_DRAWS):
                addends, result, digits = self._draw(params, rng)
                if not params.min_letters <= len(digits) <= params.max_letters:
                    continue
                count, _, branches = search(addends, result, 2 if params.unique else COUNT_CAP)
                if not params.unique or count == 1:
                    yield branches, (addends, result, digits, count)
                    break
            else:
                raise ParamError(f"no puzzle met {params} in {MAX_DRAWS} draws; widen the lengths or letter band, or drop unique")

    @staticmethod
    def _draw(params: CryptarithmParams, rng: random.Random) -> tuple[list[str], str, dict[str, int]]:
        """Numbers first, then letters: a solution without leading zeros exists by construction."""
        numbers = []
        for _ in range(params.addends):
            length = rng.randint(params.min_len, params.max_len)
            numbers.append(rng.randint(10 ** (length - 1), 10**length - 1))
        letter_of = rng.sample(string.ascii_uppercase, 10)
        words = ["".join(letter_of[int(d)] for d in str(number)) for number in [*numbers, sum(numbers)]]
        digits = {letter_of[int(d)]: int(d) for d in "".join(str(number) for number in numbers + [sum(numbers)])}
        return words[:-1], words[-1], digits

    def _validate(self, instance: dict[str, JSON], answer: JSON) -> Verdict:
        opened = open_answer(answer, "mapping", dict, 'an object from letters to digits')
        if isinstance(opened, Verdict):
            return opened
        mapping, issues = opened
        addends, result = instance["addends"], instance["result"]
        letters = _letters([*addends, result])
        digits: dict[str, int] = {}
        for key, value in mapping.items():
            if key in letters:
                if is_int(value) and 0 <= value <= 9:
                    digits[key] = value
                else:
                    issues.add(IssueCode.BAD_VALUE, f"letter {key}: {clip(value)} is not a digit 0..9")
            elif type(key) is str and len(key) == 1 and key in string.ascii_uppercase:
                issues.add(IssueCode.EXTRA, f"letter {key} does not occur in the puzzle")
            else:
                issues.add(IssueCode.UNKNOWN_TOKEN, f"key {clip(key)} is not an uppercase letter of the puzzle")
        for letter in letters:
            if letter not in mapping:
                issues.add(IssueCode.MISSING, f"letter {letter} has no digit")
        self._check_equation(addends, result, digits, len(letters), issues)
        return issues.verdict()

    @staticmethod
    def _check_equation(addends: list[str], result: str, digits: dict[str, int], letters: int, issues: Issues) -> None:
        """Injectivity, leading zeros and the sum, on the letters that have a valid digit."""
        owners: dict[int, list[str]] = {}
        for letter, value in digits.items():
            owners.setdefault(value, []).append(letter)
        for value, group in sorted(owners.items()):
            if len(group) > 1:
                issues.add(IssueCode.CONFLICT, f"letters {', '.join(sorted(group))} share the digit {value}")
        for word in dict.fromkeys([*addends, result]):
            if len(word) > 1 and digits.get(word[0]) == 0:
                issues.add(IssueCode.CONFLICT, f"word {word} starts with a zero")
        if len(digits) == letters:
            total, target = sum(_value(word, digits) for word in addends), _value(result, digits)
            if total != target:
                issues.add(IssueCode.CONFLICT, f"the addends sum to {total}, but {result} reads {target}")

    def _check_instance(self, instance: dict[str, JSON]) -> None:
        addends, result = instance.get("addends"), instance.get("result")
        if type(addends) is not list or not 1 <= len(addends) <= MAX_SOLVE_ADDENDS:
            raise InstanceFormatError(f"cryptarithm: addends {clip(addends)}: expected a list of 1..{MAX_SOLVE_ADDENDS} words")
        for what, word in [*((f"addend {i}", word) for i, word in enumerate(addends)), ("result", result)]:
            if type(word) is not str or not 1 <= len(word) <= MAX_SOLVE_WORD or not WORD.fullmatch(word):
                raise InstanceFormatError(f"cryptarithm: {what} {clip(word)}: expected 1..{MAX_SOLVE_WORD} uppercase letters A-Z")
        letters = _letters([*addends, result])
        if len(letters) > MAX_LETTERS:
            raise InstanceFormatError(
                f"cryptarithm: {len(letters)} distinct letters ({''.join(letters)}): at most {MAX_LETTERS} can take distinct digits"
            )

    def _solve(self, instance: dict[str, JSON]) -> JSON:
        _, mapping, _ = search(instance["addends"], instance["result"], cap=1)
        if mapping is None:
            equation = f"{' + '.join(instance['addends'])} = {instance['result']}"
            raise InstanceFormatError(f"cryptarithm: {clip(equation)} has no solution")
        return {"mapping": mapping}

    def render(self, instance: dict[str, JSON]) -> str:
        addends, result = instance["addends"], instance["result"]
        width = max(len(word) for word in [*addends, result]) + 2
        rows = [word.rjust(width) for word in addends[:-1]]
        rows.append("+ " + addends[-1].rjust(width - 2))
        rows += ["-" * width, result.rjust(width)]
        return "\n".join(rows) + "\ndistinct letters = distinct digits; no leading zero in words of 2+ letters"
