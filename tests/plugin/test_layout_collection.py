"""Collection visits what the suite layout can hold, and still anything named on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from suites import LEGACY

from pytest_tcab.layout import layout_holds
from pytest_tcab.layout import layout_parts

# A plain test file pytest would collect (and fail) if it walked into folders the layout never reads.
TRAP = "def test_trap():\n    raise AssertionError('collected outside the suite layout')\n"


def _plant_traps(root: Path) -> list[Path]:
    """Test files in a workspace, a media folder and beside the suite's tables."""
    traps = [root / LEGACY / "workspaces" / "test_starter.py", root / LEGACY / "reference" / "test_media.py",
             root / "packages" / "test_store.py", root / "test_beside.py"]
    for trap in traps:
        trap.parent.mkdir(parents=True, exist_ok=True)
        trap.write_text(TRAP)
    return traps


def test_suite_collects_only_its_layout(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    _plant_traps(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert not [line for line in result.stdout.lines if "test_" in line and ".py" in line]
    result.stdout.fnmatch_lines(["tcab.toml::config", f"{LEGACY.as_posix()}/test-case.toml::slug"])


def test_a_folder_with_tcab_toml_is_collected_by_layout_without_the_option(
        pytester: pytest.Pytester, minimal_suite: Path) -> None:
    _plant_traps(pytester.path)
    configured = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "-q")
    found = pytester.runpytest("-p", "no:cacheprovider", "-q")
    assert found.ret == pytest.ExitCode.OK
    found.assert_outcomes(passed=configured.parseoutcomes()["passed"])


def test_paths_named_on_the_command_line_are_collected(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    traps = _plant_traps(pytester.path)
    manifest = LEGACY / "test-case.toml"
    result = pytester.runpytest(str(manifest), str(traps[0].relative_to(pytester.path)), "-p", "no:cacheprovider",
                                "--tcab-suite=.", "--collect-only", "-q")
    result.stdout.fnmatch_lines([f"{manifest.as_posix()}::resolve[[]a[]]",
                                 f"{LEGACY.as_posix()}/workspaces/test_starter.py::test_trap"])


def test_a_suite_folder_given_as_a_path_keeps_to_the_layout(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    _plant_traps(pytester.path)
    result = pytester.runpytest("test-cases/end-to-end", "-p", "no:cacheprovider", "--tcab-suite=.",
                                "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert not [line for line in result.stdout.lines if ".py" in line]
    result.stdout.fnmatch_lines([f"{LEGACY.as_posix()}/test-case.toml::slug"])


@pytest.mark.parametrize(("parts", "name", "is_dir", "held"), [
    ((), "tcab.toml", False, True),
    ((), "test-cases", True, True),
    ((), "packages", True, False),
    (("test-cases", "end-to-end", "easy", "demo", "v1.0.0"), "test-case.toml", False, True),
    (("test-cases", "end-to-end", "easy", "demo", "v1.0.0"), "variants", True, False),
    (("versions", "v1.0.0"), "version.toml", False, True),
    (("versions", "v1.0.0", "test-cases"), "duel.toml", False, True),
    (("versions", "v1.0.0", "specifications", "ui", "deep"), "specification.toml", False, True),
    (("versions", "v1.0.0", "specifications", "ui"), "specification.md", False, False),
    (("versions", "v1.0.0", "assets", "ball"), "asset.toml", False, True),
    (("versions", "v1.0.0", "assets", "ball"), "frames", True, False),
])
def test_layout_names_what_each_folder_can_hold(parts: tuple[str, ...], name: str, is_dir: bool, held: bool) -> None:
    assert layout_holds(parts, name, is_dir) is held


def test_layout_parts_of_folders_inside_and_outside() -> None:
    root = Path("/suite")
    assert layout_parts(root, root / "test-cases" / "end-to-end") == ("test-cases", "end-to-end")
    assert layout_parts(root, root / "runs" / "game") is None
    assert layout_parts(root, Path("/elsewhere")) is None
