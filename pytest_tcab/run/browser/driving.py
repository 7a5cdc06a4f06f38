"""Driving a served build in a Playwright page: loading it, `[[check]]` actions, bounded calls, clips.

Validation scripts run in the judge runtime (`run/judge/`), outside the page; what they do to the
page goes through `call_handle`, `evaluate_within` and `ClipRecorder` here. Every call into a page
is bounded in Python: a page whose script never yields cannot hold the session."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import urlsplit

from pytest_tcab.bounded import TEXT_LIMIT
from pytest_tcab.bounded import append_bounded
from pytest_tcab.bounded import bound
from pytest_tcab.errors import TcabError
from pytest_tcab.models.check import Action
from pytest_tcab.models.check import Call
from pytest_tcab.models.check import Click
from pytest_tcab.models.check import Hold
from pytest_tcab.models.check import Key
from pytest_tcab.models.check import Wait

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import CDPSession
    from playwright.sync_api import ConsoleMessage
    from playwright.sync_api import Error
    from playwright.sync_api import Page

ANSWER_LIMIT = TEXT_LIMIT
"""The most JSON text one handle call may answer (64 KiB); more is refused, never truncated."""

# One handle call, and with `then` a second of no arguments (`until` steps, then reads the
# snapshot: one crossing). Its answer is a JSON text the page cuts at `limit`, or what went wrong.
_HANDLE_CALL = """async ([handle, op, args, then, limit]) => {
  const target = window[handle];
  if (target === undefined || target === null) return { missing: String(target) };
  const run = async (name, input) => {
    if (typeof target[name] !== "function") return { notFunction: typeof target[name], op: name };
    try {
      return { value: await target[name](...input) };
    } catch (thrown) {
      return { threw: thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown), op: name };
    }
  };
  let outcome = await run(op, args);
  if (then !== null && "value" in outcome) outcome = await run(then, []);
  if (!("value" in outcome)) return outcome;
  let text;
  try {
    text = JSON.stringify(outcome.value);
  } catch (thrown) {
    return { refused: `a value JSON cannot hold (${String(thrown)})` };
  }
  if (text === undefined) return { undefined: true };
  if (typeof text !== "string" || text.length > limit) return { refused: `more than ${limit} characters of JSON` };
  return { json: text };
}"""

_KEYS = {"missing", "notFunction", "op", "threw", "refused", "undefined", "json"}


class PageTimeout(Exception):
    """A page call outlived the run's deadline: the page is unusable and gets closed."""


def evaluate_within(page: Page, expression: str, arg: Any, timeout_s: float) -> Any:
    """`page.evaluate` of the function `expression` on `arg`, bounded outside the page: a page
    whose script never yields or never settles cannot hang the session.

    `page.evaluate` has no timeout. `wait_for_function` has one, kept by Playwright's driver
    rather than in the page's realm (which the page may rewrite), and it settles with what the
    function's promise settles to. The answer comes back as one JSON text, a value the driver
    hands over without calling into the page again: a page that spins right after answering
    cannot hold it. None when the answer is not JSON of one value (the page rewrote `JSON`).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    if timeout_s <= 0:
        raise PageTimeout
    as_json = f"async (arg) => JSON.stringify([await ({expression})(arg)])"
    try:
        answer = page.wait_for_function(as_json, arg=arg, timeout=max(1.0, timeout_s * 1000))
    except PlaywrightTimeout:
        raise PageTimeout from None
    text = answer.json_value()
    answer.dispose()
    try:
        decoded = json.loads(text) if isinstance(text, str) and len(text) <= _EVALUATED_LIMIT else None
    except (ValueError, RecursionError):
        return None
    return decoded[0] if isinstance(decoded, list) and len(decoded) == 1 else None


_EVALUATED_LIMIT = 8 * ANSWER_LIMIT
"""The most JSON text any page call may answer: a handle call's JSON inside its answer, escaped."""


def call_handle(page: Page, handle: str, op: str, args: list[Any], timeout_s: float,
                then: str | None = None) -> dict[str, Any]:
    """One call of `window[handle][op](...args)` (then of `then()`), bounded by `timeout_s`.

    The answer is the page's: ``{"json": text}`` (at most ANSWER_LIMIT characters), ``{"undefined":
    True}``, or what went wrong (``missing``, ``notFunction``, ``threw``, ``refused``, with ``op``);
    anything off that shape is refused. Raises PageTimeout past `timeout_s`.
    """
    return _answer(evaluate_within(page, _HANDLE_CALL, [handle, op, args, then, ANSWER_LIMIT], timeout_s))


def _answer(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict) or not raw.keys() <= _KEYS:
        return {"refused": "an answer outside the harness's shape"}
    answer: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "undefined":
            answer[key] = value is True
        elif not isinstance(value, str):
            return {"refused": "an answer outside the harness's shape"}
        elif key == "json":
            if len(value.encode()) > 4 * ANSWER_LIMIT or len(value) > ANSWER_LIMIT:
                return {"refused": f"more than {ANSWER_LIMIT} characters of JSON"}
            answer[key] = value
        else:
            answer[key] = bound(value, 2000)
    return answer


class DriveError(TcabError):
    """The build could not be driven: it threw, answered an error, or lacks what an action needs."""

    def __init__(self, message: str, action_index: int | None = None) -> None:
        super().__init__(message)
        self.action_index = action_index
        """The failing action's index in ``actions`` (to locate its TOML line), if an action failed."""


@dataclass
class PageLog:
    """What the page reported since it was loaded; it keeps listening while the item drives it."""

    page_errors: list[str] = field(default_factory=list)
    """Uncaught exceptions, as ``Name: message (at file:line:col)``."""
    console_errors: list[str] = field(default_factory=list)
    """``console.error`` messages and failed resource loads, as the console shows them."""


def load(page: Page, url: str, timeout_ms: float) -> PageLog:
    """Navigate to the build and raise DriveError when it cannot be loaded cleanly.

    A page that throws before its ``load`` event, or answers anything but 200, can't be
    validated. The returned log keeps collecting, so an item can also fail on later errors.
    """
    from playwright.sync_api import Error

    log = PageLog()
    page.on("pageerror", lambda error: append_bounded(log.page_errors, _page_error_text(error, url)))
    page.on("console", lambda message: _log_console_error(log, message))
    try:
        response = page.goto(url, wait_until="load", timeout=timeout_ms)
    except Error as error:
        raise DriveError(f"could not load {url}: {_first_line(error)}") from None
    if response is None:
        raise DriveError(f"loading {url} produced no response")
    if response.status != 200:
        raise DriveError(f"the page answered HTTP {response.status} {response.status_text} for {url}")
    if log.page_errors:
        raise DriveError(f"the page threw while loading: {log.page_errors[0]}")
    return log


def _page_error_text(error: Error, url: str) -> str:
    text = f"{error.name}: {error.message}" if error.name else error.message
    origin = _origin(url)
    for line in (error.stack or "").splitlines():
        if line.strip().startswith("at "):
            frame = line.strip().removeprefix("at ").replace(origin, "")
            return f"{text} ({frame})" if frame.startswith("/") else f"{text} (at {frame})"
    return text


def _log_console_error(log: PageLog, message: ConsoleMessage) -> None:
    if message.type == "error":
        append_bounded(log.console_errors, message.text)


def perform(page: Page, actions: Sequence[Action], handle: str | None, timeout_ms: float) -> None:
    """Run a check's actions in order; the first that fails raises DriveError naming it.

    `timeout_ms` bounds each ``call``: a method that never settles fails the action and closes
    the page, since one that never returns leaves it unusable.
    """
    from playwright.sync_api import Error

    for index, action in enumerate(actions):
        where = f"actions[{index}] ({_describe_action(action)})"
        try:
            if isinstance(action, Wait):
                page.wait_for_timeout(action.ms)
            elif isinstance(action, Key):
                page.keyboard.press(action.key)
            elif isinstance(action, Hold):
                page.keyboard.down(action.key)
                page.wait_for_timeout(action.ms)
                page.keyboard.up(action.key)
            elif isinstance(action, Click):
                page.mouse.click(action.x, action.y)
            elif isinstance(action, Call):
                _call(page, action, handle, timeout_ms, where, index)
        except Error as error:
            raise DriveError(f"{where}: {_first_line(error)}", index) from None


def _call(page: Page, action: Call, handle: str | None, timeout_ms: float, where: str,
          index: int) -> None:
    if handle is None:
        raise DriveError(
            f"{where}: a call needs the build's debug API, but the case declares no "
            "[instrumentation] handle", index)
    try:
        answer = call_handle(page, handle, action.op, list(action.args), timeout_ms / 1000)
    except PageTimeout:
        page.close()
        raise DriveError(f"{where}: window.{handle}.{action.op}(...) did not settle within "
                         f"{timeout_ms:g} ms; its page was closed", index) from None
    op = answer.get("op", action.op)
    if "missing" in answer:
        raise DriveError(f"{where}: window.{handle} is {answer['missing']}", index)
    if "notFunction" in answer:
        raise DriveError(f"{where}: window.{handle}.{op} is not a function (it is {answer['notFunction']})", index)
    if "threw" in answer:
        raise DriveError(f"{where}: window.{handle}.{op}(...) threw {answer['threw']}", index)
    if "refused" in answer:
        raise DriveError(f"{where}: window.{handle}.{op}(...) answered {answer['refused']}", index)


def _describe_action(action: Action) -> str:
    if isinstance(action, Call):
        return f'call "{action.op}"'
    if isinstance(action, (Key, Hold)):
        return f'{action.type} "{action.key}"'
    if isinstance(action, Click):
        return f"click at {action.x:g},{action.y:g}"
    return f"wait {action.ms} ms"


def screenshot_png(page: Page) -> bytes:
    """The viewport as PNG bytes, the form checks compare and record."""
    return page.screenshot(type="png")


def render_mockup(context: BrowserContext, url: str, viewport: tuple[int, int],
                  timeout_ms: float = 30_000) -> bytes:
    """Render an HTML mockup at `viewport` in a page of its own in `context` (see `render_on`).

    Use a context that records no video, or the mockup leaves a clip behind.
    """
    page = context.new_page()
    try:
        return render_on(page, url, viewport, timeout_ms)
    finally:
        page.close()


def render_on(page: Page, url: str, viewport: tuple[int, int], timeout_ms: float = 30_000) -> bytes:
    """Render an HTML mockup in `page` at `viewport` once its fonts are ready: a check's baseline."""
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    load(page, url, timeout_ms)
    page.evaluate("() => document.fonts.ready.then(() => null)")
    return screenshot_png(page)


class ClipRecorder:
    """A video of part of a drive (or of a replay), filmed from Chromium's screencast between
    `start` and `stop`.

    Only what is asked for is filmed (an item's act, a whole drive, a replay playing), at the
    frames Chromium paints; `save` encodes them at a fixed rate with ffmpeg into a `.webm`.
    """

    FPS = 25
    GRACE_S = 1.0
    """How long `stop` waits at most for the frames painted before it (they lag on a loaded host)."""

    def __init__(self, page: Page, dest: Path, filming: bool = True) -> None:
        self.page = page
        self.dest = dest
        self.filming = filming
        """False under `--tcab-media=none`: start and stop are answered, nothing is filmed."""
        self.frames: list[tuple[float, bytes]] = []
        self.started: float | None = None
        self.stopped: float | None = None
        self._session: CDPSession | None = None

    def start(self) -> None:
        if self.started is not None or not self.filming:
            return
        session = self.page.context.new_cdp_session(self.page)
        session.on("Page.screencastFrame", self._frame)
        size = self.page.viewport_size or {"width": 1280, "height": 720}
        session.send("Page.startScreencast", {"format": "jpeg", "quality": 85, "maxWidth": size["width"],
                                              "maxHeight": size["height"], "everyNthFrame": 1})
        self._session = session
        self.started = time.time()

    def _frame(self, params: dict[str, Any]) -> None:
        if self._session is None:
            return
        # When Chromium painted it (wall-clock seconds), not when it reached us.
        painted = float(params.get("metadata", {}).get("timestamp") or time.time())
        self.frames.append((painted, base64.b64decode(params["data"])))
        self._session.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]})

    def stop(self) -> None:
        """Stop filming: nothing the page paints from now on is in the clip. Frames painted before
        now may still be on their way; `save` waits for them (briefly), so a drive's deadline
        never pays for that wait."""
        if self.started is not None and self.stopped is None:
            self.stopped = time.time()

    def _finish(self) -> None:
        """End the screencast once the frames painted before `stop` are in (at most GRACE_S)."""
        assert self.started is not None and self.stopped is not None
        session, self._session = self._session, None
        if session is None or self.page.is_closed():
            return
        self._session = session
        deadline = time.monotonic() + self.GRACE_S
        while not any(painted >= self.stopped for painted, _ in self.frames) and time.monotonic() < deadline:
            self.page.wait_for_timeout(20)
        self._session = None
        session.send("Page.stopScreencast")
        session.detach()
        before = [(max(painted, self.started), jpeg) for painted, jpeg in self.frames if painted <= self.stopped]
        after = [frame for frame in self.frames if frame[0] > self.stopped]
        # The last state drawn before `stop` reaches the screen on the next paint: keep that frame too.
        self.frames = before + [(self.stopped, min(after, key=lambda frame: frame[0])[1])] if after else before
        if not self.frames:  # a page that never repainted
            self.frames.append((self.started, self.page.screenshot(type="jpeg", quality=85)))

    def save(self) -> Path | None:
        """Encode what was filmed to `dest`; None when nothing was."""
        if self.started is None:
            return None
        self.stop()
        self._finish()
        if not self.frames:
            return None
        assert self.stopped is not None
        ffmpeg = shutil.which("ffmpeg")
        assert ffmpeg is not None, "run_script refuses a video output without ffmpeg"
        count = max(1, round((self.stopped - self.started) * self.FPS))
        self.dest.parent.mkdir(parents=True, exist_ok=True)
        command = [ffmpeg, "-loglevel", "error", "-f", "image2pipe", "-framerate", str(self.FPS), "-c:v", "mjpeg",
                   "-i", "pipe:0", "-an", "-c:v", "libvpx-vp9", "-qmin", "0", "-qmax", "50", "-crf", "8",
                   "-b:v", "1M", "-deadline", "realtime", "-cpu-used", "8", "-lag-in-frames", "0", "-row-mt", "1",
                   "-pix_fmt", "yuv420p", "-y", str(self.dest)]
        stream = bytearray()
        shown = 0
        for index in range(count + 1):  # the last frame shows the state at `stop` (count is rounded)
            moment = self.stopped if index == count else min(self.started + index / self.FPS, self.stopped)
            while shown + 1 < len(self.frames) and self.frames[shown + 1][0] <= moment:
                shown += 1
            stream += self.frames[shown][1]
        subprocess.run(command, input=bytes(stream), check=True, capture_output=True, timeout=300)
        return self.dest


def _first_line(error: Error) -> str:
    """Playwright's message without its "Call log" tail, which speaks of its internals."""
    return error.message.strip().splitlines()[0] if error.message.strip() else repr(error)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
