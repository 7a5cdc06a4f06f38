"""`--tcab-reference`: each variant's reference implementation, built and validated as a run.

The suite tests its own drivers: every Carom v2 driver must pass against both variants'
reference implementations, with checks and results kept per reference run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from tests.conftest import copy_example_suite
from tests.validation import Session
from tests.validation import gauge_project
from tests.validation import lines
from tests.validation import run_session

if find_chromium(None) is None:
    pytest.skip(NO_BROWSER_REASON, allow_module_level=True)

pytestmark = pytest.mark.browser

CAROM = Path("example-suite/test-cases/end-to-end/medium/carom/v2.0.0")
BASE = "reference-pong-v2.0.0-base"
FRENZY = "reference-pong-v2.0.0-frenzy"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """`pytest --tcab-suite=example-suite --tcab-reference -k reference`, run once for the module."""
    project = tmp_path_factory.mktemp("reference")
    copy_example_suite(project)
    return run_session(project, "--tcab-suite=example-suite", "--tcab-reference", "-k", "reference", "-v")


def test_every_carom_driver_passes_on_both_reference_implementations(example: Session) -> None:
    example.result.assert_outcomes(passed=13)
    manifest = f"{CAROM}/test-case.toml"
    example.result.stdout.fnmatch_lines(lines(*(
        f"{manifest}::reference-{variant}::validate[{verdict}] PASSED*"
        for variant, verdicts in (("base", ("spin.stationary", "spin.moving", "scoring.point")),
                                  ("frenzy", ("spin.stationary", "spin.moving", "scoring.point",
                                              "frenzy.escalation")))
        for verdict in verdicts
    )))


def test_checks_and_drivers_run_against_the_reference_build(example: Session) -> None:
    for label, verdicts in ((BASE, 3), (FRENZY, 4)):
        run = example.run(label)
        assert run["source"] == str(example.path / CAROM / f"reference-impl/{run['variant']}")
        assert {item["kind"] for item in run["items"]} == {"build", "check", "validate"}  # no proofs asked
        assert run["counts"] == {"passed": 3 + verdicts}
        assert all(item["verdict"] is True for item in example.items(label=label).values())


def test_each_reference_run_keeps_its_own_score_and_errata(example: Session) -> None:
    base, frenzy = example.run(BASE)["score"], example.run(FRENZY)["score"]
    # The automated score counts the points a validator decided; every declared point needs a review.
    assert (base["earned"], base["available"], base["declared"], base["pending_weight"]) == (4, 4, 6, 2)
    assert (frenzy["earned"], frenzy["available"], frenzy["declared"], frenzy["pending_weight"]) == (5, 5, 7, 2)
    assert (base["excluded"], frenzy["excluded"]) == ([], ["scoring.rally-reset"])
    assert [e["id"] for e in example.run(BASE)["errata"]] == ["decay-timing"]
    assert [e["id"] for e in example.run(FRENZY)["errata"]] == ["decay-timing", "rally-reset-ambiguous"]
    example.result.stdout.fnmatch_lines([
        f"pong@v2.0.0#base ({BASE}): 6 passed",
        "  score: 4 of 4 automated points earned (0 failed); 6 declared, 2 left for the reviewer",
        f"pong@v2.0.0#frenzy ({FRENZY}): 7 passed",
        "  score: 5 of 5 automated points earned (0 failed); 7 declared, 2 left for the reviewer",
    ])
    escalation = example.items(label=FRENZY)["frenzy.escalation"]
    observed = example.path / "out" / FRENZY / "validation/frenzy.escalation__fast.png"
    assert escalation["media"] == [{"output": "fast", "kind": "image", "path": str(observed),
                                    "baseline": str(observed.parent / "baseline" / observed.name)}]
    committed = example.path / CAROM / "validation-baseline/frenzy" / observed.name
    assert (observed.parent / "baseline" / observed.name).read_bytes() == committed.read_bytes()


def test_a_reference_verdict_left_open_is_a_skip_and_a_false_one_fails(pytester: pytest.Pytester) -> None:
    """Null decides nothing, even against the reference: a skip with its reason (a failure under
    --tcab-strict); false is the suite's own driver or reference being wrong, and fails."""
    gauge_project(pytester.path)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-reference", "--tcab-out=out",
                                "-k", "reference and (counts or unmet or doubles)", "-rs")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(lines(
        'verdict "doubles" is false: 1 + 2 read 3, expected 4',
        "SKIPPED [1] *: left for the reviewer: the build has no second dial to compare",
    ))
