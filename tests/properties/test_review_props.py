"""Review texts, random or mutated from well-formed ones, never crash the parser: they parse (and
round-trip) or raise the review error."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.review.grammar import ReviewProblems
from pytest_tcab.review.grammar import dump_review
from pytest_tcab.review.grammar import parse_review
from tests.review.test_grammar import GUIDE
from tests.review.test_grammar import PATH
from tests.review.test_grammar import TARGET
from tests.review.test_grammar import WELL_FORMED

FRAGMENTS = ["---", "\n", "\r\n", " ", "\t", "\ufeff", ":", ".", "#", "rating", "review", "build", "single-player",
             "versus", "ball-spin", "stationary", "moving", "obstacle-bank", "pass", "fail", "na", "great",
             "broken", "FLAWLESS", "0123456789abcdef" * 4, "sha256:", "note", "é", "\x00", "`", '"']

texts = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join),
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A well-formed review with a few characters inserted, deleted or replaced."""
    text = draw(st.sampled_from(WELL_FORMED))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        piece = draw(st.sampled_from(FRAGMENTS) | st.text(max_size=3))
        cut = draw(st.integers(0, 3))
        text = text[:at] + piece + text[at + cut:]
    return text


def check(text: str, target: object) -> None:
    try:
        review = parse_review(text, PATH, target)  # type: ignore[arg-type]
    except ReviewProblems as problems:
        assert problems.problems and all(p.line is not None and p.line >= 1 for p in problems.problems)
        return
    assert dump_review(review) == text
    rewritten = dump_review(replace(review, body=review.body + " (edited)"))
    assert parse_review(rewritten, PATH, target).content() == replace(review, body=review.body + " (edited)").content()  # type: ignore[arg-type]


@given(texts, st.booleans())
def test_random_texts_parse_or_raise_the_review_error(text: str, targeted: bool) -> None:
    check(text, TARGET if targeted else None)


@given(mutated(), st.booleans())
def test_mutated_reviews_parse_or_raise_the_review_error(text: str, targeted: bool) -> None:
    check(text, TARGET if targeted else None)


def test_the_mutations_start_from_a_review_that_parses() -> None:
    assert parse_review(GUIDE, PATH, TARGET).ratings
