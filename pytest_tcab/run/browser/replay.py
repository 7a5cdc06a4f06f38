"""Replays: the `[replay] renderer` page fed a match's replay log, and a clip of it playing.

A renderer is one self-contained HTML page (its script inline). The harness writes a player
page per match: the renderer with the log injected before anything else runs, as
`window.TCAB_REPLAY` (players, timestep_ms, frames, result), and `window.TCAB_REPLAY_SPEED`
(1 for real time). The page plays the frames and sets `window.TCAB_REPLAY_DONE = true` at the
end. The player works opened from disk (report.html frames it) and served (the clip).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from pytest_tcab.errors import TcabError

if TYPE_CHECKING:
    from playwright.sync_api import Page

CLIP_SECONDS = 20.0
"""The longest a clip plays: a longer match is played faster (the log's speed is raised)."""

_HEAD = re.compile(r"<head[^>]*>", re.IGNORECASE)


class ReplayFailed(TcabError):
    """The renderer page could not play the replay."""


def player_page(renderer_html: str, log: dict[str, Any], speed: float = 1.0) -> str:
    """The renderer with the replay log injected at the top of its head (or of the page)."""
    # `</` inside a script's JSON would end the script early; `<\/` is the same JSON string.
    data = json.dumps(log, separators=(",", ":")).replace("</", "<\\/")
    script = (f"<script>window.TCAB_REPLAY = {data};\nwindow.TCAB_REPLAY_SPEED = {speed:g};\n"
              'addEventListener("error", (event) => { window.TCAB_REPLAY_ERROR = String(event.message); });</script>')
    head = _HEAD.search(renderer_html)
    if head is None:
        return script + "\n" + renderer_html
    return renderer_html[: head.end()] + script + renderer_html[head.end():]


def write_player(renderer: Path, log: dict[str, Any], dest: Path, speed: float = 1.0) -> Path:
    """Write the player page of one match beside its replay log."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(player_page(renderer.read_text(encoding="utf-8"), log, speed), encoding="utf-8")
    return dest


def clip_speed(log: dict[str, Any]) -> float:
    """How much faster than real time the clip plays, so it lasts at most `CLIP_SECONDS`."""
    seconds = len(log["frames"]) * float(log["timestep_ms"]) / 1000.0
    return max(1.0, seconds / CLIP_SECONDS)


def record_clip(page: Page, url: str, dest: Path, timeout_s: float) -> Path:
    """Open the player page at `url` in `page`, film it until `TCAB_REPLAY_DONE`, and encode the clip to `dest`.

    Filmed from Chromium's screencast, as validation scripts' clips are; ffmpeg encodes it.
    """
    from playwright.sync_api import Error

    from pytest_tcab.run.browser.discovery import NO_FFMPEG_REASON
    from pytest_tcab.run.browser.driving import ClipRecorder

    if shutil.which("ffmpeg") is None:
        raise ReplayFailed(NO_FFMPEG_REASON)
    clip = ClipRecorder(page, dest)
    try:
        page.goto(url)
        clip.start()
        page.wait_for_function("window.TCAB_REPLAY_DONE === true || window.TCAB_REPLAY_ERROR !== undefined",
                               timeout=timeout_s * 1000)
        thrown = page.evaluate("window.TCAB_REPLAY_ERROR")
    except Error as error:
        raise ReplayFailed(f"the renderer did not finish playing the replay within {timeout_s:g} s "
                           f"(it sets window.TCAB_REPLAY_DONE = true at the end): "
                           f"{error.message.splitlines()[0]}") from None
    if thrown is not None:
        raise ReplayFailed(f"the renderer threw while playing the replay: {thrown}")
    saved = clip.save()
    if saved is None:
        raise ReplayFailed("the player page painted nothing to film")
    return saved
