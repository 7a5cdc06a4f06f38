"""Complete reports: a shape problem costs no other rule, and each problem is reported once, at its line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from suites import LEGACY

CAROM = Path("example-suite/test-cases/end-to-end/medium/carom/v2.0.0")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the first line of `path` holding `text`."""
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def run(pytester: pytest.Pytester, *args: str, suite: str = ".") -> pytest.RunResult:
    return pytester.runpytest(f"--tcab-suite={suite}", "-p", "no:cacheprovider", *args)


def test_an_unknown_key_in_carom_costs_no_other_rule_nor_its_templates_and_seeding(
        pytester: pytest.Pytester, example_suite: Path) -> None:
    manifest = pytester.path / CAROM / "test-case.toml"
    edit(manifest, 'title = "A goal scores"', 'title = "A goal scores"\nweigth = 2')  # the unknown key
    edit(manifest, 'changelog = "changelog.md"', 'changelog = "changelog.txt"')  # a path rule
    edit(manifest, 'reference = "gameplay"\nproof = "title"', 'reference = "gamepaly"\nproof = "title"')  # a link
    edit(pytester.path / CAROM / "errata.toml", 'review = "spin.decay"', 'review = "spin.decays"')  # an erratum link
    result = run(pytester, "-k", "v2.0.0", suite="example-suite")
    lines = result.stdout.lines
    where = f"{CAROM}"
    weigth, gamepaly = line_of(manifest, "weigth = 2"), line_of(manifest, 'reference = "gamepaly"')
    erratum = line_of(pytester.path / CAROM / "errata.toml", 'review = "spin.decays"')
    assert f"{where}/test-case.toml:{weigth}: `review.categories[1].items[0].weigth`: unknown key `weigth`" in lines
    assert "    Hint: did you mean `weight`?" in lines
    assert (f"{where}/test-case.toml:9: `changelog`: changelog 'changelog.txt' does not exist; expected a file "
            "under v2.0.0/") in lines
    assert "    Hint: did you mean 'changelog.md'?" in lines
    assert (f"{where}/test-case.toml:{gamepaly}: `review.categories[1].items[1].reference`: reference view 'gamepaly' "
            "does not resolve for any variant") in lines
    assert f"{where}/errata.toml:{erratum}: `erratum[0].review`: 'spin.decays' is not a verdict id of the case's checklist" \
        in lines
    # Each problem once: the version's problems under the first variant only.
    assert result.stdout.str().count("unknown key `weigth`") == 1
    assert result.stdout.str().count("'gamepaly'") == 1
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 2  # resolve[base] and errata
    listed = run(pytester, "--collect-only", "-q", "-k", "v2.0.0", suite="example-suite").stdout.lines
    for item in ("template[prompt.hbs#base]", "template[prompt.hbs#frenzy]", "template[specs/mode.md.hbs#frenzy]",
                 "resolve[frenzy]", "seed[base]", "seed[frenzy]"):
        assert f"{where}/test-case.toml::{item}" in listed
    # The seeding plans hold what resolved, and the broken keys are not theirs to report again.
    seeding = run(pytester, "-k", "v2.0.0 and seed", "-rA", suite="example-suite")
    seeding.assert_outcomes(passed=2)


def test_a_variant_that_does_not_load_is_the_one_cause(pytester: pytest.Pytester, example_suite: Path) -> None:
    (pytester.path / CAROM / "variants/frenzy.toml").unlink()
    result = run(pytester, "-k", "v2.0.0", suite="example-suite")
    where = f"{CAROM}"
    manifest = pytester.path / CAROM / "test-case.toml"
    assert (f"{where}/test-case.toml:{line_of(manifest, 'variants/frenzy.toml')}: `variants[1]`: variant file 'variants/frenzy.toml' does not exist; "
            "expected a file under v2.0.0/") in result.stdout.lines
    # The erratum scoped to frenzy (and its review link) is no second problem.
    assert not re.search(r"errata\.toml:\d", result.stdout.str())
    assert result.parseoutcomes()["failed"] == 1


def test_a_common_problem_is_reported_under_the_first_variant_only(pytester: pytest.Pytester,
                                                                   minimal_suite: Path) -> None:
    edit(pytester.path / LEGACY / "test-case.toml", 'changelog = "changelog.md"', 'changelog = "missing.md"')
    result = run(pytester, "-k", "demo and resolve")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*_ demo@v1.0.0 resolve[[]a[]] _*"])
    # Once in the failures (the short summary quotes its item's first problem, uncut under CI).
    reported = [line for line in result.stdout.lines
                if "changelog 'missing.md' does not exist" in line and not line.startswith("FAILED ")]
    assert len(reported) == 1


def test_a_missing_required_key_says_what_to_add(pytester: pytest.Pytester, minimal_suite: Path) -> None:
    edit(pytester.path / LEGACY / "test-case.toml", 'name = "Demo"\n', "")
    edit(pytester.path / LEGACY / "test-case.toml", 'install = "npm ci"\n', "")
    edit(pytester.path / LEGACY / "test-case.toml", 'path = "reference/play.html"', 'path = "reference/paly.html"')
    result = run(pytester, "-k", "demo and resolve")
    lines = result.stdout.lines
    # The missing keys cost no other rule: the reference path is still checked.
    assert ("test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:16: `reference[0].path`: reference mockup "
            "'reference/paly.html' does not exist; expected a file under v1.0.0/") in lines
    where = "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml"
    assert f"{where}: missing required key `name`" in lines
    assert '    Hint: add `name = "..."` at the top of the file, above the first table header' in lines
    assert f"{where}:8: `build`: missing required key `install`" in lines
    assert '    Hint: add `install = "..."` under [build]' in lines


def test_a_wrong_type_in_one_table_leaves_the_other_rules_running(pytester: pytest.Pytester,
                                                                 minimal_suite: Path) -> None:
    manifest = pytester.path / LEGACY / "test-case.toml"
    edit(manifest, 'handle = "__demo"', 'handle = 7')
    edit(manifest, 'path = "reference/play.html"', 'path = "reference/paly.html"')
    result = run(pytester, "-k", "demo and resolve")
    lines = result.stdout.lines
    where = "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml"
    assert f"{where}:14: `instrumentation.handle`: must be a string, not an integer (7)" in lines
    assert (f"{where}:18: `reference[0].path`: reference mockup 'reference/paly.html' does not exist; expected a "
            "file under v1.0.0/") in lines
    assert "    Hint: did you mean 'reference/play.html'?" in lines


def test_an_unknown_key_in_a_definition_keeps_its_templates_and_seeding(pytester: pytest.Pytester,
                                                                      example_suite: Path) -> None:
    definition = pytester.path / "example-suite/versions/v1.0.0/test-cases/full-stack.toml"
    edit(definition, 'max_runtime_hours = 1.5', 'max_runtime_hours = 1.5\nmax_runtime_hour = 2')
    result = run(pytester, "-k", "full-stack", "-rA", suite="example-suite")
    line = line_of(definition, "max_runtime_hour = 2")
    assert (f"example-suite/versions/v1.0.0/test-cases/full-stack.toml:{line}: `max_runtime_hour`: unknown key "
            "`max_runtime_hour`") in result.stdout.lines
    seeds = [line for line in result.stdout.lines if line.startswith("PASSED") and "::seed[" in line]
    assert len(seeds) == 2, result.stdout.str()  # seed[none] and seed[simple-2d]
    assert result.parseoutcomes()["failed"] == 1  # resolve alone
