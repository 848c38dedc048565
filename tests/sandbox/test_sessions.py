"""One supervisor session per worker serves program after program (issue 30): its start-up is paid once per worker,
never per program, and each load first proves the last program's slate clean, so a program finds nothing another
left, on the Docker and the local backend: neither on the slate nor in its own memory (its children are forked by a
forker of its own, forked from a copy of the supervisor made before any request: no heap they inherit held the last
program's source, answers or output)."""

from __future__ import annotations

import json
import threading
import time

import psutil
import pytest

from codebench.sandbox import get_backend
from codebench.types import Limits

LEAVE = ("import os, time\ndef solve(instance):\n    if os.fork() == 0:\n        os.setsid()\n"
         "        open('/tmp/left-' + str(os.getpid()), 'w').write('x')\n        time.sleep(60)\n    time.sleep(0.2)\n    return 1\n")
LOOK = ("import os\ndef solve(instance):\n    mine = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()\n"
        "            and os.stat('/proc/' + p).st_uid == os.getuid()]\n"
        "    return {'tmp': sorted(os.listdir('/tmp')), 'work': sorted(os.listdir('.')), 'processes': len(mine)}\n")


# prints a mark per instance, answers with it, and keeps its source in the supervisor's heap
MARK = "def solve(instance):\n    mark = 'MARK-' + str(instance['n'] * 7919) + '-END'\n    print(mark)\n    return mark\n"
# a program's helper: every mark in its own writable memory (`/proc/self/mem` is closed to it, ctypes is not)
MARKS_IN_MEMORY = '''
import ctypes, re

def marks():
    found = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if "rw" in fields[1] and (len(fields) < 6 or fields[5] == "[heap]") and end - start < 1 << 28:
                found.update(re.findall(rb"MARK-[0-9]+-END", ctypes.string_at(start, end - start)))
    return found
'''
# one mark it makes itself (the search works) and any the supervisor passed on
SCAN = MARKS_IN_MEMORY + ("def solve(instance):\n    own = ('MARK-' + str(instance['n'] * 7919) + '-END').encode()\n"
                          "    found = marks()\n    return {'own': own in found, 'others': sorted(m.decode() for m in found - {own})}\n")


def sessions_opened(sandbox) -> list[int]:
    """Grows by one each time the worker opens a session after its first (a broken session is replaced)."""
    worker = sandbox.pool.workers[0]
    opened: list[int] = []
    start_session = worker.open_session
    worker.open_session = lambda: opened.append(1) or start_session()
    return opened


@pytest.mark.parametrize("backend", [pytest.param("docker", marks=pytest.mark.docker), "local"])
def test_a_program_finds_nothing_of_the_last_one_in_its_own_memory(backend: str) -> None:
    with get_backend(backend, Limits(), workers=1) as sandbox:
        opened = sessions_opened(sandbox)
        marked = sandbox.run(MARK, [{"n": n} for n in range(1, 40)])
        (scanned,) = sandbox.run(SCAN, [{"n": 0}])
        (again,) = sandbox.run(MARK, [{"n": 3}])
    assert opened == []  # one session served all three
    assert [json.loads(facts.result["answer"]) for facts in marked[:2]] == ["MARK-7919-END", "MARK-15838-END"]
    assert json.loads(scanned.result["answer"]) == {"own": True, "others": []}, scanned
    assert json.loads(again.result["answer"]) == "MARK-23757-END"  # a program loaded again after another runs as before


@pytest.mark.parametrize("backend", [pytest.param("docker", marks=pytest.mark.docker), "local"])
def test_one_supervisor_serves_program_after_program_and_each_finds_a_clean_slate(backend: str) -> None:
    with get_backend(backend, Limits(), workers=1) as sandbox:
        opened = sessions_opened(sandbox)
        (left,) = sandbox.run(LEAVE, [{}])
        (looked,) = sandbox.run(LOOK, [{}])
        (again,) = sandbox.run(LEAVE.replace("return 1", "return 2"), [{}])
        assert (json.loads(left.result["answer"]), json.loads(again.result["answer"])) == (1, 2)
        assert json.loads(looked.result["answer"]) == {"tmp": ["work"], "work": [], "processes": 0}, looked
        assert [left.clean, looked.clean, again.clean] == [True, True, True]
        assert opened == []  # the session the worker started with served all three programs


NAMED = "import sys\nWARM = 'numpy' in sys.modules\nimport numpy\ndef solve(instance):\n    return [WARM, int(numpy.int64(2) * 3)]\n"
COMPUTED = ("import sys\nWARM = 'num' 'py' in sys.modules\nnp = __import__('num' 'py')\ndef solve(instance):\n"
            "    return [WARM, int(np.int64(2) * 3)]\n")


@pytest.mark.parametrize("backend", [pytest.param("docker", marks=pytest.mark.docker), "local"])
def test_numpy_is_warm_for_a_program_that_names_it_and_imports_in_the_child_for_one_that_does_not(backend: str) -> None:
    with get_backend(backend, Limits(), workers=1) as sandbox:
        (named,) = sandbox.run(NAMED, [{}])
        (computed,) = sandbox.run(COMPUTED, [{}])  # its own forker: the numpy the last program's had warm is not there
    assert "numpy" not in COMPUTED
    assert [json.loads(named.result["answer"]), json.loads(computed.result["answer"])] == [[True, 6], [False, 6]]


# beside it waits the next instance's child, forked while this one runs: it counts its siblings (that child) and tries
# to stop and to trace every process it sees
REACH_EVERY_PROCESS = '''
import ctypes, os, signal, time
libc = ctypes.CDLL(None, use_errno=True)

def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rpartition(")")[2].split()[1])
    except OSError:  # gone meanwhile
        return None

def others():
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]

def solve(instance):
    waited = time.monotonic() + 10  # for the next instance's child to be forked
    while not (siblings := [pid for pid in others() if parent(pid) == os.getppid()]) and time.monotonic() < waited:
        time.sleep(0.01)
    reached = []
    for pid in others():
        try:
            os.kill(pid, signal.SIGSTOP)
            reached.append(pid)
        except OSError:
            pass
        if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
            reached.append(pid)
    return {"siblings": len(siblings), "reached": reached}
'''


@pytest.mark.parametrize("backend", [pytest.param("docker", marks=pytest.mark.docker), "local"])
def test_the_next_instances_child_waits_beside_a_running_program_out_of_its_reach(backend: str) -> None:
    """The child for the next instance is forked while one runs, and waits as root until its task brings the solver's
    identity: the program beside it can neither stop nor trace it, and the next instances run as ever."""
    with get_backend(backend, Limits(), workers=1) as sandbox:
        opened = sessions_opened(sandbox)
        facts = sandbox.run(REACH_EVERY_PROCESS, [{}] * 4)
    assert [(f.killed, f.result.get("kind")) for f in facts] == [(None, "answer")] * 4, facts
    assert [json.loads(f.result["answer"]) for f in facts] == [{"siblings": 1, "reached": []}] * 4
    assert opened == []


def spares() -> list[psutil.Process]:
    """The spares among our descendants (the local backend's): root's children of a forker, itself the zygote's child,
    itself the supervisor's: four generations of supervisor.py."""
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            chain = [process, *process.parents()[:3]]
            if process.uids().real == 0 and all(p.name().startswith("python") and any("supervisor.py" in part for part in p.cmdline())
                                                for p in chain):  # bwrap's command line names supervisor.py too
                found.append(process)
        except psutil.Error:
            continue
    return found


def the_spare() -> psutil.Process:
    """The one spare, once it has been forked."""
    waited = time.monotonic() + 10
    while not (found := spares()) and time.monotonic() < waited:
        time.sleep(0.01)
    assert len(found) == 1, found
    return found[0]


def test_a_spare_gone_before_the_next_load_is_no_trouble() -> None:
    """The spare waits beside the running program, so the kernel may kill it for that program's memory, and its
    forker reaps it at once. The next program's load, which kills the spare, finds it gone: it loads in the same
    session (killing a spare already reaped crashed the supervisor, and the worker was rebuilt)."""
    with get_backend("local", Limits(), workers=1) as sandbox:
        opened = sessions_opened(sandbox)
        (marked,) = sandbox.run(MARK, [{"n": 1}])
        spare = the_spare()
        spare.kill()
        psutil.wait_procs([spare], timeout=10)
        (looked,) = sandbox.run(LOOK, [{}])
    assert json.loads(marked.result["answer"]) == "MARK-7919-END"
    assert json.loads(looked.result["answer"]) == {"tmp": ["work"], "work": [], "processes": 0}, looked
    assert opened == []


SLEEPER = "import time\ndef solve(instance):\n    time.sleep(instance['s'])\n    return instance['s']\n"


def test_a_spare_killed_beside_a_running_program_is_replaced() -> None:
    """The kernel may kill the spare for the memory of the program running beside it, and its forker reaps it at once,
    before we have read its pid: the pidfd comes with the pid, so the next instance gets a spare forked anew, in the
    same session (opened by pid once the child was reaped, the supervisor crashed and the worker was rebuilt)."""
    killed: list[int] = []

    def kill_the_spare() -> None:
        time.sleep(0.5)  # the first instance's child has taken the last spare; the next is forked beside it
        spare = the_spare()
        spare.kill()
        killed.append(spare.pid)

    with get_backend("local", Limits(), workers=1) as sandbox:
        opened = sessions_opened(sandbox)
        sandbox.run(SLEEPER, [{"s": 0}])
        killer = threading.Thread(target=kill_the_spare)
        killer.start()
        facts = sandbox.run(SLEEPER, [{"s": 2}, {"s": 0}])
        killer.join()
    assert len(killed) == 1
    assert [json.loads(f.result["answer"]) for f in facts] == [2, 0], facts
    assert opened == []
