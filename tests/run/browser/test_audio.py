"""`audio_sources`: the Web Audio sources Chromium's engine reports, not what the page says.

The page lies first (a fake log under the old log's name, a patched `start`, entries written by
hand); only nodes the engine made are reported, with what the protocol tells of them."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from pytest_tcab.run.browser.audio import audio_sources
from pytest_tcab.run.browser.audio import watch_audio

pytestmark = pytest.mark.browser

TONE = {"type": "OscillatorNode", "offline": False, "connected": True, "running": True}


@pytest.fixture
def watched(page: Page, pages_url: str) -> Page:
    watch_audio(page)
    watch_audio(page)  # idempotent: one watch, each node once
    page.goto(pages_url + "audio.html")
    return page


def test_a_log_the_page_writes_is_not_believed(watched: Page) -> None:
    assert watched.evaluate("() => window.sounds.forge(50)") == 51
    assert watched.evaluate("() => window.__tcabAudio_fake().length") == 1
    assert audio_sources(watched) == []


def test_a_real_tone_is_reported_as_the_engine_made_it(watched: Page) -> None:
    assert watched.evaluate("() => window.sounds.beep(660)") == "running"
    assert audio_sources(watched) == [TONE]  # no frequency: the protocol does not tell it
    watched.evaluate("() => window.sounds.beep(440)")
    assert audio_sources(watched) == [TONE, TONE]
    # The page's own log says three tones (its forged one, then 880 Hz twice, of its choosing).
    assert len(watched.evaluate("() => window.__tcabAudioLog")) == 3


def test_nodes_that_never_reach_a_running_output_say_so(watched: Page) -> None:
    watched.evaluate("() => window.sounds.unwired()")
    watched.evaluate("() => window.sounds.offline()")
    watched.evaluate("() => window.sounds.suspended()")
    assert audio_sources(watched) == [
        {"type": "AudioBufferSourceNode", "offline": False, "connected": False, "running": True},
        {"type": "ConstantSourceNode", "offline": True, "connected": True, "running": False},
        {"type": "OscillatorNode", "offline": False, "connected": True, "running": False},
    ]


def test_a_page_never_watched_and_a_closed_page(page: Page, pages_url: str) -> None:
    page.goto(pages_url + "audio.html")
    page.evaluate("() => window.sounds.beep(660)")
    assert audio_sources(page) == []
    other = page.context.new_page()
    watch_audio(other)
    other.goto(pages_url + "audio.html")
    other.evaluate("() => window.sounds.beep(660)")
    other.close()
    assert audio_sources(other) == [TONE]  # what was seen stays
