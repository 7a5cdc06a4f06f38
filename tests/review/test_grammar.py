"""The review file grammar: every mistake rejected with its line, every well-formed file round-trips."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_tcab.review.grammar import Review
from pytest_tcab.review.grammar import ReviewProblems
from pytest_tcab.review.grammar import ReviewVerdict
from pytest_tcab.review.grammar import dump_review
from pytest_tcab.review.grammar import parse_review

PATH = Path("/reviews/carom-base/ana.md")
DIGEST = "0123456789abcdef" * 4


@dataclass(frozen=True)
class Keys:
    """A run variant's ids, as `ReviewTarget` gives them."""

    verdict_ids: tuple[str, ...] = ("ball-spin.stationary", "ball-spin.moving", "obstacle-bank", "Serve-Reset")
    domain_ids: tuple[str, ...] = ("single-player", "versus")
    split_items: dict[str, tuple[str, ...]] = field(
        default_factory=lambda: {"ball-spin": ("ball-spin.stationary", "ball-spin.moving")})


TARGET = Keys()

GUIDE = """---
rating.single-player: flawless
rating.versus: scuffed
review.ball-spin.stationary: pass
review.ball-spin.moving: pass
review.obstacle-bank: fail ball clips the top obstacle corner
---

Single player feels right. Versus has a serve bug that resets the score, so it's
playable but scuffed.
"""


def test_the_public_guides_example_parses() -> None:
    review = parse_review(GUIDE, PATH, TARGET)
    assert review.reviewer == "ana"
    assert review.build is None
    assert review.ratings == {"single-player": "flawless", "versus": "scuffed"}
    assert review.verdicts == {
        "ball-spin.stationary": ReviewVerdict(True), "ball-spin.moving": ReviewVerdict(True),
        "obstacle-bank": ReviewVerdict(False, "ball clips the top obstacle corner")}
    assert review.body.startswith("Single player feels right.") and review.body.endswith("but scuffed.")
    assert review.lines == {"rating.single-player": 2, "rating.versus": 3, "review.ball-spin.stationary": 4,
                            "review.ball-spin.moving": 5, "review.obstacle-bank": 6}


def test_tokens_are_case_and_whitespace_insensitive_and_ids_take_the_targets_spelling() -> None:
    text = ("\ufeff\n\n  \n   ---  \n Rating . Single-Player :   FLAWLESS \nBUILD: SHA256:" + DIGEST.upper()
            + "\n\treview.serve-reset :\tFail\t  the serve   resets\n---\nBody.\n")
    review = parse_review(text, PATH, TARGET)
    assert review.ratings == {"single-player": "flawless"}
    assert review.build == DIGEST
    assert review.verdicts == {"Serve-Reset": ReviewVerdict(False, "the serve resets")}
    assert review.lines["review.Serve-Reset"] == 7
    assert dump_review(review) == text


def test_comments_and_blank_lines_in_the_frontmatter_are_allowed() -> None:
    review = parse_review("---\n# the first pass\n\nrating.versus: great\n---\nok\n", PATH, TARGET)
    assert review.ratings == {"versus": "great"}


# One mistake each: (what, text, the line named, words the message says).
MALFORMED = [
    ("empty file", "", 1, "the review is empty"),
    ("only blank lines", "\n  \n\n", 1, "the review is empty"),
    ("no frontmatter", "rating.versus: great\n\nbody\n", 1, "missing frontmatter"),
    ("prose before the fence", "\n\nHello\n---\nrating.versus: great\n---\nbody\n", 3, "missing frontmatter"),
    ("unterminated frontmatter", "---\nrating.versus: great\nbody\n", 1, "unterminated frontmatter"),
    ("empty body", "---\nrating.versus: great\n---\n", 3, "the body is empty"),
    ("blank body", "---\nrating.versus: great\n---\n\n  \n\t\n", 3, "the body is empty"),
    ("tier off the scale", "---\nrating.versus: superb\n---\nbody\n", 2, "`superb` is not a tier"),
    ("misspelt tier", "---\nrating.versus: scufed\n---\nbody\n", 2, "did you mean 'scuffed'"),
    ("no tier", "---\nrating.versus:\n---\nbody\n", 2, "gives no tier"),
    ("numeric tier", "---\nrating.versus: 4\n---\nbody\n", 2, "`4` is not a tier"),
    ("unknown domain", "---\nrating.verus: great\n---\nbody\n", 2, "did you mean 'versus'"),
    ("rating naming no domain", "---\nrating.: great\n---\nbody\n", 2, "names no domain"),
    ("na verdict", "---\nreview.obstacle-bank: na\n---\nbody\n", 2, "there is no \"not applicable\""),
    ("n/a verdict", "---\nreview.obstacle-bank: N/A\n---\nbody\n", 2, "verdicts are binary"),
    ("partial verdict", "---\nreview.obstacle-bank: partial half of it works\n---\nbody\n", 2,
     "`partial` is not a verdict"),
    ("passed, not pass", "---\nreview.obstacle-bank: passed\n---\nbody\n", 2, "`passed` is not a verdict"),
    ("no verdict", "---\nreview.obstacle-bank:\n---\nbody\n", 2, "gives no verdict"),
    ("unknown verdict id", "---\nreview.obstacle-bonk: pass\n---\nbody\n", 2, "did you mean 'obstacle-bank'"),
    ("an item with sub-items", "---\nreview.ball-spin: pass\n---\nbody\n", 2, "`review.ball-spin.stationary`"),
    ("review naming no id", "---\nreview.: pass\n---\nbody\n", 2, "names no verdict id"),
    ("duplicate rating", "---\nrating.versus: great\nrating.Versus : broken\n---\nbody\n", 3, "already given on line 2"),
    ("duplicate verdict", "---\nreview.obstacle-bank: pass\n\nreview.obstacle-bank: fail x\n---\nbody\n", 4,
     "duplicate line"),
    ("duplicate build", f"---\nbuild: {DIGEST}\nbuild: {DIGEST}\n---\nbody\n", 3, "duplicate line"),
    ("unknown key", "---\nreviewer: ana\n---\nbody\n", 2, "unknown key `reviewer`"),
    ("misspelt prefix", "---\nratings.versus: great\n---\nbody\n", 2, "did you mean `rating.versus`"),
    ("not a key: value line", "---\nrating.versus great\n---\nbody\n", 2, "not a `key: value` line"),
    ("a key with no name", "---\n: great\n---\nbody\n", 2, "not a `key: value` line"),
    ("short build digest", "---\nbuild: 1234abcd\n---\nbody\n", 2, "is not a build digest"),
    ("build digest not hex", "---\nbuild: " + "z" * 64 + "\n---\nbody\n", 2, "is not a build digest"),
]


@pytest.mark.parametrize(("text", "line", "words"), [case[1:] for case in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_every_mistake_is_rejected_with_its_line(text: str, line: int, words: str) -> None:
    with pytest.raises(ReviewProblems) as raised:
        parse_review(text, PATH, TARGET)
    problems = raised.value.problems
    assert len(problems) == 1, str(raised.value)
    assert problems[0].line == line
    assert problems[0].path == PATH
    shown = str(raised.value)
    assert shown.startswith(f"{PATH}:{line}: ")
    assert words in shown
    assert problems[0].hint, "every problem says what would be right"


def test_there_are_at_least_twenty_distinct_mistakes() -> None:
    assert len({case[1] for case in MALFORMED}) >= 20


def test_every_problem_of_a_file_is_reported_at_once() -> None:
    text = "---\nrating.versus: superb\nreview.nope: pass\nreview.obstacle-bank: na\nwhat\n---\n"
    with pytest.raises(ReviewProblems) as raised:
        parse_review(text, PATH, TARGET)
    assert [p.line for p in raised.value.problems] == [2, 3, 4, 5, 6]
    assert str(raised.value).startswith("5 problems:")


def test_without_a_target_ids_and_domains_are_not_checked_only_lowercased() -> None:
    review = parse_review("---\nrating.Anything: great\nreview.Any.Thing: pass\n---\nbody\n", PATH)
    assert review.ratings == {"anything": "great"} and set(review.verdicts) == {"any.thing"}


WELL_FORMED = [
    GUIDE,
    GUIDE.replace("\n", "\r\n"),
    "\ufeff" + GUIDE,
    "\n\n" + GUIDE + "\n\n\n",
    f"---\nbuild: {DIGEST}\nrating.versus: broken\n---\n\n# Heading\n\n- a list\n\n---\n\nmore prose after a rule\n",
    "---\n  REVIEW.OBSTACLE-BANK :  FAIL   odd   spacing  \nrating.versus:Great\n---\nbody without a newline",
    "---\n# comment\nrating.versus: passable\n\n---\nÜnïcödé prose ✓\n",
]


@pytest.mark.parametrize("text", WELL_FORMED)
def test_a_parsed_file_dumps_back_byte_for_byte(text: str) -> None:
    assert dump_review(parse_review(text, PATH, TARGET)) == text


@pytest.mark.parametrize("text", WELL_FORMED)
def test_an_edited_review_is_written_canonically_and_parses_to_what_it_says(text: str) -> None:
    review = parse_review(text, PATH, TARGET)
    edited = replace(review, ratings={**review.ratings, "versus": "great"}, body=review.body + "\nMore.")
    written = dump_review(edited)
    assert written != text
    assert written.startswith("---\n") and "\r" not in written
    assert parse_review(written, PATH, TARGET).content() == edited.content()


def test_a_new_review_is_written_canonically() -> None:
    review = Review(reviewer="ana", build=DIGEST, ratings={"versus": "great", "single-player": "flawless"},
                    verdicts={"obstacle-bank": ReviewVerdict(False, "clips the\ncorner  twice"),
                              "ball-spin.moving": ReviewVerdict(True)},
                    body="\n  Plays well.\n")
    assert dump_review(review) == (
        f"---\nbuild: {DIGEST}\nrating.versus: great\nrating.single-player: flawless\n"
        "review.obstacle-bank: fail clips the corner twice\nreview.ball-spin.moving: pass\n---\n\nPlays well.\n")
