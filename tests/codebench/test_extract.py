"""Extraction on a table of realistic model replies: status, a piece of the source, a piece of the detail."""

from __future__ import annotations

import json

import pytest

from codebench.modes._extract import Extraction, extract_program

F = "```"  # a fence, so the replies below read like what models send
PROGRAM = 'def solve(instance):\n    return {"moves": []}\n'
HELPER = "import math\n\ndef helper(x):\n    return math.isqrt(x)\n"

CASES: list[tuple[str, str, str, str | None, str]] = [
    # (id, reply, status ("ok": a program), substring of the source (None: no source), substring of the detail)
    ("fenced_python", f"Here is my solver.\n\n{F}python\n{PROGRAM}{F}\n\nIt runs in O(n).", "ok", 'return {"moves": []}',
     "block 1 of 1 (python)"),
    ("fenced_py_tag", f"{F}py\n{PROGRAM}{F}", "ok", "def solve(instance):", "(py)"),
    ("fenced_untagged", f"Solution:\n{F}\n{PROGRAM}{F}", "ok", "def solve(instance):", "(untagged)"),
    ("tilde_fence", f"~~~python\n{PROGRAM}~~~\n", "ok", "def solve(instance):", "block 1 of 1"),
    ("tag_case_and_info", f"{F}Python title=solver.py\n{PROGRAM}{F}", "ok", "def solve(instance):", "(python)"),
    ("only_second_block_defines_solve",
     f"First a helper:\n{F}python\n{HELPER}{F}\nThen the solver:\n{F}python\n{PROGRAM}{F}\nRun it with:\n{F}bash\npython solver.py\n{F}",
     "ok", "def solve(instance):", "block 2 of 3"),
    ("last_of_two_definitions_wins",
     f"Draft:\n{F}python\ndef solve(instance):\n    return None  # draft\n{F}\n"
     f"Final:\n{F}python\ndef solve(instance):\n    return {{}}  # final\n{F}",
     "ok", "# final", "block 2 of 2"),
    ("usage_block_after_solver_ignored",
     f"{F}python\n{PROGRAM}{F}\nExample:\n{F}python\nprint(solve({{'n': 3}}))\n{F}", "ok", "def solve(instance):", "block 1 of 2"),
    ("largest_python_block_when_none_defines_solve",
     f"{F}python\nimport sys\n{F}\n"
     f"{F}python\nclass Solver:\n    def run(self, instance):\n        return {{}}\n\nsolve = Solver().run\n{F}",
     "ok", "solve = Solver().run", "the largest Python block (none defines solve())"),
    ("json_reply_code_field", json.dumps({"language": "python", "code": PROGRAM}), "ok", 'return {"moves": []}',
     'the "code" field of the JSON reply'),
    ("json_block_code_field", f"Here you go:\n{F}json\n{json.dumps({'code': PROGRAM}, indent=2)}\n{F}", "ok", "def solve(instance):",
     "JSON in fenced block 1 of 1 (json)"),
    ("json_code_field_holding_a_fence", json.dumps({"code": f"{F}python\n{PROGRAM}{F}"}), "ok", "def solve(instance):", "JSON reply"),
    ("think_draft_ignored_for_final_answer",
     f"<think>\nLet me try:\n{F}python\ndef solve(instance):\n    return 'draft'\n{F}\n</think>\nFinal answer:\n{F}python\n{PROGRAM}{F}",
     "ok", 'return {"moves": []}', "block 1 of 1 (python)"),
    ("think_holds_the_only_code", f"<think>\n{F}python\n{PROGRAM}{F}\n</think>\nI could not finish the explanation.", "ok",
     "def solve(instance):", "inside the reasoning"),
    ("think_never_closed", f"<think>\nPlan: recursion.\n{F}python\n{PROGRAM}{F}\nNow let me double-check", "ok", "def solve(instance):",
     "inside the reasoning"),
    ("closing_think_only_from_server_template",
     f"I should recurse.\n{F}python\ndef solve(instance):\n    return 'draft'\n{F}\n</think>\n\n{F}python\n{PROGRAM}{F}",
     "ok", 'return {"moves": []}', "block 1 of 1"),
    ("prose_only", "The Tower of Hanoi is solved by moving n-1 disks to the spare peg, then the largest disk, then the rest.",
     "no_code", None, "no fenced code block"),
    ("empty_reply", "   \n", "no_code", None, "empty"),
    ("only_non_python_blocks", f"Run:\n{F}bash\npip install kociemba\n{F}\nOutput:\n{F}text\n42\n{F}", "no_code", None,
     "none holds Python"),
    ("json_code_field_empty", json.dumps({"code": ""}), "no_code", None, "is empty"),
    ("prose_mentioning_def_solve", "You should write def solve(instance) that returns the moves.", "no_code", None, "bare program"),
    ("truncated_fence_that_compiles", f"Sure.\n{F}python\n{PROGRAM}", "ok", "def solve(instance):", "never closed"),
    ("truncated_fence_mid_statement", f"{F}python\nimport itertools\n\ndef solve(instance):\n    moves = [\n        (1, 'A',",
     "syntax_error", "moves = [", "never closed"),
    ("syntax_error_with_line", f"{F}python\nimport math\n\ndef solve(instance)\n    return {{}}\n{F}", "syntax_error",
     "def solve(instance)", "at line 3"),
    ("crlf_line_endings", f"Code:\r\n{F}python\r\ndef solve(instance):\r\n    return {{}}\r\n{F}\r\n", "ok",
     "def solve(instance):\n    return {}", "block 1 of 1"),
    ("tab_indentation", f"{F}python\ndef solve(instance):\n\tif instance:\n\t\treturn {{}}\n\treturn None\n{F}", "ok", "\t\treturn {}",
     "block 1 of 1"),
    ("inconsistent_tabs_and_spaces", f"{F}python\ndef solve(instance):\n\tx = 1\n        return x\n{F}", "syntax_error",
     "def solve", "TabError"),
    ("bare_program", f"import math\n\n\n{PROGRAM}", "ok", "import math", "bare code"),
    ("bare_program_with_python_artefact", f"python\n{HELPER}\n{PROGRAM}", "ok", "def helper(x):", "bare code"),
    ("bare_program_with_syntax_error", "import math\n\ndef solve(instance):\n    return {'a': }\n", "syntax_error", "import math",
     "at line 4"),
    ("python_artefact_inside_untagged_fence", f"{F}\npython\n{PROGRAM}{F}", "ok", "def solve(instance):", "(untagged)"),
    ("fence_indented_in_a_list", f"1. The program:\n   {F}python\n   def solve(instance):\n       return {{}}\n   {F}", "ok",
     "def solve(instance):\n    return {}", "block 1 of 1"),
    ("invalid_escape_is_only_a_warning", f'{F}python\nimport re\nDIGITS = re.compile("\\d+")\n{PROGRAM}{F}', "ok", 're.compile("\\d+")',
     "block 1 of 1"),
    ("nul_byte_in_code", f"{F}python\ndef solve(instance):\n    return '\x00'\n{F}", "syntax_error", "def solve", "null"),
]


@pytest.mark.parametrize(("reply", "status", "in_source", "in_detail"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_extraction_table(reply: str, status: str, in_source: str | None, in_detail: str) -> None:
    result = extract_program(reply)
    assert (result.status or "ok") == status, result
    assert in_detail in result.detail, result.detail
    if in_source is None:
        assert result.source is None
    else:
        assert result.source is not None and in_source in result.source, result.source
        assert "\r" not in result.source and result.source.endswith("\n") and not result.source.startswith("\n")
        assert F not in result.source and "~~~" not in result.source


def test_ok_source_is_exactly_the_block_without_fences_or_artefacts() -> None:
    assert extract_program(f"Text\n{F}python\n{PROGRAM}{F}\nMore text") == Extraction(None, PROGRAM, "fenced block 1 of 1 (python), "
                                                                                        "the last to define solve()")
    assert extract_program(f"python\n{PROGRAM}").source == PROGRAM


def test_custom_entry_point() -> None:
    reply = f"{F}python\n{PROGRAM}{F}\n{F}python\ndef main(instance):\n    return 1\n{F}"
    assert extract_program(reply, entry="main").source == "def main(instance):\n    return 1\n"
    assert extract_program(reply).source == PROGRAM


def test_visible_code_beats_reasoning_even_without_solve() -> None:
    reply = f"<think>{F}python\n{PROGRAM}{F}</think>\n{F}python\nsolve = lambda instance: {{}}\n{F}"
    result = extract_program(reply)
    assert result.source == "solve = lambda instance: {}\n"
    assert "reasoning" not in result.detail


def test_reasoning_without_code_is_reported() -> None:
    result = extract_program("<think>hmm, recursion</think>I give up.")
    assert result == Extraction("no_code", None, result.detail)
    assert "reasoning holds none either" in result.detail


def test_huge_and_hostile_replies_do_not_raise() -> None:
    assert extract_program(None) == Extraction("no_code", None, "the response is empty")  # type: ignore[arg-type]  (content: null)
    assert extract_program("{" * 100_000).status == "no_code"
    assert extract_program(f"{F}python\n" + "(" * 10_000 + "\n" + F).status == "syntax_error"
    assert extract_program(f"{F}python\n{PROGRAM}{F}\n" * 2_000).detail.startswith("fenced block 2000 of 2000")
