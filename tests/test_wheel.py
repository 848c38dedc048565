"""The package as a user gets it: the wheel `python -m build` makes (from the sdist), installed into a fresh venv
outside the checkout, builds the sandbox image from its own files, passes the puzzle self-test and runs the demo.

Installing the wheel and its dependencies from the machine's package indexes takes about 25 s here (pip's cache
warm); the whole test just under a minute.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import docker
import pytest

from codebench.sandbox._docker import connect
from codebench.sandbox._image import image_digest

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "codebench-puzzles"
pytestmark = pytest.mark.docker


def shipped_files() -> set[str]:
    """What the packages hold besides their modules (the repository's top level, the lm-eval task folder), as paths
    inside the wheel."""
    templates = {f"puzzles/templates/{path.relative_to(ROOT / 'templates')}" for path in (ROOT / "templates").rglob("*.md.j2")}
    image = {f"codebench/sandbox/image/{name}"
             for name in ("Dockerfile.sandbox", "sandbox_images/supervisor.py", "sandbox_images/bootstrap-base.sh")}
    lm_eval = {f"codebench/integrations/lm_eval_tasks/{path.name}" for path in (ROOT / "codebench/integrations/lm_eval_tasks").iterdir()
               if path.suffix == ".yaml" or path.name.endswith("_yaml")}  # package data: not Python
    return templates | image | lm_eval


def run(argv: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """`argv` in `cwd`, with no checkout on the path: PYTHONPATH unset, the venv's own interpreter and scripts."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_wheel_installs_into_a_fresh_venv_and_runs_the_demo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], tmp_path, 600)
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = dist.glob("codebench_puzzles-*.whl")
    [sdist] = dist.glob("codebench_puzzles-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        assert shipped_files() <= set(archive.namelist())
    with tarfile.open(sdist) as archive:  # the wheel is built from the sdist: it holds the files too, not links to them
        members = {member.name.partition("/")[2]: member for member in archive.getmembers()}
    assert all(members[name].isfile() for name in shipped_files())

    venv = tmp_path / "venv"
    python, codebench = venv / "bin" / "python", venv / "bin" / "codebench"
    assert run([sys.executable, "-m", "venv", str(venv)], tmp_path, 120).returncode == 0
    installed = run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], tmp_path, 900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    where = run([str(python), "-c", "import codebench, puzzles, importlib.metadata as m; "
                                    f"print(codebench.__file__, puzzles.__file__, m.version({DISTRIBUTION!r}))"], tmp_path, 60)
    assert where.returncode == 0, where.stderr[-3000:]
    *files, version = where.stdout.split()
    assert all(Path(file).is_relative_to(venv) for file in files) and version == "0.1.0"

    selftest = run([str(codebench), "puzzles", "selftest"], tmp_path, 600)
    assert selftest.returncode == 0 and " 0 failed" in selftest.stdout, selftest.stdout[-3000:] + selftest.stderr[-3000:]

    digest = image_digest()  # the checkout's sources: the wheel's copies must hash the same
    image = run([str(codebench), "sandbox", "build"], tmp_path, 900)
    assert image.returncode == 0 and f"({digest})" in image.stderr, image.stderr[-3000:]  # it logs there
    tag = f"codebench-sandbox:wheel-test-{os.getpid()}"  # built anew from the wheel's files, beside the image tests use
    try:
        forced = run([str(python), "-c", f"from codebench.sandbox._image import build_image; build_image(tag={tag!r}, force=True)"],
                     tmp_path, 900)
        assert forced.returncode == 0 and f"built {tag} ({digest})" in forced.stdout, forced.stdout[-3000:] + forced.stderr[-3000:]
    finally:
        client = connect()
        try:
            client.images.remove(tag, noprune=True)
        except docker.errors.ImageNotFound:
            pass
        finally:
            client.close()

    out = tmp_path / "demo"
    demo = run([str(codebench), "demo", "--samples", "1", "--instances-per-level", "1", "--out", str(out)], tmp_path, 900)
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "codebench report: 108 executions" in demo.stdout and "PARTIAL" not in demo.stdout
    assert "mixed · code" in demo.stdout and "mixed · instruction" in demo.stdout
    assert (out / "run.sqlite").is_file() and (out / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert any((out / "plots").glob("*.svg")) and "Traceback" not in demo.stderr
