"""`codebench report --html`: the page's data block holds every sample as the store joined it, a hostile reply stays
text (it cannot end the data block, open a comment or add an element), outputs that would destroy an input are
refused, and several runs are reported together unless two hold the same model in the same mode.

The runs are real: the pipeline with a chat that answers both modes as the mock server's behaviours do and the fake
sandbox backend (nothing runs), plus a model whose every reply, program output and exception name is hostile markup.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from codebench.analysis.html import CLIP, render_html
from codebench.analysis.report import build_report, headline
from codebench.model.mock_behaviors import mixed_choice, reply
from codebench.run.spec import RunSpec
from codebench.run.store import Store
from codebench.sandbox._fake import FakeBackend
from codebench.types import Completion, Facts, ResultKind, SampleDetail, Status

from .cli import run_cli
from .entry_points.refusal import refused
from .fakes import BASE_URL, Simulated, run_plan

HOSTILE = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> --> <!-- \u2028\u2029 & <b>bold</b>'
HOSTILE_REPLY = f"Here you go {HOSTILE}\n\n```python\ndef solve(instance):\n    print({HOSTILE!r})\n    return None\n```\n"
HOSTILE_EXCEPTION = "<img src=x onerror=window.pwned=3>"
DATA = re.compile(r'<script type="application/json" id="codebench-data">(.*?)</script>', re.DOTALL)


class MockChat:
    """Answers code- and instruction-mode prompts as the mock server's behaviour does, without a server."""

    base_url = BASE_URL

    def __init__(self, behavior: str) -> None:
        self.behavior = behavior

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        behavior = mixed_choice(0, seed, messages) if self.behavior == "mixed" else self.behavior
        said = reply(behavior, "\n".join(m["content"] for m in messages), any(m["role"] == "assistant" for m in messages))
        return Completion(said.text, said.finish or "stop", said.finish == "length", 50, len(said.text) // 4, 0.02, "mock", None,
                          said.reasoning, None if said.reasoning is None else len(said.reasoning) // 4)


class HostileChat:
    """Every reply is markup meant to run: a program that prints it (code mode), no answer at all (instruction mode)."""

    base_url = BASE_URL

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        return Completion(HOSTILE_REPLY, "stop", False, 50, 60, 0.02, HOSTILE, None, HOSTILE, 7)


def sandbox_handler() -> Any:
    """The mock programs' facts; the hostile program floods stdout with markup and raises an exception named as markup."""
    simulated = Simulated()

    def handle(source: str, instance: dict[str, Any]) -> Facts:
        if "pwned" in source:
            return Facts("run", {"kind": ResultKind.EXCEPTION.value, "type": HOSTILE_EXCEPTION, "message": HOSTILE},
                         stdout=HOSTILE * 500, stderr=HOSTILE, cpu_s=0.25, wall_s=0.5, peak_mib=12.0)
        return simulated(source, instance)
    return handle


def build_run(out: Path, models: tuple[str, ...] = ("mixed", "hostile"), mode: str = "both", instances_per_level: int = 2,
              puzzles: tuple[str, str] = ("hanoi", "waterjug")) -> Path:
    """A stored run of `models` (`hostile` is `HostileChat`) on two puzzles × two levels, two samples."""
    chats = {name: HostileChat() if name == "hostile" else MockChat(name) for name in models}
    spec = RunSpec(models=models, mode=mode, puzzles=puzzles, levels=(1, 2), instances_per_level=instances_per_level,
                   samples=2, format_retries=2, out=out)
    with FakeBackend(sandbox_handler(), workers=2) as sandbox:
        run_plan(spec, chats, sandbox)  # type: ignore[arg-type]  # any chat with `complete` will do
    return out


def read_run(out: Path) -> tuple[list[Any], list[SampleDetail]]:
    store = Store.for_reading(out / "run.sqlite")
    try:
        return store.report_rows(), store.sample_details()
    finally:
        store.close()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("html") / "run")


@pytest.fixture(scope="module")
def page(run_dir: Path) -> str:
    rows, details = read_run(run_dir)
    return render_html(build_report(rows, [1, 2], boot=50), details, {})


def data_block(page: str) -> dict[str, Any]:
    found = DATA.findall(page)
    assert len(found) == 1
    return json.loads(found[0])


def resolved(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The data block's samples with field names and their strings looked up: what the page's script shows."""
    strings = data["strings"]
    fields, judged_fields, execution_fields = (data["fields"][name] for name in ("sample", "judged", "execution"))
    text = {"model", "mode", "puzzle", "instance", "key", "response", "reasoning", "program", "read_status", "read_detail",
            "error", "finish_reason", "server_model"}

    def judged(row: list[Any]) -> dict[str, Any]:
        entry = dict(zip(judged_fields, row))
        entry.update(instance=strings[entry["instance"]], status=strings[entry["status"]], detail=strings[entry["detail"]])
        if entry["execution"] is not None:
            execution = dict(zip(execution_fields, entry["execution"]))
            entry["execution"] = {**execution, **{k: strings[execution[k]] for k in ("issues", "stdout", "stderr")}}
        return entry

    samples = []
    for row in data["samples"]:
        sample = dict(zip(fields, row))
        sample.update({name: None if sample[name] is None else strings[sample[name]] for name in text})
        sample["prompt"] = [(strings[role], strings[content]) for role, content in sample["prompt"]]
        sample["retried"] = [strings[i] for i in sample["retried"]]
        sample["judged"] = [judged(j) for j in sample["judged"]]
        samples.append(sample)
    return samples


def test_the_data_block_holds_every_sample_as_the_report_counts_it(run_dir: Path, page: str) -> None:
    rows, details = read_run(run_dir)
    samples = resolved(data_block(page))
    assert [s["key"] for s in samples] == [d.sample.key for d in details]
    # models × prompts (code: one per puzzle; instruction: one per distinct instance, Hanoi's L1 and L2 one each) × samples
    assert len(samples) == 2 * (2 + 2 + 4) * 2
    judged = Counter((s["model"], s["mode"], s["puzzle"], j["level"], j["instance"], s["sample"], j["status"])
                     for s in samples for j in s["judged"])
    assert judged == Counter((r.model, r.mode, r.puzzle, r.level, r.instance_id, r.sample, r.status) for r in rows)
    for sample, detail in zip(samples, details):
        assert [{"role": role, "content": content} for role, content in sample["prompt"]] == json.loads(detail.sample.prompt)
        assert sample["response"] == detail.sample.completion.text
        assert sample["program"] == (detail.sample.reading.program.source if detail.sample.reading.program else None)
    code = [s for s in samples if s["mode"] == "code"]
    judged_on = {"hanoi": 2, "waterjug": 4}  # every distinct planned instance of its puzzle
    assert all(s["instance"] is None and len(s["judged"]) == judged_on[s["puzzle"]] for s in code)
    assert all(s["instance"] == j["instance"] for s in samples if s["mode"] == "instruction" for j in s["judged"])
    ran = [j for s in code if s["read_status"] is None for j in s["judged"]]
    assert ran and all(j["execution"] is not None for j in ran)
    assert all(j["execution"] is None for s in samples if s["read_status"] is not None for j in s["judged"])
    retried = [s for s in samples if s["model"] == "hostile" and s["mode"] == "instruction"]
    assert all(s["read_status"] == Status.NO_ANSWER and s["retried"] == [HOSTILE_REPLY] * 2 and s["format_retries"] == 2
               for s in retried)


def test_repeated_texts_are_stored_once(page: str) -> None:
    data = data_block(page)
    assert len(data["strings"]) == len(set(data["strings"]))
    fields = data["fields"]["sample"]
    code = [dict(zip(fields, row)) for row in data["samples"] if data["strings"][row[fields.index("mode")]] == "code"]
    assert len(code) == 8 and len({json.dumps(s["prompt"]) for s in code}) == 2  # one prompt per puzzle, for every sample
    hostile = data["strings"].index("hostile")
    assert len({s["program"] for s in code if s["model"] == hostile}) == 1  # the same program, stored once


class Tags(HTMLParser):
    """The elements and comments an HTML parser finds in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.comments = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1

    def handle_comment(self, data: str) -> None:
        self.comments += 1


def test_a_hostile_reply_is_text_that_cannot_end_the_data_block_or_add_markup(page: str) -> None:
    for fragment in ("</script><script>", "<img", "-->", "<!--", "<b>", "\u2028", "\u2029"):
        assert fragment not in page
    parsed = Tags()
    parsed.feed(page)
    assert parsed.tags["script"] == 2 and parsed.tags["img"] == 0 and parsed.tags["b"] == 0 and parsed.comments == 0
    hostile = [s for s in resolved(data_block(page)) if s["model"] == "hostile"]
    assert hostile and all(s["response"] == HOSTILE_REPLY and s["reasoning"] == HOSTILE and s["server_model"] == HOSTILE
                           for s in hostile)
    ran = [j for s in hostile if s["mode"] == "code" for j in s["judged"]]
    assert ran and all(j["detail"] == f"exception:{HOSTILE_EXCEPTION}" and j["execution"]["stderr"] == HOSTILE for j in ran)
    stdout = ran[0]["execution"]["stdout"]  # 500 copies, clipped to its head and tail
    assert len(stdout) < CLIP + 100 and stdout.startswith(HOSTILE) and "characters not shown" in stdout


def test_the_tables_are_the_text_reports(run_dir: Path, page: str) -> None:
    rows, _ = read_run(run_dir)
    report = build_report(rows, [1, 2], boot=50)
    assert f'"summary">{headline(report)}</p>' in page or f'"summary partial">{headline(report)}</p>' in page
    assert page.count("<h3>mixed · code</h3>") == 1 and page.count("<h3>hostile · instruction</h3>") == 1
    assert page.count("<tr>") >= len(report.cells) + len(report.thresholds)


def test_the_command_writes_the_page_beside_the_text_report_and_the_plots(run_dir: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    html, text = tmp_path / "report.html", tmp_path / "report.md"
    code, out, err = run_cli(capsys, "report", str(run_dir), "--html", str(html), "-o", str(text), "--format", "md",
                             "--plots", str(tmp_path / "plots"))
    assert code == 0 and out == "", err
    said = " ".join(err.split())
    assert f"html report written: {html}" in said and f"report written: {text}" in said and "plots written: 20 files" in said
    written = html.read_text(encoding="utf-8")
    for name in ("legal_rate_vs_lambda", "status_mix", "collapse_heatmap", "instruction_vs_code"):
        assert re.search(f'<figure id="plot-{name}" class="plot"><svg[ >]', written)
    assert "<?xml" not in written and "<!DOCTYPE svg" not in written
    assert len(resolved(data_block(written))) == 32


def test_outputs_that_would_destroy_an_input_or_cannot_be_a_file(run_dir: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    database = run_dir / "run.sqlite"
    refused(capsys, "report", str(run_dir), "--html", str(database), contains=f"--html {database} is also an input",
            inputs=(run_dir,))
    refused(capsys, "report", str(run_dir), "--html", str(tmp_path), contains=f"--html {tmp_path} is a directory",
            inputs=(run_dir, tmp_path))
    same = tmp_path / "same.txt"
    refused(capsys, "report", str(run_dir), "--html", str(same), "-o", str(same), contains="is also the -o file",
            inputs=(run_dir, tmp_path))


def test_several_runs_are_reported_together(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = build_run(tmp_path / "other", models=("oracle",), mode="code")
    html = tmp_path / "both.html"
    code, out, _ = run_cli(capsys, "report", str(run_dir), str(other), "--format", "json", "--html", str(html))
    assert code == 0
    cells = json.loads(out)["cells"]
    assert {(c["model"], c["mode"]) for c in cells} == {("mixed", "code"), ("mixed", "instruction"), ("hostile", "code"),
                                                         ("hostile", "instruction"), ("oracle", "code")}
    rows = read_run(run_dir)[0] + read_run(other)[0]
    assert json.loads(out)["totals"]["rows"] == len(rows)
    assert Counter(s["model"] for s in resolved(data_block(html.read_text(encoding="utf-8")))) == {"mixed": 16, "hostile": 16,
                                                                                                    "oracle": 4}


def test_two_runs_holding_the_same_model_and_mode_are_refused(run_dir: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    err = refused(capsys, "report", str(run_dir), str(copy), "--html", str(tmp_path / "x.html"),
                  contains=f"{run_dir} and {copy} hold the same samples", inputs=(run_dir, copy, tmp_path))
    assert "give each run once" in err


def test_the_same_run_draws_the_same_page_in_every_process(tmp_path: Path) -> None:
    """Two processes (string hashes seeded apart) write the v1 fixture's page byte for byte alike: the figures' SVG ids
    are salted alike and the status colours follow the statuses' order, not a set's."""
    v1 = Path(__file__).parent / "data" / "v1_run"
    pages = []
    for seed in ("1", "2"):
        page = tmp_path / f"page{seed}.html"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-m", "codebench", "report", str(v1), "--html", str(page)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        pages.append(page.read_bytes())
    assert pages[0] == pages[1] and b"<svg" in pages[0]
