"""The unsafe-local backend (trusted code only): Docker's statuses from a host subprocess, its watchdog, its guard, its notice.

CI runs these as root: programs then run as a claimed unused uid, never as root, and nothing here
calls kill(-1). Programs that must fork reach os.fork through a computed name, which the static guard
cannot see: the process-level containment is what these tests check.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading

import psutil
import pytest

import puzzles
from codebench.judge import judge_execution as judge
from codebench.sandbox import _guard, _unsafe_local, get_backend
from codebench.types import MIB, Facts, Limits, Outcome, Status

LIMITS = Limits(cpu_s=1, wall_s=5, memory_mib=128)  # wall_s leaves CPU-bound cases room on a busy 2-core host
HANOI = puzzles.get_puzzle("hanoi")
INSTANCE = HANOI.generate(1, 0).instance  # 3 disks

HANOI_SOLVER = """
def solve(instance):
    moves = []
    def tower(k, a, b, c):
        if k:
            tower(k - 1, a, c, b)
            moves.append([k, a, b])
            tower(k - 1, c, b, a)
    (spare,) = set(instance["pegs"]) - {instance["start"], instance["goal"]}
    tower(instance["n"], instance["start"], instance["goal"], spare)
    return {"moves": moves}
"""
NUMPY_SOLVER = """
import numpy as np

def solve(instance):
    n, start, goal = instance["n"], instance["start"], instance["goal"]
    (spare,) = set(instance["pegs"]) - {start, goal}
    order = [start, goal, spare] if n % 2 == 1 else [start, spare, goal]
    pegs = {start: list(range(n, 0, -1)), goal: [], spare: []}
    moves = []
    for step in np.arange(1, 2 ** n, dtype=np.int64):  # iterative Hanoi: disk = lowest set bit of the step
        disk = int(np.log2(step & -step)) + 1
        source = next(p for p in order if pegs[p] and pegs[p][-1] == disk)
        index = order.index(source)
        target = order[(index + 1) % 3] if disk % 2 == 1 else next(
            p for p in order if p != source and (not pegs[p] or pegs[p][-1] > disk))
        pegs[target].append(pegs[source].pop())
        moves.append([disk, source, target])
    return {"moves": moves}
"""
SPIN = "    while True:\n        pass\n"
FORK = 'import os\nFORK = getattr(os, "fo" + "rk")  # a computed name: the static guard cannot see it\n'


@pytest.fixture(scope="module")
def sandbox():
    with get_backend("unsafe-local", LIMITS, workers=1) as backend:
        yield backend


def run_one(sandbox, source: str, limits: Limits = LIMITS) -> tuple[Outcome, Facts]:
    (facts,) = sandbox.run(source, [INSTANCE])
    return judge(facts, HANOI, INSTANCE, limits), facts


@pytest.mark.parametrize(("source", "status", "detail"), [
    (HANOI_SOLVER, Status.LEGAL, ""),
    (NUMPY_SOLVER, Status.LEGAL, ""),
    ("def solve(instance):\n    return {'moves': []}\n", Status.RULE_VIOLATION, "goal_not_reached"),
    ("def solve(instance):\n    return [][1]\n", Status.RUNTIME_ERROR, "exception:IndexError"),
    ("def solve(instance:\n    return 1\n", Status.SYNTAX_ERROR, "SyntaxError: '(' was never closed (line 1)"),
    ("def solve(instance):\n    while True:\n        pass\n", Status.TIMEOUT, "cpu_limit"),
    ("moves = []\n", Status.NO_CODE, "entry_point_missing"),
    ("def solve(instance):\n    return {'moves': {1, 2}}\n", Status.RULE_VIOLATION, "not_json"),
    ("def solve(instance):\n    while True:\n        print('x' * 65536)\n", Status.RUNTIME_ERROR, "output_limit"),
    ("def solve(instance):\n    return bytearray(10 ** 10)\n", Status.RUNTIME_ERROR, "oom"),  # RLIMIT_AS: MemoryError
    ("import socket\n\ndef solve(instance):\n    return {}\n", Status.RUNTIME_ERROR, "import:socket"),
    ("import os\n\ndef solve(instance):\n    os.system('true')\n", Status.RUNTIME_ERROR, "exception:GuardError"),
], ids=["legal", "numpy", "rule_violation", "exception", "syntax_error", "cpu_limit", "no_code", "not_json",
        "output_limit", "address_space", "import_guard", "os_system_guard"])
def test_statuses(sandbox, source: str, status: Status, detail: str) -> None:
    outcome, _ = run_one(sandbox, source)
    assert (outcome.status, outcome.detail) == (status, detail), outcome.stderr[-2000:]


def test_wall_limit() -> None:
    limits = Limits(cpu_s=1, wall_s=1)
    with get_backend("unsafe-local", limits, workers=1) as backend:
        outcome, facts = run_one(backend, "import time\n\ndef solve(instance):\n    time.sleep(60)\n", limits)
    assert (outcome.status, outcome.detail) == (Status.TIMEOUT, "wall_limit")
    assert 1 <= facts.wall_s < 3


def test_watchdog_kills_on_summed_rss(sandbox) -> None:
    source = ("import time\n\ndef solve(instance):\n    hoard = []\n    while True:\n"
              "        hoard.append(b'x' * (4 << 20))\n        time.sleep(0.02)\n")
    outcome, facts = run_one(sandbox, source)
    assert (outcome.status, outcome.detail) == (Status.RUNTIME_ERROR, "oom")
    assert facts.signal == signal.SIGKILL and facts.result == {"kind": "none"}  # our kill, before RLIMIT_AS's MemoryError


def test_watchdog_counts_cpu_over_the_process_tree(sandbox) -> None:
    source = FORK + "\ndef solve(instance):\n    for _ in range(3):\n        if FORK() == 0:\n            break\n" + SPIN
    outcome, facts = run_one(sandbox, source)
    assert (outcome.status, outcome.detail) == (Status.TIMEOUT, "cpu_limit")
    assert facts.killed == "cpu_limit" and facts.cpu_s < 1  # no single process reached RLIMIT_CPU
    assert facts.survivors == 0
    # the killed processes may linger as zombies until init reaps them: they must not count against the next run
    outcome, facts = run_one(sandbox, "def solve(instance):\n" + SPIN)
    assert (outcome.detail, facts.killed, facts.signal) == ("cpu_limit", None, signal.SIGXCPU)  # RLIMIT_CPU's own kill


def test_leftover_daemon_is_killed(sandbox) -> None:
    source = FORK + HANOI_SOLVER.replace("    moves = []", """    read, write = os.pipe()
    if FORK() == 0:
        getattr(os, "set" + "sid")()
        if FORK() == 0:
            os.write(write, str(os.getpid()).encode())
            import time
            time.sleep(60)
        os._exit(0)
    os.close(write)
    print("daemon", int(os.read(read, 32)))
    moves = []""")
    outcome, facts = run_one(sandbox, source)
    assert outcome.status == Status.LEGAL, outcome.stderr
    assert facts.leftovers >= 1 and facts.survivors == 0
    daemon = int(facts.stdout.split()[1])
    assert not psutil.pid_exists(daemon) or psutil.Process(daemon).status() == psutil.STATUS_ZOMBIE


def test_programs_never_run_as_root_and_workers_do_not_share_a_uid() -> None:
    """As root each worker claims its own uid: one worker's clean-up (kill(-1) as that uid) cannot kill
    the other's running program, and files it leaves in /tmp are swept."""
    source = ("import os, time\n\ndef solve(instance):\n    path = f'/tmp/codebench-local-test-{os.getuid()}'\n"
              "    open(path, 'w').close()\n    time.sleep(0.3)\n    return [os.getuid(), os.geteuid(), path]\n")
    with get_backend("unsafe-local", LIMITS, workers=2) as backend:
        facts = backend.run(source, [INSTANCE] * 4)
    assert [f.result.get("kind") for f in facts] == ["answer"] * 4, [f.result for f in facts]
    answers = [json.loads(f.result["answer"]) for f in facts]
    uids = {uid for uid, euid, _ in answers}
    assert all(uid == euid != 0 for uid, euid, _ in answers)
    if os.geteuid() == 0:
        assert len(uids) == 2 and not any(os.path.exists(path) for _, _, path in answers)
    else:
        assert uids == {os.getuid()}  # not root: programs run as the user, and their files are the user's
        for path in {path for _, _, path in answers}:
            os.unlink(path)


def test_every_module_the_guard_allows_imports_as_the_solver(sandbox) -> None:
    """As root the solver uid may not read the Python installation: what the guard allows must be preloaded."""
    imports = "".join(f"import {name}\n" for name in sorted(_guard.ALLOWED_MODULES - {"__future__"}))
    source = imports + ("import numpy.linalg, numpy.fft, numpy.random\n\ndef solve(instance):\n"
                        "    time.strptime('2024', '%Y')\n    'x'.encode('utf-16')\n"
                        "    return float(numpy.linalg.det(numpy.eye(2)))\n")
    _, facts = run_one(sandbox, source)
    assert facts.result.get("kind") == "answer", facts.result
    assert json.loads(facts.result["answer"]) == 1.0


def test_address_space_cap_is_sent_to_the_supervisor(sandbox) -> None:
    assert sandbox.pool.enforced["address_space_bytes"] == (128 + _unsafe_local.ADDRESS_SPACE_HEADROOM_MIB) * MIB


def test_weaker_isolation_notice_is_logged_once(monkeypatch, caplog) -> None:
    monkeypatch.setattr(_unsafe_local, "_announced", threading.Event())
    with caplog.at_level(logging.WARNING, logger="codebench.sandbox"):
        for _ in range(2):
            get_backend("unsafe-local", LIMITS, workers=1).close()
    notices = [record for record in caplog.records if record.name == "codebench.sandbox"]
    assert [record.getMessage() for record in notices] == [_unsafe_local.NOTICE]
    assert "does not isolate programs" in _unsafe_local.NOTICE


@pytest.mark.parametrize(("source", "refusal"), [
    ("import ctypes", ("ImportError", "import of 'ctypes'")),
    ("import subprocess as sp", ("ImportError", "import of 'subprocess'")),
    ("from multiprocessing import Pool", ("ImportError", "import of 'multiprocessing'")),
    ("import numpy.ctypeslib", ("ImportError", "import of 'numpy.ctypeslib'")),
    ("from . import helper", ("ImportError", "import of '.'")),
    ("import os as o\no.fork()", ("GuardError", "os.fork is refused")),
    ("from os import popen", ("GuardError", "from os import popen is refused")),
    ("import os\ngetattr(os, 'execv')", ("GuardError", "getattr(…, 'execv') is refused")),
    ("import sys\nsys.modules['os']", ("GuardError", "sys.modules is refused")),
    ("__import__('socket')", ("GuardError", "the name __import__ is refused")),
    ("().__class__.__base__.__subclasses__()", ("GuardError", "the attribute .__subclasses__ is refused")),
])
def test_guard_refuses(source: str, refusal: tuple[str, str]) -> None:
    facts = _guard.check(source)
    assert facts is not None and facts.phase == "load"
    assert (facts.result["type"], facts.result["message"].split(" is refused")[0]) == (
        refusal[0], refusal[1].split(" is refused")[0])
    assert "guard refused" in facts.stderr


@pytest.mark.parametrize("source", [
    HANOI_SOLVER, NUMPY_SOLVER, "def solve(instance:\n",  # a syntax error is the supervisor's to report
    "import os, sys, heapq\nfrom collections import deque\nsys.setrecursionlimit(10 ** 6)\n"
    "class Node:\n    def __init__(self):\n        self._seen = os.path.join('a', 'b')\n"
    "def solve(instance):\n    return eval('1 + 1')\n",
])
def test_guard_passes_ordinary_programs(source: str) -> None:
    assert _guard.check(source) is None


@pytest.mark.parametrize("source", ["x = None" + ".a" * 100_000, "x = " + "-" * 100_000 + "1",
                                    "x = " + "[" * 90 + "]" * 90 + "\n" * 3 + "def solve(i):\n    return x\n"])
def test_the_guard_survives_sources_nested_past_any_recursion_limit(source: str) -> None:
    refused = _guard.check(source)  # no RecursionError in the host: a verdict (refused), or the supervisor's to judge
    assert refused is None or refused.result["type"] == "GuardError"
