"""Reading a reply is linear in its size: a hostile reply of backticks, fences and spaces cannot hold the event loop.

Both readers (code mode's extraction, instruction mode's and games' answer) run on million-character replies shaped
to make a backtracking reader rescan them (the old answer reader took 3.6 s at 100k backticks, the old fence regex
1.9 s at 10k spaces). The bound is relative to the same replies at 10k characters read here: 100 times the size
may take 1000 times as long (linear with a tenfold margin; quadratic work would take 10,000 times), plus 10 s for
the child interpreter. Each big reply is read in a child process, killed at the bound, so a quadratic reader
fails the test instead of hanging it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from codebench.modes._answer import last_answer
from codebench.modes._extract import extract_program

SHAPES: dict[str, Callable[[int], str]] = {
    "backticks": lambda n: "`" * n,
    "backticks then a stray one": lambda n: "`" * n + "x`",
    "fences on one line": lambda n: " ".join(["```"] * (n // 4)),
    "a fence, spaces, a backtick": lambda n: "```" + " " * n + "`",
    "backticks, spaces, a backtick": lambda n: "`" * (n // 2) + " " * (n // 2) + "`",
    "tildes then a backtick": lambda n: "~" * n + "`",
    "lines of fences": lambda n: "\n".join(["```"] * (n // 4)),
    "an open fence over short ones": lambda n: "`````\n" + "\n".join(["```x"] * (n // 5)),
    "braces": lambda n: "{" * n,
    "think tags": lambda n: "<think>" * (n // 7),
}
ROOT = Path(__file__).resolve().parents[2]
SMALL, LARGE = 10_000, 1_000_000
SLACK, CHILD_S = 10, 10.0
CHILD = """
import sys
from codebench.modes._answer import last_answer
from codebench.modes._extract import extract_program
from tests.codebench.test_linear_reading import SHAPES
text = SHAPES[sys.argv[1]](int(sys.argv[2]))
extract_program(text)
last_answer(text)
"""


def read(shape: str, size: int) -> float:
    text = SHAPES[shape](size)
    started = time.perf_counter()
    extract_program(text)
    last_answer(text)
    return time.perf_counter() - started


@pytest.mark.parametrize("shape", SHAPES)
def test_reading_a_reply_is_linear_in_its_size(shape: str) -> None:
    baseline = min(read(shape, SMALL) for _ in range(5))
    bound = (LARGE / SMALL) * SLACK * baseline + CHILD_S
    try:
        subprocess.run([sys.executable, "-c", CHILD, shape, str(LARGE)], check=True, timeout=bound, cwd=ROOT)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"reading a {LARGE:,}-character reply ({shape}) took over {bound:.1f} s, "
                             f"{SLACK * LARGE // SMALL}x the {baseline * 1000:.1f} ms of a {SMALL:,}-character one") from None
