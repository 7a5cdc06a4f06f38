"""The issue's done-when, end to end on the example's produced Carom run (`runs/carom-base`):
a hand-written review turns the points left for the reviewer into a complete score and an overall
rating in results.json, the summary and report.html; a second reviewer makes the score their mean
and the rating the worse; a review of a build that changed since counts nowhere, and the gate
says so. A review the build ships in its own folder is ignored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree
from typing import Any

import pytest

from pytest_tcab.review.grammar import parse_review
from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.material import material_digest
from tests.conftest import EXAMPLE_SUITE
from tests.conftest import copy_example_suite
from tests.validation import Session
from tests.validation import lines
from tests.validation import run_session

pytestmark = [pytest.mark.browser, pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)]

RUN = "example-suite/runs/carom-base"
REVIEWS = EXAMPLE_SUITE / "reviews" / "carom-base"
SHIPPED = """---
rating.single-player: flawless
review.spin.decay: pass
review.scoring.display: pass
review.spin.stationary: pass the validator is wrong
---

Flawless, says the build itself.
"""


def project_with_reviews(root: Path, *reviewers: str) -> Path:
    """The example suite and a reviews folder holding the example's reviews by `reviewers`."""
    copy_example_suite(root)
    folder = root / "reviews" / "carom-base"
    folder.mkdir(parents=True)
    for reviewer in reviewers:
        shutil.copy(REVIEWS / f"{reviewer}.md", folder / f"{reviewer}.md")
    return root


@pytest.fixture(scope="module")
def one_review(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """ana's review alone, with the gate asked for."""
    project = project_with_reviews(tmp_path_factory.mktemp("reviewed"), "ana")
    return run_session(project, "--tcab-suite=example-suite", f"--tcab-run={RUN}", "--tcab-reviews=reviews",
                       "--tcab-require-review", "-rA", "--junitxml=junit.xml")


def review_of(session: Session, folder: str = "out") -> dict[str, Any]:
    (run,) = json.loads((session.path / folder / "results.json").read_text(encoding="utf-8"))["runs"]
    return dict(run["review"])


def test_the_example_review_names_the_build_graded_here(tmp_path: Path) -> None:
    """ana's review is pinned: if the example run changes, its `build:` line must be written anew."""
    ana = parse_review((REVIEWS / "ana.md").read_text(encoding="utf-8"), REVIEWS / "ana.md")
    copy_example_suite(tmp_path)
    assert ana.build == material_digest(tmp_path / RUN), (
        "example-suite/runs/carom-base changed: give example-suite/reviews/carom-base/ana.md its new build digest")


def test_one_review_completes_the_score_and_rates_the_run(one_review: Session) -> None:
    review = review_of(one_review)
    assert review["build"] == material_digest(one_review.path / RUN)
    assert (review["score"], review["rating"], review["reviewed"], review["complete"]) == (
        {"earned": 5.0, "available": 6.0, "value": 0.833333}, "great", 1, True)
    (ana,) = review["reviews"]
    assert (ana["reviewer"], ana["file"], ana["pinned"], ana["stale"], ana["complete"]) == (
        "ana", "reviews/carom-base/ana.md", True, False, True)
    assert {key: value["by"] for key, value in ana["verdicts"].items()} == {
        "spin.stationary": "validator", "spin.moving": "validator", "spin.decay": "reviewer",
        "scoring.point": "validator", "scoring.display": "reviewer"}
    one_review.result.stdout.fnmatch_lines(lines(
        "  score: 3 of 4 automated points earned (1 failed); 6 declared, 2 left for the reviewer",
        "  reviewed score: 5 of 6 points (83%), rating: great (the score and rating of 1 complete, current review)",
        "  review ana: 5 of 6, overall great",
    ))
    report = (one_review.path / "out/report.html").read_text(encoding="utf-8")
    assert "reviewed score <b>5</b> of <b>6</b> points (83%) · rating <b>great</b>" in report


def test_junit_carries_the_automated_and_the_reviewed_score(one_review: Session) -> None:
    suite = ElementTree.parse(one_review.path / "junit.xml").getroot().find("testsuite/properties")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert {key: properties.get(key) for key in ("tcab.score", "tcab.reviewed_score", "tcab.rating")} == {
        "tcab.score": "3/4", "tcab.reviewed_score": "5/6", "tcab.rating": "great"}


def test_the_gate_passes_with_a_complete_current_review_as_an_item_of_its_own(one_review: Session) -> None:
    one_review.result.assert_outcomes(passed=7, failed=1, skipped=1)
    one_review.result.stdout.fnmatch_lines(lines(f"PASSED {RUN}/.tcab/run.toml::review"))
    (run,) = json.loads((one_review.path / "out/results.json").read_text(encoding="utf-8"))["runs"]
    gate = next(item for item in run["items"] if item["kind"] == "review")
    assert (gate["outcome"], gate["rating"], gate["reviewed_score"]) == ("passed", "great", 0.833333)


def test_a_second_reviewer_makes_the_score_their_mean_and_the_rating_the_worse(one_review: Session) -> None:
    """Re-folded by `--tcab-merge` over the graded results: merged results carry reviews too."""
    shutil.copy(REVIEWS / "bo.md", one_review.path / "reviews/carom-base/bo.md")
    try:
        merged = run_session(one_review.path, "--tcab-suite=example-suite", "--tcab-merge=out",
                             "--tcab-out=merged", "--tcab-reviews=reviews")
    finally:
        (one_review.path / "reviews/carom-base/bo.md").unlink()
    assert merged.result.ret == pytest.ExitCode.OK, merged.result.stdout.str()
    review = review_of(merged, "merged")
    assert (review["score"], review["rating"], review["reviewed"]) == (
        {"earned": 4.5, "available": 6.0, "value": 0.75}, "scuffed", 2)
    assert [(e["reviewer"], e["overall"], e["score"]["earned"]) for e in review["reviews"]] == [
        ("ana", "great", 5.0), ("bo", "scuffed", 4.0)]
    merged.result.stdout.fnmatch_lines(lines(
        "  reviewed score: 4.5 of 6 points (75%), rating: scuffed (the mean and worst of 2 complete, current reviews)",
        "  review ana: 5 of 6, overall great",
        "  review bo: 4 of 6, overall scuffed (unpinned)",
    ))
    report = (merged.path / "merged/report.html").read_text(encoding="utf-8")
    assert "reviewed score <b>4.5</b> of <b>6</b> points (75%) · rating <b>scuffed</b>" in report


@pytest.fixture(scope="module")
def changed_build(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """The run changed after ana reviewed it (a file added, and a review of its own it ships where
    a rootdir's default reviews folder would be), graded with the gate."""
    project = project_with_reviews(tmp_path_factory.mktemp("changed"), "ana")
    (project / RUN / "src" / "later.js").write_text("// written after the review\n", encoding="utf-8")
    shipped = project / RUN / ".tcab/reviews/carom-base/build.md"
    shipped.parent.mkdir(parents=True)
    shipped.write_text(SHIPPED, encoding="utf-8")
    return run_session(project, "--tcab-suite=example-suite", f"--tcab-run={RUN}", "--tcab-reviews=reviews",
                       "--tcab-require-review")


def test_a_review_of_a_build_that_changed_is_kept_stale_and_counts_nowhere(changed_build: Session) -> None:
    review = review_of(changed_build)
    (ana,) = review["reviews"]
    assert (ana["pinned"], ana["stale"], ana["complete"]) == (True, True, True)
    assert ana["build"] != review["build"]
    assert (review["score"], review["rating"], review["reviewed"], review["complete"]) == (None, None, 0, False)
    changed_build.result.stdout.fnmatch_lines(lines(
        "  reviewed score: none yet, no complete and current review (1 found under reviews/carom-base)",
        "  review ana: stale (the build changed since), counts nowhere",
    ))
    assert "<b>not reviewed yet</b>" in (changed_build.path / "out/report.html").read_text(encoding="utf-8")


def test_the_gate_fails_a_run_whose_only_review_is_stale_saying_so(changed_build: Session) -> None:
    changed_build.result.assert_outcomes(passed=6, failed=2, skipped=1)
    (run,) = json.loads((changed_build.path / "out/results.json").read_text(encoding="utf-8"))["runs"]
    gate = next(item for item in run["items"] if item["kind"] == "review")
    assert gate["outcome"] == "failed"
    assert gate["message"].startswith("no complete, current review of carom-base (--tcab-require-review)")
    assert f"- ana (reviews/carom-base/ana.md) is stale: it reviewed build {review_of(changed_build)['reviews'][0]['build'][:12]}" \
        in gate["message"]


def test_a_review_shipped_inside_the_run_folder_is_ignored_and_said_to_be(changed_build: Session) -> None:
    review = review_of(changed_build)
    assert [entry["reviewer"] for entry in review["reviews"]] == ["ana"]
    shipped = changed_build.path / RUN / ".tcab/reviews/carom-base/build.md"
    assert review["ignored"] == [f"{shipped}: ignored: it lies inside the produced run folder "
                                 f"{changed_build.path / RUN}: a build must not ship its own review"]
    changed_build.result.stdout.fnmatch_lines(["*- tcab reviews -*", f"{shipped}: ignored: it lies inside the "
                                               "produced run folder*"])


