"""Collection visits what the suite layout can hold, and still anything named on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from suites import LEGACY

from pytest_tcab.layout import ROOT
from pytest_tcab.layout import Area
from pytest_tcab.layout import Entry
from pytest_tcab.layout import Held
from pytest_tcab.layout import Misplaced
from pytest_tcab.layout import Place
from pytest_tcab.layout import arrange
from pytest_tcab.layout import place_of
from pytest_tcab.layout import walk

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


CATALOG_VERSION = Place(Area.CATALOG, 4)
VERSION = Place(Area.VERSION)


@pytest.mark.parametrize(("place", "entries", "name", "held"), [
    (ROOT, ["tcab.toml"], "tcab.toml", Held.FILE),
    (ROOT, ["test-cases/"], "test-cases", Place(Area.CATALOG)),
    (ROOT, ["packages/"], "packages", Place(Area.FREE)),
    (ROOT, ["node_modules/"], "node_modules", None),
    (ROOT, [".git/"], ".git", None),
    (Place(Area.FREE), ["versions/"], "versions", Place(Area.VERSIONS)),
    (Place(Area.FREE), [".tcab/", "test-cases/"], "test-cases", None),  # a run folder
    (Place(Area.FREE), ["tcab.toml", "test-cases/"], "test-cases", None),  # a suite root of its own
    (CATALOG_VERSION, ["test-case.toml", "variants/"], "test-case.toml", Held.FILE),
    (CATALOG_VERSION, ["test-case.toml", "variants/"], "variants", None),
    (CATALOG_VERSION, ["workspaces/"], "workspaces", Place(Area.CATALOG, 5)),  # no manifest: looked through
    (Place(Area.VERSIONS), ["v1.0.0/"], "v1.0.0", VERSION),
    (VERSION, ["version.toml"], "version.toml", Held.FILE),
    (VERSION, ["version.toml", "workspaces/"], "workspaces", None),
    (VERSION, ["version.toml", "validation-baseline/"], "validation-baseline", None),
    (VERSION, ["prompts/"], "prompts", Place(Area.FREE)),  # neither version.toml nor test-cases/: no version folder
    (Place(Area.DEFINITIONS), ["duel.toml"], "duel.toml", Held.FILE),
    (Place(Area.SPECIFICATIONS, 2), ["specification.toml"], "specification.toml", Held.FILE),
    (Place(Area.SPECIFICATIONS, 2), ["specification.md"], "specification.md", None),
    (Place(Area.ASSETS, 1), ["asset.toml"], "asset.toml", Held.FILE),
    (Place(Area.ASSETS, 1), ["frames/"], "frames", None),
])
def test_layouts_name_what_each_folder_can_hold(place: Place, entries: list[str], name: str, held: object) -> None:
    listed = [Entry(entry.rstrip("/"), entry.endswith("/")) for entry in entries]
    verdicts = {entry.name: verdict for entry, verdict in arrange(place, Path("/suite/x/y/z/w"), listed)}
    assert verdicts.get(name) == held


@pytest.mark.parametrize(("place", "name"), [
    (ROOT, "test-case.toml"),
    (Place(Area.CATALOG, 3), "test-case.toml"),
    (Place(Area.CATALOG, 5), "test-case.toml"),
    (Place(Area.CATALOG, 0), "game.toml"),
    (VERSION, "test-case.toml"),
    (Place(Area.DEFINITIONS, 1), "game.toml"),
])
def test_what_looks_like_a_case_where_no_layout_puts_it_is_misplaced(place: Place, name: str) -> None:
    verdicts = dict(arrange(place, Path("/suite/test-cases/a/b/c/d/e"), [Entry(name, False), Entry("version.toml", False)]))
    assert isinstance(verdicts[Entry(name, False)], Misplaced)


def test_the_place_of_folders_inside_and_outside(tmp_path: Path) -> None:
    (tmp_path / "games/test-cases/end-to-end").mkdir(parents=True)
    (tmp_path / "runs/game/.tcab").mkdir(parents=True)
    assert place_of(tmp_path, tmp_path / "games/test-cases/end-to-end") == Place(Area.CATALOG, 1)
    assert place_of(tmp_path, tmp_path / "runs") == Place(Area.FREE)
    assert place_of(tmp_path, tmp_path / "runs/game/.tcab") is None
    assert place_of(tmp_path, Path("/elsewhere")) is None


def test_a_symlink_loop_is_walked_once(tmp_path: Path) -> None:
    case = tmp_path / "games/test-cases/end-to-end/easy/demo/v1.0.0"
    case.mkdir(parents=True)
    (case / "test-case.toml").write_text('slug = "demo"\n')
    (tmp_path / "games/again").symlink_to(tmp_path)
    (tmp_path / "games/test-cases/end-to-end/up").symlink_to(tmp_path / "games")
    assert walk(tmp_path).manifests == (case / "test-case.toml",)
