"""The review page in Chromium, as a reviewer uses it on the example's carom-base run: the worklist,
the checklist (numbered, lettered, automated verdicts pre-filled in their own colour, evidence side by
side), the domains and errata; a draft saved (it counts nowhere), a mistake refused with a clear
message, then the pending points decided, a validator overridden with a note, the domain rated, and
the file, its history and the recomputed figures found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.review.grammar import parse_review
from tests.review.page.conftest import RUN
from tests.review.page.conftest import copy_results
from tests.review.page.conftest import start_page
from tests.review.page.conftest import stop_page

pytestmark = pytest.mark.browser


def saved(page: Any) -> str:
    """Wait for the answer to a save; its message."""
    page.wait_for_selector("#messages.saved, #messages.errors")
    return str(page.locator("#messages").inner_text())


def figure(page: Any, key: str) -> str:
    return str(page.locator(f'#figures [data-figure="{key}"]').inner_text())


def click(page: Any, selector: str) -> None:
    """Scroll to it, let two frames draw, then click: Chromium routes a click by the hit-test regions of the
    last frame drawn, and the build's frame stood there before the page scrolled."""
    target = page.locator(selector)
    target.scroll_into_view_if_needed()
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    target.click()


def classes(locator: Any) -> list[str]:
    return str(locator.get_attribute("class") or "").split()


def save(page: Any) -> str:
    page.evaluate("document.getElementById('messages').className = ''")
    click(page, "#save")
    return saved(page)


def test_a_reviewer_fills_the_page_saves_a_draft_then_completes_it(graded_carom: Path, tmp_path: Path,
                                                                   context: Any) -> None:
    server = start_page(copy_results(graded_carom, tmp_path / "results"), tmp_path / "reviews")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url)
        first = page.locator("#worklist tbody tr").first
        assert first.get_attribute("data-run") == RUN and first.locator(".state").inner_text() == "not reviewed by you"
        first.locator("a").click()
        page.wait_for_selector("html[data-ready]")

        # The checklist: items numbered, sub-items lettered, each with its weight and text.
        assert page.locator(".item .number").all_inner_texts() == ["1.", "2."]
        spin = page.locator('.item[data-item="spin"]')
        assert spin.locator(".point .letter").all_inner_texts() == ["a.", "b.", "c."]
        assert "4 points" in spin.locator("h3").inner_text()
        assert spin.evaluate("item => item.tagName") == "DETAILS"  # an accordion: the heading folds the points
        click(page, '.item[data-item="spin"] > summary')
        assert not spin.locator(".point").first.is_visible()
        click(page, '.item[data-item="spin"] > summary')
        assert spin.locator(".point").first.is_visible()
        # Automated verdicts pre-filled, in a colour of their own, saying so; the rest asking.
        stationary = page.locator('.point[data-point="spin.stationary"]')
        assert "auto" in classes(stationary)
        assert stationary.locator(".badge").inner_text() == "automated: fail"
        assert page.is_checked('input[name="review.spin.stationary"][value="fail"]')
        decay = page.locator('.point[data-point="spin.decay"]')
        assert "pending" in classes(decay) and decay.locator(".badge").inner_text() == "yours to decide"
        assert not page.is_checked('input[name="review.spin.decay"][value="pass"]')
        colours = {kind: page.locator(f".point.{kind}").first.evaluate("e => getComputedStyle(e).backgroundColor")
                   for kind in ("auto", "pending")}
        assert colours["auto"] != colours["pending"]
        # The reference beside the proof; validation media, expected beside observed, beside their verdict.
        assert decay.locator(".evidence.pair figure").count() == 2
        assert decay.locator("figcaption").all_inner_texts() == ["reference: gameplay", "proof: gameplay"]
        assert stationary.locator(".evidence.validation figcaption").all_inner_texts() == [
            "expected (the reference implementation)", "observed (this build)"]
        clip = stationary.locator(".evidence.validation video").first
        page.wait_for_function("v => v.readyState >= 1", arg=clip.element_handle())
        # Domains with their tiers, the errata that apply, the build in its sandboxed frame.
        assert page.locator('input[name="rating.single-player"]').count() == 5
        assert "Solo play against the AI opponent." in page.locator("#domains").inner_text()
        assert "Spin decay window is loosely worded" in page.locator("#errata").inner_text()
        frame = page.locator("#build-frame")
        assert frame.get_attribute("sandbox") == "allow-scripts"
        assert page.frame_locator("#build-frame").locator("canvas#game").count() == 1  # the build plays
        missing = page.locator("#missing").inner_text()
        assert "review.spin.decay" in missing and "rating.single-player" in missing and "body" in missing

        # A draft: one point decided, a body; it is saved, and counts nowhere.
        click(page, 'input[name="review.spin.decay"][value="pass"]')
        page.fill('textarea[name="body"]', "Draft: one rally played so far.")
        assert save(page).startswith("Saved (first review")
        assert figure(page, "mine-state") == "a draft: counts nowhere until complete"
        assert figure(page, "run-score").startswith("none, from 0 complete review(s) of 1")
        draft = server.review_file().read_text()
        assert "review.spin.decay: pass" in draft and "rating." not in draft
        assert [revision["note"] for revision in server.history()] == ["first review"]

        # A mistake: overriding the validator without a note is refused, saying which field; nothing is written.
        click(page, 'input[name="review.spin.stationary"][value="pass"]')
        assert "overridden" in classes(stationary)
        message = save(page)
        assert "`review.spin.stationary`: you changed its validator's fail to pass; an override needs a note" in message
        assert "Traceback" not in message
        assert server.review_file().read_text() == draft

        # Complete: the note given, the pending points decided, the domain rated (the overall shown live).
        page.fill('input[name="note.spin.stationary"]', "the return drifts with the serve angle, not with spin")
        click(page, 'input[name="review.scoring.display"][value="pass"]')
        click(page, 'input[name="rating.single-player"][value="great"]')
        assert page.locator("#overall").inner_text() == "Overall: great (the worst of the domains' ratings)."
        page.fill('textarea[name="body"]', "Played a full match against the AI: spin, decay and scoring all read right.")
        page.fill('input[name="revision"]', "complete after a full match")
        assert "Complete: every point has a verdict" in page.locator("#missing").inner_text()
        assert save(page).startswith("Saved (revised: complete after a full match)")
        assert figure(page, "mine-state") == "complete"
        assert figure(page, "mine-overall") == "great"
        assert "spin.stationary: fail → pass" in figure(page, "mine-overrides")
        assert "from 1 complete review(s) of 1" in figure(page, "run-score")
        assert figure(page, "run-rating") == "great"

        # The file, whole, as the grammar reads it; its history; the page opens it again as saved.
        review = parse_review(server.review_file().read_text(), server.review_file())
        assert review.ratings == {"single-player": "great"}
        assert {key: (v.outcome, v.note) for key, v in review.verdicts.items()} == {
            "spin.stationary": ("pass", "the return drifts with the serve angle, not with spin"),
            "spin.decay": ("pass", None), "scoring.display": ("pass", None)}  # automated points kept: no line
        history = server.history()
        assert [revision["note"] for revision in history] == ["first review", "complete after a full match"]
        assert set(history[1]["verdicts"]) == {"spin.stationary", "scoring.display"}
        assert history[1]["ratings"] == {"single-player": [None, "great"]}
        page.reload()
        page.wait_for_selector("html[data-ready]")
        assert page.is_checked('input[name="review.spin.stationary"][value="pass"]')
        assert page.input_value('input[name="note.spin.stationary"]').startswith("the return drifts")
        page.goto(server.url)
        assert page.locator(f'#worklist tr[data-run="{RUN}"] .state').inner_text() == "reviewed by you"

        # A hand edit gone wrong: the page names the file's line and what is wrong; a save from the page mends it.
        server.review_file().write_text(server.review_file().read_text().replace(": great", ": superb"))
        page.goto(f"{server.url}run/{RUN}")
        page.wait_for_selector("html[data-ready]")
        problems = page.locator("ul.problems").inner_text()
        assert "ana.md:" in problems and "`superb` is not a tier" in problems
        assert not page.is_checked('input[name="review.spin.decay"][value="pass"]')  # a file that does not parse: anew
        for point in ("spin.decay", "scoring.display"):
            click(page, f'input[name="review.{point}"][value="pass"]')
        click(page, 'input[name="rating.single-player"][value="scuffed"]')
        page.fill('textarea[name="body"]', "Rated again: the drift spoils long rallies.")
        page.fill('input[name="revision"]', "mend the rating")
        assert save(page).startswith("Saved (")
        assert figure(page, "mine-state") == "complete" and figure(page, "run-rating") == "scuffed"
        assert "superb" not in server.review_file().read_text()
        assert errors == []
    finally:
        stop_page(server)
