"""build: real shell steps, real process groups, real copies of a produced tree."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.bounded import TEXT_LIMIT
from pytest_tcab.run.sandbox.cgroup import find_parent
from pytest_tcab.run.sandbox.sandbox import INNER_WORKDIR
from pytest_tcab.run.sandbox.sandbox import STEP_UID
from pytest_tcab.run.sandbox.sandbox import Caps
from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.sandbox.sandbox import home_for
from pytest_tcab.run.sandbox.sandbox import visible_path
from pytest_tcab.run.sandbox.steps import KILL_GRACE_S
from pytest_tcab.run.sandbox.steps import build_static
from pytest_tcab.run.sandbox.steps import prepare_workdir
from pytest_tcab.run.sandbox.steps import run_command

BWRAP = Sandbox(shutil.which("bwrap"), "install")
UNSANDBOXED = Sandbox(None, "install")


@pytest.fixture(params=[BWRAP, UNSANDBOXED], ids=["bwrap", "no-sandbox"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """Both ways a step runs: the process rules hold with and without the sandbox."""
    return request.param  # type: ignore[no-any-return]


def _running(token: str) -> list[int]:
    """Host pids whose command line holds ``token``: the sandbox's PID namespace hides its
    pids from the step itself, so a test finds its processes by what they run."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if token.encode() in cmdline and state != "Z":  # a zombie is dead, only not yet reaped
                pids.append(int(entry.name))
    return pids


def _gone(token: str, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while _running(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _nap(tmp_path: Path) -> str:
    """A sleep whose command line is unique to this test: `sleep 1000.<digits>`."""
    return f"sleep 1000.{abs(hash(tmp_path)) % 10**9}"


def test_success_captures_stdout_and_stderr(tmp_path: Path) -> None:
    result = run_command("echo out; echo err >&2; pwd", tmp_path, timeout_s=10, sandbox=BWRAP)
    assert result.ok
    assert (result.returncode, result.timed_out) == (0, False)
    assert result.output.splitlines() == ["out", "err", INNER_WORKDIR]
    assert result.duration_s < 10
    assert result.confinement == {"sandbox": "bwrap", "network": False}


def test_unsandboxed_runs_in_place_and_says_so(tmp_path: Path) -> None:
    result = run_command("pwd", tmp_path, timeout_s=10, sandbox=UNSANDBOXED, step="build")
    assert result.output.splitlines() == [str(tmp_path)]
    assert result.confinement == {"sandbox": "none", "network": True}


def test_non_zero_exit_keeps_the_tail(tmp_path: Path, sandbox: Sandbox) -> None:
    result = run_command("for i in $(seq 1 100); do echo line $i; done; exit 3", tmp_path, 10, sandbox=sandbox)
    assert not result.ok
    assert result.returncode == 3
    assert result.tail(2) == "line 99\nline 100"
    assert result.tail().splitlines()[0] == "line 61"


def test_env_replaces_the_environment(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "ONLY_ME": "1"}
    result = run_command("env | sort", tmp_path, 10, env, sandbox=UNSANDBOXED)
    names = {line.split("=", 1)[0] for line in result.output.splitlines()}
    assert "ONLY_ME" in names
    assert "HOME" not in names


def test_sandboxed_env_has_a_private_home_and_no_hidden_path(tmp_path: Path) -> None:
    env = {"PATH": f"{tmp_path}/bin:/usr/bin:/root/.cargo/bin", "HOME": "/root", "TMPDIR": str(tmp_path)}
    (tmp_path / "w").mkdir()
    result = run_command("env | sort; touch ~/kept", tmp_path / "w", 10, env, sandbox=BWRAP)
    assert result.ok, result.output
    lines = result.output.splitlines()
    assert {"HOME=/tmp/home", "TMPDIR=/tmp", "PATH=/usr/bin"} <= set(lines)
    assert str(tmp_path) not in result.output
    assert (home_for(tmp_path / "w") / "kept").is_file()  # the home outlives the step, for the next one


def test_output_is_capped_to_its_head_and_tail(tmp_path: Path) -> None:
    # A headline, 3 MiB of "x", then a marker: the first and last half MiB are kept, the drop is
    # said (6 + 3,145,728 + 1 + 4 bytes printed, 1,048,576 kept).
    result = run_command("echo START; head -c 3145728 /dev/zero | tr '\\0' x; echo; echo END", tmp_path, 30,
                         sandbox=BWRAP)
    assert result.ok
    assert result.output.startswith("START\nxxx")
    assert "\n[2097163 bytes truncated]\n" in result.output
    assert result.output.endswith("END\n")
    assert len(result.output) < 1024 * 1024 + 100
    # What a failure quotes of it is bounded again, to the text cap.
    assert len(result.tail()) <= TEXT_LIMIT


def test_timeout_kills_every_process_of_the_step(tmp_path: Path, sandbox: Sandbox) -> None:
    nap = _nap(tmp_path)
    started = time.monotonic()
    result = run_command(f"{nap} & {nap}", tmp_path, timeout_s=1, sandbox=sandbox)
    assert result.timed_out
    assert not result.ok
    assert time.monotonic() - started < 1 + KILL_GRACE_S + 3
    assert _gone(nap)


def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(tmp_path: Path, sandbox: Sandbox) -> None:
    nap = _nap(tmp_path)
    started = time.monotonic()
    result = run_command(f"trap '' TERM; (trap '' TERM; {nap}) & {nap}", tmp_path, timeout_s=0.5, sandbox=sandbox)
    assert result.timed_out
    assert time.monotonic() - started < 0.5 + KILL_GRACE_S + 3
    assert _gone(nap)


def test_background_leftovers_are_ended_when_the_step_exits(tmp_path: Path, sandbox: Sandbox) -> None:
    # The step succeeds but leaves a server behind that holds the pipe open.
    nap = _nap(tmp_path)
    started = time.monotonic()
    result = run_command(f"{nap} & echo started", tmp_path, timeout_s=30, sandbox=sandbox)
    assert result.ok
    assert time.monotonic() - started < 10
    assert _gone(nap)


def test_a_detached_sigterm_proof_child_dies_with_the_sandboxed_step(tmp_path: Path) -> None:
    """Its own session, out of the step's process group, ignoring SIGTERM: only the PID
    namespace reaches it. (Unsandboxed, such a child outlives the step: that is what the
    sandbox is for.)"""
    nap = _nap(tmp_path)
    command = f"setsid bash -c \"trap '' TERM HUP; exec {nap}\" </dev/null >/dev/null 2>&1 & sleep 0.3; echo left"
    result = run_command(command, tmp_path, timeout_s=30, sandbox=BWRAP)
    assert result.ok and result.output == "left\n"
    assert _gone(nap)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_workdir_copies_sources_and_skips_caches_and_outputs(tmp_path: Path) -> None:
    source = _tree(
        tmp_path / "impl",
        {
            "index.html": "<p>",
            "src/main.js": "x",
            "src/build/helper.js": "deep build/ is a source folder",
            "node_modules/lib/index.js": "x",
            "src/node_modules/lib/index.js": "x",
            ".git/HEAD": "x",
            "dist/index.html": "stale",
            "build/index.html": "stale",
            "out/index.html": "stale",
            "target/debug/x": "x",
        },
    )
    (tmp_path / "work").mkdir()
    copied = prepare_workdir(source, tmp_path / "work")
    assert copied.path.parent == tmp_path / "work"
    files = sorted(p.relative_to(copied.path).as_posix() for p in copied.path.rglob("*"))
    assert files == ["index.html", "src", "src/build", "src/build/helper.js", "src/main.js"]
    assert copied.dropped == ()


def test_symlinks_leaving_the_tree_are_dropped(tmp_path: Path) -> None:
    outside = _tree(tmp_path / "outside", {"secret.txt": "secret"})
    source = _tree(tmp_path / "impl", {"assets/real.png": "png", "index.html": "<p>"})
    (source / "assets" / "inside.png").symlink_to("real.png")
    (source / "abs_inside.png").symlink_to(source / "assets" / "real.png")
    (source / "secret.txt").symlink_to(outside / "secret.txt")
    (source / "passwd").symlink_to("/etc/passwd")
    (source / "up").symlink_to("../outside")
    (source / "assets" / "sneaky").symlink_to("../../outside/secret.txt")
    (tmp_path / "work").mkdir()
    copied = prepare_workdir(source, tmp_path / "work")
    dest = copied.path
    assert (dest / "assets" / "inside.png").read_text() == "png"
    # An absolute link inside the tree now points into the copy, not back at the original.
    assert not os.path.isabs(os.readlink(dest / "abs_inside.png"))
    assert (dest / "abs_inside.png").resolve() == (dest / "assets" / "real.png").resolve()
    for name in ("secret.txt", "passwd", "up", "assets/sneaky"):
        assert not os.path.lexists(dest / name), name
    assert sorted(copied.dropped) == [
        "assets/sneaky -> ../../outside/secret.txt (leaves the tree)",
        "passwd -> /etc/passwd (leaves the tree)",
        f"secret.txt -> {outside / 'secret.txt'} (leaves the tree)",
        "up -> ../outside (leaves the tree)",
    ]


def test_fifo_is_dropped_not_read(tmp_path: Path) -> None:
    source = _tree(tmp_path / "impl", {"index.html": "<p>"})
    os.mkfifo(source / "pipe")
    (tmp_path / "work").mkdir()
    copied = prepare_workdir(source, tmp_path / "work")
    assert not os.path.lexists(copied.path / "pipe")
    assert copied.dropped == ("pipe (not a regular file, folder or symlink)",)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def test_build_success_finds_dist(tmp_path: Path, work: Path) -> None:
    source = _tree(tmp_path / "impl", {"src/index.html": "<p>game</p>"})
    result = build_static(
        source,
        install='echo installing; test "$CI" = 1 && test "$npm_config_fund" = false',
        build="mkdir -p dist && cp src/index.html dist/",
        workdir_parent=work,
        timeout_s=30,
        sandbox=BWRAP,
    )
    assert result.ok, result.message
    assert [step.ok for step in result.steps] == [True, True]
    assert result.output_dir == result.workdir / "dist"
    assert (result.output_dir / "index.html").read_text() == "<p>game</p>"
    assert result.workdir.parent == work
    assert not (source / "dist").exists()  # built in the copy only


def test_install_failure_stops_before_build(tmp_path: Path, work: Path) -> None:
    source = _tree(tmp_path / "impl", {"package.json": "{}"})
    result = build_static(
        source,
        install="echo boom >&2; exit 1",
        build="touch built",
        workdir_parent=work,
        timeout_s=30,
        sandbox=BWRAP,
    )
    assert not result.ok
    assert result.message == "install failed: `echo boom >&2; exit 1` exited 1"
    assert len(result.steps) == 1
    assert result.steps[0].tail() == "boom"
    assert not (result.workdir / "built").exists()
    assert result.output_dir is None


def test_build_timeout_message(tmp_path: Path, work: Path) -> None:
    source = _tree(tmp_path / "impl", {"package.json": "{}"})
    result = build_static(
        source, install="", build="sleep 1000", workdir_parent=work, timeout_s=0.5, sandbox=BWRAP
    )
    assert not result.ok
    assert result.message == "build timed out after 0.5 s: `sleep 1000` (process group killed)"
    assert len(result.steps) == 1 and result.steps[0].timed_out


def test_build_killed_by_a_signal(tmp_path: Path, work: Path) -> None:
    source = _tree(tmp_path / "impl", {"package.json": "{}"})
    result = build_static(source, "", "kill -KILL $$", work, timeout_s=10, sandbox=BWRAP)
    assert result.message == "build failed: `kill -KILL $$` exited 137 (as a process killed by SIGKILL does)"


def test_missing_output_dir(tmp_path: Path, work: Path) -> None:
    source = _tree(tmp_path / "impl", {"dist/index.html": "stale, not copied"})
    result = build_static(source, "true", "true", work, timeout_s=10, sandbox=BWRAP)
    assert not result.ok
    assert result.output_dir is None
    assert result.message == (
        f"build wrote no static output: none of dist/, build/, out/ exists in {result.workdir}"
    )


def test_empty_output_dirs_do_not_count(tmp_path: Path, work: Path) -> None:
    source = _tree(tmp_path / "impl", {"package.json": "{}"})
    result = build_static(source, "", "mkdir -p dist/assets out", work, timeout_s=10, sandbox=BWRAP)
    assert result.message == (
        "build wrote no static output: none of dist/, build/, out/ holds a file"
        f" in {result.workdir}"
    )


@pytest.mark.parametrize(
    ("made", "chosen"),
    [
        (["out/index.html", "build/index.html", "dist/index.html"], "dist"),
        (["out/index.html", "build/index.html"], "build"),
        (["out/index.html"], "out"),
        # A folder with index.html beats an earlier one holding only other files.
        (["dist/lib.js", "out/index.html"], "out"),
        (["build/app.js", "out/app.js"], "build"),
    ],
)
def test_output_dir_order(tmp_path: Path, work: Path, made: list[str], chosen: str) -> None:
    source = _tree(tmp_path / "impl", {"package.json": "{}"})
    build = " && ".join(f"mkdir -p $(dirname {rel}) && touch {rel}" for rel in made)
    result = build_static(source, "", build, work, timeout_s=10, sandbox=BWRAP)
    assert result.ok, result.message
    assert result.output_dir == result.workdir / chosen


def test_build_reports_dropped_symlinks(tmp_path: Path, work: Path) -> None:
    source = _tree(tmp_path / "impl", {"package.json": "{}"})
    (source / "passwd").symlink_to("/etc/passwd")
    result = build_static(source, "", "mkdir dist && cat passwd > dist/index.html", work, 10, sandbox=BWRAP)
    assert not result.ok
    assert result.message == "build failed: `mkdir dist && cat passwd > dist/index.html` exited 1"
    assert result.dropped == ("passwd -> /etc/passwd (leaves the tree)",)


def test_build_environment_hides_the_reporters_variables(
    tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TCAB_SECRET_TOKEN", "hunter2")
    source = _tree(tmp_path / "impl", {"package.json": "{}"})
    result = build_static(source, "", "env > env.txt; mkdir out; mv env.txt out/", work, 10, sandbox=BWRAP)
    assert result.ok and result.output_dir is not None
    env = (result.output_dir / "env.txt").read_text()
    assert "TCAB_SECRET_TOKEN" not in env
    assert "CI=1\n" in env
    assert f"PATH={visible_path(os.environ['PATH'])}\n" in env


# -- memory caps: memory in use, never address space ---------------------------------------------

CGROUPS = find_parent()
DEFAULT_MEMORY = 4 * 2**30
GROW = "python3 -c 'grown = []\nwhile True: grown.append(bytearray(2**24))'"
WASM = 'node -e "new WebAssembly.Memory({initial: 1}); console.log(\'reserved\')"'


@pytest.fixture(params=["cgroup", "rlimit-data"])
def capped(request: pytest.FixtureRequest) -> Callable[[int], Sandbox]:
    """Both ways a step's memory is capped: its cgroup where the host gives one, else RLIMIT_DATA."""
    if request.param == "cgroup" and CGROUPS is None:
        pytest.skip("this host lets the grader make no memory cgroup (cgroup v2 memory.max or v1 memory)")
    cgroups = CGROUPS if request.param == "cgroup" else None
    return lambda memory: Sandbox(shutil.which("bwrap"), "install", caps=Caps(memory, 60, cgroups))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_step_that_reserves_wasm_memory_passes_under_the_default_cap(
        tmp_path: Path, capped: Callable[[int], Sandbox]) -> None:
    result = run_command(WASM, tmp_path, 30, sandbox=capped(DEFAULT_MEMORY))
    assert result.ok and result.output.strip() == "reserved", result.output
    assert result.over_memory_cap in (None, False)


def test_a_step_that_allocates_without_end_fails_naming_the_cap(
        tmp_path: Path, work: Path, capped: Callable[[int], Sandbox]) -> None:
    sandbox = capped(256 * 2**20)
    result = build_static(_tree(tmp_path / "impl", {"package.json": "{}"}), "", GROW, work, 30, sandbox)
    scope = {"memory.max": "the step's whole process tree, a cgroup's memory.max",
             "memory.limit_in_bytes": "the step's whole process tree, a cgroup's memory.limit_in_bytes",
             "RLIMIT_DATA": "each process's data segment, RLIMIT_DATA"}[sandbox.caps.memory_by]  # type: ignore[union-attr]
    assert result.message.endswith(f"; past its memory cap of 256 MiB ({scope}, --tcab-build-memory)"), result.message
    assert result.steps[0].figures()["memory_cap_by"] == sandbox.caps.memory_by  # type: ignore[union-attr]


@pytest.mark.skipif(CGROUPS is None, reason="this host lets the grader make no memory cgroup")
def test_a_cgroup_caps_the_whole_process_tree_and_is_removed_after(tmp_path: Path) -> None:
    """Four processes of 96 MiB each pass a per-process cap of 256 MiB; the cgroup sees all four."""
    hold = "python3 -c 'import time; b = bytearray(96 * 2**20); b[::4096] = b\"x\" * len(b[::4096]); time.sleep(2)'"
    ours = f"tcab-{os.getpid()}-*"  # another xdist worker's builds make and remove cgroups of their own meanwhile
    before = set(CGROUPS.path.glob(ours))  # type: ignore[union-attr]
    sandbox = Sandbox(shutil.which("bwrap"), "none", caps=Caps(256 * 2**20, 60, CGROUPS))
    result = run_command(f"for i in 1 2 3 4; do {hold} & done; wait; exit 1", tmp_path, 30, sandbox=sandbox)
    assert result.over_memory_cap is True, result.output
    assert set(CGROUPS.path.glob(ours)) == before  # type: ignore[union-attr]


def test_no_step_runs_under_an_address_space_cap(tmp_path: Path, capped: Callable[[int], Sandbox]) -> None:
    result = run_command("ulimit -v; ulimit -d; ulimit -t", tmp_path, 10, sandbox=capped(512 * 2**20))
    virtual, data, cpu = result.output.split()
    assert (virtual, cpu) == ("unlimited", "60")
    assert data == ("unlimited" if result.confinement["memory_cap_by"] != "RLIMIT_DATA" else str(512 * 2**10))


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_a_vite_build_passes_under_the_default_cap(tmp_path: Path, work: Path, capped: Callable[[int], Sandbox]) -> None:
    """Vite 7 loads Rollup, whose wasm fallback and esbuild's arenas reserve far past 4 GiB of address space."""
    source = _tree(tmp_path / "impl", {
        "package.json": '{"private": true, "type": "module", "devDependencies": {"vite": "^7"}}',
        "index.html": '<!doctype html><script type="module" src="/main.js"></script>',
        "main.js": 'document.title = "built by vite";',
    })
    result = build_static(source, "npm install --no-audit --no-fund", "npx vite build", work, 50, capped(DEFAULT_MEMORY))
    if not result.steps[0].ok:
        pytest.skip(f"npm could not install vite@7 (no registry here?): {result.steps[0].tail(3)}")
    assert result.ok, result.message + "\n" + result.steps[-1].tail()
    assert result.output_dir is not None and (result.output_dir / "index.html").is_file()


# -- process caps: the step's whole tree, however it forks ---------------------------------------

PIDS = find_parent("pids")
FORK_3000 = "for i in $(seq 3000); do sleep 3.{tag} & done; wait; mkdir -p dist && echo built > dist/index.html"
"""The hostile build step of the issue: 3,000 processes before it builds."""
DOUBLE_FORKS = "for i in $(seq 3000); do (setsid sleep 3.{tag} &) ; done; mkdir -p dist && echo built > dist/index.html"
"""The same, each sleep double-forked out of the step's tree into a session of its own."""


def _pids_capped(processes: int) -> Sandbox:
    return Sandbox(shutil.which("bwrap"), "none", caps=Caps(DEFAULT_MEMORY, 60, CGROUPS, processes, "pids.max", PIDS))


@pytest.mark.skipif(PIDS is None, reason="this host lets the grader make no pids cgroup (v2 pids.max or v1 pids)")
@pytest.mark.parametrize(("step", "bomb"), [("install", FORK_3000), ("build", FORK_3000), ("build", DOUBLE_FORKS)],
                         ids=["install-forks", "build-forks", "build-double-forks"])
def test_a_step_that_forks_3000_processes_fails_naming_its_process_cap(tmp_path: Path, work: Path, step: str,
                                                                       bomb: str) -> None:
    tag = abs(hash(tmp_path)) % 10**6
    ours = f"tcab-{os.getpid()}-*"  # another xdist worker's builds make and remove cgroups of their own meanwhile
    before = set(PIDS.path.glob(ours))  # type: ignore[union-attr]
    started = time.monotonic()
    steps = (bomb.format(tag=tag), "mkdir -p dist && echo built > dist/index.html")
    result = build_static(_tree(tmp_path / "impl", {"a.txt": ""}), *(steps if step == "install" else ("", steps[0])),
                          work, 60, _pids_capped(256))
    assert not result.ok and len(result.steps) == 1, "the first step past its cap stops the build"
    assert result.message.startswith(f"{step} failed: `{bomb.format(tag=tag)}` reached its process cap of 256 (the "
                                     "step's whole process tree, threads included, a cgroup's pids.max, "
                                     "--tcab-build-processes): the kernel refused "), result.message
    figures = result.steps[0].figures()
    assert (figures["process_cap"], figures["process_cap_by"], figures["over_process_cap"]) == (256, "pids.max", True)
    assert int(figures["forks_refused"]) > 0  # type: ignore[call-overload]
    assert time.monotonic() - started < 30, "ended at its first refused fork, not at its timeout"
    assert _gone(f"sleep 3.{tag}"), "every process it forked is gone with it"
    assert set(PIDS.path.glob(ours)) == before  # type: ignore[union-attr]


@pytest.mark.skipif(PIDS is None, reason="this host lets the grader make no pids cgroup (v2 pids.max or v1 pids)")
def test_an_honest_step_under_its_process_cap_passes_and_says_which_cap(tmp_path: Path, work: Path) -> None:
    result = build_static(_tree(tmp_path / "impl", {"a.txt": ""}), "",
                          "for i in $(seq 20); do sleep 0.2 & done; wait; mkdir -p dist && echo built > dist/index.html",
                          work, 60, _pids_capped(256))
    assert result.ok, result.message
    assert {key: result.steps[0].figures()[key] for key in ("process_cap_by", "over_process_cap", "forks_refused")} == {
        "process_cap_by": "pids.max", "over_process_cap": False, "forks_refused": 0}


@pytest.fixture
def passable(tmp_path: Path) -> Iterator[Path]:
    """A build folder under /tmp that another user can pass through (pytest's own is 0700 root's)."""
    folder = Path(tempfile.mkdtemp(prefix="tcab-passable-", dir="/tmp"))
    folder.chmod(0o755)
    (folder / "work").mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="about a root grader (needs setpriv)")
def test_a_root_grader_without_a_pids_cgroup_caps_processes_as_nobody(passable: Path) -> None:
    """RLIMIT_NPROC binds no root process: the step runs as nobody, owning its copy and home."""
    tag = abs(hash(passable)) % 10**6
    sandbox = Sandbox(shutil.which("bwrap"), "none", caps=Caps(DEFAULT_MEMORY, 60, None, 64, "RLIMIT_NPROC as nobody"))
    source = _tree(passable / "impl", {"index.html": "<p>game</p>"})
    honest = build_static(source, "", "id -u > uid.txt; mkdir -p dist && cp index.html uid.txt dist/", passable / "work",
                          60, sandbox)
    assert honest.ok, honest.message
    assert (honest.output_dir / "uid.txt").read_text().strip() == str(STEP_UID)  # type: ignore[union-attr]
    started = time.monotonic()
    bomb = build_static(source, "", FORK_3000.format(tag=tag), passable / "work", 60, sandbox)
    assert bomb.message.startswith(f"build failed: `{FORK_3000.format(tag=tag)}` reached its process cap of 64 (the "
                                   "processes and threads of the step's own user namespace, RLIMIT_NPROC, the step run "
                                   "as an unprivileged user (root ignores RLIMIT_NPROC), --tcab-build-processes): it "
                                   "printed `"), bomb.message
    assert bomb.steps[0].figures()["over_process_cap"] is True
    assert time.monotonic() - started < 30, "ended at its first refused fork, not at its timeout"
    assert _gone(f"sleep 3.{tag}")
