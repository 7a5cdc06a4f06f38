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
