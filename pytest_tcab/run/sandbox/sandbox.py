"""The sandbox every command of a run executes in: bubblewrap (`bwrap`), probed once per session.

What the code being graded may see and do while it builds (docs/trust.md):
- its own copy of the produced tree (read-write, at :data:`INNER_WORKDIR`), a private home
  kept across the steps of one build (:data:`INNER_HOME`) and a private `/tmp`;
- the system read-only (:data:`SYSTEM_DIRS`); nothing else of the host: not the suite, the
  results folder, the caller's home, the checkout, nor any other writable place;
- its own PID namespace, so every process it starts dies when the step ends, detached or not;
- the network only where `--tcab-build-network` allows it (`install` steps by default).

`--tcab-no-sandbox` is the one way to run without it; every output then says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.run.sandbox.cgroup import CgroupParent
from pytest_tcab.run.sandbox.cgroup import StepCgroup
from pytest_tcab.run.sandbox.cgroup import create_step
from pytest_tcab.run.sandbox.cgroup import find_parent
from pytest_tcab.run.sandbox.disk import MECHANISMS
from pytest_tcab.run.sandbox.disk import mechanism as disk_mechanism
from pytest_tcab.run.sandbox.nproc import ProcessWatch
from pytest_tcab.run.media import size_text

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""What a step sees of the host, read-only: programs, libraries, configuration, `/opt` toolchains.
Merged-/usr links (`/bin -> usr/bin`) are recreated as links. Nothing under `/home`, `/root`,
`/tmp`, `/var`, `/run`, `/srv`, `/mnt` or the rest is there."""

RESOLVER_DIRS = ("/run/systemd/resolve",)
"""Where `/etc/resolv.conf` points on systemd hosts (Ubuntu, GitHub's runners): shown read-only
to steps with network only, so `npm ci` resolves names."""

INNER_WORKDIR = "/tmp/build"
"""Where a step finds its copy of the tree (and its cwd). Bound under the private `/tmp`,
because a bind target must be creatable (feasibility notes, "Sandbox: bubblewrap")."""
INNER_HOME = "/tmp/home"
"""`$HOME` of a step: `~/.cargo`, `~/.npm` and the like land in the build's private home."""
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install "
    "bubblewrap`), or pass --tcab-no-sandbox to build without it (the graded code then runs with "
    "your user's rights and can rewrite what decides its verdicts)"
)
USERNS_HINT = (
    "bwrap needs unprivileged user namespaces. On Ubuntu 23.10 and later (GitHub's ubuntu-24.04 "
    "runners too) AppArmor restricts them: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, "
    "or give bwrap an AppArmor profile that allows `userns` (docs/trust.md); elsewhere "
    "`sudo sysctl -w kernel.unprivileged_userns_clone=1` (older Debian) or `user.max_user_namespaces` "
    "above 0. Or pass --tcab-no-sandbox to build without a sandbox"
)


MEMORY_SCOPES = {
    "memory.max": "the step's whole process tree, a cgroup's memory.max",
    "memory.limit_in_bytes": "the step's whole process tree, a cgroup's memory.limit_in_bytes",
    "RLIMIT_DATA": "each process's data segment, RLIMIT_DATA",
}
"""What each way of capping memory bounds, as failures and summaries say it (`memory_cap_by`).
Never RLIMIT_AS: address space is not memory (V8 reserves about 10 GiB per wasm memory)."""


PROCESS_SCOPES = {
    "pids.max": "the step's whole process tree, threads included, a cgroup's pids.max",
    "RLIMIT_NPROC": "the processes and threads of the step's own user namespace, RLIMIT_NPROC",
    "RLIMIT_NPROC as nobody": ("the processes and threads of the step's own user namespace, RLIMIT_NPROC, the step "
                               "run as an unprivileged user (root ignores RLIMIT_NPROC)"),
    "none": "not capped: no pids cgroup here, and RLIMIT_NPROC does not bind this step's user",
}
"""What each way of capping processes bounds (`process_cap_by`). RLIMIT_NPROC is set inside the
sandbox, after bwrap made its user namespace: the kernel counts it per user namespace, so it
counts the step's processes only, not every process of the grader's user. Root (and
CAP_SYS_RESOURCE) ignores it, so a root grader without a pids cgroup runs each step as
:data:`STEP_UID`, owner of the build's copy and home, with bwrap making its namespace unprivileged."""

STEP_UID = 65534
"""Who a root grader's steps run as where only RLIMIT_NPROC can cap their processes: `nobody`."""

NPROC_PREFIX = ["bash", "-c", 'ulimit -u "$0" && exec "$@"']
"""The first words inside the sandbox where RLIMIT_NPROC caps processes: the cap, then the step."""


@dataclass(frozen=True)
class Caps:
    """What one step may take of the grading machine: `memory_bytes` of memory, `processes`
    processes and, for each of its processes, `cpu_seconds` of CPU time (RLIMIT_CPU), so one
    build that allocates, forks or spins without end cannot take the whole sweep with it."""

    memory_bytes: int
    cpu_seconds: int
    cgroups: CgroupParent | None = None
    """Where each step gets a cgroup capping its whole process tree; None: RLIMIT_DATA per process."""
    processes: int = 512
    process_by: str = "none"
    """The key of :data:`PROCESS_SCOPES` that applies."""
    pids: CgroupParent | None = None
    """Where each step gets a cgroup capping its processes (`pids.max`), when `process_by` says so."""

    @property
    def memory_by(self) -> str:
        """The key of :data:`MEMORY_SCOPES` that applies."""
        return self.cgroups.limit_file if self.cgroups is not None else "RLIMIT_DATA"

    @contextmanager
    def applied(self) -> Iterator[AppliedCaps]:
        """The caps of one step: its command prefix, and after it whether it went over the memory
        or the process cap."""
        limits = {**({self.cgroups: self.memory_bytes} if self.cgroups is not None else {}),
                  **({self.pids: self.processes} if self.pids is not None else {})}
        watch = ProcessWatch(self.processes) if self.process_by.startswith("RLIMIT_NPROC") else None
        if not limits:
            yield AppliedCaps(self._limits(data=True), None, watch)
            return
        group = create_step(limits)
        try:
            yield AppliedCaps([*group.argv(), *self._limits(data=self.cgroups is None)], group, watch)
        finally:
            group.remove()

    def inner(self) -> list[str]:
        """The first words of the step inside the sandbox: RLIMIT_NPROC's, where it is the process cap."""
        return [*NPROC_PREFIX, str(self.processes)] if self.process_by.startswith("RLIMIT_NPROC") else []

    @property
    def step_uid(self) -> int | None:
        """The user a step runs as, when not the grader's own: :data:`STEP_UID` under `RLIMIT_NPROC as nobody`."""
        return STEP_UID if self.process_by == "RLIMIT_NPROC as nobody" else None

    def drop(self) -> list[str]:
        """The prefix right before bwrap that makes the step :attr:`step_uid`, where it has one."""
        if self.step_uid is None:
            return []
        return ["setpriv", f"--reuid={self.step_uid}", f"--regid={self.step_uid}", "--clear-groups", "--"]

    def _limits(self, data: bool) -> list[str]:
        """The command prefix that sets the rlimits and then runs the step (`prlimit`, else Python)."""
        memory = str(self.memory_bytes) if data else "unlimited"
        found = shutil.which("prlimit")
        if found is not None:
            return [found, *([f"--data={memory}"] if data else []), f"--cpu={self.cpu_seconds}", "--"]
        return [sys.executable, "-c", _SET_LIMITS, memory, str(self.cpu_seconds)]

    def record(self) -> dict[str, str | int]:
        return {"memory_cap": self.memory_bytes, "memory_cap_by": self.memory_by, "cpu_cap_s": self.cpu_seconds,
                "process_cap": self.processes, "process_cap_by": self.process_by}


@dataclass(frozen=True)
class AppliedCaps:
    """The caps as one step runs under them."""

    argv: list[str]
    group: StepCgroup | None
    processes: ProcessWatch | None = None
    """Where RLIMIT_NPROC caps the step: its tasks counted against the cap (`nproc`)."""

    def watch(self, pid: int) -> None:
        """The step started as `pid` (its first process, bwrap's parent: each prefix execs)."""
        if self.processes is not None:
            self.processes.watch(pid)

    def held_at_cap(self) -> float | None:
        """Under RLIMIT_NPROC: how long the step's tasks had sat at the cap when found to (each fork
        it tried then refused; 0.0 until then); None where a pids cgroup counts refusals or nothing caps."""
        if self.processes is None:
            return None
        return self.processes.held_s if self.processes.held() else 0.0

    def over_memory(self) -> bool | None:
        """Whether the step's cgroup killed one of its processes for memory; None: no cgroup to ask."""
        if self.group is None or "memory" not in self.group.controllers:
            return None
        return self.group.oom_kills() > 0

    def forks_refused(self) -> int | None:
        """How many forks the step's pids cgroup refused; None: no pids cgroup to ask."""
        if self.group is None or "pids" not in self.group.controllers:
            return None
        return self.group.forks_refused()


_SET_LIMITS = ("import os, resource, sys; memory, cpu = sys.argv[1], int(sys.argv[2]); "
               "memory == 'unlimited' or resource.setrlimit(resource.RLIMIT_DATA, (int(memory), int(memory))); "
               "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu)); os.execvp(sys.argv[3], sys.argv[3:])")
"""What `prlimit` does, where util-linux is missing."""


class SandboxUnavailable(TcabError):
    """bwrap is missing or cannot start here: every run item fails with this one message."""


@dataclass(frozen=True)
class Sandbox:
    """How the steps of this session are confined: bwrap, or nothing under `--tcab-no-sandbox`."""

    bwrap: str | None
    """The bwrap binary; None when the user chose to run unsandboxed."""
    network: str
    """One of `options.NETWORK_POLICIES`: `none`, `install` or `all`."""
    hidden: tuple[Path, ...] = ()
    """Places that must stay out of sight even where they lie under :data:`SYSTEM_DIRS`
    (a suite under `/opt`, a checkout under `/usr/src`): covered by an empty tmpfs."""
    caps: Caps | None = None
    """The memory and CPU-time caps of every step (None: uncapped)."""

    @property
    def kind(self) -> str:
        return "bwrap" if self.bwrap is not None else "none"

    def allows_network(self, step: str) -> bool:
        """Whether a step labelled `step` (`install`, `build`, a toolchain step) has the network."""
        if self.bwrap is None:
            return True  # unsandboxed: nothing takes it away
        return self.network == "all" or (self.network == "install" and step == "install")

    def record(self, step: str) -> dict[str, str | bool | int]:
        """What results.json says a step had, e.g. `{"sandbox": "bwrap", "network": False, "memory_cap": ...}`."""
        return {"sandbox": self.kind, "network": self.allows_network(step), **(self.caps.record() if self.caps else {})}

    @contextmanager
    def capped(self) -> Iterator[AppliedCaps]:
        """The caps of one step (none when uncapped), to prefix :meth:`wrap`'s command with."""
        if self.caps is None:
            yield AppliedCaps([], None)
        else:
            with self.caps.applied() as applied:
                yield applied

    def wrap(self, argv: list[str], workdir: Path, env: Mapping[str, str], step: str,
             caps: Sequence[str] = ()) -> tuple[list[str], dict[str, str]]:
        """The command line and environment that run `argv` in `workdir`, confined, under `caps`
        (the prefix :meth:`capped` gives).

        The build's private home is :func:`home_for` `workdir`, made here when missing.
        """
        if self.bwrap is None:
            return [*caps, *argv], dict(env)
        home = home_for(workdir)
        home.mkdir(mode=0o700, exist_ok=True)
        inner_env = {**env, "HOME": INNER_HOME, "TMPDIR": "/tmp", "PATH": visible_path(env.get("PATH", ""))}
        inner, drop = (self.caps.inner(), self.caps.drop()) if self.caps is not None else ([], [])
        if self.caps is not None and self.caps.step_uid is not None:
            hand_over(workdir, home, self.caps.step_uid)
        return [*caps, *drop, self.bwrap, *self._arguments(workdir, home, self.allows_network(step)), "--", *inner,
                *argv], inner_env

    def _arguments(self, workdir: Path, home: Path, network: bool) -> list[str]:
        args = ["--unshare-all", "--die-with-parent", "--new-session"]
        if network:
            args.append("--share-net")
            for folder in RESOLVER_DIRS:
                args += ["--ro-bind-try", folder, folder]
        args += [*system_view(self.hidden),
                 "--bind", str(workdir), INNER_WORKDIR, "--bind", str(home), INNER_HOME,
                 "--chdir", INNER_WORKDIR]
        return args


def hand_over(workdir: Path, home: Path, uid: int) -> None:
    """Make the build's copy and home `uid`'s (once: later steps find them so), and its scratch
    folder passable, so steps run as `uid` can write them and bwrap can bind them."""
    for top in (workdir, home):
        if top.lstat().st_uid == uid:
            continue
        os.chown(top, uid, uid)
        for folder, dirs, files in os.walk(top):
            for name in (*dirs, *files):
                os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)
    parent = workdir.parent
    parent.chmod(parent.stat().st_mode | 0o001)  # passable, not readable: its other entries stay unlisted


def system_view(hidden: tuple[Path, ...]) -> list[str]:
    """The bwrap arguments of the mount view every confined process starts from: the system
    read-only, the `hidden` places under it covered by an empty tmpfs, its own `/proc` and `/dev`,
    a private `/tmp` and `/var/tmp`; nothing else of the host. Build steps and Chromium share it."""
    args: list[str] = []
    for top in SYSTEM_DIRS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for path in hidden:
        if under_system(path):
            args += ["--tmpfs", str(path)]
    return [*args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp"]


def home_for(workdir: Path) -> Path:
    """The private home of the build in `workdir`: a sibling, so it is never part of the tree
    that lint steps walk or that output folders are looked for in."""
    return workdir.with_name(workdir.name + ".home")


def visible_path(path: str) -> str:
    """`PATH` reduced to the folders a step can see: a folder of the suite or the checkout on
    the caller's PATH would otherwise tell the graded code where they are."""
    kept = [entry for entry in path.split(os.pathsep) if entry and under_system(Path(entry))]
    return os.pathsep.join(dict.fromkeys(kept)) or DEFAULT_PATH


def under_system(path: Path) -> bool:
    """Whether `path` lies inside one of the system folders every confined process sees."""
    return any(path.is_relative_to(top) and path != Path(top) for top in SYSTEM_DIRS)


# -- the session's sandbox -------------------------------------------------------------------

_sandbox_key = pytest.StashKey["Sandbox | SandboxUnavailable"]()


def session_sandbox(config: pytest.Config) -> Sandbox:
    """The session's sandbox, probed on first use; raises :class:`SandboxUnavailable` (every
    time it is asked) when bwrap cannot start and the user did not pass `--tcab-no-sandbox`."""
    found = config.stash.get(_sandbox_key, None)
    if found is None:
        found = _probe(config)
        config.stash[_sandbox_key] = found
    if isinstance(found, SandboxUnavailable):
        raise found
    return found


_caps_key = pytest.StashKey[Caps]()


def session_caps(config: pytest.Config) -> Caps:
    """The caps of this session's steps; where their memory cgroups go is probed once."""
    if _caps_key not in config.stash:
        pids = find_parent("pids")
        config.stash[_caps_key] = Caps(int(config.getoption("tcab_build_memory")),
                                       max(1, round(float(config.getoption("tcab_build_timeout")))), find_parent(),
                                       int(config.getoption("tcab_build_processes")),
                                       "pids.max" if pids is not None else _nproc_binds(config), pids)
    return config.stash[_caps_key]


def _nproc_binds(config: pytest.Config) -> str:
    """`RLIMIT_NPROC` where it caps a sandboxed step here (`RLIMIT_NPROC as nobody` for a root
    grader, whose steps it binds only when they run as another user), else `none`: proven by a
    step under a cap of one process, made as a run's scratch folder is, whose one fork must be
    refused (`timeout` exits 125 when it cannot fork)."""
    bwrap = shutil.which("bwrap")
    if config.getoption("tcab_no_sandbox") or bwrap is None or not sys.platform.startswith("linux"):
        return "none"
    by = "RLIMIT_NPROC as nobody" if os.geteuid() == 0 else "RLIMIT_NPROC"
    if by == "RLIMIT_NPROC as nobody" and shutil.which("setpriv") is None:
        return "none"
    probe = Sandbox(bwrap, "none", caps=Caps(2**30, 10, processes=1, process_by=by))
    with tempfile.TemporaryDirectory(prefix="tcab-probe-") as scratch:
        workdir = Path(scratch) / "build"
        workdir.mkdir()
        argv, env = probe.wrap(["timeout", "5", "true"], workdir, {"PATH": DEFAULT_PATH}, "build")
        try:
            done = subprocess.run(argv, check=False, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return "none"
    return by if done.returncode == 125 else "none"


def described(config: pytest.Config) -> dict[str, str | bool | int]:
    """The session's sandbox for results.json and the summaries, starting no bwrap (the memory
    cgroup is probed, as the workers do: the summary says which memory cap applied)."""
    memory = {**session_caps(config).record(), "disk_cap": int(config.getoption("tcab_build_disk")),
              "disk_cap_by": disk_mechanism(config)}
    if config.getoption("tcab_no_sandbox"):
        return {"sandbox": "none", "sandboxed": False,
                "reason": "--tcab-no-sandbox: builds ran unconfined, with the caller's rights", **memory}
    described: dict[str, str | bool | int] = {"sandbox": "bwrap", "sandboxed": True,
                                              "network": config.getoption("tcab_build_network"), **memory}
    probed = config.stash.get(_sandbox_key, None)
    if isinstance(probed, SandboxUnavailable):  # known where it was probed (not the xdist controller)
        described["unavailable"] = str(probed)
    return described


def summary_line(sandbox: dict[str, str | bool | int]) -> str:
    """One line for the terminal summary and report.html: what confined the builds, or that nothing did."""
    memory = ""
    if "memory_cap_by" in sandbox:
        memory = f"; memory cap: {size_text(int(sandbox['memory_cap']))}, {MEMORY_SCOPES[str(sandbox['memory_cap_by'])]}"
    if "disk_cap_by" in sandbox:
        memory += f"; disk cap: {size_text(int(sandbox['disk_cap']))} a run, {MECHANISMS[str(sandbox['disk_cap_by'])]}"
    if "process_cap_by" in sandbox:
        memory += f"; process cap: {sandbox['process_cap']}, {PROCESS_SCOPES[str(sandbox['process_cap_by'])]}"
    if not sandbox["sandboxed"]:
        return f"NOT SANDBOXED: {sandbox['reason']}{memory}"
    if "unavailable" in sandbox:
        return "sandbox: bwrap could not start, so no build step ran (see the build items)"
    reach = {"none": "no step", "install": "install steps only", "all": "every step"}[str(sandbox["network"])]
    return f"sandbox: bwrap for every build step (network: {reach}{memory})"


def _probe(config: pytest.Config) -> Sandbox | SandboxUnavailable:
    network = config.getoption("tcab_build_network")
    caps = session_caps(config)
    if config.getoption("tcab_no_sandbox"):
        return Sandbox(None, network, caps=caps)
    if not sys.platform.startswith("linux"):
        return SandboxUnavailable(f"the build sandbox (bubblewrap) needs Linux, and this is {sys.platform}; "
                                  "pass --tcab-no-sandbox to build without it")
    found = shutil.which("bwrap")
    if found is None:
        return SandboxUnavailable(f"the build sandbox cannot start: bwrap is not installed (not on PATH); {INSTALL_HINT}")
    sandbox = Sandbox(found, network, hidden_places(config), caps)
    with tempfile.TemporaryDirectory(prefix="tcab-probe-") as scratch:
        workdir = Path(scratch) / "build"
        workdir.mkdir()
        try:
            with sandbox.capped() as applied:
                argv, env = sandbox.wrap(["true"], workdir, {"PATH": DEFAULT_PATH}, "build", applied.argv)
                done = subprocess.run(argv, check=False, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                      timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return SandboxUnavailable(f"the build sandbox cannot start: {found}: {exc}; {INSTALL_HINT}")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        return SandboxUnavailable(f"the build sandbox cannot start: {said}; {USERNS_HINT}")
    return sandbox


def hidden_places(config: pytest.Config) -> tuple[Path, ...]:
    """The suite, the results and reviews folders, the home, the checkout, the run folders and the
    earlier sweeps the session reads, resolved."""
    from pytest_tcab.session import configured_root

    places: list[Path] = [Path.home(), config.invocation_params.dir, config.rootpath,
              Path(config.getoption("tcab_out") or ".tcab/results")]
    if config.getoption("tcab_reviews", None):  # the operator's reviews: never a build's to read or write
        places.append(Path(config.getoption("tcab_reviews")))
    root = configured_root(config)
    if root is not None:
        places.append(root)
    hidden_runs: list[Path] = config.stash.get(_hidden_runs_key, [])
    places.extend(hidden_runs)
    # The earlier sweeps a session reads (their verdicts and messages say what is tested), wherever they are.
    for dest in ("tcab_resume", "tcab_compare", "tcab_shard_plan"):
        given = Path(config.getoption(dest, None) or "")
        if given != Path() and given.exists():
            places.append(given if given.is_dir() else given.parent)
    return tuple(dict.fromkeys(Path(os.path.realpath(place)) for place in places))


_hidden_runs_key = pytest.StashKey[list[Path]]()


def hide_from_builds(config: pytest.Config, folders: list[Path]) -> None:
    """Keep the session's run folders out of every step's sight (a run must not read another's
    tree, or its own original): the collector says which they are, before any build."""
    config.stash.setdefault(_hidden_runs_key, []).extend(folders)
