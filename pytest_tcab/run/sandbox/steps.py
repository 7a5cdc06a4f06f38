"""Building a produced implementation: shell steps in a private copy, bounded in time and output."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from pytest_tcab.bounded import HeadTail
from pytest_tcab.bounded import bound
from pytest_tcab.run.sandbox.disk import RunDisk
from pytest_tcab.options import BUILD_PROCESSES_OPTION
from pytest_tcab.run.sandbox.sandbox import MEMORY_SCOPES
from pytest_tcab.run.sandbox.sandbox import AppliedCaps
from pytest_tcab.run.sandbox.sandbox import PROCESS_SCOPES
from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.media import size_text

OUTPUT_CAP_BYTES = 1024 * 1024
"""Only the first and last half MiB of a step's output are kept: the command's first words and
the failure at the end survive, and a runaway log cannot exhaust the reporter's memory."""

KILL_GRACE_S = 2.0
"""How long a timed-out process group gets between SIGTERM and SIGKILL to shut down cleanly."""

DRAIN_S = 1.0
"""How long output is still read after the step ended, for a writer that escaped the kill
(it left the process group) and keeps the pipe open."""

OUTPUT_DIRS = ("dist", "build", "out")
"""Where a static build may put its output, in order of preference (DESIGN "Build and serve")."""

SKIPPED_ANYWHERE = frozenset({"node_modules", ".git", "target"})
"""Dependency caches and VCS data: never the implementation's sources, and often huge."""

SKIPPED_AT_ROOT = frozenset({*OUTPUT_DIRS, ".tcab"})
"""Output folders shipped with the sources are left behind, so a stale committed build can never
pass for the output of a build that failed or wrote nothing. Deeper folders of the same names
may be sources (``src/build/``) and are copied. So is the run's `.tcab/` (its run.toml: who
produced it, as what): the grader's, not the implementation's, so a build never learns it, and
runs that differ only there build alike (`run.sandbox.shared`)."""

INHERITED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
"""The only variables a build sees from the reporter: enough for node/npm to run, and none of
the reporter's tokens, since the code being built is untrusted."""

BUILD_ENV = {
    "CI": "1",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_update_notifier": "false",
}
"""Non-interactive installs that do not phone home; CI=1 also makes tools drop progress bars."""


@dataclass(frozen=True)
class CommandResult:
    """One shell step as run: what it printed (its tail) and how it ended."""

    command: str
    returncode: int
    """The shell's exit status; negative when a signal ended it (as in :mod:`subprocess`)."""
    output: str
    """stdout and stderr interleaved, at most :data:`OUTPUT_CAP_BYTES` of it (head and tail)."""
    timed_out: bool
    duration_s: float
    confinement: dict[str, str | bool | int] = field(default_factory=dict)
    """What the step had, as results.json records it: `{"sandbox": "bwrap", "network": False}`."""
    over_memory_cap: bool | None = None
    """Whether the step's cgroup killed a process of it for memory; None without a cgroup to ask."""
    forks_refused: int | None = None
    """How many forks the step's pids cgroup refused at its process cap; None without one to ask."""

    @property
    def ok(self) -> bool:
        """Whether the step finished in time with exit status 0."""
        return self.returncode == 0 and not self.timed_out

    def figures(self) -> dict[str, object]:
        """The step as results.json records it: command, ending, time, output tail, sandbox."""
        return {"command": self.command, "returncode": self.returncode, "timed_out": self.timed_out,
                "duration_s": round(self.duration_s, 3), "output": self.tail(200), **self.confinement,
                **({} if self.over_memory_cap is None else {"over_memory_cap": self.over_memory_cap}),
                **({} if self.over_process_cap is None else {"over_process_cap": self.over_process_cap}),
                **({} if self.forks_refused is None else {"forks_refused": self.forks_refused})}

    @property
    def over_process_cap(self) -> bool | None:
        """Whether the step reached its process cap: its pids cgroup refused a fork, or (under
        RLIMIT_NPROC, which keeps no count) it printed that a fork failed; None where nothing caps it."""
        if self.forks_refused is not None:
            return self.forks_refused > 0
        if str(self.confinement.get("process_cap_by")).startswith("RLIMIT_NPROC"):
            return FORK_REFUSED.search(self.output) is not None
        return None

    def tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of output, bounded: where build tools print the reason they failed."""
        return bound("\n".join(self.output.splitlines()[-lines:]))


def build_environment() -> dict[str, str]:
    """The environment every build step runs with: :data:`INHERITED_ENV` plus :data:`BUILD_ENV`."""
    env = {name: os.environ[name] for name in INHERITED_ENV if name in os.environ}
    env.update(BUILD_ENV)
    return env


def run_command(
    command: str,
    cwd: Path,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    *,
    sandbox: Sandbox,
    step: str = "build",
    disk: RunDisk | None = None,
    cancel: threading.Event | None = None,
) -> CommandResult:
    """Run ``command`` with ``bash -c`` in ``cwd``, inside ``sandbox``, as the leader of a new process group.

    ``cwd`` is the build's own copy: the only folder of the host the step can write (see
    :mod:`pytest_tcab.run.sandbox.sandbox`); ``step`` (``install``, ``build``, a toolchain step) decides
    whether it has the network. The sandbox's PID namespace ends every process the step started
    when it ends, detached or not. The group, not just the shell, is what gets killed on timeout:
    ``npm run build`` forks node, which forks esbuild. ``env`` replaces the environment entirely
    (:func:`build_environment` is the usual one). ``disk`` is the run's disk (`run.sandbox.disk`):
    its watchdog, where it has one, ends the step past the cap. A step whose pids cgroup refused
    a fork (or, under RLIMIT_NPROC, that prints so) is ended at once too: it has failed already,
    and a fork loop retrying against its cap would otherwise hold the sweep until its timeout.
    Setting ``cancel`` (from another thread: a step run beside the build, `run.sandbox.beside`)
    ends it the same way.
    """
    start = time.monotonic()
    with sandbox.capped() as caps:
        stop = _ended_by_caps(caps, disk, cancel)
        argv, full_env = sandbox.wrap(["bash", "-c", command], cwd, dict(os.environ if env is None else env), step,
                                      [*caps.argv, *(disk.argv() if disk is not None else [])])
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        assert proc.stdout is not None  # stdout=PIPE
        pgid = proc.pid  # start_new_session: the shell leads its own group
        output = HeadTail(OUTPUT_CAP_BYTES)
        with proc.stdout, selectors.DefaultSelector() as selector:
            fd = proc.stdout.fileno()
            selector.register(fd, selectors.EVENT_READ)
            try:
                timed_out = not _read_until_exit(proc, fd, selector, output, start + timeout_s, stop,
                                                 FORK_REFUSED if sandbox.caps is not None and
                                                 sandbox.caps.process_by.startswith("RLIMIT_NPROC") else None)
            finally:  # also on Ctrl-C: an interrupted run must not leave a build running
                _end_group(proc, pgid)
            _drain(fd, selector, output, time.monotonic() + DRAIN_S)
        over_memory_cap, forks_refused = caps.over_memory(), caps.forks_refused()
    return CommandResult(
        command=command,
        returncode=proc.returncode,
        output=output.text(),
        timed_out=timed_out,
        duration_s=time.monotonic() - start,
        confinement={**sandbox.record(step), **(disk.record() if disk is not None else {})},
        over_memory_cap=over_memory_cap,
        forks_refused=forks_refused,
    )


def _ended_by_caps(caps: AppliedCaps, disk: RunDisk | None,
                   cancel: threading.Event | None = None) -> Callable[[], bool] | None:
    """What, polled while the step runs, says to end it now: its disk's watchdog, its pids cgroup,
    its caller."""
    checks = [disk.over] if disk is not None else []
    if cancel is not None:
        checks.append(cancel.is_set)
    if caps.forks_refused() is not None:
        checks.append(lambda: bool(caps.forks_refused()))
    return (lambda: any(check() for check in checks)) if checks else None


def _read_until_exit(
    proc: subprocess.Popen[bytes],
    fd: int,
    selector: selectors.BaseSelector,
    output: HeadTail,
    deadline: float,
    stop: Callable[[], bool] | None = None,
    refused: re.Pattern[str] | None = None,
) -> bool:
    """Collect output until the shell exits, `stop` says to end it or a chunk of output says a
    fork was `refused` (True), or the deadline passes (False).

    Exit is polled rather than inferred from EOF, because a background grandchild may hold the
    pipe open long after the shell is gone.
    """
    eof = False
    while proc.poll() is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        if stop is not None and stop():
            return True
        if eof:
            time.sleep(min(remaining, 0.05))
        elif selector.select(min(remaining, 0.05)):
            chunk = os.read(fd, 65536)
            eof = not chunk
            output.add(chunk)
            if refused is not None and refused.search(chunk.decode("utf-8", "replace")):
                return True  # under RLIMIT_NPROC, which keeps no count: the step has reached its cap
    return True


def _end_group(proc: subprocess.Popen[bytes], pgid: int) -> None:
    """SIGTERM the whole group, then SIGKILL whatever is left after :data:`KILL_GRACE_S`."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        proc.wait()
        return
    deadline = time.monotonic() + KILL_GRACE_S
    while time.monotonic() < deadline:
        proc.poll()  # reap the shell, else it lingers as a zombie member of the group
        if not _group_exists(pgid):
            break
        time.sleep(0.02)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
    proc.wait()


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed uid; it still exists
        return True
    return True


def _drain(
    fd: int,
    selector: selectors.BaseSelector,
    output: HeadTail,
    deadline: float,
) -> None:
    """Read what is still in the pipe, up to EOF or the deadline, whichever comes first."""
    while (remaining := deadline - time.monotonic()) > 0:
        if not selector.select(remaining):
            return
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        output.add(chunk)


@dataclass(frozen=True)
class Workdir:
    """A private copy of a produced tree, and what was deliberately left out of it."""

    path: Path
    dropped: tuple[str, ...]
    """One line per entry left out for safety, e.g. ``x -> /etc/passwd (leaves the tree)``."""


def prepare_workdir(source: Path, dest_parent: Path) -> Workdir:
    """Copy ``source`` into a fresh folder under ``dest_parent`` for building.

    Building in a copy keeps the produced tree pristine for later runs and reviews. Symlinks are
    never followed: one that stays inside the tree is recreated as a relative link to the same
    file, one that leaves it (``-> /etc/passwd``) is dropped, so neither the build nor the server
    can reach outside through it. Special files (FIFOs, sockets, devices) are dropped too: reading
    a FIFO would hang the copy.
    """
    root = Path(os.path.realpath(source))
    if not root.is_dir():
        raise NotADirectoryError(f"not a directory: {source}")
    dest = Path(tempfile.mkdtemp(prefix="tcab-build-", dir=dest_parent))
    dropped: list[str] = []
    _copy_tree(root, root, dest, dropped)
    return Workdir(path=dest, dropped=tuple(dropped))


def _copy_tree(root: Path, src_dir: Path, dest_dir: Path, dropped: list[str]) -> None:
    with os.scandir(src_dir) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            src = Path(entry.path)
            dest = dest_dir / entry.name
            rel = src.relative_to(root).as_posix()
            if entry.is_symlink():
                target = os.path.realpath(src)
                if _is_within(target, root):
                    os.symlink(os.path.relpath(target, src_dir), dest)
                else:
                    dropped.append(f"{rel} -> {os.readlink(src)} (leaves the tree)")
            elif entry.is_dir(follow_symlinks=False):
                at_root = src_dir == root
                if entry.name in SKIPPED_ANYWHERE or (at_root and entry.name in SKIPPED_AT_ROOT):
                    continue
                dest.mkdir()
                _copy_tree(root, src, dest, dropped)
            elif entry.is_file(follow_symlinks=False):
                shutil.copy2(src, dest, follow_symlinks=False)
            else:
                dropped.append(f"{rel} (not a regular file, folder or symlink)")


def _is_within(path: str, root: Path) -> bool:
    return path == str(root) or path.startswith(str(root) + os.sep)


@dataclass(frozen=True)
class BuildResult:
    """The outcome of install + build, with a message that says what went wrong in user terms."""

    ok: bool
    steps: tuple[CommandResult, ...]
    """The steps that ran, in order; the last one is the failure when ``ok`` is false."""
    workdir: Path
    output_dir: Path | None
    """The static folder to serve: the first of :data:`OUTPUT_DIRS` with a file in it."""
    message: str
    dropped: tuple[str, ...] = ()
    """Entries of the produced tree not copied into ``workdir`` (see :func:`prepare_workdir`)."""
    not_graded: bool = False
    """The build never started for a reason of the grading machine's (no sandbox): not the run's failure."""


def build_static(
    source: Path,
    install: str,
    build: str,
    workdir_parent: Path,
    timeout_s: float,
    sandbox: Sandbox,
    disk: RunDisk | None = None,
    cancel: threading.Event | None = None,
) -> BuildResult:
    """Run ``install`` then ``build`` in a copy of ``source``, each in ``sandbox``, and find the static output.

    Each step gets its own ``timeout_s``; an empty command is skipped. The first failing step
    stops the build, since a build after a failed install only adds noise to the report.
    The copy is left in place: the caller serves ``output_dir`` from it and removes it after.
    A step that fills ``disk`` (the run's, holding ``workdir_parent``) fails the build, even one
    that exited 0, and so does one that reaches its process cap (see :func:`cap_failure`).
    ``cancel``, set from another thread (the run let go while its build ran in the background),
    ends the step running and starts no other.
    """
    try:
        workdir = prepare_workdir(source, workdir_parent)
    except OSError as exc:  # the produced tree itself past the run's disk cap is the run's failure
        if disk is None or exc.errno != errno.ENOSPC or (over := disk.past_cap()) is None:
            raise
        return BuildResult(ok=False, steps=(), workdir=workdir_parent, output_dir=None,
                           message=f"the produced tree does not fit its build folder: copying it went {over}")
    env = build_environment()
    steps: list[CommandResult] = []
    for label, command in (("install", install), ("build", build)):
        if not command.strip() or (cancel is not None and cancel.is_set()):
            continue
        result = run_command(command, workdir.path, timeout_s, env, sandbox=sandbox, step=label, disk=disk,
                             cancel=cancel)
        steps.append(result)
        failed = cap_failure(label, result, disk)
        if failed is not None:
            message, not_graded = failed
            return BuildResult(ok=False, steps=tuple(steps), workdir=workdir.path, output_dir=None, message=message,
                               dropped=workdir.dropped, not_graded=not_graded)
        if not result.ok:
            return BuildResult(
                ok=False,
                steps=tuple(steps),
                workdir=workdir.path,
                output_dir=None,
                message=_step_failure(label, result, timeout_s),
                dropped=workdir.dropped,
            )
    output_dir, problem = find_output_dir(workdir.path)
    if output_dir is not None:
        problem = f"built: serving {output_dir.name}/ from {workdir.path}"
    return BuildResult(
        ok=output_dir is not None,
        steps=tuple(steps),
        workdir=workdir.path,
        output_dir=output_dir,
        message=problem,
        dropped=workdir.dropped,
    )


def cap_failure(label: str, result: CommandResult, disk: RunDisk | None) -> tuple[str, bool] | None:
    """After a step: `(message, not graded)` when a disk ran out or the step reached its process
    cap, else None.

    The grading machine's own disk out of room is not the run's doing (not graded), whatever
    the step wrote under its cap; the run's disk full is, even if the step exited 0: it wrote
    until it was refused, and what it built after that is not what it meant to build. So is
    the process cap reached: a fork was refused, and what ran after that is not what it meant."""
    if disk is not None:
        host = disk.host_out_of_room()
        if host is not None:
            return f"{label}: {host}", True
        over = disk.past_cap()
        if over is not None:
            return f"{label} failed: `{result.command}` went {over}", False
    if result.over_process_cap:
        by = str(result.confinement["process_cap_by"])
        if result.forks_refused:
            said = f"the kernel refused {result.forks_refused} of its forks"
        else:
            match = FORK_REFUSED.search(result.output)
            said = f"it printed `{match[0] if match else 'a refused fork'}`"
        return (f"{label} failed: `{result.command}` reached its process cap of {result.confinement['process_cap']} "
                f"({PROCESS_SCOPES[by]}, {BUILD_PROCESSES_OPTION}): {said}", False)
    return None


FORK_REFUSED = re.compile(r"fork: (?:retry: )?Resource temporarily unavailable|Cannot fork|can't fork|"
                          r"fork failed|fork system call failed|can't start new thread|pthread_create|spawn EAGAIN|"
                          r"BlockingIOError: \[Errno 11\]", re.IGNORECASE)
"""What a program prints when a fork or a thread start is refused (bash, dash, coreutils, Python, Node,
glibc): under RLIMIT_NPROC, which keeps no count of refusals, the one sign a step reached its cap."""


def find_output_dir(workdir: Path) -> tuple[Path | None, str]:
    """The folder to serve and an empty message, or None and why there is none.

    A folder holding ``index.html`` wins over an earlier one that only holds other files (a
    ``dist/`` of library bundles next to an ``out/`` site); empty folders never count.
    """
    present = [workdir / name for name in OUTPUT_DIRS if (workdir / name).is_dir()]
    for candidate in present:
        if (candidate / "index.html").is_file():
            return candidate, ""
    for candidate in present:
        if any(path.is_file() for path in candidate.rglob("*")):
            return candidate, ""
    names = ", ".join(f"{name}/" for name in OUTPUT_DIRS)
    if present:
        return None, f"build wrote no static output: none of {names} holds a file in {workdir}"
    return None, f"build wrote no static output: none of {names} exists in {workdir}"


def _step_failure(label: str, result: CommandResult, timeout_s: float) -> str:
    if result.timed_out:
        return f"{label} timed out after {timeout_s:g} s: `{result.command}` (process group killed)"
    if result.returncode < 0:
        return f"{label} failed: `{result.command}` was killed by {_signal_name(result.returncode)}{past_cap(result)}"
    return f"{label} failed: `{result.command}` exited {_exit_status(result.returncode)}{past_cap(result)}"


OUT_OF_MEMORY = re.compile(r"cannot allocate memory|out of memory|memoryerror|bad_alloc|memory allocation of|"
                           r"allocation failed|failed to reserve|mmap failed", re.IGNORECASE)
"""What a program prints when an allocation fails (libc, V8, Python, C++, Rust, Go)."""
_CPU_SIGNAL = signal.SIGXCPU.value


def past_cap(result: CommandResult) -> str:
    """`; past its memory cap (...)` when the step ended as a step over its caps does, else ``.

    A cgroup says whether it killed for memory; under RLIMIT_DATA the failed allocation is only
    seen in what the program printed."""
    memory, cpu = result.confinement.get("memory_cap"), result.confinement.get("cpu_cap_s")
    if cpu is not None and result.returncode in (-_CPU_SIGNAL, 128 + _CPU_SIGNAL):
        return f"; past its CPU-time cap of {cpu} s (each process; the step timeout, --tcab-build-timeout)"
    if memory is None:
        return ""
    over = result.over_memory_cap
    if over or (over is None and OUT_OF_MEMORY.search(result.output)):
        scope = MEMORY_SCOPES[str(result.confinement["memory_cap_by"])]
        return f"; past its memory cap of {size_text(int(memory))} ({scope}, --tcab-build-memory)"
    return ""


def ending(result: CommandResult, timeout_s: float) -> str:
    """How a step that did not succeed ended, command first: for steps that are recorded, not gating."""
    if result.timed_out:
        return f"`{result.command}` timed out after {timeout_s:g} s (process group killed)"
    if result.returncode < 0:
        return f"`{result.command}` was killed by {_signal_name(result.returncode)}{past_cap(result)}"
    return f"`{result.command}` exited {_exit_status(result.returncode)}{past_cap(result)}"


def _exit_status(returncode: int) -> str:
    """The status, and the signal it stands for above 128: the sandbox reports a step killed by
    a signal as 128 + its number, as shells do."""
    if 128 < returncode <= 128 + 64:
        return f"{returncode} (as a process killed by {_signal_name(128 - returncode)} does)"
    return str(returncode)


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:  # a real-time signal has no name
        return f"signal {-returncode}"
