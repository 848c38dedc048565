"""Running the CLI in-process for tests: main(argv) → (exit code, stdout, stderr)."""

from __future__ import annotations

import pytest

from codebench.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err
