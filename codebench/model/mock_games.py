"""What the mock model says when the prompt names a game (`puzzles.games`), in code mode or turn by turn.

Code mode: `oracle`, `slow`, `format_retry` and `reasoning` answer with a program whose `Strategy` plays the game's
`ref` strategy. The sandbox has no `puzzles`, so the program carries the engine modules the game needs (their source,
docstrings and comments left out, as zlib-compressed JSON) and imports them from memory through a meta-path finder:
nothing is written, nothing else is needed. `wrong` plays a well-formed move no game accepts (the example move with
its first number made negative); `syntax_error`, `timeout` (an endless search), `crash` (an IndexError) and
`no_code` end in those statuses. A plugin's game (installed through an entry point) has no engine here to bundle:
`oracle` and its kind answer as `no_code`.

Instruction mode reads the seat (`codebench-seat: N`, from the opening) and the observation of the last turn
message (its ```json block after "What you see now:"): `oracle`, `slow` and `reasoning` answer the `ref` move, from
an RNG seeded by the observation; `wrong` the illegal move above; `syntax_error` the move as a Python literal;
`timeout` a reply cut off inside its JSON block; `crash` the move wrapped in `{"move": ...}`; `no_code` prose only;
`format_retry` prose, then the move once the last user message is the move reminder (any user message that shows no
observation: a game's conversation holds earlier replies, so an assistant message alone says nothing).
Imports the standard library, `puzzles` and the shared types only.
"""

from __future__ import annotations

import ast
import base64
import functools
import hashlib
import json
import random
import re
import threading
import zlib
from pathlib import Path
from typing import Any, NamedTuple

import puzzles
from puzzles.games import Game, get_game

from ..types import Status

# `syntax_error`, `timeout` and `no_code` are named after the status their replies end in
SYNTAX_ERROR, TIMEOUT, NO_CODE_REPLY = Status.SYNTAX_ERROR.value, Status.TIMEOUT.value, Status.NO_CODE.value
AS_ORACLE = ("oracle", "slow", "format_retry", "reasoning")  # code mode: these all write the ref strategy's program
SEAT = re.compile(r"^codebench-seat:[ \t]*([0-9]+)[ \t]*$", re.MULTILINE)
SEEN = "What you see now:"  # a turn message shows the observation under this line; the move reminder does not
OBSERVATION = re.compile(r"^" + SEEN + r"[ \t]*\n+```json\n(.*?)\n```", re.MULTILINE | re.DOTALL)
SOURCE_ROOT = Path(puzzles.__file__).resolve().parent.parent  # the folder holding the `puzzles` package
STUBS = ("puzzles", "puzzles.games")  # bundled empty: the real ones import every puzzle and game
NO_MOVE = "I studied the position move by move and I am fairly confident, but I will keep my move to myself."
NO_CODE = ("I cannot give a program I trust for this game. A search over the next few moves, scoring each position by "
           "the rules, would play well, but I would rather describe that idea than guess at the details.")

BOOT = '''
import importlib
import importlib.machinery
import sys


class BundledModules:  # a meta-path finder and loader of the modules in SOURCES, from memory
    def find_spec(self, name, path=None, target=None):
        if name not in SOURCES:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=name in PACKAGES)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(compile(SOURCES[module.__name__], "<bundled " + module.__name__ + ">", "exec"), vars(module))


sys.meta_path.insert(0, BundledModules())


def get_game(name):
    module, game = GAMES[name]
    return getattr(importlib.import_module(module), game)()
'''
PROGRAM = '''"""Plays {title} as codebench's reference strategy does: the engine's modules it needs travel inside this
program (zlib-compressed JSON, module name -> source) and are imported from memory; nothing is written."""

import base64
import json
import random
import zlib

SOURCES = json.loads(zlib.decompress(base64.b64decode("""
{blob}""")))
PACKAGES = {packages!r}
GAMES = {{{name!r}: ({module!r}, {cls!r})}}
BOOT = """{boot}"""
exec(BOOT)  # the finder, and get_game(name)


class Strategy:
    def __init__(self, setup):
        self.game = get_game(setup["game"])
        self.player = setup["player"]
        self.rng = random.Random(0)

    def act(self, observation):
        return self.game.strategies["ref"](self.game, observation, self.player, self.rng)
'''
WRONG = '''class Strategy:
    def __init__(self, setup):
        self.player = setup["player"]

    def act(self, observation):
        return {move}  # the example move, its first number made negative
'''
PROGRAMS = {
    SYNTAX_ERROR: 'class Strategy:\n    def __init__(self, setup)\n        self.player = setup["player"]\n\n'
                  '    def act(self, observation):\n        return {key: observation[key] for key in observation\n',
    TIMEOUT: 'class Strategy:\n    def __init__(self, setup):\n        self.player = setup["player"]\n\n'
             '    def act(self, observation):\n        depth = 1\n        while True:  # look one move deeper, then deeper still\n'
             '            depth += 1\n',
    "crash": 'class Strategy:\n    def __init__(self, setup):\n        self.player = setup["player"]\n\n'
             '    def act(self, observation):\n        keys = sorted(observation)\n'
             '        return {keys[0]: observation[keys[len(keys)]]}\n',
}


class MockReply(NamedTuple):
    """A reply: its text, the finish reason it forces (`length`: cut off) and its separate reasoning, if any."""

    text: str
    finish: str | None = None  # a finish reason the behaviour forces (`length` for a cut-off reply)
    reasoning: str | None = None  # sent as the message's `reasoning_content`


def json_reply(behavior: str, reasoning: str, text: str) -> MockReply:
    """A reply ending in `text` as a ```json block: cut off inside it (`timeout`), with its reasoning apart
    (`reasoning`), or after the reasoning."""
    if behavior == TIMEOUT:
        return MockReply(reasoning + "\n\n```json\n" + text[: max(1, len(text) // 2)], "length")
    if behavior == "reasoning":
        return MockReply("```json\n" + text + "\n```\n", reasoning=reasoning)
    return MockReply(reasoning + "\n\n```json\n" + text + "\n```\n")


def code_reply(behavior: str, name: str) -> str:
    """What a model of this behaviour says to the code-mode prompt of game `name` (`mixed` excluded)."""
    game = get_game(name)
    if behavior in AS_ORACLE and not type(game).__module__.startswith("puzzles."):  # a plugin's: no engine to bundle
        return NO_CODE
    if behavior in AS_ORACLE:
        return f"Here is a program that plays {game.title} as the reference strategy does.\n\n```python\n{strategy_program(name)}```\n"
    if behavior == "wrong":
        return f"This plays at once, without looking at the board.\n\n```python\n{wrong_program(name)}```\n"
    if behavior == NO_CODE_REPLY:
        return NO_CODE
    return f"Here is my strategy.\n\n```python\n{PROGRAMS[behavior]}```\n"


def turn_reply(behavior: str, name: str, prompt: str, last_user: str | None) -> MockReply:
    """The instruction-mode reply of `behavior` to a game's conversation, joined into `prompt`; `last_user`: the text of
    its last user message (None: unknown, taken as a turn message).

    Raises:
        ValueError: the prompt gives no seat or shows no observation, or the reference strategy cannot move from it.
    """
    game = get_game(name)
    seat, shown = SEAT.search(prompt), OBSERVATION.findall(prompt)
    if seat is None or not shown:
        raise ValueError(f"an instruction-mode prompt of the game {name} must give the seat ('codebench-seat: N') and "
                         f"show the observation ('{SEEN}' and a ```json block)")
    reminded = last_user is not None and SEEN not in last_user
    if behavior == NO_CODE_REPLY or (behavior == "format_retry" and not reminded):
        return MockReply(NO_MOVE)
    player, observation = int(seat.group(1)), json.loads(shown[-1])
    move = reference_move(game, observation, player)
    if behavior == SYNTAX_ERROR:
        return MockReply(f"My move, as a Python value:\n\n{move!r}\n")
    answer: Any = illegal(move) if behavior == "wrong" else {"move": move} if behavior == "crash" else move
    text = json.dumps(answer)
    reasoning = f"As player {player} of {game.title} I weighed every move the rules allow here, and this one is the strongest."
    return json_reply(behavior, reasoning, text)


def reference_move(game: Game, observation: Any, player: int) -> Any:
    """The `ref` strategy's move, its RNG seeded by the observation: the same turn always gets the same move.

    Raises:
        ValueError: the strategy fails on this observation (not one the engine gave, or not this seat's turn).
    """
    seed = int.from_bytes(hashlib.sha256(json.dumps(observation, sort_keys=True).encode()).digest()[:8], "big")
    try:
        return json.loads(json.dumps(game.strategies["ref"](game, observation, player, random.Random(seed))))
    except Exception as exc:  # a prompt's observation we did not make: the client's mistake
        raise ValueError(f"the reference strategy of {game.name} cannot move as player {player} from the observation shown "
                         f"({type(exc).__name__}: {exc})") from None


def illegal(move: Any) -> Any:
    """A move of the same shape that no game accepts: its first integer made -1, else its first string "?" (else {})."""
    for kind, replacement in ((int, -1), (str, "?")):
        changed, found = _replace_first(move, kind, replacement)
        if found:
            return changed
    return {}


def _replace_first(value: Any, kind: type, replacement: Any) -> tuple[Any, bool]:
    if isinstance(value, kind) and not isinstance(value, bool):
        return replacement, True
    items = list(value.items()) if isinstance(value, dict) else list(enumerate(value)) if isinstance(value, list) else []
    for key, item in items:
        changed, found = _replace_first(item, kind, replacement)
        if found:
            copy = dict(value) if isinstance(value, dict) else list(value)
            copy[key] = changed
            return copy, True
    return value, False


@functools.cache
def wrong_program(name: str) -> str:
    """A Strategy that answers the example move of the prompt made illegal, whatever it sees."""
    game = get_game(name)
    setup = game.setup(min(game.levels), 0)
    move = game.strategies["ref"](game, game.observe(setup.state, 0), 0, random.Random(0))
    return WRONG.format(move=repr(illegal(json.loads(json.dumps(move)))))


def strategy_program(name: str) -> str:
    """The self-contained program whose Strategy plays game `name`'s reference strategy (see the module docstring).

    Built once per game, one build at a time: the server answers in many threads, and CPython 3.11's `ast.parse`
    is not safe to run in two at once ("AST constructor recursion depth mismatch")."""
    with _BUILDING:
        return _strategy_program(name)


@functools.cache
def _strategy_program(name: str) -> str:
    game = get_game(name)
    module = type(game).__module__
    sources = {package: "" for package in STUBS}
    sources.update((needed, _stripped(_path(needed).read_text(encoding="utf-8"))) for needed in sorted(bundled_modules(module)))
    blob = zlib.compress(json.dumps(sources, sort_keys=True, separators=(",", ":")).encode(), 9)
    return PROGRAM.format(title=game.title, blob=base64.encodebytes(blob).decode("ascii"), packages=STUBS, name=name,
                          module=module, cls=type(game).__name__, boot=BOOT)


_BUILDING = threading.Lock()


def bundled_modules(module: str) -> set[str]:
    """`module` and every `puzzles` module it imports, directly or not, function-local imports included; the two
    packages are stubs, so importing a name from one of them is refused.

    Raises:
        RuntimeError: a module imports a name from a stubbed package's `__init__`.
    """
    needed: set[str] = set()
    todo = [module]
    while todo:
        current = todo.pop()
        if current in needed:
            continue
        needed.add(current)
        todo.extend(_imports(current))
    return needed


def _imports(module: str) -> set[str]:
    """The `puzzles` modules (never the stubbed packages) that `module` imports."""
    package = module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(_path(module).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "puzzles")
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join([*parts[: len(parts) - node.level + 1], *([node.module] if node.module else [])]) if node.level \
                else node.module or ""
            if base.split(".")[0] != "puzzles":
                continue
            for alias in node.names:
                if _path(f"{base}.{alias.name}").is_file():
                    found.add(f"{base}.{alias.name}")  # from . import module
                elif base in STUBS:
                    raise RuntimeError(f"{module} imports {alias.name} from {base}, which the bundle leaves empty")
            found.add(base)
    return found - set(STUBS)


def _path(module: str) -> Path:
    return SOURCE_ROOT.joinpath(*module.split(".")).with_suffix(".py")


def _stripped(source: str) -> str:
    """The module's code without docstrings and comments (the same behaviour, half the size)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(tree) + "\n"
