"""Prompt control (`--system-prompt`, `--templates`, `--shots`, `--prompt-preset`): each option changes exactly the
prompts it says (checked on the text), a sample's or a game's key changes only where an option is used (a plain run
keeps the keys stored before), a template that fails stops the run before any request, worked examples never show
the instance asked, a run with each option completes against the mock server, and the report names the options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import codebench
import puzzles
from codebench.games.chat import ChatOptions, example_move, opening, render_strategy_prompt
from codebench.games.plan import ChatEntrant
from codebench.keys import content_key
from codebench.model.mock_server import start_mock_server
from codebench.modes.code import render_code_prompt
from codebench.run.plan import Plan, make_plan
from codebench.run.spec import RunSpec
from codebench.sandbox._fake import FakeBackend
from codebench.types import GameLimits, Limits, ModeName
from puzzles import Prompting, instruction_prompt, read_answer
from puzzles._prompt import EXAMPLE_SEED, compact_json, worked_examples
from puzzles.games import get_game

from .cli import run_cli
from .fakes import Simulated

URL = "http://127.0.0.1:1/v1"
# The keys of `small_spec()`'s plan (samples, strategies, matches) at the commit before prompt control existed: a plain
# run must keep them, or every stored run would be asked again (changing this value orphans stored results).
PLAIN_KEYS = "bc1500e2d1190406b56cc16602c1e63345b28c05cd1d09ef76db2989694b7eaa"
SAT, HANOI, CARDNIM = puzzles.get_puzzle("sat"), puzzles.get_puzzle("hanoi"), get_game("cardnim")
ASKED = SAT.generate(1, 0)


def small_spec(**options: Any) -> RunSpec:
    return RunSpec(models=("m",), mode="both", puzzles=("hanoi", "sat"), levels=(1, 2), instances_per_level=2, samples=2,
                   games=("cardnim",), opponents=("ref", "random"), **options)


def user(messages: list[dict[str, Any]] | tuple[tuple[str, str], ...]) -> str:
    """The last user message's text."""
    pairs = [(m["role"], m["content"]) if isinstance(m, dict) else m for m in messages]
    return next(text for role, text in reversed(pairs) if role == "user")


def all_prompts(prompting: Prompting) -> dict[str, list[tuple[str, str]]]:
    """Every kind of prompt, as (role, text) pairs: instruction and code mode's puzzles, a game's strategy request and
    opening."""
    return {"instruction": [(m["role"], m["content"]) for m in instruction_prompt(SAT, ASKED, prompting)],
            "code": list(render_code_prompt(SAT, Limits(), prompting).messages),
            "strategy": list(render_strategy_prompt(CARDNIM, GameLimits(), Limits(), prompting).messages),
            "opening": [(m["role"], m["content"]) for m in opening(CARDNIM, 1, prompting)]}


PLAIN = all_prompts(Prompting())


def test_a_plain_runs_keys_are_those_stored_before_prompt_control() -> None:
    plan = make_plan(small_spec(), URL)
    assert content_key([job.key for job in plan.samples], [job.key for job in plan.strategies],
                       [job.key for job in plan.matches]) == PLAIN_KEYS
    assert all_prompts(Prompting(shots=0)) == PLAIN


def test_a_system_prompt_replaces_every_system_message_and_nothing_else() -> None:
    for kind, messages in all_prompts(Prompting(system="  Be brief.\n\n")).items():
        assert messages[0] == ("system", "Be brief.\n"), kind
        assert messages[1:] == PLAIN[kind][1:], kind
        assert PLAIN[kind][0][1] != "Be brief.\n"


def test_a_templates_folder_overrides_any_template_in_every_mode_and_the_games(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "games").mkdir()
    (tmp_path / "rules" / "sat.md.j2").write_text("Make every clause true ({{ mode }} mode).\n")
    (tmp_path / "games" / "turn.md.j2").write_text("Turn {{ turn }}. You see {{ observation }}.\n")
    found = all_prompts(Prompting(templates=tmp_path))
    for kind in ("instruction", "code"):
        rules = PLAIN[kind][1][1].split("## Rules\n\n", 1)[1].split("\n\nA strict validator", 1)[0]
        assert found[kind][1][1] == PLAIN[kind][1][1].replace(rules, f"Make every clause true ({kind} mode).")
    assert found["strategy"] == PLAIN["strategy"] and found["opening"] == PLAIN["opening"]  # cardnim's rules are not sat's
    assert instruction_prompt(HANOI, HANOI.generate(2, 0), Prompting(templates=tmp_path)) == instruction_prompt(
        HANOI, HANOI.generate(2, 0))
    from codebench.games.chat import _turn_text

    observation = CARDNIM.observe(CARDNIM.setup(1, 0).state, 0)
    assert _turn_text(CARDNIM, 0, observation, [], 3, ChatOptions(), Prompting(templates=tmp_path)) == \
        f"Turn 3. You see {compact_json(observation)}.\n"


def test_shots_are_earlier_turns_answered_with_reference_answers_in_the_asked_format() -> None:
    messages = instruction_prompt(SAT, ASKED, Prompting(shots=2))
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert [messages[0]["content"], messages[-1]["content"]] == [PLAIN["instruction"][0][1], PLAIN["instruction"][1][1]]
    shots = worked_examples(SAT, ASKED, 2)
    for (record, answer), asked, answered in zip(shots, messages[1:-1:2], messages[2:-1:2]):
        assert asked["content"] == instruction_prompt(SAT, record)[1]["content"]  # the same question, of another instance
        assert answered["content"] == f"```json\n{compact_json(answer)}\n```\n"  # the format the question asks for
        text = read_answer(answered["content"]).text
        assert text is not None and SAT.validate_json(record.instance, text).ok


@pytest.mark.parametrize("puzzle", [HANOI, puzzles.get_puzzle("checkers"), SAT], ids=lambda puzzle: puzzle.name)
def test_worked_examples_never_show_the_instance_asked(puzzle: puzzles.Puzzle[Any]) -> None:
    """Hanoi's and checkers' level 1 holds one instance: asked there, their examples come from the next levels."""
    for asked in (puzzle.generate(level, seed) for level in (1, 2) for seed in range(3)):
        examples = worked_examples(puzzle, asked, 3)
        shown = [json.dumps(record.instance, sort_keys=True) for record, _ in examples]
        assert len(set(shown)) == 3 and json.dumps(asked.instance, sort_keys=True) not in shown
        assert all(record.seed >= EXAMPLE_SEED for record, _ in examples)  # seeds no run plans
        assert examples == worked_examples(puzzle, asked, 3)  # deterministic
    assert {record.level for record, _ in worked_examples(SAT, ASKED, 3)} == {1}


def example_section(title: str, first: str, parts: list[tuple[str, str, str]]) -> str:
    body = "\n\n".join(f"{caption}:\n\n```{kind}\n{text}\n```" for caption, kind, text in parts)
    return f"## {title}\n\n{first}\n\n{body}\n\n"


def test_one_shot_shows_a_worked_example_in_instruction_mode_only() -> None:
    found = all_prompts(Prompting(preset="one-shot"))
    (record, answer), = worked_examples(SAT, ASKED, 1)
    section = example_section("Worked example", "A level-1 instance (not the one you are asked):",
                              [("", "text", SAT.render(record.instance)), ("As JSON", "json", compact_json(record.instance)),
                               ("A valid answer for it", "json", compact_json(answer))]).replace(":\n\n:\n\n", ":\n\n", 1)
    assert found["instruction"][1][1] == PLAIN["instruction"][1][1].replace("## The instance\n", section + "## The instance\n")
    move = example_move(CARDNIM)
    game = example_section("Example", "The first observation of player 0 in a level-1 game:",
                           [("", "json", move["observation_json"]), ("A legal move for it", "json", move["move_json"])])
    game = game.replace(":\n\n:\n\n", ":\n\n", 1)
    assert found["opening"][1][1] == PLAIN["opening"][1][1].replace("## Move format\n", game + "## Move format\n")
    assert found["code"] == PLAIN["code"] and found["strategy"] == PLAIN["strategy"]  # they show one already


def test_simplified_drops_code_modes_worked_example_only() -> None:
    found = all_prompts(Prompting(preset="simplified"))
    for kind in ("code", "strategy"):
        plain = PLAIN[kind][1][1]
        dropped = plain[:plain.index("## Example\n")] + plain[plain.index("## Limits\n"):]
        expected = dropped.replace("from the small example below to much larger ones", "from small ones to much larger ones")
        assert found[kind][1][1] == expected.replace(" Do not hard-code the example.", ""), kind
        assert "example" not in found[kind][1][1].lower().replace("usage example", ""), kind
    assert found["instruction"] == PLAIN["instruction"] and found["opening"] == PLAIN["opening"]


@pytest.mark.parametrize(("kind", "header", "says"), [
    ("instruction", "## Answer format\n", "propose three different first steps, follow each"),
    ("code", "## Output format\n", "before you write the program: propose three different approaches"),
    ("strategy", "## Output format\n", "correct on every game"),
    ("opening", "## Move format\n", "three different first steps (candidate moves)"),
])
def test_tree_of_thought_asks_for_it_before_every_format(kind: str, header: str, says: str) -> None:
    text = all_prompts(Prompting(preset="tree-of-thought"))[kind][1][1]
    section = text[text.index("## How to think\n"):text.index(header)]
    assert section.startswith("## How to think\n\nThink as a tree of thoughts") and section.endswith(".\n\n")
    assert says in section
    assert text.replace(section, "") == PLAIN[kind][1][1]


def keys(plan: Plan, puzzle: str | None = None) -> dict[str, set[str]]:
    """The plan's keys by kind (its samples' of `puzzle` only, if given)."""
    chats = {job.key for job in plan.matches if any(isinstance(entrant, ChatEntrant) for entrant in job.entrants)}
    samples = [job for job in plan.samples if puzzle in (None, job.puzzle)]
    return {"code": {job.key for job in samples if job.mode == ModeName.CODE},
            "instruction": {job.key for job in samples if job.mode == ModeName.INSTRUCTION},
            "strategies": {job.key for job in plan.strategies}, "chats": chats,
            "builtin": {job.key for job in plan.matches if all(not entrant.mode for entrant in job.entrants)}}


def test_keys_change_only_where_an_option_is_used(tmp_path: Path) -> None:
    plain = keys(make_plan(small_spec(), URL))
    changed = {  # option -> the kinds of key it changes; every other kind keeps its keys
        "system_prompt": ({"system_prompt": "Be brief."}, {"code", "instruction", "strategies", "chats"}),
        "shots": ({"shots": 1}, {"instruction"}),
        "one-shot": ({"prompt_preset": "one-shot"}, {"instruction", "chats"}),
        "simplified": ({"prompt_preset": "simplified"}, {"code", "strategies"}),
        "tree-of-thought": ({"prompt_preset": "tree-of-thought"}, {"code", "instruction", "strategies", "chats"}),
    }
    for name, (options, kinds) in changed.items():
        found = keys(make_plan(small_spec(**options), URL))
        for kind in plain:
            assert (found[kind] == plain[kind]) if kind not in kinds else not found[kind] & plain[kind], (name, kind)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "sat.md.j2").write_text("Make every clause true.\n")
    overridden = make_plan(small_spec(templates=tmp_path), URL)
    plan = make_plan(small_spec(), URL)
    assert keys(overridden, "hanoi") == keys(plan, "hanoi") | {"chats": keys(overridden)["chats"]}  # hanoi's prompts unchanged
    found, before = keys(overridden, "sat"), keys(plan, "sat")
    assert not found["code"] & before["code"] and not found["instruction"] & before["instruction"]
    assert not keys(overridden)["chats"] & plain["chats"]  # a game's key holds the folder by its content
    (tmp_path / "rules" / "cardnim.md.j2").write_text("Take a card.\n")  # a game's template changed: its chats are new games
    assert keys(make_plan(small_spec(templates=tmp_path), URL))["chats"].isdisjoint(keys(overridden)["chats"])


@pytest.mark.parametrize(("path", "text", "where", "says", "run"), [
    ("instruction/hanoi.md.j2", '{% extends "instruction/_base.md.j2" %}\n{% block instance %}\n{{ nope }}\n{% endblock %}\n',
     "instruction/hanoi.md.j2:3", "UndefinedError: 'nope' is undefined", ["--mode", "both", "--puzzles", "hanoi"]),
    ("rules/hanoi.md.j2", "Rules {% if %}\n", "rules/hanoi.md.j2:1", "Expected an expression",
     ["--mode", "code", "--puzzles", "hanoi"]),
    ("games/turn.md.j2", "{{ 1 / 0 }}\n", "games/turn.md.j2:1", "ZeroDivisionError: division by zero",
     ["--mode", "instruction", "--games", "cardnim"]),
], ids=["undefined", "syntax", "game-turn"])
def test_a_template_that_fails_stops_the_run_before_any_request(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 path: str, text: str, where: str, says: str,
                                                                 run: list[str]) -> None:
    folder = tmp_path / "templates"
    (folder / path).parent.mkdir(parents=True)
    (folder / path).write_text(text)
    with start_mock_server() as server:
        code, _, err = run_cli(capsys, "run", "--model", "oracle", "--base-url", server.url, *run, "--levels", "1",
                               "--samples", "1", "--templates", str(folder), "--out", str(tmp_path / "out"))
        assert server.hits == 0
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: prompt template {folder / where}: ") and says in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("argv", "says"), [
    (["--mode", "code", "--shots", "1"], "--shots applies only to instruction mode's puzzles"),
    (["--mode", "instruction", "--games", "cardnim", "--puzzles", "", "--shots", "1"], "--shots applies only to instruction "
                                                                                        "mode's puzzles"),
    (["--mode", "code", "--prompt-preset", "one-shot"], "--prompt-preset applies only to instruction mode for one-shot: add "
                                                        "--mode instruction or both"),
    (["--mode", "instruction", "--prompt-preset", "simplified"], "--prompt-preset applies only to code mode for simplified"),
    (["--prompt-preset", "tot"], "--prompt-preset 'tot': choose one of one-shot, simplified, tree-of-thought"),
    (["--system-prompt", "x", "--system-prompt-file", "f"], "--system-prompt and --system-prompt-file: give one of them"),
    (["--system-prompt", " \n"], "--system-prompt: it is empty"),
    (["--shots", "9"], "--shots 9: give a whole number from 0 to 8"),
], ids=["shots-code", "shots-games", "one-shot-code", "simplified-instruction", "unknown", "both-system", "empty", "many"])
def test_an_option_that_cannot_apply_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                                says: str) -> None:
    code, _, err = run_cli(capsys, "run", "--model", "m", "--puzzles", "hanoi", *argv, "--out", str(tmp_path / "out"),
                           "--dry-run")
    assert code == 2 and err.startswith("error: ") and says in err and err.count("\n") == 1, err


def test_a_missing_templates_folder_and_an_empty_system_prompt_file_are_refused(tmp_path: Path,
                                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "system.txt").write_text("\n")
    for argv, says in ((["--templates", str(tmp_path / "none")], f"--templates {tmp_path / 'none'}: not a folder"),
                       (["--system-prompt-file", str(tmp_path / "system.txt")], "--system-prompt-file: it is empty")):
        code, _, err = run_cli(capsys, "run", "--model", "m", *argv, "--out", str(tmp_path / "out"), "--dry-run")
        assert code == 2 and err.startswith(f"error: {says}"), err


def test_a_run_with_every_option_completes_against_the_mock_server_and_its_report_names_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # instruction mode runs no program
    folder, system = tmp_path / "templates", tmp_path / "system.txt"
    (folder / "rules").mkdir(parents=True)
    (folder / "rules" / "sat.md.j2").write_text("Make every clause of `clauses` true; answer with the assignment.\n")
    system.write_text("You are a careful solver.\n")
    options = ["--shots", "2", "--prompt-preset", "one-shot", "--system-prompt-file", str(system), "--templates", str(folder)]
    out = tmp_path / "run"
    with start_mock_server() as server:
        code, _, err = run_cli(capsys, "run", "--model", "oracle", "--base-url", server.url, "--mode", "instruction",
                               "--puzzles", "hanoi,sat", "--levels", "1,2", "--instances-per-level", "1", "--samples", "1",
                               *options, "--out", str(out))
        sent = server.last_request
        code_dry, dry, _ = run_cli(capsys, "run", "--model", "oracle", "--base-url", server.url, "--mode", "instruction",
                                   "--puzzles", "hanoi,sat", "--levels", "1,2", "--instances-per-level", "1", "--samples", "1",
                                   *options, "--out", str(out), "--dry-run")
    assert code == 0, err
    assert sent is not None and sent["messages"][0] == {"role": "system", "content": "You are a careful solver.\n"}
    assert [message["role"] for message in sent["messages"]].count("assistant") == 2  # the shots
    assert code_dry == 0 and json.loads(dry)["requests_stored"] == 4 and json.loads(dry)["prompts"] == {
        "system_prompt": "You are a careful solver.\n", "templates": str(folder), "shots": 2, "prompt_preset": "one-shot"}
    report = json.loads(codebench.report(out, format="json"))
    assert [cell["legal_rate"] for cell in report["cells"]] == [1.0] * 4  # the mock answered the question, not a shot
    assert report["prompts"] == [{"run": str(out), "system_prompt": "You are a careful solver.\n", "templates": str(folder),
                                  "shots": 2, "prompt_preset": "one-shot"}]
    line = f'prompts of {out}: system prompt "You are a careful solver." (25 characters), templates {folder}, 2 shots, ' \
           "preset one-shot"
    assert line in codebench.report(out) and line in codebench.report(out, format="md")
    code, _, err = run_cli(capsys, "report", str(out), "--html", str(tmp_path / "page.html"))
    assert code == 0 and "2 shots, preset one-shot" in (tmp_path / "page.html").read_text(), err
    plain = tmp_path / "plain"
    with start_mock_server() as server:
        code, _, err = run_cli(capsys, "run", "--model", "oracle", "--base-url", server.url, "--mode", "instruction",
                               "--puzzles", "hanoi", "--levels", "1", "--samples", "1", "--out", str(plain))
    assert code == 0 and "prompts of" not in codebench.report(plain), err


def test_games_are_played_under_a_preset_and_a_system_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # models and built-ins only: no sandbox
    for preset in ("one-shot", "tree-of-thought"):
        out = tmp_path / preset
        with start_mock_server() as server:
            code, stdout, err = run_cli(capsys, "run", "--model", "oracle", "--base-url", server.url, "--mode", "instruction",
                                        "--games", "cardnim", "--levels", "1", "--instances-per-level", "1", "--samples", "1",
                                        "--opponents", "ref", "--prompt-preset", preset, "--system-prompt", "Play well.",
                                        "--out", str(out))
            sent = server.last_request
        assert code == 0 and "2 games played" in stdout, err  # both seats against ref
        assert sent is not None and sent["messages"][0]["content"] == "Play well.\n"
        assert f'prompts of {out}: system prompt "Play well." (10 characters), preset {preset}' in stdout
        games = codebench.load_run(out).games
        assert len(games) == 2 and all(game.record["failed"] is None for game in games)  # every move read and legal


@pytest.mark.parametrize("preset", ["simplified", "tree-of-thought"])
def test_a_code_mode_run_under_a_preset_completes_against_the_mock_server(tmp_path: Path, preset: str) -> None:
    with start_mock_server() as server, FakeBackend(Simulated(), workers=2) as sandbox:
        spec = RunSpec(models=("oracle",), base_url=server.url, mode="code", puzzles=("hanoi", "sat"), levels=(1, 2),
                       instances_per_level=1, samples=1, prompt_preset=preset, out=tmp_path)
        result = codebench.evaluate(spec, sandbox=sandbox)
        sent = server.last_request
    assert result.partial is None and all(cell.legal_rate == 1.0 for cell in result.report.report.cells)
    assert sent is not None and ("## How to think" in user(sent["messages"])) == (preset == "tree-of-thought")
    assert ("## Example" in user(sent["messages"])) == (preset != "simplified")
    assert f"preset {preset}" in result.report.render()
