"""The bwrap sandbox of build steps, run for real: what a step sees, as root and as an ordinary user."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.run.sandbox.sandbox import DEFAULT_PATH
from pytest_tcab.run.sandbox.sandbox import Caps
from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.sandbox.sandbox import home_for
from pytest_tcab.run.sandbox.sandbox import visible_path
from pytest_tcab.run.sandbox.steps import run_command

BWRAP = shutil.which("bwrap")


@pytest.mark.parametrize(
    ("policy", "install", "build"),
    [("none", False, False), ("install", True, False), ("all", True, True)],
)
def test_network_policy_by_step(policy: str, install: bool, build: bool) -> None:
    sandbox = Sandbox(BWRAP, policy)
    assert (sandbox.allows_network("install"), sandbox.allows_network("build"),
            sandbox.allows_network("typecheck")) == (install, build, build)
    assert sandbox.record("install") == {"sandbox": "bwrap", "network": install}


def test_unsandboxed_takes_nothing_away() -> None:
    assert Sandbox(None, "none").record("build") == {"sandbox": "none", "network": True}


def test_path_keeps_only_what_a_step_can_see(tmp_path: Path) -> None:
    path = os.pathsep.join([f"{tmp_path}/suite/bin", "/root/.cargo/bin", "/usr/local/bin", "/usr/bin", "/usr/bin", "/usr"])
    assert visible_path(path) == "/usr/local/bin:/usr/bin"
    assert visible_path("/home/me/bin") == DEFAULT_PATH


def test_network_steps_have_the_hosts_interfaces_and_others_only_loopback(tmp_path: Path) -> None:
    sandbox = Sandbox(BWRAP, "install")
    host = {line.split(":")[0].strip() for line in Path("/proc/net/dev").read_text().splitlines()[2:]}
    seen = {}
    for step in ("install", "build"):
        result = run_command("cat /proc/net/dev", tmp_path, 10, sandbox=sandbox, step=step)
        seen[step] = {line.split(":")[0].strip() for line in result.output.splitlines()[2:]}
    assert seen == {"install": host, "build": {"lo"}}


def test_a_hidden_place_under_the_system_is_empty(tmp_path: Path) -> None:
    """A suite under /usr or /opt would be in the read-only view: it is covered instead."""
    hidden = Path("/usr/share")
    assert any(hidden.iterdir())
    result = run_command(f"ls -A {hidden} | wc -l; ls /usr/bin | wc -l", tmp_path, 10, sandbox=Sandbox(BWRAP, "none", (hidden,)))
    counts = [int(word) for word in result.output.split()]
    assert counts[0] == 0 and counts[1] > 0


def test_the_system_is_read_only_and_the_copy_and_tmp_writable(tmp_path: Path) -> None:
    command = "touch /usr/tcab-x 2>&1; touch /etc/tcab-x 2>&1; touch made /tmp/scratch ~/cache && echo wrote"
    result = run_command(command, tmp_path, 10, sandbox=Sandbox(BWRAP, "none"))
    assert result.output.count("Read-only file system") == 2
    assert result.output.endswith("wrote\n")
    assert (tmp_path / "made").is_file()
    assert (home_for(tmp_path) / "cache").is_file()
    assert not Path("/usr/tcab-x").exists()


def test_the_hosts_processes_are_out_of_sight(tmp_path: Path) -> None:
    result = run_command("ls /proc | grep -c '^[0-9]'; cat /proc/[0-9]*/cmdline | tr '\\0' ' '", tmp_path, 10,
                         sandbox=Sandbox(BWRAP, "none"))
    count, commands = result.output.split("\n", 1)
    assert int(count) <= 6  # bwrap's init, bash, ls, grep, and the pipe's subshells
    assert commands.startswith(f"{BWRAP} --unshare-all")  # PID 1 is the sandbox's own
    assert sys.executable not in commands  # the reporter's command line (its --tcab-suite) is not there


@pytest.fixture
def unprivileged() -> Iterator[tuple[str, Path]]:
    """`setpriv` to nobody and a build folder nobody owns, under a /tmp folder nobody can reach."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv (util-linux) to become an ordinary user")
    restrict = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
    if restrict.exists() and restrict.read_text().strip() == "1":
        pytest.skip("AppArmor restricts unprivileged user namespaces here (docs/trust.md)")
    nobody = pwd.getpwnam("nobody")
    folder = Path(tempfile.mkdtemp(prefix="tcab-nobody-"))
    folder.chmod(0o755)
    workdir = folder / "build"
    for made in (workdir, home_for(workdir)):
        made.mkdir()
        os.chown(made, nobody.pw_uid, nobody.pw_gid)
    try:
        yield setpriv, workdir
    finally:
        shutil.rmtree(folder)


def test_an_ordinary_user_gets_the_same_sandbox(unprivileged: tuple[str, Path]) -> None:
    setpriv, workdir = unprivileged
    argv, env = Sandbox(BWRAP, "none").wrap(
        ["bash", "-c", "id -u; touch made; ls /root 2>&1; (setsid sleep 1000.4242 &); echo ok"], workdir,
        {"PATH": DEFAULT_PATH}, "build")
    done = subprocess.run([setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *argv], env=env,
                          check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str(pwd.getpwnam("nobody").pw_uid)
    assert "No such file or directory" in lines[1]
    assert lines[-1] == "ok"
    assert (workdir / "made").is_file()
    assert subprocess.run(["pgrep", "-f", "sleep 1000.4242"], check=False, capture_output=True).returncode == 1


FORKS = """
import os, time
started = refused = 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        refused += 1
        continue
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    started += 1
print(started, refused)
"""
"""Forks 200 sleepers, each fork tried once: how many started and how many the kernel refused."""


def test_rlimit_nproc_caps_an_ordinary_users_step_by_its_own_user_namespace(unprivileged: tuple[str, Path]) -> None:
    """The fallback without a pids cgroup: set inside the sandbox, RLIMIT_NPROC counts the step's
    own processes, not the 40 other processes of the same user outside it."""
    setpriv, workdir = unprivileged
    become = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    outside = [subprocess.Popen([*become, "sleep", "30"]) for _ in range(40)]
    try:
        sandbox = Sandbox(BWRAP, "none", caps=Caps(2**30, 60, processes=32, process_by="RLIMIT_NPROC"))
        argv, env = sandbox.wrap(["python3", "-c", FORKS], workdir, {"PATH": DEFAULT_PATH}, "build")
        done = subprocess.run([*become, *argv], env=env, check=False, capture_output=True, text=True, timeout=60)
        assert all(proc.poll() is None for proc in outside), "the user's processes outside are untouched"
    finally:
        for proc in outside:
            proc.kill()
            proc.wait()
    started, refused = map(int, done.stdout.split())
    assert 20 < started < 32 and refused == 200 - started, done.stdout  # bwrap's init and python count too


def test_rlimit_nproc_does_not_bind_root(tmp_path: Path) -> None:
    """Why a root grader needs the pids cgroup: the kernel lets root fork past RLIMIT_NPROC."""
    if os.geteuid() != 0:
        pytest.skip("about root")
    sandbox = Sandbox(BWRAP, "none", caps=Caps(2**30, 60, processes=8, process_by="RLIMIT_NPROC"))
    result = run_command(f"python3 -c '{FORKS}'", tmp_path, 60, sandbox=sandbox)
    assert result.output.split() == ["200", "0"], result.output
