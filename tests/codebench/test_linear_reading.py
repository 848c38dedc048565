"""Reading a reply is linear in its size: a hostile reply of backticks, fences and spaces cannot hold the event loop.

Both readers (code mode's extraction, instruction mode's and games' answer) run on million-character replies shaped
to make a backtracking reader rescan them (the old answer reader took 3.6 s at 100k backticks, the old fence regex
1.9 s at 10k spaces). The bound is relative to the same replies at 10k characters read here: 100 times the size
may take 1000 times as long (linear with a tenfold margin; quadratic work would take 10,000 times), plus 10 s for
the child interpreter. Each big reply is read in a child process, killed at the bound, so a quadratic reader
fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from codebench.modes import get_mode
from codebench.modes._extract import extract_program
from codebench.types import Completion, Prompt, SampleJob, Sampling
from puzzles import read_answer

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
from codebench.modes._extract import extract_program
from puzzles import read_answer
from tests.codebench.test_linear_reading import SHAPES
text = SHAPES[sys.argv[1]](int(sys.argv[2]))
extract_program(text)
read_answer(text)
"""


def read(shape: str, size: int) -> float:
    text = SHAPES[shape](size)
    started = time.perf_counter()
    extract_program(text)
    read_answer(text)
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


class Replier:
    """A chat model whose reply is one text, whatever is asked."""

    base_url = "fake://replier"

    def __init__(self, text: str) -> None:
        self.text = text

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        return Completion(self.text, "stop", False, 1, 1, 0.0, None, None)


@pytest.mark.parametrize("mode", ["code", "instruction"])
def test_a_reply_is_read_off_the_event_loop(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a 4 MiB reply takes seconds even in linear time: the run's other requests go on meanwhile."""
    readers: list[threading.Thread] = []
    module, name = ("codebench.modes.code", "extract_program") if mode == "code" else ("codebench.modes.instruction", "read_answer")
    reader = getattr(importlib.import_module(module), name)

    def watched(*args: object) -> object:
        readers.append(threading.current_thread())
        return reader(*args)

    monkeypatch.setattr(f"{module}.{name}", watched)
    job = SampleJob("k", "m", mode, "hanoi", 0, Prompt("hanoi", mode, (("user", "hi"),)), Sampling(0.0, None, 0), ())

    async def ask() -> threading.Thread:
        await get_mode(mode).ask(job, Replier("no answer"))
        return threading.current_thread()

    loop_thread = asyncio.run(ask())
    assert readers and all(thread is not loop_thread for thread in readers)
