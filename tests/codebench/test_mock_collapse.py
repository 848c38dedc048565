"""The mock model's simulated collapse (`collapse-M-S`): its instruction-mode draw follows the logistic it names, a
request asked again draws the same, its code-mode program steps from legal to illegal at M in the unsafe-local sandbox,
λ is read right from every instance it serves, and what it cannot serve or parse is refused."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import puzzles
from codebench.errors import InputError
from codebench.judge import judge_answer
from codebench.model.mock_behaviors import (
    LAMBDA,
    Collapse,
    collapse_choice,
    collapse_of,
    complexity_source,
    reply,
    reply_text,
)
from codebench.model.mock_server import start_mock_server
from codebench.modes._extract import extract_program
from codebench.sandbox import open_sandbox
from codebench.types import Limits

from .cli import run_cli
from .test_mock_games import conversation
from .test_mock_server import post, prompt

HANOI = puzzles.get_puzzle("hanoi")
DRAWS = 1000  # request seeds per λ: a binomial's 4 standard deviations there are at most 63 draws
TRUTH = Collapse(5.0, 1.5)
ALTERNATIVES = [Collapse(4.0, 1.5), Collapse(6.0, 1.5), Collapse(5.0, 0.75), Collapse(5.0, 3.0)]  # M ± 1, S ÷ 2, S × 2


def asked(puzzle: puzzles.Puzzle[Any], lam: int, seed: int = 0, shots: int = 0) -> list[dict[str, str]]:
    """The instruction-mode messages codebench sends for the instance at λ (after `shots` worked examples)."""
    return puzzles.instruction_prompt(puzzle, puzzle.generate(complexity=lam, seed=seed), puzzles.Prompting(shots=shots))


def fits(counts: dict[int, int], trials: int, curve: Collapse) -> bool:
    """Every λ's count of successes lies within 4 binomial standard deviations (plus one) of `curve`'s expectation."""
    return all(abs(k - trials * curve.success(lam)) <= 4 * math.sqrt(trials * curve.success(lam) * (1 - curve.success(lam))) + 1
               for lam, k in counts.items())


def test_p_is_the_logistic_named() -> None:
    assert collapse_of("collapse-5-1.5") == TRUTH and collapse_of("collapse-7") == Collapse(7.0, 2.0)
    assert collapse_of("collapse-2.5-0.25") == Collapse(2.5, 0.25) and collapse_of("oracle") is None
    assert TRUTH.success(5) == 0.5 and TRUTH.success(6) == pytest.approx(1 / (1 + math.exp(1.5)))
    assert TRUTH.success(3) == pytest.approx(1 / (1 + math.exp(-3.0))) and TRUTH.success(10_000) == 0.0  # no overflow


def test_the_instruction_mode_draw_follows_the_logistic_over_request_seeds() -> None:
    counts = {lam: sum(collapse_choice("collapse-5-1.5", 0, seed, messages) == "oracle" for seed in range(DRAWS))
              for lam in (2, 4, 5, 6, 8) for messages in [asked(HANOI, lam)]}
    assert fits(counts, DRAWS, TRUTH), counts
    for wrong in ALTERNATIVES:  # the tolerance tells the truth from a midpoint one disk off, or a slope twice or half
        assert not fits(counts, DRAWS, wrong), (wrong, counts)
    assert counts[2] > counts[5] > counts[8]


def test_other_instances_draw_anew_with_the_same_seed_and_worked_examples() -> None:
    river = puzzles.get_puzzle("river")
    conversations = [asked(river, 3, seed, shots=1) for seed in range(400)]
    assert len({json.dumps(c[:-1]) for c in conversations}) == 1  # everything before the question is the same
    drawn = [collapse_choice("collapse-3-1", 7, 11, c) for c in conversations]
    assert set(drawn) == {"oracle", "wrong"} and fits({3: drawn.count("oracle")}, len(drawn), Collapse(3.0, 1.0)), drawn.count("oracle")


def without_clock(response: tuple[int, dict[str, str], Any]) -> tuple[int, dict[str, str], Any]:
    """A reply less what reads the wall clock (the Date header, `created`): the two may fall either side of a second."""
    status, headers, body = response
    return status, {k: v for k, v in headers.items() if k != "Date"}, {k: v for k, v in body.items() if k != "created"}


def test_a_request_asked_again_gets_the_same_reply_and_a_format_retry_keeps_the_draw() -> None:
    messages = asked(HANOI, 5)
    with start_mock_server(seed=3) as server:
        first = [post(server.url, {"model": "collapse-5", "messages": messages, "seed": seed}) for seed in range(40)]
    with start_mock_server(seed=3) as again:  # a restarted server (a killed run's re-run) agrees
        asked_again = [post(again.url, {"model": "collapse-5", "messages": messages, "seed": seed}) for seed in range(40)]
    assert [without_clock(r) for r in asked_again] == [without_clock(r) for r in first]
    statuses = [judge_answer(HANOI, HANOI.generate(complexity=5, seed=0).instance,
                             puzzles.read_answer(body["choices"][0]["message"]["content"]).text or "").status
                for _, _, body in first]
    drawn = [collapse_choice("collapse-5", 3, seed, messages) for seed in range(40)]
    assert set(statuses) == {"legal", "rule_violation"}
    assert statuses == ["legal" if behaviour == "oracle" else "rule_violation" for behaviour in drawn]
    retried = [*messages, {"role": "assistant", "content": "no JSON"}, {"role": "user", "content": "End with a json block."}]
    assert [collapse_choice("collapse-5", 3, seed, retried) for seed in range(40)] == drawn
    assert [collapse_choice("collapse-5", 4, seed, messages) for seed in range(40)] != drawn  # the server's seed counts


@pytest.mark.parametrize(("name", "lams"), [("hanoi", range(1, 11)), ("waterjug", range(1, 9)), ("sudoku", range(1, 9))])
def test_lambda_is_read_from_every_instance_served(name: str, lams: range) -> None:
    namespace: dict[str, Any] = {}
    exec(complexity_source(name), namespace)  # the mock's own program text: what both modes measure λ with
    puzzle = puzzles.get_puzzle(name)
    assert [namespace["complexity"](puzzle.generate(complexity=lam, seed=seed).instance) for lam in lams for seed in (0, 1)] \
        == [lam for lam in lams for _ in (0, 1)]


def test_each_served_puzzle_reads_its_axis_name_or_a_documented_derivation() -> None:
    for name, expression in LAMBDA.items():
        axis = puzzles.get_puzzle(name).complexity_axis()
        assert f'instance["{axis.name}"]' == expression or name in ("waterjug", "sudoku"), (name, axis.name)
        namespace: dict[str, Any] = {}
        exec(complexity_source(name), namespace)
        lam = min(axis.lowest + 2, axis.highest)
        assert namespace["complexity"](puzzles.get_puzzle(name).generate(complexity=lam, seed=5).instance) == lam, name


def test_the_code_mode_program_steps_from_legal_to_illegal_at_the_midpoint() -> None:
    cases: dict[str, tuple[str, list[int]]] = {"hanoi": ("collapse-4", [1, 3, 4, 5, 7]),
                                                "sudoku": ("collapse-6.5-3", [5, 6, 7, 9]),
                                                "waterjug": ("collapse-3", [2, 3, 4, 6])}
    with open_sandbox("unsafe-local", Limits(memory_mib=256), 1) as sandbox:
        for name, (model, lams) in cases.items():
            collapse, puzzle = collapse_of(model), puzzles.get_puzzle(name)
            assert collapse is not None
            source = extract_program(reply_text(model, name)).source
            assert source is not None
            instances = [puzzle.generate(complexity=lam, seed=2).instance for lam in lams]
            statuses = [judge_answer(puzzle, instance, facts.result["answer"]).status
                        for instance, facts in zip(instances, sandbox.run(source, instances))]
            assert statuses == ["legal" if lam <= collapse.midpoint else "rule_violation" for lam in lams], (name, statuses)


def test_games_are_played_as_wrong_in_both_modes() -> None:
    assert reply_text("collapse-3", "cardnim") == reply_text("wrong", "cardnim")
    game = puzzles.games.get_game("cardnim")
    messages = conversation(game)
    text = "\n".join(str(m["content"]) for m in messages)
    assert collapse_choice("collapse-3", 0, 1, messages) == "collapse-3"  # no draw: `reply` plays it
    assert reply("collapse-3", text, False, str(messages[-1]["content"])) == reply("wrong", text, False, str(messages[-1]["content"]))


@pytest.mark.parametrize("model", ["collapse", "collapse-", "collapse-x", "collapse-5-0", "collapse-5-1-2", "collapse5",
                                   "collapse--5", "collapse-5-"])
def test_a_malformed_name_is_refused_with_the_form(model: str) -> None:
    with start_mock_server() as server:
        status, _, body = post(server.url, {"model": model, "messages": asked(HANOI, 3)})
    assert status == 400 and "collapse-M or collapse-M-S" in body["error"]["message"], body
    with pytest.raises(InputError, match="collapse-M or collapse-M-S"):
        start_mock_server(behavior=model)


def test_a_puzzle_whose_lambda_is_not_in_its_instance_is_refused_naming_those_served() -> None:
    cryptarithm, rubik = puzzles.get_puzzle("cryptarithm"), puzzles.get_puzzle("rubik")
    with start_mock_server(behavior="collapse-4") as server:  # the server's own behaviour, as `mock-server --behavior`
        for messages in (asked(cryptarithm, 4), asked(rubik, 4), prompt("rubik")):
            status, _, body = post(server.url, {"model": "any-model", "messages": messages})
            assert status == 400 and f"it serves {', '.join(LAMBDA)}" in body["error"]["message"], body
        status, _, body = post(server.url, {"model": "gpt-4o", "messages": asked(HANOI, 2)})
        assert status == 200 and "```json" in body["choices"][0]["message"]["content"]


def test_the_cli_refuses_a_malformed_default_behaviour(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "mock-server", "--port", "0", "--behavior", "collapse-five")
    assert code == 2 and err.startswith("error: ") and "collapse-M or collapse-M-S" in err and "Traceback" not in err

