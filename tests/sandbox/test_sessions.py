"""One supervisor session per worker serves program after program (issue 30): its start-up is paid once per worker,
never per program, and each load first proves the last program's slate clean, so a program finds nothing another
left, on the Docker and the local backend."""

from __future__ import annotations

import json

import pytest

from codebench.sandbox import get_backend
from codebench.types import Limits

LEAVE = ("import os, time\ndef solve(instance):\n    if os.fork() == 0:\n        os.setsid()\n"
         "        open('/tmp/left-' + str(os.getpid()), 'w').write('x')\n        time.sleep(60)\n    time.sleep(0.2)\n    return 1\n")
LOOK = ("import os\ndef solve(instance):\n    mine = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()\n"
        "            and os.stat('/proc/' + p).st_uid == os.getuid()]\n"
        "    return {'tmp': sorted(os.listdir('/tmp')), 'work': sorted(os.listdir('.')), 'processes': len(mine)}\n")


@pytest.mark.parametrize("backend", [pytest.param("docker", marks=pytest.mark.docker), "local"])
def test_one_supervisor_serves_program_after_program_and_each_finds_a_clean_slate(backend: str) -> None:
    with get_backend(backend, Limits(), workers=1) as sandbox:
        worker = sandbox.pool.workers[0]
        opened: list[int] = []
        start_session = worker.open_session
        worker.open_session = lambda: opened.append(1) or start_session()  # type: ignore[method-assign]
        (left,) = sandbox.run(LEAVE, [{}])
        (looked,) = sandbox.run(LOOK, [{}])
        (again,) = sandbox.run(LEAVE.replace("return 1", "return 2"), [{}])
        assert (json.loads(left.result["answer"]), json.loads(again.result["answer"])) == (1, 2)
        assert json.loads(looked.result["answer"]) == {"tmp": ["work"], "work": [], "processes": 0}, looked
        assert [left.clean, looked.clean, again.clean] == [True, True, True]
        assert opened == []  # the session the worker started with served all three programs
