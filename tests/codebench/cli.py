"""Running the CLI in-process for tests: main(argv) → (exit code, stdout, stderr)."""

from __future__ import annotations

import subprocess

import pytest

from codebench.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err


def run_command(command: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the CLI as its own process; a non-zero exit fails the test with what the command wrote to stderr."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-4000:]}"
    return done
