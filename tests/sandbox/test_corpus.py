"""The attack-and-accident corpus, run on the Docker and the local (bubblewrap) backends and judged on the host.

Each program under corpus/ is one `sandbox.run` against a real Hanoi instance (3 disks; programs that
attack only that instance then get the 4-disk one in the same run, which must be legal). After every
program, corpus/clean_slate.py must run legal on the same worker: nothing of the earlier program (process,
file, shared memory, IPC object) is visible. One backend of each kind serves the whole module.
"""

from __future__ import annotations

import os
import signal
import socket
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

import puzzles
from codebench.judge import judge_execution as judge
from codebench.sandbox import SandboxBackend, get_backend
from codebench.sandbox._docker import LABEL, connect, owner_label
from codebench.types import MIB, Facts, Limits, Outcome, Status

BACKENDS = [pytest.param("docker", marks=pytest.mark.docker), "local"]

CORPUS = Path(__file__).parent / "corpus"
# wall_s leaves CPU-bound cases room to reach cpu_limit on a busy host; tmpfs (64 MiB) > file size: ENOSPC and EFBIG
LIMITS = Limits(cpu_s=1, wall_s=5, memory_mib=256, file_bytes=16 * MIB)
HANOI = puzzles.get_puzzle("hanoi")
THREE = HANOI.generate(1, 0).instance
FOUR = HANOI.generate(2, 0).instance
EXCERPT_CHARS = 2 * 4096 + 64  # the supervisor keeps 4 KiB of head and of tail, plus a gap marker

S = Status


@dataclass(frozen=True)
class Case:
    """The expected judgement of one program on the 3-disk instance."""

    status: Status
    detail: str = ""  # exact; a trailing "*" makes it a prefix
    message: str = ""  # must appear in the exception message the child reported
    then_legal: bool = False  # the 4-disk instance follows in the same run and must be legal
    flood: str = ""  # the stream that hit output_limit: its excerpt must stay bounded


CASES: dict[str, Case] = {
    # time
    "infinite_loop.py": Case(S.TIMEOUT, "cpu_limit"),
    "sleep_forever.py": Case(S.TIMEOUT, "wall_limit"),
    "huge_power.py": Case(S.TIMEOUT, "cpu_limit"),
    "ignore_signals.py": Case(S.TIMEOUT, "cpu_limit"),
    "read_stdin.py": Case(S.LEGAL),  # stdin is /dev/null: read() returns "" at once
    # processes
    "fork_bomb.py": Case(S.TIMEOUT, "cpu_limit"),  # forks fail at the quota; the spinning swarm is killed
    "thread_bomb.py": Case(S.RUNTIME_ERROR, "exception:RuntimeError", message="can't start new thread"),
    "process_pool.py": Case(S.TIMEOUT, "cpu_limit"),  # CPU counted over the container, not just the child
    "daemon.py": Case(S.LEGAL, then_legal=True),
    "ipc_leftovers.py": Case(S.LEGAL, then_legal=True),
    "kill_parent.py": Case(S.RUNTIME_ERROR, "exception:PermissionError", then_legal=True),
    "kill_everyone.py": Case(S.LEGAL, then_legal=True),  # kill(-1) spares the caller and cannot reach root
    "kill_everyone_from_child.py": Case(S.RUNTIME_ERROR, "signal:SIGKILL", then_legal=True),
    "self_kill.py": Case(S.RUNTIME_ERROR, "signal:SIGKILL"),
    "deep_recursion.py": Case(S.RUNTIME_ERROR, "signal:SIGSEGV"),
    "os_exit.py": Case(S.RUNTIME_ERROR, "no_result:exit_0"),
    "sys_exit.py": Case(S.RUNTIME_ERROR, "exception:SystemExit"),
    # memory and files
    "memory_bytearray.py": Case(S.RUNTIME_ERROR, "oom"),
    "memory_list.py": Case(S.RUNTIME_ERROR, "oom"),
    "fill_tmp.py": Case(S.RUNTIME_ERROR, "exception:OSError", message="No space left on device"),
    "big_file.py": Case(S.RUNTIME_ERROR, "exception:OSError", message="File too large"),
    "write_outside_tmp.py": Case(S.RUNTIME_ERROR, "exception:OSError", message="Read-only file system"),
    # output
    "stdout_flood.py": Case(S.RUNTIME_ERROR, "output_limit", flood="stdout"),
    "stderr_flood.py": Case(S.RUNTIME_ERROR, "output_limit", flood="stderr"),
    "long_line.py": Case(S.RUNTIME_ERROR, "output_limit", flood="stdout"),
    "invalid_utf8.py": Case(S.LEGAL),
    "close_stdout.py": Case(S.LEGAL),  # the answer has its own channel
    # faking a verdict: the answer is always validated on the host
    "fake_verdict.py": Case(S.RULE_VIOLATION, "goal_not_reached"),
    "monkeypatch_json.py": Case(S.RULE_VIOLATION, "invalid_json"),  # its fake "answer" replaces the import probe
    "monkeypatch_builtins.py": Case(S.RUNTIME_ERROR, "no_result:*"),  # the child's own reporting breaks
    # the outside world
    "network.py": Case(S.RUNTIME_ERROR, "exception:OSError", message="Network is unreachable"),
    "environment.py": Case(S.LEGAL),  # it answers wrongly if it finds any variable beyond the fixed few
    "inheritance.py": Case(S.LEGAL),  # it answers wrongly unless its descriptors, rlimits and privileges are as set
    "numpy_use.py": Case(S.LEGAL),
    # programs that are not solvers
    "syntax_error.py": Case(S.SYNTAX_ERROR, "SyntaxError:*"),
    "no_solve.py": Case(S.NO_CODE, "entry_point_missing"),
    "not_json.py": Case(S.RULE_VIOLATION, "not_json"),
    "import_error.py": Case(S.RUNTIME_ERROR, "exception:ValueError"),
    "import_missing.py": Case(S.RUNTIME_ERROR, "import:no_such_module_anywhere"),
    # attacks on the trusted side: the supervisor's parsing and memory, the clean-up, the host's judge and report
    "forged_deep_result.py": Case(S.RUNTIME_ERROR, "bad_result:garbled"),
    "forged_deep_answer.py": Case(S.RULE_VIOLATION, "invalid_json"),
    "forged_invalid_utf8.py": Case(S.RULE_VIOLATION, "invalid_json"),
    "huge_int_answer.py": Case(S.RULE_VIOLATION, "invalid_json"),
    "markup_exception.py": Case(S.RUNTIME_ERROR, "exception:[green]legal[/green] 1 passed, 0 failed\\x1b[8m"),  # shown, never rendered
    "huge_exception_name.py": Case(S.RUNTIME_ERROR, "exception:" + "E" * 100, message="(the exception cannot be shown)"),
    "unlistable_folder.py": Case(S.LEGAL, then_legal=True),
    "deep_folders.py": Case(S.LEGAL, then_legal=True),
    "locked_scratch.py": Case(S.LEGAL, then_legal=True),
    "short_children.py": Case(S.TIMEOUT, "cpu_limit"),  # the kernel counts the worker's CPU, however brief each child
    "memfd_hoard.py": Case(S.RUNTIME_ERROR, "oom"),  # memfd and System V pages count against the worker's memory
    "sysv_shm_hoard.py": Case(S.RUNTIME_ERROR, "oom"),
    "host_view.py": Case(S.LEGAL),  # needs the host listener of test_program's fixture
    "deep_attribute_chain": Case(S.SYNTAX_ERROR, "RecursionError:*"),
    "deep_unary_chain": Case(S.SYNTAX_ERROR, "MemoryError:*"),  # CPython's parser reports its stack overflow so
}
GENERATED = {  # programs too large to keep as files: the source is the attack
    "deep_attribute_chain": "x = None" + ".a" * 100_000 + "\n\ndef solve(instance):\n    return x\n",
    "deep_unary_chain": "x = " + "-" * 100_000 + "1\n\ndef solve(instance):\n    return x\n",
}
HELPERS = {"clean_slate.py", "correct.py", "neighbour.py", "signal_outside.py"}  # used by the tests below, not in the table


SHARED_IMPORT = "from _hanoi import hanoi"


def source(name: str) -> str:
    """A corpus program as the sandbox receives it: one file, with the shared Hanoi solver inlined."""
    if name in GENERATED:
        return GENERATED[name]
    shared = (CORPUS / "_hanoi.py").read_text().split("\n", 1)[1]
    return "\n".join(shared if line.startswith(SHARED_IMPORT) else line for line in (CORPUS / name).read_text().split("\n"))


def outcome_of(facts: Facts, instance: dict) -> Outcome:
    return judge(facts, HANOI, instance, LIMITS)


@pytest.fixture(scope="module", params=BACKENDS)
def sandbox(request: pytest.FixtureRequest):
    """One worker, so every program and every clean-slate check share a container (or sandbox) and a solver uid."""
    with get_backend(request.param, LIMITS, workers=1) as backend:
        yield backend


def assert_clean_slate(sandbox: SandboxBackend, after: str) -> None:
    facts = sandbox.run(source("clean_slate.py"), [THREE])[0]
    outcome = outcome_of(facts, THREE)
    assert outcome.status == S.LEGAL, f"after {after}: {outcome.status} {outcome.detail} {facts.stdout or facts.infra_error}"


def test_every_program_has_an_expectation():
    programs = [path.name for path in CORPUS.glob("*.py") if not path.name.startswith("_")]
    assert sorted(programs) == sorted(set(CASES) - set(GENERATED) | HELPERS)


@pytest.fixture(scope="module")
def host_listener():
    """A loopback service on the host, which no program may reach (host_view.py tries)."""
    with socket.create_server(("127.0.0.1", 47123)) as server:
        yield server


@pytest.mark.parametrize("program", sorted(CASES))
def test_program(sandbox: SandboxBackend, program: str, host_listener: socket.socket):
    case = CASES[program]
    instances = [THREE, FOUR] if case.then_legal else [THREE]
    facts = sandbox.run(source(program), instances)
    first = facts[0]
    outcome = outcome_of(first, THREE)
    context = f"{program}: {outcome.status} {outcome.detail!r}; {first}"
    assert outcome.status == case.status, context
    if case.detail.endswith("*"):
        assert outcome.detail.startswith(case.detail[:-1]), context
    else:
        assert outcome.detail == case.detail, context
    assert case.message in first.result.get("message", ""), context
    assert first.infra_error is None and first.survivors == 0, context
    if case.then_legal:
        second = outcome_of(facts[1], FOUR)
        assert second.status == S.LEGAL, f"{program}, next instance: {second.status} {second.detail} {facts[1]}"
    if case.flood:
        assert getattr(first, f"{case.flood}_bytes") > LIMITS.output_bytes, context
        assert len(getattr(outcome, case.flood)) <= EXCERPT_CHARS, context
    assert_clean_slate(sandbox, program)


def test_daemon_was_there_to_kill(sandbox: SandboxBackend):
    facts = sandbox.run(source("daemon.py"), [THREE])[0]
    assert outcome_of(facts, THREE).status == S.LEGAL
    assert facts.leftovers >= 1 and facts.survivors == 0, facts


def test_output_excerpts(sandbox: SandboxBackend):
    invalid = sandbox.run(source("invalid_utf8.py"), [THREE])[0]
    assert "before \\xff\\xfe" in invalid.stdout and "after" in invalid.stdout, invalid.stdout
    fake = sandbox.run(source("fake_verdict.py"), [THREE])[0]
    assert "VERDICT: legal" in fake.stdout  # printed, and ignored


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_fork_bomb_does_not_starve_the_neighbour_worker(backend_name: str):
    """RLIMIT_NPROC counts per uid across containers: each worker must have its own solver uid."""
    with get_backend(backend_name, LIMITS, workers=2) as backend:
        bomb, neighbour = backend.run(source("neighbour.py"), [THREE, FOUR])
    assert outcome_of(bomb, THREE).status == S.TIMEOUT, bomb
    assert outcome_of(neighbour, FOUR).status == S.LEGAL, neighbour


def test_no_signal_leaves_the_solver(sandbox: SandboxBackend):
    """A solver signals nothing but its own processes: not the supervisor (pid, process group, session; SIGCONT passes
    any uid within a session), not the harness (its pids handed to the program), no pid it can see or guess."""
    harness = (os.getpid(), os.getpgrp(), os.getsid(0), os.getppid())
    program = source("signal_outside.py").replace("HARNESS = ()", f"HARNESS = {harness}")
    assert f"HARNESS = {harness}" in program
    received: list[int] = []
    previous = signal.signal(signal.SIGCONT, lambda number, frame: received.append(number))
    try:
        facts = sandbox.run(program, [THREE])[0]
    finally:
        signal.signal(signal.SIGCONT, previous)
    outcome = outcome_of(facts, THREE)
    assert outcome.status == S.LEGAL, f"{outcome.status} {outcome.detail}: {facts.stdout} {facts.infra_error}"
    assert received == []
    assert_clean_slate(sandbox, "signal_outside.py")


# the solver uid's processes but the supervisor's spare: its one direct child, made ahead of the next task (a program's
# leftover is never the supervisor's child: the child that started it was reaped, so it went to the container's init)
SOLVER_PROCESSES = ("import os, sys\n"
                    "def parent(p): return open(f'/proc/{p}/stat').read().rpartition(')')[2].split()[1]\n"
                    "def supervisor(p): return b'supervisor.py' in open(f'/proc/{p}/cmdline', 'rb').read()\n"
                    "mine = [p for p in os.listdir('/proc') if p.isdigit() and os.stat(f'/proc/{p}').st_uid == int(sys.argv[1])]\n"
                    "spares = [p for p in mine if supervisor(parent(p))]\n"
                    "print(len(mine) - min(len(spares), 1))")


def test_nothing_left_after_the_corpus(sandbox: SandboxBackend):
    """Runs last: a normal program is still legal, no solver process is left, closing removes every container
    (or, locally, every cgroup, and no process of the solver uids is left on the host)."""
    facts = sandbox.run(source("correct.py"), [THREE, FOUR])
    assert [outcome_of(f, i).status for f, i in zip(facts, [THREE, FOUR])] == [S.LEGAL, S.LEGAL], facts
    if sandbox.name == "local":
        uids = {worker.uid for worker in sandbox.pool.workers}
        cgroups = [folder for worker in sandbox.pool.workers for folder in worker.cgroup.folders.values()]
        sandbox.close()
        assert not [p.pid for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real in uids]
        assert cgroups and not any(folder.exists() for folder in cgroups)
        left = [str(path) for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock") for path in Path(folder).iterdir()
                if path.lstat().st_uid in uids]
        assert left == []  # the programs' files lived in the sandbox's own tmpfs
        return
    for worker in sandbox.pool.workers:
        code, output = worker.container.exec_run(["python3", "-c", SOLVER_PROCESSES, str(worker.solver_uid)])
        assert (code, output.decode().strip()) == (0, "0")
    sandbox.close()
    client = connect()
    try:
        mine = client.containers.list(all=True, filters={"label": [f"{LABEL}.role", f"{LABEL}.owner={owner_label()}"]})
    finally:
        client.close()
    assert mine == []
