"""`codebench run --protocol puzzleplex`: PuzzlePlex's code-based setting as one flag. Its dry run prints the paper's
counts per game (32 samples; 10 / 100 / 5 × 2 / 50 × 2 seeds by kind); an option that changes what the protocol
measures is refused in one line, `--games`/`--levels` narrow it and `--samples`/`--instances-per-level` scale it (each
said as a departure); its keys are a plain run's for the same work; a small run completes against the mock server and
its report prints Table 3's layout, mean ± 95% Student-t half-width over the sample means, checked against the stored
games."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

import codebench
from codebench.analysis.protocol import interval, protocol_table, t_quantile
from codebench.protocols import KINDS, PUZZLEPLEX, game_kind
from codebench.run.options import spec_from_options
from codebench.run.plan import make_plan
from codebench.run.spec import OPTION, RunSpec
from codebench.types import GameLimits, GameRow
from puzzles.games import game_names, get_game

from .cli import run_cli
from .entry_points.refusal import refused

DEAD_URL = "http://127.0.0.1:9/v1"  # nothing listens: a dry run calls nothing
# PuzzlePlex's kinds of its 13 code-setting games, as the paper lists them (spec §2.0, puzzles 1-13)
PAPER_KINDS = {"1P deterministic": {"tidytower", "optimaltouring", "countmaximalcocktails"},
               "1P stochastic": {"rubyrisks", "exclusivityprobes", "maxtarget"},
               "2P deterministic": {"cardnim", "sudokill", "maxmaximalcocktails", "exclusivityparticles", "superply"},
               "2P stochastic": {"beatorbombsto", "largertarget"}}
PAPER_SEEDS = {"1P deterministic": 10, "1P stochastic": 100, "2P deterministic": 5, "2P stochastic": 50}  # seeds 1-10 …


def dry_run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str, models: str = "m") -> dict[str, Any]:
    code, out, err = run_cli(capsys, "run", "--model", models, "--base-url", DEAD_URL, "--out", str(tmp_path / "out"),
                             *argv, "--dry-run")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_the_protocol_plays_the_papers_games_by_their_kinds() -> None:
    assert {kind: {game for game in PUZZLEPLEX.games if game_kind(get_game(game)) == kind} for kind in KINDS} == PAPER_KINDS
    assert dict(PUZZLEPLEX.seeds) == PAPER_SEEDS and PUZZLEPLEX.samples == 32 and dict(PUZZLEPLEX.levels) == {1: "easy", 2: "normal"}
    assert set(game_names()) - set(PUZZLEPLEX.games) == {"sudokillm", "superplym"}  # the image games: instruction setting only
    assert PUZZLEPLEX.game_limits == GameLimits(game_cpu_s=300.0, move_cpu_s=10.0)


@pytest.mark.parametrize("models", ["m", "a,b"])
def test_the_dry_run_prints_the_papers_counts_for_every_kind_of_game(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                     models: str) -> None:
    plan = dry_run(capsys, tmp_path, "--protocol", "puzzleplex", models=models)
    shown = plan["protocol"]["games"]
    pairs = len(models.split(",")) * (len(models.split(",")) - 1) // 2
    assert list(shown) == list(PUZZLEPLEX.games) and plan["puzzles"] == {} and plan["protocol"]["departures"] == []
    assert plan["requests"] == len(models.split(",")) * 32 * 13  # one strategy a model, game and sample
    for name, seen in shown.items():
        kind = game_kind(get_game(name))
        seeds, two = PAPER_SEEDS[kind], kind.startswith("2P")
        entrants = len(models.split(",")) * 32
        # a one-player game: every sample and the two baselines; two players: every sample against ref in both seats,
        # and models against each other sample k against sample k in both seat orders (never 32 × 32)
        per_seed = entrants * 2 + pairs * 32 * 2 if two else entrants + 2
        assert seen == {"kind": kind, "samples": 32, "levels": [1, 2], "seeds_per_level": seeds, "seat_orders": 2 if two else 1,
                        "games": 2 * seeds * per_seed}, name
        assert plan["games"][name] == seen["games"]
    assert {shown[name]["seeds_per_level"] for name in ("tidytower", "rubyrisks", "cardnim", "beatorbombsto")} == {10, 100, 5, 50}


def test_the_planned_matches_are_the_seeds_and_seat_orders_the_dry_run_counts() -> None:
    spec = spec_from_options({"model": "a,b", "protocol": "puzzleplex", "games": "maxtarget,largertarget"}, {})
    plan = make_plan(spec, {"a": DEAD_URL, "b": DEAD_URL})
    seeds: dict[tuple[str, int], set[int]] = {}
    for job in plan.matches:
        seeds.setdefault((job.game, job.level), set()).add(job.seed)
    assert seeds == {("maxtarget", 1): set(range(100)), ("maxtarget", 2): set(range(100)),
                     ("largertarget", 1): set(range(50)), ("largertarget", 2): set(range(50))}
    seated = {job.players for job in plan.matches if job.game == "largertarget" and job.seed == 7 and job.level == 2}
    assert seated == {("a (code)", "ref"), ("ref", "a (code)"), ("b (code)", "ref"), ("ref", "b (code)"),
                      ("a (code)", "b (code)"), ("b (code)", "a (code)")}
    pairs = [tuple(entrant.sample for entrant in job.entrants) for job in plan.matches
             if job.game == "largertarget" and job.players == ("a (code)", "b (code)")]
    assert pairs and all(mine == theirs for mine, theirs in pairs)  # sample k meets sample k


def test_the_option_is_declared_once_and_the_config_key_is_the_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    option = OPTION["protocol"]
    assert option.flags == ("--protocol",) and option.default is None and "puzzleplex" in (option.takes or "")
    code, out, _ = run_cli(capsys, "run", "--help")
    assert code == 0 and "--protocol" in out
    config = tmp_path / "run.yaml"
    config.write_text(f"model: m\nprotocol: puzzleplex\nsamples: 3\nout: {tmp_path / 'out'}\n")
    by_config = spec_from_options({}, {"model": "m", "protocol": "puzzleplex", "samples": 3, "out": str(tmp_path / "out")})
    by_flags = spec_from_options({"model": "m", "protocol": "puzzleplex", "samples": 3, "out": tmp_path / "out"}, {})
    assert by_config == by_flags and by_flags.protocol == "puzzleplex" and by_flags.samples == 3
    code, out, err = run_cli(capsys, "run", "--config", str(config), "--base-url", DEAD_URL, "--dry-run")
    assert code == 0 and json.loads(out)["protocol"]["games"]["cardnim"]["samples"] == 3, err
    refused(capsys, "run", "--config", str(config), "--protocol", "paperplex", "--dry-run", inputs=(tmp_path,),
            contains="--protocol 'paperplex': choose one of puzzleplex")
    config.write_text(f"model: m\nprotocol: puzzleplex\nmode: both\nout: {tmp_path / 'out'}\n")
    refused(capsys, "run", "--config", str(config), "--dry-run", inputs=(tmp_path,),
            contains=f"mode (in {config}) both: --protocol puzzleplex sets it to code")


@pytest.mark.parametrize(("argv", "message"), [
    (["--mode", "both"], "--mode both: --protocol puzzleplex sets it to code (PuzzlePlex's code-based setting): leave it out, "
                         "or drop --protocol"),
    (["--mode", "instruction"], "--mode instruction: --protocol puzzleplex sets it to code"),
    (["--puzzles", "hanoi"], "--puzzles hanoi: --protocol puzzleplex sets it to none"),
    (["--opponents", "ref,random"], "--opponents ref,random: --protocol puzzleplex sets it to ref,models"),
    (["--game-cpu", "20"], "--game-cpu 20: --protocol puzzleplex sets it to 300"),
    (["--move-cpu", "2"], "--move-cpu 2: --protocol puzzleplex sets it to 10"),
    (["--games", "cardnim,sudokillm"], "--games sudokillm: not in --protocol puzzleplex's tidytower,"),
    (["--games", "chess"], "--games chess: not in --protocol puzzleplex's tidytower,"),
    (["--levels", "2-3"], "--levels 3: not in --protocol puzzleplex's 1,2: give some of these, or drop --protocol"),
])
def test_an_option_that_changes_what_the_protocol_measures_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                       argv: list[str], message: str) -> None:
    for dry in (["--dry-run"], []):
        refused(capsys, "run", "--model", "m", "--base-url", DEAD_URL, "--out", str(tmp_path / "out"), "--protocol", "puzzleplex",
                *argv, *dry, contains=message, inputs=(tmp_path,))


def test_narrowing_and_scaling_options_win_and_are_said(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    same = dry_run(capsys, tmp_path, "--protocol", "puzzleplex", "--mode", "code", "--opponents", "models,ref", "--game-cpu",
                   "300", "--games", "all")  # the protocol's own values, given again; all: its games
    assert list(same["games"]) == list(PUZZLEPLEX.games) and same["protocol"]["departures"] == []
    plan = dry_run(capsys, tmp_path, "--protocol", "puzzleplex", "--games", "rubyrisks,cardnim", "--levels", "1", "--samples", "2")
    assert {name: (g["samples"], g["levels"], g["seeds_per_level"]) for name, g in plan["protocol"]["games"].items()} == {
        "rubyrisks": (2, [1], 100), "cardnim": (2, [1], 5)}
    assert plan["games"] == {"rubyrisks": 100 * (2 + 2), "cardnim": 5 * 2 * 2}
    assert plan["protocol"]["departures"] == ["samples 2 (the protocol's: 32)", "2 of its 13 games (rubyrisks,cardnim)",
                                              "levels 1 (the protocol's: 1,2)"]
    seeds = dry_run(capsys, tmp_path, "--protocol", "puzzleplex", "--games", "rubyrisks,cardnim", "--instances-per-level", "3")
    assert {g["seeds_per_level"] for g in seeds["protocol"]["games"].values()} == {3}
    assert seeds["protocol"]["departures"][-1].startswith("3 seeds per level for every game (the protocol's: 10 1P deterministic")
    plain = dry_run(capsys, tmp_path, "--games", "rubyrisks,cardnim", "--instances-per-level", "3")
    assert "protocol" not in plain  # a plain run's dry run is as before


def test_a_protocol_runs_keys_are_a_plain_runs_for_the_same_work() -> None:
    """The protocol decides what is asked and played, not how: the same strategies and games keep their keys (a plain
    run's stored work is reused, and a resumed protocol run finds its own), and a plain run's keys do not move."""
    urls = {"a": DEAD_URL, "b": DEAD_URL}
    protocol = spec_from_options({"model": "a,b", "protocol": "puzzleplex", "games": "tidytower,largertarget",
                                  "samples": 2, "instances_per_level": 2}, {})
    plain = RunSpec(models=("a", "b"), puzzles=(), games=("tidytower", "largertarget"), levels=(1, 2), samples=2,
                    instances_per_level=2, opponents=("ref", "models"))
    ours, theirs = make_plan(protocol, urls), make_plan(plain, urls)
    assert [job.key for job in ours.strategies] == [job.key for job in theirs.strategies]
    assert [job.key for job in ours.matches] == [job.key for job in theirs.matches] and ours.matches
    again = make_plan(spec_from_options({"model": "a,b", "protocol": "puzzleplex", "games": "tidytower,largertarget",
                                         "samples": 2, "instances_per_level": 2}, {}), urls)
    assert [job.key for job in again.matches] == [job.key for job in ours.matches]


def test_the_t_quantile_is_students() -> None:
    for df, table in ((1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (31, 2.0395), (99, 1.9842)):  # printed tables
        assert t_quantile(0.975, df) == pytest.approx(table, abs=1e-4), df
    found = interval([0.2, 0.4, 0.6])
    assert (found.mean, found.n, found.best) == (pytest.approx(0.4), 3, 0.6)
    assert found.half_width == pytest.approx(4.3027 * 0.2 / math.sqrt(3), abs=1e-4)
    assert interval([0.7]).half_width == 0.0  # one sample: no spread, as the paper's


def row(game: str, seed: int, players: tuple[str, ...], samples: tuple[int, ...], scores: tuple[float, ...],
        reference: float | None = None) -> GameRow:
    """A stored game as the report reads it: seats' samples, scores and statuses."""
    return GameRow(f"{game}-{seed}-{players}-{samples}", game, 1, seed, players,
                   {"outcome": {"scores": list(scores)}, "statuses": ["legal"] * len(players), "kept": [{}] * len(players),
                    "entries": [{"sample": sample} for sample in samples], "reference": reference, "higher_is_better": True})


def test_a_group_pools_its_games_sample_means_and_averages_their_bests() -> None:
    rows = [row("rubyrisks", 0, ("m (code)",), (0,), (50.0,), 100.0), row("rubyrisks", 1, ("m (code)",), (0,), (70.0,), 100.0),
            row("rubyrisks", 0, ("m (code)",), (1,), (90.0,), 100.0), row("rubyrisks", 1, ("m (code)",), (1,), (90.0,), 100.0),
            row("cardnim", 0, ("m (code)", "ref"), (0, 0), (1.0, 0.0)), row("cardnim", 0, ("ref", "m (code)"), (0, 0), (1.0, 0.0)),
            row("cardnim", 0, ("m (code)", "ref"), (1, 0), (1.0, 0.0)), row("cardnim", 0, ("ref", "m (code)"), (0, 1), (0.0, 1.0))]
    table = protocol_table(rows, PUZZLEPLEX, [("runs/x", ())])
    assert table is not None
    games = {(s.player, s.game): s for s in table.scores}
    ruby, nim = games["m (code)", "rubyrisks"], games["m (code)", "cardnim"]
    assert (ruby.normalized.mean, ruby.normalized.best, ruby.games) == (pytest.approx(0.75), pytest.approx(0.9), 4)
    assert ruby.normalized.half_width == pytest.approx(12.7062 * statistics.stdev([0.6, 0.9]) / math.sqrt(2), abs=1e-3)
    assert (nim.normalized.mean, nim.normalized.best) == (pytest.approx(0.75), 1.0)  # samples 0.5 and 1.0
    assert games["ref", "cardnim"].normalized.n == 1 and games["ref", "cardnim"].normalized.mean == pytest.approx(0.25)  # won 1 of 4
    whole = next(g for g in table.groups if g.player == "m (code)" and g.kind == "all")
    assert whole.normalized.n == 4 and whole.games == 2 and whole.normalized.mean == pytest.approx(0.75)
    assert whole.normalized.best == pytest.approx((0.9 + 1.0) / 2)  # each game's best, averaged (not the pool's max)
    assert whole.normalized.half_width == pytest.approx(t_quantile(0.975, 3) * statistics.stdev([0.6, 0.9, 0.5, 1.0]) / 2)
    assert table.kinds == ("1P stochastic", "2P deterministic") and table.levels == {1: "easy"}


def test_a_small_protocol_run_completes_against_the_mock_server_and_reports_table_3(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from codebench.model.mock_server import start_mock_server

    out = tmp_path / "run"
    argv = ["run", "--model", "oracle,wrong", "--protocol", "puzzleplex", "--games", "rubyrisks,cardnim", "--samples", "2",
            "--instances-per-level", "1", "--backend", "unsafe-local", "--workers", "2", "--out", str(out)]
    with start_mock_server() as server:
        code, stdout, err = run_cli(capsys, *argv[:3], "--base-url", server.url, *argv[3:])
        assert code == 0, err
        code, dry, err = run_cli(capsys, *argv[:3], "--base-url", server.url, *argv[3:], "--dry-run")
    plan = json.loads(dry)
    assert code == 0 and plan["requests_stored"] == plan["requests"] == 2 * 2 * 2, err  # resumed: nothing left to ask
    assert plan["games_stored"] == sum(plan["games"].values()) == 2 * (2 * 2 + 2) + 2 * (2 * 2 * 2 + 2 * 2)
    assert "1P sto easy" in stdout and "2P det normal" in stdout  # `codebench run` ends with the table
    report = json.loads(codebench.report(out, format="json"))["protocol"]
    games = codebench.load_run(out).games
    for score in report["scores"]:  # each cell recomputed from the stored games: sample means, then mean ± t half-width
        means = []
        for sample in range(2 if "(code)" in score["player"] else 1):
            seats = [(game, seat) for game in games if (game.game, game.level) == (score["game"], score["level"])
                     for seat, player in enumerate(game.players)
                     if player == score["player"] and game.record["entries"][seat]["sample"] == sample]
            means.append(statistics.fmean(_normalized(game, seat) for game, seat in seats))
        spread = t_quantile(0.975, len(means) - 1) * statistics.stdev(means) / math.sqrt(len(means)) if len(means) > 1 else 0.0
        assert (score["normalized"]["mean"], score["normalized"]["half_width"], score["normalized"]["best"]) == (
            pytest.approx(statistics.fmean(means)), pytest.approx(spread), pytest.approx(max(means))), score
    assert {(s["player"], s["game"]) for s in report["scores"]} >= {("oracle (code)", "rubyrisks"), ("ref", "cardnim")}
    text = codebench.report(out)
    header = next(line for line in text.splitlines() if line.startswith("player") and "1P sto easy" in line)
    assert header.split() == ["player", "1P", "sto", "easy", "1P", "sto", "normal", "2P", "det", "easy", "2P", "det", "normal",
                              "all", "best"]
    assert "PuzzlePlex's code-based setting (--protocol puzzleplex) in its Table 3's layout" in text
    assert f"{out}: --protocol puzzleplex, but samples 2 (the protocol's: 32); 2 of its 13 games" in text
    assert "differs from the paper: models meet each other sample k against sample k" in text
    markdown = codebench.report(out, format="md")
    assert "| player | 1P sto easy | 1P sto normal | 2P det easy | 2P det normal | all | best |" in markdown
    assert "- differs from the paper: one-player scores are normalized by codebench's absolute reference" in markdown
    assert "section:protocol-games" in codebench.report(out, format="csv")


def _normalized(game: Any, seat: int) -> float:
    """A seat's score on the absolute scale, as the stored record says: 0 for a failed game, score ÷ reference alone."""
    if game.record["statuses"][seat] != "legal":
        return 0.0
    score = game.record["outcome"]["scores"][seat]
    return score / game.record["reference"] if len(game.players) == 1 else score
