"""The local backend's own terms: it refuses where no sandbox can be made, and shows programs nothing of the checkout.
Its behaviour under attack is the corpus's (`test_corpus.py` runs every case on it as on Docker)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from codebench.errors import SandboxUnavailableError
from codebench.sandbox import _files, _local, get_backend
from codebench.sandbox._cgroup import WorkerCgroup
from codebench.sandbox._image import image_sources
from codebench.types import Limits

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("patch", "message"), [
    ("no_bwrap", "the local sandbox needs bubblewrap: sudo scripts/ensure-bubblewrap"),
    ("not_root", "the local sandbox needs root"),
    ("broken_install", r"supervisor\.py is missing: this codebench installation is broken; reinstall it "
                       r"\(pip install --force-reinstall codebench-puzzles\)"),
])
def test_it_refuses_with_the_reason_where_no_sandbox_can_be_made(monkeypatch: pytest.MonkeyPatch, patch: str,
                                                                  message: str) -> None:
    if patch == "no_bwrap":
        monkeypatch.setattr(_local.shutil, "which", lambda name: None)
    elif patch == "not_root":
        monkeypatch.setattr(_local.os, "geteuid", lambda: 1000)
    else:
        monkeypatch.setattr(_files, "IMAGE_SOURCES", Path("/nonexistent"))
    with pytest.raises(SandboxUnavailableError, match=message):
        get_backend("local", Limits(), workers=1)


def test_an_installation_without_the_image_sources_says_to_reinstall(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile.sandbox").write_text("FROM scratch\n")
    with pytest.raises(SandboxUnavailableError, match=r"supervisor\.py is missing: .* reinstall it"):
        image_sources(tmp_path)


def test_two_backends_open_at_once_each_run_programs() -> None:
    """Each worker's cgroup has a name of its own: a second backend in the same process once failed to make its first
    worker's ("File exists")."""
    with get_backend("local", Limits(), workers=1) as first, get_backend("local", Limits(), workers=1) as second:
        for backend in (first, second):
            [facts] = backend.run("def solve(instance):\n    return instance['n']\n", [{"n": 1}])
            assert facts.result.get("answer") == b"1", facts


def test_programs_see_nothing_of_the_checkout_but_the_supervisor() -> None:
    with get_backend("local", Limits(), workers=1) as backend:
        worker = backend.pool.workers[0]
        argv = _local.bwrap_command(worker.uid, backend.limits, worker.cgroup)
    sources = [argv[i + 1] for i, arg in enumerate(argv) if arg in ("--ro-bind", "--bind")]
    environment = Path(sys.prefix).resolve()  # a virtualenv may live in the checkout: its packages are not the project
    inside = [source for source in sources
              if Path(source).resolve().is_relative_to(CHECKOUT) and not Path(source).resolve().is_relative_to(environment)]
    assert inside == [str(CHECKOUT / "sandbox_images" / "supervisor.py")]
    assert "--bind" not in argv and "--unshare-net" in argv and "--remount-ro" in argv


def test_a_cgroup_a_killed_run_left_under_the_next_workers_name_is_made_anew() -> None:
    """A run that is killed leaves its workers' cgroups, named for its pid; pids wrap (at 32768 here), so a later run
    can be given one of those names. The empty folder left there is replaced, where making the worker failed ("the local
    sandbox cannot make its cgroup (File exists)")."""
    name = f"codebench-{os.getpid()}-left-by-a-killed-run"
    left = WorkerCgroup(name, 64 << 20, 16)  # not removed, as by a killed run
    try:
        worker = WorkerCgroup(name, 128 << 20, 32)
    except BaseException:
        left.remove()
        raise
    try:
        limit = worker.folders["memory"] / "memory.limit_in_bytes" if "memory" in worker.folders else worker.folders[""] / "memory.max"
        assert limit.read_text().strip() == str(128 << 20)  # the new worker's, in a folder made anew
    finally:
        worker.remove()
