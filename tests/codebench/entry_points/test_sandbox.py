"""`codebench sandbox build|doctor|cleanup`: a base that is no image reference is a usage error (before any engine
call); without an engine each command exits 3 with the fix, in one line (doctor as its one FAIL line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from docker.api.image import ImageApiMixin

from codebench.model.mock_server import start_mock_server

from ..cli import run_cli
from .refusal import refused

NO_ENGINE = "unix:///nonexistent/docker.sock"


@pytest.mark.parametrize("base", ["", "[red]x", "UPPER", "a b", "python:", "x" * 300 + ":" + "t" * 200])
def test_a_base_that_is_not_an_image_reference(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, base: str) -> None:
    monkeypatch.setenv("DOCKER_HOST", NO_ENGINE)  # refused before the engine is asked
    refused(capsys, "sandbox", "build", "--base", base, contains=f"--base {base!r} is not an image reference")


@pytest.mark.parametrize("command", [["build"], ["build", "--base", "registry.example:5000/team/python:3.11"], ["cleanup"],
                                     ["cleanup", "--all"]])
def test_without_an_engine(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    monkeypatch.setenv("DOCKER_HOST", NO_ENGINE)
    refused(capsys, "sandbox", *command, code=3, contains="start the Docker engine: sudo scripts/ensure-docker")


def test_doctor_without_an_engine(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", NO_ENGINE)
    code, out, err = run_cli(capsys, "sandbox", "doctor")
    assert code == 3 and err == "" and " ".join(out.split()).startswith("FAIL engine: no Docker engine at " + NO_ENGINE)
    assert "sudo scripts/ensure-docker" in " ".join(out.split())


@pytest.mark.parametrize("registry", ["", "team/UPPER", "a b", "registry.example:5000/x@sha256:" + "0" * 64])
def test_a_registry_that_is_not_an_image_reference(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                                   registry: str) -> None:
    monkeypatch.setenv("DOCKER_HOST", NO_ENGINE)  # refused before anything is built
    refused(capsys, "sandbox", "build", "--registry", registry, contains=f"--registry {registry!r} is not an image reference")


def test_a_ray_address_nothing_answers(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "sandbox", "build", "--ray-address", "127.0.0.1:9", code=3, contains="cannot reach the Ray cluster at 127.0.0.1:9")


def test_a_run_whose_image_is_missing_asks_for_a_build_and_pulls_nothing(capsys: pytest.CaptureFixture[str],
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    """No registry answers here: Docker's create-or-pull would end in its raw 500; the run says to build, in one line."""
    monkeypatch.setattr("codebench.sandbox._docker.IMAGE", "codebench-sandbox:never-built")
    pulls: list[tuple[object, ...]] = []
    pull = ImageApiMixin.pull
    monkeypatch.setattr(ImageApiMixin, "pull", lambda self, *args, **kwargs: pulls.append(args) or pull(self, *args, **kwargs))
    with start_mock_server() as server:
        refused(capsys, "run", "--model", "oracle", "--base-url", server.url, "--puzzles", "hanoi", "--levels", "1",
                "--instances-per-level", "1", "--samples", "1", "--backend", "docker", "--workers", "1",
                "--out", str(tmp_path / "run"), code=3,
                contains="image codebench-sandbox:never-built is missing; build it: codebench sandbox build")
    assert pulls == []
