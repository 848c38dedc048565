"""`codebench mock-server`: settings out of range, an unknown behaviour, a missing key variable or a taken port."""

from __future__ import annotations

import pytest

from codebench.model.mock_server import start_mock_server

from .refusal import refused


@pytest.mark.parametrize(("argv", "message"), [
    (["--port", "99999"], "--port 99999: give 0-65535 (0 picks a free one)"),
    (["--port", "-1"], "--port -1: give 0-65535"),
    (["--latency", "-1"], "--latency -1.0: give seconds from 0 to 3600"),
    (["--latency", "nan"], "--latency nan: give seconds from 0 to 3600"),
    (["--latency", "inf"], "--latency inf: give seconds"),
    (["--fail-429-every", "-3"], "--fail-429-every -3: give a period k >= 1, or 0 for never"),
    (["--fail-500-every", "-1"], "--fail-500-every -1: give a period k >= 1, or 0 for never"),
    (["--behavior", "genius"], "behaviour 'genius' is unknown: choose one of oracle"),
    (["--api-key-env", "CODEBENCH_NO_SUCH_VARIABLE"], "environment variable CODEBENCH_NO_SUCH_VARIABLE is not set"),
])
def test_bad_settings(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, "mock-server", "--port", "0", *argv, contains=message)


def test_a_taken_port(capsys: pytest.CaptureFixture[str]) -> None:
    with start_mock_server(port=0) as server:
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        refused(capsys, "mock-server", "--port", port, contains=f"cannot listen on 127.0.0.1:{port}")
