"""Collection visits what the suite layout can hold, and still anything named on the command line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from definition_suite import CLEAN_ITEMS
from definition_suite import GAME
from definition_suite import SPEC
from definition_suite import VERSION
from definition_suite import write_definition_suite
from suites import LEGACY
from suites import write_minimal_suite

from pytest_tcab.layout import ROOT
from pytest_tcab.layout import Area
from pytest_tcab.layout import Entry
from pytest_tcab.layout import Held
from pytest_tcab.layout import Misplaced
from pytest_tcab.layout import Place
from pytest_tcab.layout import arrange
from pytest_tcab.layout import place_of
from pytest_tcab.layout import walk
from pytest_tcab.suite import CaseNotFound
from pytest_tcab.suite import Suite

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
VERSION_FOLDER = Place(Area.VERSION)


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
    (Place(Area.VERSIONS), ["v1.0.0/"], "v1.0.0", VERSION_FOLDER),
    (VERSION_FOLDER, ["version.toml"], "version.toml", Held.FILE),
    (VERSION_FOLDER, ["version.toml", "workspaces/"], "workspaces", None),
    (VERSION_FOLDER, ["version.toml", "validation-baseline/"], "validation-baseline", None),
    (VERSION_FOLDER, ["prompts/"], "prompts", Place(Area.FREE)),  # neither version.toml nor test-cases/: no version folder
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
    (VERSION_FOLDER, "test-case.toml"),
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


# -- layouts at any depth -----------------------------------------------------------------------


def write_layouts(root: Path, catalog: Path | None, test_suite: Path | None) -> int:
    """The minimal catalog in `root/catalog` and the minimal test suite in `root/test_suite`
    (either may be None), under one tcab.toml at `root`; returns how many items pass."""
    configs, passing = [], 0
    for under, write, clean in ((catalog, write_minimal_suite, CLEAN_CATALOG), (test_suite, write_definition_suite,
                                                                                 CLEAN_ITEMS)):
        if under is not None:
            write(root, under)
            configs.append((root / "tcab.toml").read_text())
            passing += clean - 1  # tcab.toml's item is counted once, below
    (root / "tcab.toml").write_text("\n".join(configs))
    return passing + 1


CLEAN_CATALOG = 15
"""Items of the minimal catalog: tcab.toml, then per case 2 resolve, slug, 2 template and 2 seed items."""
ARCADE, DEEP_ARCADE, CAROM, DEEP_CAROM = Path("arcade"), Path("suites/arcade"), Path("carom"), Path("games/carom")


@pytest.mark.parametrize(("catalog", "test_suite"), [
    (ARCADE, None), (DEEP_ARCADE, None), (None, CAROM), (None, DEEP_CAROM), (ARCADE, DEEP_CAROM), (DEEP_ARCADE, CAROM),
], ids=["catalog", "catalog-twice", "test-suite", "test-suite-twice", "mixed", "mixed-twice"])
def test_layouts_nested_under_the_root_are_collected(pytester: pytest.Pytester, catalog: Path | None,
                                                     test_suite: Path | None) -> None:
    passing = write_layouts(pytester.path, catalog, test_suite)
    _plant_traps(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=passing)
    if catalog is not None:
        result.stdout.fnmatch_lines([f"{(catalog / LEGACY).as_posix()}/test-case.toml::slug PASSED*"])
    if test_suite is not None:
        result.stdout.fnmatch_lines([f"{(test_suite / SPEC).as_posix()}::resolve PASSED*",
                                     f"{(test_suite / GAME).as_posix()}::resolve PASSED*"])
    found = pytester.runpytest("-p", "no:cacheprovider")  # the folder holding tcab.toml is the root anyway
    found.assert_outcomes(passed=passing)


def test_slugs_are_unique_across_every_layout_under_the_root(pytester: pytest.Pytester) -> None:
    write_layouts(pytester.path, ARCADE, CAROM)
    shutil.copytree(pytester.path / ARCADE, pytester.path / DEEP_ARCADE)
    shutil.copytree(pytester.path / CAROM, pytester.path / DEEP_CAROM)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert (f"{(DEEP_ARCADE / LEGACY).as_posix()}/test-case.toml:1: `slug`: slug 'demo' is also declared by "
            f"{(ARCADE / LEGACY).parent.as_posix()}/") in result.stdout.lines
    assert (f"{(DEEP_CAROM / GAME).as_posix()}: slug 'game' is also the slug of the definition "
            f"{(CAROM / GAME).as_posix()}, of another test suite") in result.stdout.lines
    with pytest.raises(CaseNotFound, match=r"slug 'game' is claimed by definitions of 2 test suites \(carom/versions/, "
                                           r"games/carom/versions/\)"):
        Suite(pytester.path).find("game")


@pytest.mark.parametrize(("source", "target", "message"), [
    (ARCADE / LEGACY / "test-case.toml", ARCADE / "test-cases/end-to-end/easy/v1.0.0/test-case.toml",
     "no case is collected from it: it stands 3 folders below test-cases/ (test-cases/end-to-end/easy/v1.0.0/), and "
     "a catalog manifest stands 4 below"),
    (ARCADE / LEGACY / "test-case.toml", ARCADE / "test-cases/end-to-end/easy/more/demo/v1.0.0/test-case.toml",
     "no case is collected from it: it stands 5 folders below test-cases/ (test-cases/end-to-end/easy/more/demo/v1.0.0/), "
     "and a catalog manifest stands 4 below"),
    (ARCADE / LEGACY / "test-case.toml", ARCADE / "v1.0.0/test-case.toml",
     "no case is collected from it: it stands outside every test-cases/ folder"),
    (ARCADE / LEGACY / "test-case.toml", CAROM / VERSION / "test-case.toml",
     "no case is collected from it: it stands in a test suite's versions/ tree, whose cases are definitions"),
    (CAROM / GAME, CAROM / VERSION / "test-cases/extra/board.toml",
     "no definition is collected from it: it stands 1 folder below versions/v1.0.0/test-cases/"),
    (CAROM / GAME, CAROM / "v2.0.0/test-cases/board.toml",
     "nothing is collected from it: test-cases/ is a catalog folder, which holds only folders down to its version folders"),
], ids=["manifest-a-folder-short", "manifest-a-folder-deep", "manifest-outside-a-catalog", "manifest-in-a-test-suite",
        "definition-a-folder-deep", "definition-outside-versions"])
def test_what_looks_like_a_case_where_no_layout_puts_it_fails_where_it_is(
        pytester: pytest.Pytester, source: Path, target: Path, message: str) -> None:
    passing = write_layouts(pytester.path, ARCADE, CAROM)
    (pytester.path / target).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(pytester.path / source, pytester.path / target)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=passing, failed=1)
    result.stdout.fnmatch_lines([f"FAILED {target.as_posix()}::layout*"])
    assert f"{target.as_posix()}: {message}" in result.stdout.lines


@pytest.mark.parametrize("layout", ["catalog", "test-suite"])
def test_a_version_folder_without_its_v_is_reported(pytester: pytest.Pytester, layout: str) -> None:
    write_layouts(pytester.path, ARCADE, CAROM)
    version = ARCADE / LEGACY if layout == "catalog" else CAROM / VERSION
    shutil.move(pytester.path / version, pytester.path / version.parent / "1.0.0")
    manifest = version.parent / "1.0.0" / ("test-case.toml" if layout == "catalog" else "version.toml")
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert (f"{manifest.as_posix()}: lives in version folder '1.0.0', which is not vMAJOR.MINOR.PATCH"
            in result.stdout.lines)


def test_a_suite_without_a_case_is_a_usage_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "empty/docs").mkdir(parents=True)
    (pytester.path / "empty/tcab.toml").write_text("")
    (pytester.path / "empty/docs/README.md").write_text("Nothing here yet.\n")
    result = pytester.runpytest("--tcab-suite=empty", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: --tcab-suite: */empty holds no test case: looked for catalog manifests "
        "(test-cases/<type>/<difficulty>/<folder>/<version>/test-case.toml) and test-suite definitions "
        "(versions/<version>/test-cases/<name>.toml) at any depth under it, past dot-folders, run folders, *"])
