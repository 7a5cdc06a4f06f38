"""The build sandbox and the snapshot end to end: hostile builds, `--tcab-no-sandbox`, a missing bwrap.

The hostile build (tests/attack.py) finds the suite through `/proc/<pid>/cmdline` as a real one
would, so the sessions that face it run in a child process whose command line holds
`--tcab-suite`. Under the sandbox it finds nothing and can read nothing; without it, it rewrites
the suite, and the verdicts still come from the snapshot, with the session failing "the suite
changed during the run".
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from tests.attack import FORGED_DRIVER
from tests.attack import attack_command
from tests.validation import GAUGE_VERSION
from tests.validation import Session
from tests.validation import edit
from tests.validation import gauge_project
from tests.validation import lines
from tests.validation import run_session

GAUGE_BUILD = 'build = "mkdir -p dist && cp index.html dist/"'
FALSE_DRIVER = GAUGE_VERSION / "validation/false.mjs"
ONLY_DOUBLES = ("-v", "-k", "build or doubles")
"""The build and `validate[doubles]`, whose driver (false.mjs) decides false on the gauge."""


def hostile_gauge(path: Path) -> Path:
    """The gauge project whose build first runs the attack, then builds as usual."""
    gauge_project(path)
    (path / "out").mkdir()
    (path / "out/previous.txt").write_text("results of an earlier session\n")
    attack = attack_command(path / "game", path, Path.home(), path / "out")
    edit(path / GAUGE_VERSION / "test-case.toml", GAUGE_BUILD, f'build = "{attack} && mkdir -p dist && cp index.html dist/"')
    return path


def build_log(session: Session) -> str:
    (build,) = [item for item in session.run()["items"] if item["kind"] == "build"]
    return "\n".join(step["output"] for step in build["steps"])


def home_is_listable() -> bool:
    try:
        return bool(os.listdir(Path.home()))
    except OSError:
        return False


@pytest.mark.browser
@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
def test_a_sandboxed_build_cannot_find_read_or_rewrite_the_suite(tmp_path: Path) -> None:
    path = hostile_gauge(tmp_path)
    original = (path / FALSE_DRIVER).read_text()
    session = run_session(path, "--tcab-suite=suite", "--tcab-run=game", *ONLY_DOUBLES)
    log = build_log(session)
    assert "rewritten: 0" in log, log
    assert "suite readable: False" in log and "results readable: False" in log
    if home_is_listable():
        assert "home readable: False" in log
    assert (path / FALSE_DRIVER).read_text() == original
    session.result.stdout.fnmatch_lines(lines(
        "*::validate[doubles] FAILED*",
        'verdict "doubles" is false: 1 + 2 read 3, expected 4',
        "sandbox: bwrap for every build step (network: install steps only; memory cap: 4096 MiB, *)",
    ))
    assert "the suite changed" not in session.result.stdout.str()
    data = session.results()
    assert data["sandbox"].items() >= {"sandbox": "bwrap", "sandboxed": True, "network": "install"}.items()
    assert data["suite_changed"] == []
    (build,) = [item for item in data["runs"][0]["items"] if item["kind"] == "build"]
    assert [(step["sandbox"], step["network"]) for step in build["steps"]] == [("bwrap", True), ("bwrap", False)]


@pytest.mark.browser
@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
def test_unsandboxed_a_rewritten_driver_still_decides_nothing(tmp_path: Path) -> None:
    """The attack succeeds on disk, but the verdict comes from the copy taken before the build."""
    path = hostile_gauge(tmp_path)
    session = run_session(path, "--tcab-suite=suite", "--tcab-run=game", "--tcab-no-sandbox", *ONLY_DOUBLES)
    log = build_log(session)
    assert "suite readable: True" in log and f"  {path / FALSE_DRIVER}" in log, log
    assert (path / FALSE_DRIVER).read_text() == FORGED_DRIVER  # the attack did write the suite
    assert session.result.ret == pytest.ExitCode.TESTS_FAILED
    session.result.stdout.fnmatch_lines(lines(
        "*::validate[doubles] FAILED*",
        'verdict "doubles" is false: 1 + 2 read 3, expected 4',
        "NOT SANDBOXED: --tcab-no-sandbox: builds ran unconfined, with the caller's rights; memory cap: *",
        "*tcab: the suite changed during the run*",
        f"  changed: {path / FALSE_DRIVER}",
    ))
    data = session.results()
    assert data["sandbox"]["sandboxed"] is False
    assert f"changed: {path / FALSE_DRIVER}" in data["suite_changed"]
    report = (path / "out/report.html").read_text()
    assert "NOT SANDBOXED" in report and "the suite changed during the run" in report


# -- without a browser: the build item alone ---------------------------------------------------


@pytest.fixture
def gauge(pytester: pytest.Pytester) -> Path:
    return gauge_project(pytester.path)


def run_build(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=game", "--tcab-out=out",
                              "-k", "build", *args)


def results(pytester: pytest.Pytester) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / "out/results.json").read_text())
    return data


def test_a_suite_changed_during_the_run_fails_the_session_even_when_every_item_passed(
    pytester: pytest.Pytester, gauge: Path
) -> None:
    manifest = gauge / GAUGE_VERSION / "test-case.toml"
    touch = f"echo '// touched' >> {gauge / FALSE_DRIVER}; rm {gauge / GAUGE_VERSION / 'validation/null.mjs'}; "
    edit(manifest, GAUGE_BUILD, f'build = "{touch}mkdir -p dist && cp index.html dist/"')
    result = run_build(pytester, "--tcab-no-sandbox")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*tcab: the suite changed during the run*",
        ("FAILED: the suite changed during the run; the verdicts were decided on the copy taken before the first "
        "build step, but the suite on disk is no longer that copy:"),
        f"  changed: {gauge / FALSE_DRIVER}",
        f"  removed: {gauge / GAUGE_VERSION / 'validation/null.mjs'}",
    ])
    assert results(pytester)["suite_changed"] == [
        f"changed: {gauge / FALSE_DRIVER}", f"removed: {gauge / GAUGE_VERSION / 'validation/null.mjs'}",
    ]


def test_under_xdist_the_controller_checks_what_the_workers_copied(pytester: pytest.Pytester, gauge: Path) -> None:
    """The workers hand their digests over; the controller compares once every build is over."""
    manifest = gauge / GAUGE_VERSION / "test-case.toml"
    edit(manifest, GAUGE_BUILD, f'build = "echo x >> {gauge / FALSE_DRIVER}; mkdir -p dist && cp index.html dist/"')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=game",
                                           "--tcab-out=out", "-k", "build", "--tcab-no-sandbox", "-n", "2",
                                           "-p", "xdist")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*tcab: the suite changed during the run*", f"  changed: {gauge / FALSE_DRIVER}"])
    assert results(pytester)["suite_changed"] == [f"changed: {gauge / FALSE_DRIVER}"]


def test_the_same_build_in_the_sandbox_cannot_reach_the_suite(pytester: pytest.Pytester, gauge: Path) -> None:
    manifest = gauge / GAUGE_VERSION / "test-case.toml"
    edit(manifest, GAUGE_BUILD, f'build = "echo x >> {gauge / FALSE_DRIVER}; mkdir -p dist && cp index.html dist/"')
    result = run_build(pytester)
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    (build,) = results(pytester)["runs"][0]["items"]
    assert f"{gauge / FALSE_DRIVER}: No such file or directory" in build["steps"][1]["output"]
    assert results(pytester)["suite_changed"] == []


def test_the_snapshot_is_private_and_holds_only_reporter_side_material(pytester: pytest.Pytester, gauge: Path) -> None:
    from pytest_tcab.run.sandbox.snapshot import GUARD_NAME

    seen: dict[str, Any] = {}

    class Spy:
        @pytest.hookimpl(trylast=True)
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            snapshot = session.config.pluginmanager.get_plugin(GUARD_NAME).snapshot
            seen["digests"] = dict(snapshot.digests)
            root = snapshot.root
            seen["mode"] = stat.S_IMODE(root.stat().st_mode)
            seen["files"] = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())

    pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=game", "--tcab-out=out",
                       "--collect-only", plugins=[Spy()])
    assert seen["mode"] == 0o700
    drivers = sorted(p.name for p in (gauge / GAUGE_VERSION / "validation").iterdir())
    assert seen["files"] == [f"0/validation/{name}" for name in drivers]  # not the manifest, not reference-impl/
    false_digest = hashlib.sha256((gauge / FALSE_DRIVER).read_bytes()).hexdigest()
    assert seen["digests"][str(gauge / FALSE_DRIVER)] == false_digest


def test_no_sandbox_is_said_in_every_output(pytester: pytest.Pytester, gauge: Path) -> None:
    result = run_build(pytester, "--tcab-no-sandbox", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([("NOT SANDBOXED: --tcab-no-sandbox: builds ran unconfined, with the caller's rights; "
                                  "memory cap: 4096 MiB, *")])
    data = results(pytester)
    assert data["sandbox"].items() >= {"sandbox": "none", "sandboxed": False,
                                       "reason": "--tcab-no-sandbox: builds ran unconfined, with the caller's rights"}.items()
    (build,) = data["runs"][0]["items"]
    assert {(step["sandbox"], step["network"]) for step in build["steps"]} == {("none", True)}
    assert "NOT SANDBOXED" in (pytester.path / "out/report.html").read_text()


def test_build_network_none_takes_it_from_install_too(pytester: pytest.Pytester, gauge: Path) -> None:
    edit(gauge / GAUGE_VERSION / "test-case.toml", 'install = "true"', 'install = "cat /proc/net/dev"')
    result = run_build(pytester, "--tcab-build-network=none")
    result.assert_outcomes(passed=1)
    (build,) = results(pytester)["runs"][0]["items"]
    install = build["steps"][0]
    assert (install["sandbox"], install["network"]) == ("bwrap", False)
    interfaces = {line.split(":")[0].strip() for line in install["output"].splitlines()[2:]}
    assert interfaces == {"lo"}
    result.stdout.fnmatch_lines(["sandbox: bwrap for every build step (network: no step; memory cap: *)"])


# -- when the sandbox cannot start --------------------------------------------------------------


def path_without_bwrap(tmp_path: Path) -> str:
    """A PATH with the usual tools and no bwrap."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("bash", "sh", "mkdir", "cp", "true", "python3"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


def test_without_bwrap_run_items_fail_with_how_to_install_it(
    pytester: pytest.Pytester, gauge: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=game", "--tcab-out=out",
                                "-k", "build or doubles or zero")
    result.assert_outcomes(failed=3)
    message = ("the build sandbox cannot start: bwrap is not installed (not on PATH); install bubblewrap "
               "(Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install bubblewrap`), "
               "or pass --tcab-no-sandbox to build without it*")
    result.stdout.fnmatch_lines([f"not graded: {message}"])  # the grading machine's lack, not the run's failure
    result.stdout.fnmatch_lines([f"not run: build failed ({message}"])
    result.stdout.fnmatch_lines(["sandbox: bwrap could not start, so no build step ran*"])


def test_a_bwrap_refused_by_apparmor_says_how_to_allow_it(
    pytester: pytest.Pytester, gauge: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What Ubuntu 24.04 (and GitHub's runners) print for an unprivileged user: the fix comes with it."""
    folder = Path(path_without_bwrap(tmp_path))
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))
    result = run_build(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        ("not graded: the build sandbox cannot start: bwrap: setting up uid map: Permission denied; bwrap needs unprivileged "
        "user namespaces. On Ubuntu 23.10 and later (GitHub's ubuntu-24.04 runners too) AppArmor restricts them: "
        "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`*"),
    ])


def test_no_sandbox_builds_without_bwrap(
    pytester: pytest.Pytester, gauge: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    result = run_build(pytester, "--tcab-no-sandbox")
    result.assert_outcomes(passed=1)


def test_an_adversarial_cases_referee_and_house_are_digested(pytester: pytest.Pytester, example_suite: Path) -> None:
    from pytest_tcab.run.sandbox.snapshot import GUARD_NAME

    seen: dict[str, Any] = {}

    class Spy:
        @pytest.hookimpl(trylast=True)
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            seen["digested"] = set(session.config.pluginmanager.get_plugin(GUARD_NAME).snapshot.digests)

    pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=example-suite", "--tcab-run=example-suite/runs/duel-lazy",
                       "--tcab-run=example-suite/runs/duel-sharp", "--collect-only", plugins=[Spy()])
    version = example_suite / "versions/v1.0.0"
    owned = {version / "duel" / name for name in ("referee.py", "schemas/action.json", "house/follower.wat", "replay.html")}
    assert {str(path) for path in owned} <= seen["digested"]
