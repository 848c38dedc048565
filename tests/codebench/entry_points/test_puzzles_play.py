"""`codebench puzzles play` (and `show` for a game): a whole game between built-in strategies, printed or as its JSON
record (seed, seats, moves with observation digests, outcome), the same bytes every time; bad input refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..cli import run_cli
from .refusal import refused


def test_a_game_is_printed_move_by_move_with_its_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "play", "cardnim", "--level", "1", "--seed", "3", "--players", "ref,random")
    assert code == 0 and out.startswith("cardnim/L1/s3  CardNim") and "player 0 (ref): {\"card\":" in out
    assert out.rstrip().splitlines()[-1] == "outcome: scores [1.0, 0.0]  player 0 (ref) win, player 1 (random) loss"


def test_the_json_record_is_whole_and_the_same_every_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "play", "cardnim", "--seed", "5", "--players", "random,ref", "--json")
    record = json.loads(out)
    assert code == 0 and record["seats"] == ["random", "ref"] and record["seed"] == 5 and record["failed"] is None
    assert all(len(move["observation"]) == 16 and move["ok"] for move in record["moves"])
    assert set(record["outcome"]) == {"scores", "results"} and "env" not in record["final"]
    target = tmp_path / "game.json"
    assert run_cli(capsys, "puzzles", "play", "cardnim", "--seed", "5", "--players", "random,ref", "-o", str(target))[0] == 0
    assert json.loads(target.read_text()) == record


def test_show_renders_a_games_starting_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "show", "cardnim", "--level", "2", "--seed", "0")
    assert code == 0 and out.startswith("cardnim/L2/s0  CardNim") and "to move: player 0" in out


def test_show_gives_the_absolute_references_the_setup_knows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "puzzles", "show", "optimaltouring", "--level", "1", "--seed", "0")
    known = json.loads(out.splitlines()[2].removeprefix("known "))
    assert code == 0 and known["optimum"] == known["best_known"] == known["upper_bound"] > 0


@pytest.mark.parametrize("name", ["sudokillm", "superplym", "beatorbombsto", "exclusivityprobes"])
def test_every_kind_of_game_plays_from_the_command_line(capsys: pytest.CaptureFixture[str], name: str) -> None:
    players = "ref" if name == "exclusivityprobes" else "ref,random"
    code, out, _ = run_cli(capsys, "puzzles", "play", name, "--level", "1", "--seed", "2", "--players", players, "--json")
    record = json.loads(out)
    assert code == 0 and record["failed"] is None and "image" not in json.dumps(record["final"])


GREEDY = """
class Strategy:
    def __init__(self, setup):
        print("ready as player", setup["player"])

    def act(self, observation):
        return {"card": max(c for c in observation["my_cards"] if c <= observation["stones"])}
"""


def test_a_program_file_plays_in_the_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "greedy.py"
    program.write_text(GREEDY)
    code, out, _ = run_cli(capsys, "puzzles", "play", "cardnim", "--seed", "2", "--players", f"ref,{program}", "--backend", "local",
                           "--json")
    record = json.loads(out)
    assert code == 0 and record["seats"] == ["ref", str(program)] and record["statuses"] == ["legal", "legal"]
    assert record["kept"][1]["stdout"] == "ready as player 1\n" and all(m["ok"] for m in record["moves"])
    code, out, _ = run_cli(capsys, "puzzles", "play", "cardnim", "--seed", "2", "--players", f"{program},random", "--backend",
                           "local")
    assert code == 0 and f"player 0 ({program}): {{\"card\":" in out and "player 0 printed (ignored): ready as player 0" in out


def test_a_failing_program_is_shown_with_its_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "crash.py"
    program.write_text("class Strategy:\n    def __init__(self, setup):\n        pass\n    def act(self, observation):\n"
                       "        raise KeyError('no move')\n")
    code, out, _ = run_cli(capsys, "puzzles", "play", "cardnim", "--players", f"{program},ref", "--backend", "local")
    assert code == 0 and "   1  player 0 (" in out and "): runtime_error exception:KeyError" in out
    assert out.rstrip().splitlines()[-1].endswith(") loss, player 1 (ref) win")
    broken = tmp_path / "broken.py"
    broken.write_text("class Strategy(:\n")
    code, out, _ = run_cli(capsys, "puzzles", "play", "cardnim", "--players", f"ref,{broken}", "--backend", "local")
    assert code == 0 and "   -  player 1 (" in out and "): syntax_error SyntaxError: invalid syntax" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--players", "ref,missing.py"], "missing.py"),
    (["--players", "ref,stockfish"], "unknown strategy 'stockfish'; choose from ref, random, or give a program file (PATH.py)"),
    (["--players", "ref,{x}", "--game-cpu", "0"], "--game-cpu 0.0: give a positive number of CPU seconds"),
    (["--players", "ref,{x}", "--move-cpu", "nan"], "--move-cpu nan: give a positive number of CPU seconds"),
    (["--players", "ref,{x}", "--backend", "vm"], "--backend 'vm': choose one of docker, local, unsafe-local"),
    (["--players", "ref,{x}", "-o", "{x}"], "is also an input"),
])
def test_bad_program_options_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    program = tmp_path / "x.py"
    program.write_text(GREEDY)
    refused(capsys, "puzzles", "play", "cardnim", *[arg.replace("{x}", str(program)) for arg in argv], contains=message,
            inputs=(program,))


@pytest.mark.parametrize(("argv", "message"), [
    (["chess"], "unknown game 'chess'; known: "),
    (["cardnim", "--level", "9"], "cardnim: level 9 does not exist; levels are 1-3"),
    (["cardnim", "--seed", "-1"], "seed -1: expected an integer 0..2^64-1"),
    (["cardnim", "--players", "ref"], "--players 'ref': cardnim has 2 seat(s); give 2 of ref, random or a program file"),
    (["cardnim", "--players", "ref,"], "--players 'ref,': cardnim has 2 seat(s)"),
])
def test_bad_input_is_refused(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, "puzzles", "play", *argv, contains=message)


@pytest.mark.parametrize("name", ["sudokill", "superplym"])
def test_png_writes_the_final_board(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    target = tmp_path / "board.png"
    code, _, err = run_cli(capsys, "puzzles", "play", name, "--seed", "4", "--png", str(target))
    image = target.read_bytes()
    assert code == 0 and image.startswith(b"\x89PNG\r\n\x1a\n") and f"board picture written: {target}" in err
    assert list(tmp_path.iterdir()) == [target]


def test_png_of_a_game_without_a_board_picture_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "play", "cardnim", "--png", str(tmp_path / "b.png"),
            contains="--png: cardnim has no board picture; games with one: sudokill, sudokillm, superply, superplym")
    assert not list(tmp_path.iterdir())


def test_an_output_that_is_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "play", "cardnim", "-o", str(tmp_path), contains=str(tmp_path), inputs=(tmp_path,))


def test_show_of_a_game_needs_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "show", "cardnim", contains="give --level L (1-3) for the game cardnim")
