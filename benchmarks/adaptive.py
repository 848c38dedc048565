"""The adaptive collapse search against the fixed L1–L6 grid, side by side in one run, on simulated models (issue 31).

A simulated model's chance of a legal answer at Tower of Hanoi's n disks is a known logistic 1 / (1 + exp(slope·(n −
midpoint))), no lapse; the models are every pair of MIDPOINTS (spread over the grid's span, n 3..15) and SLOPES (a fall
from 0.9 to 0.1 over 4.4, 2.2 and 1.1 disks). Both designs search n 1..15 with `codebench.adaptive`'s defaults, analyse
their results with the same posterior and stop by the same rule (the 95 % interval of λ* narrower than the target
width, else the budget); only the choice of n differs. The adaptive design asks one result at a time where its
criterion says; the grid asks a round of one result at each of Hanoi's six levels (a band's results cycle through it:
L3 asks n = 5, 6, 5, …), so its n results a level grow until its interval is narrow enough: the fixed grid's cost for
that width, at its most favourable (it stops the round it gets there). Each model is searched `--repetitions` times
with seeded draws.

Printed per model: mean requests (counted results) of each design and their ratio, the bias of λ* (mean estimate less
the true midpoint) and the coverage of the 95 % intervals (the share that holds the true midpoint); then the pooled
numbers. Bars (issue 31): the adaptive search spends at most 1/3 of the grid's requests over all the models, and its
intervals cover the true midpoint in 0.9–0.99 of all searches (exit status 1 when one is missed). A model whose own
ratio is above 1/3 is marked: where the threshold sits among the grid's dense low levels and the curve is shallow, no
design can reach 1/3 against this grid (asking every result at the midpoint, where a result tells most about it, gives
s²/4 of Fisher information, against the grid's mean over its levels of s²·p(1 − p): 0.41 of it for midpoint 4, slope 1).
The ratio depends on the target: the adaptive search's first results go to finding the fall at all, a cost the grid's
spread pays too but a narrow target amortises. On this machine (200 searches): width 1, the default, pooled ratio 0.24
and coverage 0.95 (bars met); width 2, pooled ratio 0.45 and coverage 0.99 (the requests bar missed).
Run: `.venv/bin/python benchmarks/adaptive.py [--repetitions N] [--target-width W]`.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this folder must not shadow the packages

from codebench.adaptive import AdaptiveDesign, Simulation  # noqa: E402
from puzzles import get_puzzle  # noqa: E402

LO, HI = 1, 15  # Hanoi's n the search may ask (its generator goes to 24; the grid's top band ends at 15)
MIDPOINTS = (4.0, 6.5, 9.0, 11.5, 14.0)
SLOPES = (1.0, 2.0, 4.0)
BUDGET = {"adaptive": 1000, "grid": 6000}  # counted results; the grid's cap is far above what it needs here
RATIO_BAR = 1 / 3
COVERAGE_BAR = (0.9, 0.99)


def hanoi_levels() -> list[tuple[int, ...]]:
    """The complexities of Hanoi's L1–L6, read from the puzzle: a band (low, high) is every n in it."""
    levels = get_puzzle("hanoi").levels
    return [tuple(range(n[0], n[1] + 1)) if isinstance(n, tuple) else (n,) for n in (levels[level]["n"] for level in sorted(levels))]


def search(model: tuple[int, float, float], width: float, repetitions: int) -> dict[str, Simulation]:
    """Both designs on one model, seeded by the model's index."""
    index, midpoint, slope = model
    design = AdaptiveDesign(LO, HI)
    truth = {n: 1 / (1 + math.exp(slope * (n - midpoint))) for n in range(LO, HI + 1)}
    return {"adaptive": design.simulate(truth, width, BUDGET["adaptive"], repetitions=repetitions, seed=index),
            "grid": design.simulate(truth, width, BUDGET["grid"], levels=hanoi_levels(), repetitions=repetitions, seed=index)}


def covered(run: Simulation, midpoint: float) -> np.ndarray:
    return (run.low <= midpoint) & (midpoint <= run.high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repetitions", type=int, default=200, help="seeded searches per model and design (default 200)")
    parser.add_argument("--target-width", type=float, default=1.0, help="the 95 %% interval's target width in disks (default 1)")
    args = parser.parse_args()
    models = [(index, midpoint, slope) for index, (midpoint, slope) in enumerate((m, s) for m in MIDPOINTS for s in SLOPES)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(search, models, [args.target_width] * len(models), [args.repetitions] * len(models)))
    seconds = time.perf_counter() - started
    print(f"Tower of Hanoi n {LO}..{HI}; grid levels {hanoi_levels()}; target width {args.target_width:g}; "
          f"{args.repetitions} searches per model and design\n")
    print(f"{'midpoint':>8} {'slope':>5}   {'requests: adaptive':>18} {'grid':>7} {'ratio':>6}   "
          f"{'bias: adaptive':>14} {'grid':>6}   {'coverage: adaptive':>18} {'grid':>5}   {'reached: adaptive':>17} {'grid':>5}")
    for (_, midpoint, slope), run in zip(models, runs):
        adaptive, grid = run["adaptive"], run["grid"]
        ratio = adaptive.counted.mean() / grid.counted.mean()
        print(f"{midpoint:>8.1f} {slope:>5.1f}   {adaptive.counted.mean():>18.1f} {grid.counted.mean():>7.1f} {ratio:>6.2f}"
              f"{'*' if ratio > RATIO_BAR else ' '}  {np.mean(adaptive.lambda_star - midpoint):>+14.3f} "
              f"{np.mean(grid.lambda_star - midpoint):>+6.3f}   {covered(adaptive, midpoint).mean():>18.3f} "
              f"{covered(grid, midpoint).mean():>5.3f}   {adaptive.reached.mean():>17.2f} {grid.reached.mean():>5.2f}")
    total = {way: sum(run[way].counted.mean() for run in runs) for way in ("adaptive", "grid")}
    coverage = {way: np.mean([covered(run[way], midpoint).mean() for (_, midpoint, _), run in zip(models, runs)])
                for way in ("adaptive", "grid")}
    bias = {way: np.mean([abs(np.mean(run[way].lambda_star - midpoint)) for (_, midpoint, _), run in zip(models, runs)])
            for way in ("adaptive", "grid")}
    ratios = [run["adaptive"].counted.mean() / run["grid"].counted.mean() for run in runs]
    pooled = total["adaptive"] / total["grid"]
    print(f"\nall models: requests {total['adaptive']:.0f} adaptive, {total['grid']:.0f} grid (sums of the means): ratio "
          f"{pooled:.3f} (bar ≤ {RATIO_BAR:.3f}); per-model ratios: median {np.median(ratios):.2f}, geometric mean "
          f"{math.exp(np.mean(np.log(ratios))):.2f}, {sum(r > RATIO_BAR for r in ratios)} of {len(ratios)} above the bar (*)")
    print(f"coverage of the 95 % intervals: adaptive {coverage['adaptive']:.3f} (bar {COVERAGE_BAR[0]}–{COVERAGE_BAR[1]}), "
          f"grid {coverage['grid']:.3f}; mean |bias|: adaptive {bias['adaptive']:.3f}, grid {bias['grid']:.3f} disks")
    missed = [name for name, ok in (("requests", pooled <= RATIO_BAR),
                                    ("coverage", COVERAGE_BAR[0] <= coverage["adaptive"] <= COVERAGE_BAR[1])) if not ok]
    print(f"({seconds:.0f} s)\nbars " + ("met" if not missed else "missed: " + ", ".join(missed)))
    raise SystemExit(1 if missed else 0)


if __name__ == "__main__":
    main()
