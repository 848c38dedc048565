"""`codebench puzzles import`: DIMACS files that are missing, malformed, or beyond what solve would accept."""

from __future__ import annotations

from pathlib import Path

import pytest

from .refusal import refused

DATA = Path(__file__).parents[2] / "puzzles" / "data"


@pytest.mark.parametrize(("name", "text", "extra", "message"), [
    ("g.cnf", "garbage\n", [], "g.cnf: line 1: expected the header 'p cnf <variables> <clauses>' first"),
    ("t.col", "p cnf 3 1\n", [], "t.col: line 1: header must be 'p edge or p col <count> <count>', got 'p cnf 3 1'"),
    ("t.col", "p edge 3 1\ne 1 2\n", ["-k", "0"], "t.col: num_colors=0: expected an integer >= 1"),
    ("t.col", "p edge 3 1\ne 1 2\n", ["-k", "100000"], "would exceed 5000000 clauses"),
    ("big.cnf", "p cnf 1000000000 1\n1 0\n", [], "big.cnf: sat: num_vars=1000000000: expected an integer 1..100000"),
    ("x.jsonl", "{}\n", [], "not .jsonl"),
    ("b.cnf", "\udcff", [], "not UTF-8 text"),
])
def test_files_that_do_not_import(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, extra: list[str],
                                  message: str) -> None:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    refused(capsys, "puzzles", "import", str(path), *extra, "-o", str(tmp_path / "out.jsonl"), contains=message, inputs=(tmp_path,))


def test_a_graph_the_palette_cannot_colour(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "import", str(DATA / "myciel3.col"), "--colors", "3", contains="cannot be coloured",
            inputs=(DATA,))


def test_missing_files_and_outputs_over_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "import", str(tmp_path / "nope.cnf"), contains="cannot read", inputs=(tmp_path,))
    source = tmp_path / "uf.cnf"
    source.write_bytes((DATA / "uf20-91-codebench.cnf").read_bytes())
    refused(capsys, "puzzles", "import", str(source), "-o", str(source), contains="is also an input", inputs=(tmp_path,))
    refused(capsys, "puzzles", "import", "/dev/zero", contains="/dev/zero is larger than 256 MiB")
