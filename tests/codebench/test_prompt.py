"""Code-mode prompts: every puzzle renders, carries its marker, schemas, example and limits, and renders identically."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import puzzles
from codebench.errors import CodebenchError
from codebench.modes import _templates
from codebench.modes._templates import example_answer
from codebench.modes.code import render_code_prompt
from codebench.types import Limits, Prompt
from puzzles import _prompt
from puzzles.hanoi import Hanoi
from puzzles.rubik import MOVE_INDEX, SOLVED, _net, apply_moves
from puzzles.sudoku import _connected, _geometry
from puzzles.waterjug import ACTIONS

NAMES = puzzles.puzzle_names()
JSON_BLOCK = re.compile(r"^```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
KEY_LINES = {  # a few lines per puzzle that must appear verbatim: the rules the validator enforces
    "hanoi": [
        "- A move `[disk, from_peg, to_peg]` takes the top disk of `from_peg` and puts it on top of `to_peg`. It is legal only if "
        "`disk` is the disk on top of `from_peg`, `to_peg` is a different peg, "
        "and `to_peg` is empty or its top disk is larger than `disk`.",
        "- Sizes: `n` is 3 at the easiest level and up to 15 at the hardest; larger `n` may come.",
    ],
    "checkers": [
        "  - a jump: two cells, over exactly one checker of the other colour (R over B, B over R), into the empty cell. "
        "Jumping over the empty cell or over a checker of the same colour is illegal.",
        "- Sizes: `n` is 1 at the easiest level and up to 15 at the hardest; larger `n` may come.",
    ],
    "river": [
        "- Each trip carries 1 to `capacity` different people, all of whom must be on the bank the boat leaves from.",
        "- Sizes: from 2 couples with a boat for 2 at the easiest level up to 10 couples with a boat for 4 at the hardest; "
        "other sizes may come.",
    ],
    "sat": [
        "- `clauses` is a list of clauses, each a list of non-zero ints called literals. Literal v is true when variable v is true; "
        "literal −v is true when variable v is false.",
    ],
    "cryptarithm": [
        "- A word of two or more letters never starts with a letter worth 0; this holds for the addends and for the result. "
        "A one-letter word may be 0.",
        "- Sizes: 2 addends of 2–3 letters at the easiest level, up to 10 addends of 6–8 letters with 10 different letters at the hardest; "
        "other sizes may come.",
    ],
    "coloring": ["- `edges` lists every edge once as `[u, v]` with u < v. The two ends of every edge must get different colours."],
    "waterjug": [
        '- A step is one of exactly these six strings (case and spaces count): "Fill A", "Fill B", "Empty A", "Empty B", '
        '"Pour A to B", "Pour B to A".',
        "- Only the final state is judged: after the last step jug A or jug B must hold exactly `target` "
        "(the other jug may hold anything). Reaching the target earlier and losing it again does not count.",
    ],
    "sudoku": [
        "- Fill every blank with a digit 1..N so that every row, every column and every region holds each digit 1..N exactly once. "
        "Givens must stay as they are.",
        "- Sizes: 4×4 boxes at the easiest level, 9×9 boxes with 23–26 givens that need more than filling in forced cells, "
        "and 9×9 jigsaw grids with 16–19 givens at the hardest; sizes up to 16×16 may come.",
    ],
    "rubik": [
        "A cube is a string of 54 letters in kociemba's facelet order: the faces U (up), R (right), F (front), D (down), L (left) "
        "and B (back) in that order, 9 stickers each, every face read row by row as it is drawn in this net "
        "(U above F; L, F, R, B from left to right; D below F). The numbers are the string indices:",
        "36 37 38  18 19 20   9 10 11  45 46 47",
    ],
}


@pytest.fixture(scope="module")
def prompts() -> dict[str, Prompt]:
    return {name: render_code_prompt(puzzles.get_puzzle(name), Limits()) for name in NAMES}


def user_text(prompt: Prompt) -> str:
    roles = [role for role, _ in prompt.messages]
    assert roles == ["system", "user"]
    return prompt.messages[1][1]


@pytest.mark.parametrize("name", NAMES)
def test_prompt_holds_marker_schemas_example_and_answer(prompts: dict[str, Prompt], name: str) -> None:
    puzzle, prompt = puzzles.get_puzzle(name), prompts[name]
    text = user_text(prompt)
    assert (prompt.puzzle, prompt.mode) == (name, "code")
    assert f"codebench-puzzle: {name}" in text.splitlines()
    assert puzzle.title in text and "def solve(instance: dict) -> dict:" in text
    instance_schema, answer_schema, example, answer = (json.loads(block) for block in JSON_BLOCK.findall(text))
    assert instance_schema == puzzle.instance_schema
    assert answer_schema == puzzle.answer_schema
    assert example == puzzle.generate(1, 0).instance
    assert answer == puzzle.solve(example)
    assert puzzle.validate(example, answer).ok
    assert "exactly one fenced code block that starts with ```python" in text


@pytest.mark.parametrize("name", NAMES)
def test_key_rules_appear_verbatim(prompts: dict[str, Prompt], name: str) -> None:
    lines = user_text(prompts[name]).splitlines()
    for line in KEY_LINES[name]:
        assert line in lines


def test_limits_are_stated() -> None:
    limits = Limits(cpu_s=2.5, memory_mib=256, output_bytes=64 * 1024, answer_bytes=8 * 1024 * 1024, tmpfs_mib=32)
    text = user_text(render_code_prompt(puzzles.get_puzzle("sat"), limits))
    assert "- CPU time: 2.5 s (wall-clock time: 7.5 s); top-level code counts too." in text
    assert "- Memory: 256 MiB." in text
    assert "at most 8 MiB as JSON. Printed output: at most 64 KiB per stream" in text
    assert "(32 MiB of scratch space, wiped after every instance)" in text
    assert "- Imports: the Python standard library and numpy only." in text
    default = user_text(render_code_prompt(puzzles.get_puzzle("sat"), Limits()))
    assert "- CPU time: 10 s (wall-clock time: 30 s)" in default and "- Memory: 512 MiB." in default


def test_messages_and_canonical_text(prompts: dict[str, Prompt]) -> None:
    prompt = prompts["hanoi"]
    messages = prompt.as_messages()
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "exactly one fenced ```python code block" in messages[0]["content"]
    assert json.loads(prompt.text) == messages
    assert len({p.text for p in prompts.values()}) == len(NAMES)


def test_rendering_is_byte_identical(prompts: dict[str, Prompt]) -> None:
    again = {name: render_code_prompt(puzzles.get_puzzle(name), Limits()) for name in NAMES}
    assert again == prompts


def test_rendering_is_identical_in_another_process(prompts: dict[str, Prompt]) -> None:
    script = (
        "import hashlib, puzzles\n"
        "from codebench.modes.code import render_code_prompt\n"
        "from codebench.types import Limits\n"
        "for name in puzzles.puzzle_names():\n"
        "    print(name, hashlib.sha256(render_code_prompt(puzzles.get_puzzle(name), Limits()).text.encode()).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=120).stdout
    assert out.split() == [x for name in NAMES for x in (name, hashlib.sha256(prompts[name].text.encode()).hexdigest())]


def test_rubik_facts_match_the_puzzle(prompts: dict[str, Prompt]) -> None:
    text = user_text(prompts["rubik"])
    assert f'U turns the solved cube into "{apply_moves(SOLVED, [MOVE_INDEX["U"]])}"' in text
    assert f'The solved cube is "{SOLVED}"' in text
    diagram = text.split("The numbers are the string indices:\n\n```\n", 1)[1].split("```", 1)[0]
    rows = [line.split() for line in diagram.splitlines() if re.search(r"\d", line)]
    assert rows == [line.split() for line in _net([str(i) for i in range(54)])]


def test_worked_examples_in_the_rules_are_valid(prompts: dict[str, Prompt]) -> None:
    mapping = json.loads(re.search(r"SEND \+ MORE = MONEY is solved by `(.*?)`", user_text(prompts["cryptarithm"])).group(1))  # type: ignore[union-attr]
    assert puzzles.get_puzzle("cryptarithm").validate({"addends": ["SEND", "MORE"], "result": "MONEY"}, mapping).ok
    regions = json.loads(re.search(r'A 4×4 jigsaw could have `"regions": (.*?)`', user_text(prompts["sudoku"])).group(1))  # type: ignore[union-attr]
    assert _geometry({"size": 4, "box": None, "regions": regions, "grid": [[0] * 4 for _ in range(4)]})[1] == regions
    assert all(_connected([r * 4 + c for r in range(4) for c in range(4) if regions[r][c] == k], 4) for k in range(4))


def test_waterjug_lists_the_exact_actions(prompts: dict[str, Prompt]) -> None:
    text = user_text(prompts["waterjug"])
    assert ", ".join(f'"{action}"' for action in ACTIONS) in text


def test_long_example_answer_shows_a_prefix_and_says_so() -> None:
    hanoi = puzzles.get_puzzle("hanoi")
    instance = hanoi.generate(params={"n": 8}, seed=0).instance
    full = hanoi.solve(instance)
    text, note = example_answer(hanoi, full, limit=300)
    shown = json.loads(text)["moves"]
    assert 1 <= len(shown) < 255 and shown == full["moves"][: len(shown)] and len(text) <= 300
    assert note == f'Only the first {len(shown)} of the 255 entries of "moves" are shown.'
    text, note = example_answer(hanoi, full)
    assert len(text) <= _templates.EXAMPLE_CHARS < len(_templates.compact_json(full)) and note.startswith("Only the first ")
    small = hanoi.solve(hanoi.generate(1, 0).instance)
    assert example_answer(hanoi, small) == (_templates.compact_json(small), "")


def test_missing_template_says_where() -> None:
    class Unknown(Hanoi):
        name = "nosuch"

    with pytest.raises(CodebenchError, match=r"no code-mode prompt template 'nosuch': expected .*templates/code/nosuch\.md\.j2"):
        render_code_prompt(Unknown(), Limits())


def test_missing_templates_folder_says_to_reinstall(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_prompt, "TEMPLATES", tmp_path)
    _prompt._environment.cache_clear()
    try:
        with pytest.raises(CodebenchError, match="prompt templates not found at .*broken; reinstall it "
                                                 r"\(pip install --force-reinstall codebench-puzzles\)"):
            render_code_prompt(puzzles.get_puzzle("hanoi"), Limits())
    finally:
        _prompt._environment.cache_clear()
