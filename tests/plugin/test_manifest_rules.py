"""Every rule of spec/manifests.md, broken one at a time in a minimal suite, run as users run it."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules import EXPECTED
from rules import NESTINGS
from rules import RULES
from rules import nested
from suites import write_minimal_suite


@pytest.mark.parametrize("under", NESTINGS.values(), ids=NESTINGS.keys())
@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_is_enforced_with_its_exact_message(pytester: pytest.Pytester, rule: str, under: Path) -> None:
    write_minimal_suite(pytester.path, under)
    for edit in RULES[rule]:
        edit.apply(pytester.path / under)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert nested(EXPECTED[rule], under) in result.stdout.lines
    # A suite author's mistake is a message, never a Python traceback.
    assert "Traceback" not in result.stdout.str()
    assert "site-packages" not in result.stdout.str()


def test_every_rule_has_an_expected_message() -> None:
    assert set(RULES) == set(EXPECTED)


def test_minimal_suite_is_clean(pytester: pytest.Pytester, minimal_suite) -> None:
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=15)  # per case: 2 resolve, slug, 2 template, 2 seed
