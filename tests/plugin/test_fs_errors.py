"""A path the OS refuses (too long, a symlink loop, through a file, no permission) is a located
problem at the key that named it, in both layouts, never a traceback."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from definition_suite import GAME
from definition_suite import VERSION
from definition_suite import write_definition_suite
from suites import LEGACY
from suites import write_minimal_suite

LONG = "ü" * 300
"""600 bytes of UTF-8: past the 255-byte name limit of every common Linux file system."""
MANIFEST = LEGACY / "test-case.toml"
REFUSED_BY_ROOT = "--bounding-set=-dac_override,-dac_read_search"
"""setpriv: without these capabilities root, too, is refused a folder of mode 000."""


def _manifest_with(root: Path, line: str) -> None:
    path = root / MANIFEST
    path.write_text(path.read_text().replace('prompt = "prompt.hbs"\n', f'prompt = "prompt.hbs"\n{line}\n', 1))


def _game_with(root: Path, none: str) -> None:
    path = root / GAME
    path.write_text(path.read_text().replace('none = "workspaces/none"', f'none = "{none}"', 1))


def _problem_line(result: pytest.RunResult, expected: str) -> None:
    assert expected in result.stdout.lines, "\n".join(result.stdout.lines)
    assert "Traceback" not in result.stdout.str()
    assert "site-packages" not in result.stdout.str()


def _run(pytester: pytest.Pytester) -> pytest.RunResult:
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    return result


# -- the manifest layout (test-cases/<type>/<difficulty>/<slug>/<version>/test-case.toml) ------


def test_a_name_too_long_is_a_located_problem(pytester: pytest.Pytester) -> None:
    write_minimal_suite(pytester.path)
    _manifest_with(pytester.path, f'workspace = "{LONG}"')
    _problem_line(_run(pytester), f"{MANIFEST}:7: `workspace`: workspace {LONG!r} cannot be used: the name is too "
                                  "long for the file system")


def test_a_symlink_loop_is_a_located_problem(pytester: pytest.Pytester) -> None:
    write_minimal_suite(pytester.path)
    (pytester.path / LEGACY / "loop").symlink_to("loop")
    _manifest_with(pytester.path, 'workspace = "loop"')
    _problem_line(_run(pytester), f"{MANIFEST}:7: `workspace`: workspace 'loop' cannot be used: it goes through a "
                                  "loop of symlinks")


def test_a_path_through_a_file_is_a_located_problem(pytester: pytest.Pytester) -> None:
    write_minimal_suite(pytester.path)
    path = pytester.path / MANIFEST
    path.write_text(path.read_text().replace('changelog = "changelog.md"', 'changelog = "changelog.md/notes.md"'))
    _problem_line(_run(pytester), f"{MANIFEST}:5: `changelog`: changelog 'changelog.md/notes.md' cannot be used: "
                                  "a part of it is a file, not a folder")


def test_a_folder_without_permission_is_a_located_problem(pytester: pytest.Pytester) -> None:
    write_minimal_suite(pytester.path)
    locked = pytester.path / LEGACY / "locked"
    (locked / "w").mkdir(parents=True)
    _manifest_with(pytester.path, 'workspace = "locked/w"')
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root reads every folder; util-linux's setpriv is needed to run as root without that right")
        prefix = [setpriv, REFUSED_BY_ROOT]
    locked.chmod(0)
    try:
        # pytest itself would walk into the folder looking for conftest.py files: keep it out of that.
        result = pytester.run(*prefix, sys.executable, "-m", "pytest", "--tcab-suite=.", "-p", "no:cacheprovider",
                              f"--ignore={locked}")
    finally:
        locked.chmod(0o755)  # so pytester can clean up
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    _problem_line(result, f"{MANIFEST}:7: `workspace`: workspace 'locked/w' cannot be used: permission denied")


def test_an_unreadable_folder_inside_a_workspace_is_a_located_problem(pytester: pytest.Pytester) -> None:
    # Seeding lists the workspace: an entry it cannot take is named, not skipped in silence.
    write_minimal_suite(pytester.path)
    (pytester.path / LEGACY / "workspaces/w/loop").symlink_to("loop")
    _manifest_with(pytester.path, 'workspace = "workspaces/w"')
    _problem_line(_run(pytester), f"{MANIFEST}:7: `workspace`: 'loop' in workspaces/w/ is neither a file nor a folder "
                                  "(a broken symlink, a loop, a pipe?)")


# -- the definitions layout (versions/<version>/test-cases/<slug>.toml) ------------------------


def test_a_name_too_long_is_a_located_problem_in_a_definition(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    _game_with(pytester.path, LONG)
    _problem_line(_run(pytester), f"{GAME}:9: `workspaces.none`: workspace {LONG!r} cannot be used: the name is too "
                                  "long for the file system")


def test_a_symlink_loop_is_a_located_problem_in_a_definition(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    (pytester.path / VERSION / "loop").symlink_to("loop")
    _game_with(pytester.path, "loop/none")
    _problem_line(_run(pytester), f"{GAME}:9: `workspaces.none`: workspace 'loop/none' cannot be used: it goes "
                                  "through a loop of symlinks")
