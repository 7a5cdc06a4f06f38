"""Node ids as IDE explorers, `--lf`, `--ff` and CI matrices use them: every id `--collect-only -q`
lists selects that one item again, with the same outcome, in author and run mode; run items live
under a file that exists; `--lf` and `--ff` find the items that failed.

CI runs this module on the oldest pytest the package allows too (.github/workflows/ci.yml).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from suites import LEGACY
from suites import write_minimal_suite
from test_definition_runs import FAILING_LINT
from test_definition_runs import FAILING_TYPECHECK
from test_definition_runs import game_definition
from test_definition_runs import project

_OUTCOME = re.compile(r"^(\S+::\S+) (PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR|RECORDED|OVER-CEILING)\b")


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Each item's outcome word as `-v` prints it, by node id."""
    found = {}
    for line in result.outlines:
        match = _OUTCOME.match(line)
        if match:
            found[match[1]] = match[2]
    return found


def collected_ids(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest(*args, "--collect-only", "-q")
    return [line for line in result.outlines if "::" in line]


def assert_each_id_reruns_alone(pytester: pytest.Pytester, *args: str) -> dict[str, str]:
    ids = collected_ids(pytester, *args)
    everything = outcomes(pytester.runpytest(*args, "-v"))
    assert sorted(everything) == sorted(ids)
    for nodeid in ids:
        assert collected_ids(pytester, *args, nodeid) == [nodeid]
        assert outcomes(pytester.runpytest(*args, "-v", nodeid)) == {nodeid: everything[nodeid]}
    return everything


def break_prompt(root: Path) -> None:
    """The legacy case's prompt goes missing: both its `resolve[<variant>]` items fail."""
    manifest = root / LEGACY / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('prompt = "prompt.hbs"', 'prompt = "gone.hbs"'))


def test_every_author_id_reruns_alone(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    break_prompt(minimal_suite)
    everything = assert_each_id_reruns_alone(pytester, "-p", "no:cacheprovider", "--tcab-suite=.")
    assert everything[f"{LEGACY.as_posix()}/test-case.toml::resolve[a]"] == "FAILED"
    assert "PASSED" in everything.values()


def test_items_that_would_share_an_id_get_their_own(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    """Two variant files declaring one slug: each variant's items are ranked, not merged (an
    explorer keys on the id), and the ranked id selects its item alone."""
    (minimal_suite / LEGACY / "variants/b.toml").write_text('slug = "a"\n')
    args = ("-p", "no:cacheprovider", "--tcab-suite=.")
    ids = collected_ids(pytester, *args)
    assert len(ids) == len(set(ids))
    legacy = f"{LEGACY.as_posix()}/test-case.toml"
    assert {f"{legacy}::resolve[a]", f"{legacy}::resolve[a~2]", f"{legacy}::template[prompt.hbs#a~2]"} <= set(ids)
    again = outcomes(pytester.runpytest(*args, "-v", f"{legacy}::resolve[a~2]"))
    assert again == {f"{legacy}::resolve[a~2]": "FAILED"}  # the duplicate slug is reported


@pytest.mark.parametrize("suite", ["--tcab-suite=.", "."])
def test_the_errata_item_lives_under_errata_toml_once(pytester: pytest.Pytester, minimal_suite: Path,
                                                     suite: str) -> None:
    """Under the configured suite, or as a folder pytest walks itself (which hands every file to
    the plugin): errata.toml is its manifest's child alone, and its id reruns alone."""
    (minimal_suite / LEGACY / "errata.toml").write_text('[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\n')
    ids = collected_ids(pytester, "-p", "no:cacheprovider", suite)
    errata = f"{LEGACY.as_posix()}/errata.toml::errata"
    assert ids.count(errata) == 1 and len(ids) == len(set(ids))
    assert ids.index(errata) == ids.index(f"{LEGACY.as_posix()}/test-case.toml::slug") - 1  # in its manifest's place
    again = (suite,) if suite.startswith("--") else ()  # a folder given is collected whole
    assert outcomes(pytester.runpytest("-p", "no:cacheprovider", *again, "-v", errata)) == {errata: "PASSED"}


def definition_run(root: Path) -> None:
    """A code definition's run: the build passes, typecheck fails, lint is recorded (no browser)."""
    project(root, 'case = "game"\n', game=game_definition(FAILING_TYPECHECK, extra=f'lint = "{FAILING_LINT}"\n'))


def test_every_run_id_reruns_alone_under_its_run_file(pytester: pytest.Pytester) -> None:
    definition_run(pytester.path)
    everything = assert_each_id_reruns_alone(pytester, "-p", "no:cacheprovider", "--tcab-suite=suite",
                                             "--tcab-run=run", "--tcab-out=out")
    assert everything == {"run/.tcab/run.toml::build": "PASSED",
                          "run/.tcab/run.toml::requirement[works]": "SKIPPED",
                          "run/.tcab/run.toml::toolchain[typecheck]": "FAILED",
                          "run/.tcab/run.toml::toolchain[lint]": "RECORDED"}


def test_a_run_outside_rootdir_has_absolute_ids_that_rerun(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere")
    definition_run(outside)
    # rootdir is the pytester folder, as an IDE passes it; the run is not under it.
    args = ("-p", "no:cacheprovider", f"--rootdir={pytester.path}", f"--tcab-suite={outside / 'suite'}",
            f"--tcab-run={outside / 'run'}", "--tcab-out=out")
    ids = collected_ids(pytester, *args)
    assert ids[0] == f"{(outside / 'run/.tcab/run.toml').as_posix()}::build"
    (typecheck,) = [nodeid for nodeid in ids if nodeid.endswith("::toolchain[typecheck]")]
    assert collected_ids(pytester, *args, typecheck) == [typecheck]
    # The terminal shows ids relative to where pytest runs; the id itself is absolute.
    assert list(outcomes(pytester.runpytest(*args, "-v", typecheck)).values()) == ["FAILED"]


def test_a_run_without_run_toml_lives_under_its_manifest(pytester: pytest.Pytester) -> None:
    definition_run(pytester.path)
    (pytester.path / "run/.tcab/run.toml").unlink()
    args = ("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=run", "--tcab-case=game", "--tcab-out=out")
    ids = collected_ids(pytester, *args)
    assert ids[0] == "suite/versions/v1.0.0/test-cases/game.toml::build"
    typecheck = "suite/versions/v1.0.0/test-cases/game.toml::toolchain[typecheck]"
    assert outcomes(pytester.runpytest(*args, "-v", typecheck)) == {typecheck: "FAILED"}


@pytest.mark.parametrize("mode", ["author", "run"])
def test_lf_reruns_the_failures_and_ff_runs_them_first(pytester: pytest.Pytester, mode: str) -> None:
    if mode == "author":
        break_prompt(write_minimal_suite(pytester.path))
        args: tuple[str, ...] = ("--tcab-suite=.",)
    else:
        definition_run(pytester.path)
        args = ("--tcab-suite=suite", "--tcab-run=run", "--tcab-out=out")
    first = outcomes(pytester.runpytest(*args, "-v"))
    failed = [nodeid for nodeid, word in first.items() if word == "FAILED"]
    assert failed and any("[" in nodeid for nodeid in failed)

    again = pytester.runpytest(*args, "-v", "--lf")
    assert outcomes(again) == dict.fromkeys(failed, "FAILED")
    again.stdout.fnmatch_lines([f"run-last-failure: rerun previous {len(failed)} failure*"])

    first_first = pytester.runpytest(*args, "-v", "--ff")
    order = list(outcomes(first_first))
    assert order[:len(failed)] == failed and sorted(order) == sorted(first)

