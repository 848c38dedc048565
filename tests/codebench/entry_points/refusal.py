"""`refused`: run a command that must be turned away, and check how (one line, exit code, inputs untouched)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..cli import run_cli


def snapshot(paths: tuple[Path, ...]) -> dict[str, bytes | None]:
    """Every file under `paths` with its bytes (a missing path as None), so a new or changed file shows."""
    files: dict[str, bytes | None] = {}
    for path in paths:
        if path.is_dir():
            files.update({str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()})
            files[f"{path}/"] = b""  # the folder itself exists
        else:
            files[str(path)] = path.read_bytes() if path.exists() else None
    return files


def refused(capsys: pytest.CaptureFixture[str], *argv: str, contains: str, inputs: tuple[Path, ...] = (),
            code: int = 2) -> str:
    """Run `codebench ARGV`: it must exit `code` with one `error:` line holding `contains`, and leave `inputs` as they were."""
    before = snapshot(inputs)
    exit_code, out, err = run_cli(capsys, *argv)
    assert exit_code == code, (exit_code, out, err)
    assert err.startswith("error: ") and len(err.strip().split("\n")) == 1 and "Traceback" not in out + err, err
    assert contains in " ".join(err.split()), err
    assert snapshot(inputs) == before, "an input changed"
    return err
