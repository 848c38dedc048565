r"""codebench's puzzle library: generators, strict validators, reference solvers and schemas, and the question
text that poses an instance to a model (the prompt and the answer reader codebench's instruction mode uses).

Usable on its own; it never imports codebench, Docker, the network or a model client. Posing a puzzle:

    >>> import json
    >>> from puzzles import get_puzzle, instruction_prompt, read_answer
    >>> puzzle = get_puzzle("hanoi")
    >>> record = puzzle.generate(level=2, seed=0)
    >>> messages = instruction_prompt(puzzle, record)  # [{"role": "system", ...}, {"role": "user", ...}]: ask a model
    >>> reply = "Done.\n```json\n" + json.dumps(puzzle.solve(record.instance)) + "\n```"  # stands for its reply
    >>> answer = read_answer(reply)  # answer.text is None when the reply holds no answer; answer.why says why
    >>> puzzle.validate_json(record.instance, answer.text).ok
    True
"""

from ._answer import ReplyAnswer, read_answer
from ._catalog import PUZZLES, get_puzzle, puzzle_names
from ._errors import InstanceFormatError, ParamError, PuzzleError, UnknownPuzzleError
from ._json import StrictJSONError, dumps_canonical, loads_strict
from ._prompt import Prompting, instruction_prompt
from ._protocol import LEVELS, MAX_SEED, ComplexityAxis, Issue, IssueCode, Puzzle, Record, Verdict, with_repeated_keys

__all__ = [
    "LEVELS",
    "MAX_SEED",
    "PUZZLES",
    "ComplexityAxis",
    "InstanceFormatError",
    "Issue",
    "IssueCode",
    "ParamError",
    "Prompting",
    "Puzzle",
    "PuzzleError",
    "Record",
    "ReplyAnswer",
    "StrictJSONError",
    "UnknownPuzzleError",
    "Verdict",
    "dumps_canonical",
    "get_puzzle",
    "instruction_prompt",
    "loads_strict",
    "puzzle_names",
    "read_answer",
    "with_repeated_keys",
]
