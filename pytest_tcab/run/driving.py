"""Driving a served build in a Playwright page: loading it, `[[check]]` actions, validation drivers."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from functools import cache
from importlib.resources import files
from pathlib import Path
from posixpath import basename
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal
from urllib.parse import urlsplit

from pytest_tcab.errors import TcabError
from pytest_tcab.models.check import Action
from pytest_tcab.models.check import Call
from pytest_tcab.models.check import Click
from pytest_tcab.models.check import Hold
from pytest_tcab.models.check import Key
from pytest_tcab.models.check import Wait

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import ConsoleMessage
    from playwright.sync_api import Error
    from playwright.sync_api import Page

# Runs an async page function without making the sync API wait on it: its outcome is handed to
# a per-run binding, and `_settle` waits for that under a deadline kept in Python. Playwright's
# own waits clean up inside the page when they time out, so a page whose script never yields
# (`while (true) {}`) would hang them; a binding needs nothing from the page once it has fired.
# It starts `run` from a fresh task: a microtask would run before the evaluate call answers, so a
# synchronous endless loop would hang that call too.
_START = """({ binding, input }) => {
  const run = __RUN__;
  setTimeout(() => {
    Promise.resolve()
      .then(() => run(input))
      .then(
        (value) => window[binding]({ value }),
        (thrown) => window[binding]({ error: String((thrown && thrown.stack) || thrown) }),
      );
  }, 0);
}"""

# One `call` action: `null` when the method settled, else what went wrong, worded for the author.
_CALL = """async ({ handle, op, args }) => {
  const target = window[handle];
  if (target === undefined || target === null) return `window.${handle} is ${String(target)}`;
  if (typeof target[op] !== "function") {
    return `window.${handle}.${op} is not a function (it is ${typeof target[op]})`;
  }
  try {
    await target[op](...args);
    return null;
  } catch (thrown) {
    const text = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
    return `window.${handle}.${op}(...) threw ${text}`;
  }
}"""

_POLL_MS = 20


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


@dataclass(frozen=True)
class OutputSpec:
    """One declared output of a validation script (`outputs = [{ id, kind }]`)."""

    id: str
    kind: Literal["image", "video"]


@dataclass(frozen=True)
class DriverRun:
    """The outcome of one driver against one page.

    `error` is the load-bearing failure reason; when it is set, `verdicts` is empty and every
    verdict the script backs fails. `images` holds the stills taken, even on a failed run.
    """

    verdicts: dict[str, bool | None]
    notes: str
    images: dict[str, Path]
    error: str | None


def load(page: Page, url: str, timeout_ms: float) -> PageLog:
    """Navigate to the build and raise DriveError when it cannot be loaded cleanly.

    A page that throws before its ``load`` event, or answers anything but 200, can't be
    validated. The returned log keeps collecting, so an item can also fail on later errors.
    """
    from playwright.sync_api import Error

    log = PageLog()
    page.on("pageerror", lambda error: log.page_errors.append(_page_error_text(error, url)))
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
        log.console_errors.append(message.text)


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
    outcome = _settle(page, _CALL, {"handle": handle, "op": action.op, "args": action.args},
                      timeout_ms)
    if outcome is None:
        page.close()
        raise DriveError(f"{where}: window.{handle}.{action.op}(...) did not settle within "
                         f"{timeout_ms:g} ms; its page was closed", index)
    if "error" in outcome:
        raise DriveError(f"{where}: {outcome['error']}", index)
    if outcome["value"] is not None:
        raise DriveError(f"{where}: {outcome['value']}", index)


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
    """Render an HTML mockup at `viewport` once its fonts are ready: a check's baseline.

    Use a context that records no video, or the mockup leaves a clip behind.
    """
    page = context.new_page()
    try:
        page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        load(page, url, timeout_ms)
        page.evaluate("() => document.fonts.ready.then(() => null)")
        return screenshot_png(page)
    finally:
        page.close()


def run_driver(
    page: Page,
    driver_url: str,
    handle: str,
    outputs: Sequence[OutputSpec],
    verdict_ids: Sequence[str],
    timeout_s: float,
    media_dir: Path,
    media_prefix: str,
    driver_name: str | None = None,
) -> DriverRun:
    """Import the driver into the loaded page, hand it the `api`, and judge what it returns.

    Never raises for a driver's or a build's failure: it is the verdict's reason, in `error`.
    Past `timeout_s` the page is closed, so the caller must not use it again (a recorded
    clip can still be saved with finish_video). `driver_name` replaces the driver's URL in
    stack frames; it defaults to the URL's file name.
    """
    from playwright.sync_api import Error

    images: dict[str, Path] = {}
    binding = f"__tcabScreenshot_{secrets.token_hex(6)}"

    def screenshot(source: dict[str, Any], output_id: str) -> None:
        path = media_dir / f"{media_prefix}__{output_id}.png"
        page.screenshot(path=path, type="png")
        images[output_id] = path

    argument = {
        "driverUrl": driver_url,
        "driverName": driver_name or basename(urlsplit(driver_url).path),
        "handle": handle,
        "outputs": [{"id": output.id, "kind": output.kind} for output in outputs],
        "screenshotBinding": binding,
    }
    media_dir.mkdir(parents=True, exist_ok=True)
    try:
        page.expose_binding(binding, screenshot)
        outcome = _settle(page, _driver_api(), argument, timeout_s * 1000)
    except Error as error:
        return _failed(images, f"the page failed during the drive: {_first_line(error)}")
    if outcome is None:
        page.close()
        return _failed(images, f"the driver did not finish within {timeout_s:g} s; its page was closed")
    if "error" in outcome:
        return _failed(images, f"the glue failed: {outcome['error']}")
    result = outcome["value"]
    notes = result.get("notes", "")
    if "error" in result:
        return _failed(images, result["error"], notes)
    problem = _judge(result["verdicts"], verdict_ids, outputs, images, page)
    if problem is not None:
        return _failed(images, problem, notes)
    return DriverRun(dict(result["verdicts"]), notes, images, None)


def _judge(verdicts: dict[str, bool | None], verdict_ids: Sequence[str],
           outputs: Sequence[OutputSpec], images: dict[str, Path], page: Page) -> str | None:
    """What a well-formed return still gets wrong against the manifest, or None."""
    returned = ", ".join(f'"{key}"' for key in verdicts) or "none"
    missing = [verdict for verdict in verdict_ids if verdict not in verdicts]
    if missing:
        names = ", ".join(f'"{verdict}"' for verdict in missing)
        return f"the driver returned no verdict for {names} (it returned: {returned})"
    extra = [key for key in verdicts if key not in verdict_ids]
    if extra:
        backed = ", ".join(f'"{verdict}"' for verdict in verdict_ids)
        names = ", ".join(f'"{key}"' for key in extra)
        return f"the driver returned verdicts for {names}, which this script does not back ({backed})"
    for output in outputs:
        if output.kind == "image" and output.id not in images:
            return (f'declared image output "{output.id}" was never produced: the driver never '
                    f'called api.screenshot("{output.id}")')
        if output.kind == "video" and page.video is None:
            return (f'declared video output "{output.id}" was never produced: the page was not '
                    "recording (create its context with record_video_dir)")
    return None


def _failed(images: dict[str, Path], error: str, notes: str = "") -> DriverRun:
    return DriverRun({}, notes, images, error)


def finish_video(page: Page, dest: Path) -> Path | None:
    """Close the page and save the clip it recorded to `dest` (``.webm``); None if it recorded none.

    Playwright finishes encoding only when the page closes, so this is the drive's last step.
    """
    video = page.video
    if video is None:
        return None
    page.close()
    dest.parent.mkdir(parents=True, exist_ok=True)
    video.save_as(dest)
    video.delete()
    return dest


def _settle(page: Page, function: str, argument: Any, timeout_ms: float) -> dict[str, Any] | None:
    """Run an async page `function` to completion with a deadline; None once the deadline passes.

    Returns ``{"value": ...}`` or ``{"error": ...}`` (a rejection the function did not catch).
    The wait is sliced into Playwright timers, which run in its driver, not in the page, so
    the callback that delivers the outcome is dispatched between slices.
    """
    outcomes: list[dict[str, Any]] = []
    binding = f"__tcabSettled_{secrets.token_hex(6)}"
    page.expose_binding(binding, lambda source, outcome: outcomes.append(outcome))
    page.evaluate(_START.replace("__RUN__", function), {"binding": binding, "input": argument})
    deadline = time.monotonic() + timeout_ms / 1000
    while not outcomes:
        remaining_ms = (deadline - time.monotonic()) * 1000
        if remaining_ms <= 0:
            return None
        page.wait_for_timeout(min(_POLL_MS, remaining_ms))
    return outcomes[0]


@cache
def _driver_api() -> str:
    return files("pytest_tcab.run").joinpath("driver_api.js").read_text(encoding="utf-8")


def _first_line(error: Error) -> str:
    """Playwright's message without its "Call log" tail, which speaks of its internals."""
    return error.message.strip().splitlines()[0] if error.message.strip() else repr(error)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
