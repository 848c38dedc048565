"""`codebench check`: run one candidate solver over a puzzle's levels × seeds and compare with a baseline.

The regression-testing workflow: the same sandbox and validators as model runs, on a hand-written program.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzles import Puzzle

from ..errors import InputError
from ..files import read_text
from ..judge import judge_execution
from ..keys import program_key
from ..sandbox import SandboxBackend
from ..types import Batch, Outcome, Program, Status, Task, harmless

BASELINE_VERSION = 1


@dataclass(frozen=True)
class CheckResult:
    """One instance's outcome."""

    record_id: str
    level: int
    seed: int
    outcome: Outcome

    def to_json(self) -> dict[str, Any]:
        return {"id": self.record_id, "level": self.level, "seed": self.seed, **self.outcome.to_json()}


def check_program(source: str, puzzle: Puzzle[Any], levels: Sequence[int], seeds: Sequence[int], sandbox: SandboxBackend,
                  progress: Callable[[CheckResult], None] | None = None) -> list[CheckResult]:
    """Run `source` on every (level, seed) instance in the sandbox and judge each execution once, in input order."""
    records = [puzzle.generate(level, seed) for level in levels for seed in seeds]
    tasks = tuple(Task(str(index), record.instance) for index, record in enumerate(records))
    judged: list[CheckResult | None] = [None] * len(records)
    for result in sandbox.stream([Batch(Program(program_key(source), source), tasks)]):
        record = records[int(result.task.key)]
        outcome = judge_execution(result.facts, puzzle, record.instance, sandbox.limits)
        judged[int(result.task.key)] = checked = CheckResult(record.id, record.level or 0, record.seed, outcome)
        if progress is not None:
            progress(checked)
    return [result for result in judged if result is not None]


def load_baseline(path: Path, puzzle: str) -> dict[str, str]:
    """{instance id: status} from a baseline file written by --update-baseline.

    Raises:
        InputError: unreadable, malformed, or for another puzzle.
    """
    try:
        data = json.loads(read_text(path, "baseline"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read baseline {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError(f"baseline {path} is not a codebench baseline (expected {{\"puzzle\", \"results\"}})")
    if data.get("puzzle") != puzzle:
        raise InputError(f"baseline {path} is for puzzle {data.get('puzzle')!r}, not {puzzle!r}")
    return {str(k): str(v) for k, v in data["results"].items()}


def baseline_json(puzzle: str, results: Sequence[CheckResult]) -> str:
    """The baseline file's text: every instance's status."""
    data = {"version": BASELINE_VERSION, "puzzle": puzzle, "results": {r.record_id: str(r.outcome.status) for r in results}}
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def regressions(baseline: dict[str, str], results: Sequence[CheckResult]) -> list[CheckResult]:
    """Instances legal in the baseline that are not legal now (infrastructure failures aside)."""
    return [r for r in results if baseline.get(r.record_id) == Status.LEGAL
            and r.outcome.status not in (Status.LEGAL, Status.SANDBOX_ERROR)]


def junit_xml(puzzle: str, results: Sequence[CheckResult]) -> bytes:
    """A JUnit report: one testcase per instance; sandbox errors are <error>, other non-legal <failure>."""
    failures = sum(r.outcome.status not in (Status.LEGAL, Status.SANDBOX_ERROR) for r in results)
    errors = sum(r.outcome.status == Status.SANDBOX_ERROR for r in results)
    suite = ElementTree.Element("testsuite", name=f"codebench.check.{puzzle}", tests=str(len(results)),
                                failures=str(failures), errors=str(errors),
                                time=f"{sum(r.outcome.wall_s for r in results):.3f}")
    for result in results:
        case = ElementTree.SubElement(suite, "testcase", classname=f"{puzzle}.L{result.level}", name=result.record_id,
                                      time=f"{result.outcome.wall_s:.3f}")
        status = result.outcome.status
        if status != Status.LEGAL:  # the program chose the detail and the stderr: no character may break the XML
            tag = "error" if status == Status.SANDBOX_ERROR else "failure"
            element = ElementTree.SubElement(case, tag, type=str(status), message=harmless(f"{status}: {result.outcome.detail}"))
            element.text = harmless("\n".join(issue.message for issue in result.outcome.issues) or result.outcome.stderr[-2000:])
    root = ElementTree.Element("testsuites")
    root.append(suite)
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
