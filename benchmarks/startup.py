"""Startup cost of `import puzzles` and the command line, measured side by side in one run.

Wall time of fresh interpreters (this Python, run from the repository root, output discarded), interleaved
round-robin and reported as the median of each, against the bare interpreter `python -c pass`. Python's
bytecode cache is on, as it is by default for users (PYTHONDONTWRITEBYTECODE is dropped; the cache goes to a
temporary PYTHONPYCACHEPREFIX, so the tree stays clean; an untimed first round fills it):
`python -c "import puzzles"`, `python -m codebench puzzles list` and `python -m codebench --help`.
Bars: import puzzles ≤ 5× and codebench puzzles list ≤ 10× `python -c pass` (--help is shown against the same 10×,
for information only).
Run: `.venv/bin/python benchmarks/startup.py [--rounds 15]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)  # this folder must not shadow the packages

COMMANDS = {  # label: (arguments after the interpreter, bar as a multiple of the baseline, whether it decides the exit status)
    "python -c pass": (["-c", "pass"], None, False),
    'python -c "import puzzles"': (["-c", "import puzzles"], 5.0, True),
    "python -m codebench puzzles list": (["-m", "codebench", "puzzles", "list"], 10.0, True),
    "python -m codebench --help": (["-m", "codebench", "--help"], 10.0, False),
}


def time_once(arguments: list[str], env: dict[str, str]) -> float:
    """Seconds for one fresh interpreter to run `arguments`; a failing command stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"python {' '.join(arguments)} exited {done.returncode}:\n{done.stderr.decode(errors='replace')[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds, each running every command once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codebench-pycache-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPYCACHEPREFIX": cache}
        for arguments, _, _ in COMMANDS.values():  # one untimed round: fill the bytecode and file caches alike
            time_once(arguments, env)
        times: dict[str, list[float]] = {label: [] for label in COMMANDS}
        for _ in range(args.rounds):  # round-robin, so drift in machine load hits every command alike
            for label, (arguments, _, _) in COMMANDS.items():
                times[label].append(time_once(arguments, env))
    medians = {label: statistics.median(seconds) for label, seconds in times.items()}
    baseline = medians["python -c pass"]
    print(f"median of {args.rounds} interleaved rounds, {sys.executable}, bytecode cache on")
    passed = True
    for label, (_, bar, decides) in COMMANDS.items():
        ratio = medians[label] / baseline
        line = f"{label:<34} {medians[label] * 1000:7.1f} ms {ratio:6.2f}x"
        if bar is not None:
            holds = ratio <= bar
            line += f"  (bar {bar:g}x) {'ok' if holds else 'OVER'}" + ("" if decides else ", for information")
            passed = passed and (holds or not decides)
        print(line)
    raise SystemExit(0 if passed else 1)


if __name__ == "__main__":
    main()
