"""The publication gate's place among a run's items, and the reviewer's name, as a session sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tcab.review.plugin import missing_message

RUN = "example-suite/runs/carom-base"


def collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest("--tcab-suite=example-suite", f"--tcab-run={RUN}", "--collect-only", "-q", *args)
    return [line for line in result.outlines if "::" in line]


def test_the_gate_adds_one_last_item_and_leaves_every_node_id_as_it_was(
        pytester: pytest.Pytester, example_suite: Path) -> None:
    plain = collected(pytester)
    assert plain and not any(nodeid.endswith("::review") for nodeid in plain)
    for asked in ("--tcab-require-review", "--tcab-strict"):
        assert collected(pytester, asked) == [*plain, f"{RUN}/.tcab/run.toml::review"]


def test_an_unsafe_reviewer_name_is_a_usage_error(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = pytester.runpytest("--tcab-suite=example-suite", f"--tcab-run={RUN}", "--collect-only",
                                "--tcab-reviewer=../../etc/evil")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tcab-reviewer: '../../etc/evil' is not a reviewer name*e.g. 'etc-evil'*"])


def test_with_no_review_the_gate_says_which_points_and_domains_one_must_decide() -> None:
    run = {"run": "carom-base",
           "score": {"items": [{"id": "spin", "units": [{"id": "spin.decay", "automated": "pending"},
                                                        {"id": "spin.moving", "automated": "passed"}]}]},
           "domains": {"set": [{"id": "single-player"}]}}
    review = {"reviews": [], "folder": "reviews/carom-base", "build": "ab" * 32}
    assert missing_message(run, review, "--tcab-require-review").splitlines()[1] == (
        "- no review yet: write reviews/carom-base/<reviewer>.md deciding spin.decay and rating single-player "
        "(see docs/reference/review-file.md)")


def test_an_incomplete_review_is_told_what_it_misses() -> None:
    run = {"run": "carom-base", "score": {"items": []}, "domains": {"set": []}}
    review = {"build": "ab" * 32, "reviews": [
        {"reviewer": "ana", "file": "r/ana.md", "stale": False, "missing": {"verdicts": ["spin.decay"],
                                                                            "domains": ["versus"]},
         "problems": ["r/ana.md:3: `review.spin.moving`: overrides the automated verdict (pass) without a note"]}]}
    assert missing_message(run, review, "--tcab-strict").splitlines()[1:] == [
        "- ana (r/ana.md) gives no verdict for spin.decay",
        "- ana (r/ana.md) rates no versus",
        "- r/ana.md:3: `review.spin.moving`: overrides the automated verdict (pass) without a note",
    ]


def test_the_reviews_folder_is_hidden_from_every_build_step(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """Wherever the operator keeps reviews, a sandboxed step sees an empty folder there."""
    from pytest_tcab.run.sandbox.sandbox import hidden_places

    elsewhere = tmp_path / "srv-reviews"
    elsewhere.mkdir()
    config = pytester.parseconfig(f"--tcab-reviews={elsewhere}")
    config.option.tcab_reviews = str(elsewhere)
    assert elsewhere.resolve() in hidden_places(config)
