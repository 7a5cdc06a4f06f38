"""Author mode end to end: collection, node ids, locations, options, suite-level rules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from suites import LEGACY


def test_example_suite_passes_author_mode(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = pytester.runpytest("--tcab-suite=example-suite", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0
    assert outcomes["passed"] >= 12


def test_node_ids_are_stable_and_readable(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    result = pytester.runpytest("--tcab-suite=.", "--collect-only", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([
        "tcab.toml::config",
        "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml::resolve[[]a[]]",
        "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml::resolve[[]b[]]",
        "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml::slug",
        "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml::resolve[[]a[]]",
        "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml::resolve[[]b[]]",
        "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml::slug",
    ])


def test_keyword_selection_and_errata_item(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    (pytester.path / LEGACY / "errata.toml").write_text('[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\n')
    result = pytester.runpytest("--tcab-suite=.", "-k", "errata", "-p", "no:cacheprovider", "-v")
    result.stdout.fnmatch_lines(["*demo/v1.0.0/errata.toml::errata PASSED*"])
    result.assert_outcomes(passed=1, deselected=15)


def test_failure_points_at_the_toml_line(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    manifest = pytester.path / LEGACY / "test-case.toml"
    manifest.write_text(manifest.read_text().replace("weight = 1", "weight = 0"))
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "--junitxml=junit.xml",
                                "-o", "junit_family=xunit1")
    # Reported once, under the first variant; the other rules, templates and seeding still run.
    result.assert_outcomes(passed=14, failed=1)
    # The failure header names the item; the location line (what IDEs jump to) is the TOML line.
    result.stdout.fnmatch_lines(["*_ demo@v1.0.0 resolve[[]a[]] _*"])
    assert "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:31: `review_item[0].weight`: " \
        "must be a positive number, not 0.0" in result.stdout.lines
    junit = (pytester.path / "junit.xml").read_text()
    assert 'line="30"' in junit  # JUnit lines are 0-based, as pytest's reportinfo


def test_all_problems_are_reported_together(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    manifest = pytester.path / LEGACY / "test-case.toml"
    text = manifest.read_text().replace('changelog = "changelog.md"', 'changelog = "missing.md"')
    manifest.write_text(text.replace('path = "reference/play.html"', 'path = "reference/none.html"'))
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["2 problems:", "*:5: `changelog`: changelog 'missing.md' does not exist*",
                                 "*:18: `reference[[]0[]].path`: reference mockup 'reference/none.html' does not exist*"])


def test_manifest_given_directly_finds_its_suite(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    result = pytester.runpytest(str(LEGACY / "test-case.toml"), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)


def _move_into(pytester: pytest.Pytester, folder: str) -> None:
    suite = pytester.path / folder
    suite.mkdir()
    for entry in ("tcab.toml", "packages", "test-cases"):
        shutil.move(pytester.path / entry, suite / entry)


def test_ini_option_names_the_suite(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    _move_into(pytester, "suite")
    pytester.makeini("[pytest]\ntcab_suite = suite\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=15)


def test_suite_alone_is_collected_not_testpaths(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    _move_into(pytester, "suite")
    pytester.makepyfile(test_other="def test_not_collected():\n    assert False\n")
    result = pytester.runpytest("--tcab-suite=suite", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=15)


def test_missing_suite_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--tcab-suite=nowhere", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tcab-suite: */nowhere is not a directory*"])


@pytest.mark.parametrize(
    ("flag", "env", "deselected"),
    [((), {}, 7), (("--tcab-experimental",), {}, 0), ((), {"TCAB_BACKEND_ALLOW_EXPERIMENTAL": "true"}, 0)],
)
def test_experimental_cases_are_hidden_unless_opted_in(
    pytester: pytest.Pytester, minimal_suite: Path, monkeypatch: pytest.MonkeyPatch,
    flag: tuple[str, ...], env: dict[str, str], deselected: int,
) -> None:
    monkeypatch.delenv("TCAB_BACKEND_ALLOW_EXPERIMENTAL", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    manifest = pytester.path / LEGACY / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nexperimental = true'))
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", *flag)
    result.assert_outcomes(passed=15 - deselected, deselected=deselected)


def test_slug_identical_on_every_version(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    second = pytester.path / LEGACY.parent / "v1.1.0"
    shutil.copytree(pytester.path / LEGACY, second)
    manifest = second / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('slug = "demo"', 'slug = "demo-two"'))
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "-k", "slug")
    assert "test-cases/end-to-end/easy/demo/v1.1.0/test-case.toml:1: `slug`: slug 'demo-two' differs from " \
        "'demo' declared by v1.0.0 of the same folder" in result.stdout.lines
    result.assert_outcomes(passed=1, failed=2, deselected=19)


def test_version_folder_must_be_semver(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    shutil.move(pytester.path / LEGACY, pytester.path / LEGACY.parent / "latest")
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([
        "*demo/latest/test-case.toml: lives in version folder 'latest', which is not vMAJOR.MINOR.PATCH",
        "*Hint: name the folder like v1.0.0",
    ])


def test_type_folder_must_be_a_type(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    target = pytester.path / "test-cases/arcade/easy"
    target.mkdir(parents=True)
    shutil.move(pytester.path / LEGACY.parent, target / "demo")
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*arcade/easy/demo/v1.0.0/test-case.toml: lives under test-cases/arcade/, "
                                 "which is not a test case type"])


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('[engines.none]\nname = "No engine"\n', "tcab.toml:1: `engines.none`: engine slug 'none' is reserved: "
         "it means no engine"),
        ('[engines.Big]\nname = "X"\n', "tcab.toml:1: `engines.Big`: 'Big' is not a kebab-case token*"),
        ('[engines.two-d]\nname = "2D"\ndocs = "docs/2d"\n', "tcab.toml:3: `engines.two-d.docs`: engine docs "
         "'docs/2d' does not exist; expected a directory under *"),
        ('[packages.x]\npath = "packages/particle-runtime"\n', "tcab.toml:1: `packages.x`: missing required key "
         "`description`"),
    ],
)
def test_tcab_toml_problems(pytester: pytest.Pytester, minimal_suite: Path, config: str, expected: str) -> None:
    (pytester.path / "tcab.toml").write_text(config)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "-k", "config")
    result.stdout.fnmatch_lines([expected])
