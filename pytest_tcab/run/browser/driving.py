"""Driving a served build in a Playwright page: loading it, `[[check]]` actions, validation scripts."""

from __future__ import annotations

import base64
import io
import secrets
import shutil
import subprocess
import time
import weakref
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal
from urllib.parse import urlsplit

from pytest_tcab.bounded import TEXT_LIMIT
from pytest_tcab.bounded import append_bounded
from pytest_tcab.bounded import bound
from pytest_tcab.bounded import bound_tree
from pytest_tcab.errors import TcabError
from pytest_tcab.models.check import Action
from pytest_tcab.models.check import Call
from pytest_tcab.models.check import Click
from pytest_tcab.models.check import Hold
from pytest_tcab.models.check import Key
from pytest_tcab.models.check import Wait
from pytest_tcab.run.browser.session import NO_FFMPEG_REASON

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import CDPSession
    from playwright.sync_api import ConsoleMessage
    from playwright.sync_api import Error
    from playwright.sync_api import Page

# The glue every page of a prepared context gets from an init script, before the build's own
# scripts run: one function, under a name drawn per context and fixed (non-writable,
# non-configurable) on `window`, that runs one of FUNCTIONS without making the sync API wait on
# it. Its outcome is handed to the context's `settled` binding under a token drawn per call,
# then the token is written to the console: that console message is the event `_settle` waits
# for, under a deadline kept in Python. Playwright's in-page waits clean up inside the page when
# they time out, so a page whose script never yields (`while (true) {}`) would hang them; an event
# and a binding need nothing from the page once they have fired. The run starts from a fresh task:
# a microtask would run before the evaluate call answers, so a synchronous endless loop would
# hang that call too. It keeps the timer and console functions the page had before its scripts ran.
_GLUE = """(() => {
  const name = "__GLUE__";
  if (Object.prototype.hasOwnProperty.call(window, name)) return;
  const functions = { driver: __DRIVER__, call: __CALL__ };
  const settled = "__SETTLED__";
  const textLimit = __TEXT_LIMIT__;
  const later = window.setTimeout.bind(window);
  const signal = console.debug.bind(console);
  // Every text is cut to its head and tail before it crosses to Python, the way
  // pytest_tcab.bounded cuts it there (which bounds it again: the page can tamper with this).
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const bound = (text) => {
    if (text.length * 3 <= textLimit) return text;
    const bytes = encoder.encode(text);
    if (bytes.length <= textLimit) return text;
    const keep = Math.max(textLimit - `\\n[${bytes.length} bytes truncated]\\n`.length, 2);
    const head = decoder.decode(bytes.subarray(0, keep - (keep >> 1))).replace(/\\uFFFD$/, "");
    const tail = decoder.decode(bytes.subarray(bytes.length - (keep >> 1))).replace(/^\\uFFFD/, "");
    const dropped = bytes.length - encoder.encode(head).length - encoder.encode(tail).length;
    return `${head}\\n[${dropped} bytes truncated]\\n${tail}`;
  };
  const boundAll = (value) => {
    if (typeof value === "string") return bound(value);
    if (Array.isArray(value)) return value.map(boundAll);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [bound(key), boundAll(entry)]));
  };
  const start = (which, token, input) => {
    const run = functions[which];
    later(() => {
      Promise.resolve()
        .then(() => run(input))
        .then((value) => ({ value: boundAll(value) }))
        .then(
          (outcome) => window[settled](token, outcome),
          (thrown) => window[settled](token, { error: bound(String((thrown && thrown.stack) || thrown)) }),
        )
        .finally(() => signal(token));
    }, 0);
  };
  Object.defineProperty(window, name, { value: start });
})();"""

# Starts one glue function; false when this document has no glue (a page opened before its
# context was prepared), which `_settle` then evaluates into it once.
_KICK = """([glue, which, token, input]) => {
  const start = window[glue];
  if (typeof start !== "function") return false;
  start(which, token, input);
  return true;
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
class Expectation:
    """One expectation a script's check recorded; `expected`/`actual` are set for comparisons."""

    label: str
    passed: bool
    expected: str | None = None
    actual: str | None = None

    def describe(self) -> str:
        if self.expected is None:
            return f"{self.label}: did not hold"
        return f"{self.label}: expected {self.expected}, actual {self.actual}"


@dataclass(frozen=True)
class Script:
    """One validation script as a page imports it, and what the manifest asks of it."""

    url: str
    name: str
    """How messages name it (its path in the case folder); replaces its URL in stack frames."""
    base: str
    """The URL its siblings are served under: frames from these files are the script's own."""
    handle: str | None
    outputs: Sequence[OutputSpec]
    verdict_ids: Sequence[str]
    tick_hz: int | None = None
    """The case's fixed simulation rate: `advance`/`until` count whole ticks of it; None means seconds."""


@dataclass(frozen=True)
class DriverRun:
    """The outcome of one validation script against the build.

    `error` is the load-bearing failure reason; when it is set, every verdict the script backs
    fails. `images` holds the stills taken and `clip` the recorded video, even on a failed run.
    """

    verdicts: dict[str, bool | None]
    notes: str
    images: dict[str, Path]
    error: str | None
    form: str | None = None
    """`item`, `drive` or `verdicts` (the first form); None when the script never loaded."""
    expectations: tuple[Expectation, ...] = ()
    clip: Path | None = None

    @property
    def failed_expectations(self) -> tuple[Expectation, ...]:
        return tuple(expectation for expectation in self.expectations if not expectation.passed)


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
    outcome = _settle(page, "call", {"handle": handle, "op": action.op, "args": action.args}, timeout_ms)
    if outcome is None:
        page.close()
        raise DriveError(f"{where}: window.{handle}.{action.op}(...) did not settle within "
                         f"{timeout_ms:g} ms; its page was closed", index)
    if "error" in outcome:
        raise DriveError(f"{where}: {bound(str(outcome['error']))}", index)
    if outcome["value"] is not None:
        raise DriveError(f"{where}: {bound(str(outcome['value']))}", index)


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


CLIP_MS = 8000
"""How much of an item's act the record pass films, unless the item sets `clipMs`."""
AUDIO_READER = f"__tcabAudio_{secrets.token_hex(8)}"
"""The page function that returns the Web Audio log: a name no build can know in advance."""


@dataclass
class _Pass:
    """What the media bindings of one page serve while a driver pass runs in it."""

    screenshot: Callable[[str], None]
    clip: ClipRecorder


@dataclass
class _Host:
    """What one context's pages share, installed once per context: the glue (an init script),
    the `settled` binding it delivers outcomes through, and the media bindings driver passes use.
    Names are drawn per context, so no build can know them in advance."""

    glue: str
    settled: str
    screenshot: str
    pixel: str
    clip: str
    script: str
    """The glue's init script, for a page that was open before the context was prepared."""
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Token -> what the glue delivered for it."""
    passes: dict[Page, _Pass] = field(default_factory=dict)
    """The page a driver pass runs in -> what its media bindings serve."""

    def on(self, source: dict[str, Any]) -> _Pass:
        handler = self.passes.get(source["page"])
        if handler is None:
            raise DriveError("no driver pass runs in this page")
        return handler


_hosts: weakref.WeakKeyDictionary[BrowserContext, _Host] = weakref.WeakKeyDictionary()


def prepare(context: BrowserContext) -> None:
    """Install the glue and bindings `perform` and `run_script` use in every page `context` opens.

    Once per context, before its pages open: a `BrowserSession.page` setup.
    """
    _host_of(context)


def instrument(context: BrowserContext) -> None:
    """`prepare`, and the Web Audio log `api.audio()` reads, installed before the build runs."""
    prepare(context)
    context.add_init_script(_resource("audio_log.js").replace("__READER__", AUDIO_READER))


def _host_of(context: BrowserContext) -> _Host:
    host = _hosts.get(context)
    if host is None:
        glue, settled, screenshot, pixel, clip = (f"__tcab{name}_{secrets.token_hex(6)}"
                                                  for name in ("Glue", "Settled", "Screenshot", "Pixel", "Clip"))
        script = (_GLUE.replace("__GLUE__", glue).replace("__SETTLED__", settled)
                  .replace("__TEXT_LIMIT__", str(TEXT_LIMIT)).replace("__CALL__", _CALL)
                  .replace("__DRIVER__", _resource("driver_api.js")))
        host = _hosts[context] = _Host(glue, settled, screenshot, pixel, clip, script)
        context.add_init_script(script)
        context.expose_binding(host.settled, lambda source, token, outcome: host.outcomes.__setitem__(token, outcome))
        context.expose_binding(host.screenshot, lambda source, output_id: host.on(source).screenshot(output_id))
        context.expose_binding(host.pixel, lambda source, x, y: _pixel(source["page"], x, y))
        context.expose_binding(host.clip, lambda source, action: (
            host.on(source).clip.start() if action == "start" else host.on(source).clip.stop()))
    return host


def run_script(open_page: Callable[[], Page], script: Script, timeout_s: float, media_dir: Path,
               media_prefix: str, media: str = "all") -> DriverRun:
    """Run one validation script against the build and judge what it decided and produced.

    `open_page` gives a page with the build loaded (raising DriveError when it cannot be
    loaded), from a context made with `instrument`. A script in the first two forms runs once,
    filmed whole; an item runs a validate pass, then, when it declares outputs and decided its
    verdict, a record pass on a fresh page that films `act` and takes the stills.
    `media` (`--tcab-media`) says which verdicts get that record pass: `all`, `failed` (a verdict
    the validate pass decided false) or `none`; the first two forms save no still and no clip
    under `none`, and under `failed` keep them only for a verdict that did not pass. The validate pass alone decides: a record pass that fails is noted, so
    the verdict is the same in every mode.
    Never raises for a script's or a build's failure: it is the verdict's reason, in `error`.
    Past `timeout_s` a pass's page is closed.
    """
    media_dir.mkdir(parents=True, exist_ok=True)
    filmed = media != "none"
    if filmed and any(output.kind == "video" for output in script.outputs) and shutil.which("ffmpeg") is None:
        return DriverRun({}, "", {}, NO_FFMPEG_REASON)
    first = _pass(open_page, script, "validate", timeout_s, media_dir, media_prefix, keep_media=filmed)
    decided = first.error is None and any(verdict is not None for verdict in first.verdicts.values())
    passed = all(verdict is not False for verdict in first.verdicts.values())
    if first.form != "item" or not script.outputs or not decided:
        checked = _checked(first, script, filmed)
        if media == "failed" and checked.error is None and passed:  # filmed whole, kept only for a failure
            for path in [*checked.images.values(), *filter(None, [checked.clip])]:
                path.unlink(missing_ok=True)
            return replace(checked, images={}, clip=None)
        return checked
    if media == "none" or (media == "failed" and passed):
        return _checked(first, script, filmed=False)  # its media were not asked for
    record = _pass(open_page, script, "record", timeout_s, media_dir, media_prefix)
    notes = first.notes if record.error is None else "\n".join(
        filter(None, [first.notes, f"the record pass failed, so its media are missing: {record.error}"]))
    return _checked(replace(first, images=record.images, clip=record.clip, notes=notes), script, filmed=False)


def _pass(open_page: Callable[[], Page], script: Script, mode: str, timeout_s: float, media_dir: Path,
          media_prefix: str, keep_media: bool = True) -> DriverRun:
    """One run of the in-page runtime on a freshly loaded page; without `keep_media` its
    screenshot and clip calls are answered as ever but save nothing."""
    from playwright.sync_api import Error

    try:
        page = open_page()
    except DriveError as error:
        return DriverRun({}, "", {}, f"the build could not be loaded: {error}")
    images: dict[str, Path] = {}
    clip = ClipRecorder(page, media_dir / f"{media_prefix}__{_video_id(script)}.webm", filming=keep_media)

    def screenshot(output_id: str) -> None:
        path = media_dir / f"{media_prefix}__{output_id}.png"
        if keep_media:
            page.screenshot(path=path, type="png")
            images[output_id] = path

    host = _host_of(page.context)
    argument = {
        "script": script.url,
        "scriptName": script.name,
        "scriptBase": script.base,
        "handle": script.handle,
        "outputs": [{"id": output.id, "kind": output.kind} for output in script.outputs],
        "verdictIds": list(script.verdict_ids),
        "pass": mode,
        "tickHz": script.tick_hz,
        "clipMs": CLIP_MS,
        "bindings": {"screenshot": host.screenshot, "pixel": host.pixel, "clip": host.clip, "audio": AUDIO_READER},
    }
    host.passes[page] = _Pass(screenshot, clip)
    try:
        outcome = _settle(page, "driver", argument, timeout_s * 1000)
    except Error as error:
        return DriverRun({}, "", images, f"the page failed during the drive: {_first_line(error)}", clip=clip.save())
    finally:
        host.passes.pop(page, None)
    if outcome is None:
        clip.stop()
        page.close()
        return DriverRun({}, "", images, f"the driver did not finish within {timeout_s:g} s; its page was closed",
                         clip=clip.save())
    if "error" in outcome:
        return DriverRun({}, "", images, f"the glue failed: {bound(outcome['error'])}", clip=clip.save())
    result = bound_tree(outcome["value"])
    expectations = tuple(Expectation(e["label"], e["pass"], e.get("expected"), e.get("actual"))
                         for e in result.get("expectations", ()))
    return DriverRun(dict(result.get("verdicts", {})), result.get("notes", ""), images, result.get("error"),
                     result.get("form"), expectations, clip.save())


def _video_id(script: Script) -> str:
    return next((output.id for output in script.outputs if output.kind == "video"), "clip")


def _checked(run: DriverRun, script: Script, filmed: bool = True) -> DriverRun:
    """`run`, failed with the reason when a well-formed return still gets the manifest wrong
    (its stills are checked only where they were filmed)."""
    if run.error is not None:
        return replace(run, verdicts={})
    problem = _judge(run, script, filmed)
    return run if problem is None else replace(run, verdicts={}, error=problem)


def _judge(run: DriverRun, script: Script, filmed: bool = True) -> str | None:
    verdicts, verdict_ids = run.verdicts, script.verdict_ids
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
    if all(verdict is None for verdict in verdicts.values()) or not filmed:
        return None  # left for the reviewer, or media not asked for: no still to check
    for output in script.outputs:
        if output.kind == "image" and output.id not in run.images:
            return (f'declared image output "{output.id}" was never produced: the driver never '
                    f'called api.screenshot("{output.id}")')
        if output.kind == "video" and run.clip is None:
            return f'declared video output "{output.id}" was never produced: nothing was filmed'
    return None


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
        """Stop filming; frames painted before now but still in flight are waited for (briefly)."""
        if self.started is None or self.stopped is not None:
            return
        self.stopped = time.time()
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
        for index in range(count + 1):  # the last frame shows the state at `stop`
            moment = min(self.started + index / self.FPS, self.stopped)
            while shown + 1 < len(self.frames) and self.frames[shown + 1][0] <= moment:
                shown += 1
            stream += self.frames[shown][1]
        subprocess.run(command, input=bytes(stream), check=True, capture_output=True, timeout=300)
        return self.dest


def _pixel(page: Page, x: int, y: int) -> dict[str, int]:
    """The colour the page shows at viewport pixel (x, y), as the compositor painted it."""
    from PIL import Image

    png = page.screenshot(type="png", clip={"x": x, "y": y, "width": 1, "height": 1})
    with Image.open(io.BytesIO(png)) as image:
        r, g, b = image.convert("RGB").getpixel((0, 0))  # type: ignore[misc]
    return {"r": r, "g": g, "b": b}


def _settle(page: Page, function: str, argument: Any, timeout_ms: float) -> dict[str, Any] | None:
    """Run the glue's async `function` (`driver` or `call`) with a deadline; None once it passes.

    Returns ``{"value": ...}`` or ``{"error": ...}`` (a rejection the function did not catch).
    Waits on the console message that follows the outcome (a Playwright event, timed in Python),
    never on a poll of the page.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    host = _host_of(page.context)
    token = secrets.token_hex(8)
    try:
        with page.expect_console_message(lambda message: message.text == token, timeout=timeout_ms):
            kick = [host.glue, function, token, argument]
            if not page.evaluate(_KICK, kick):
                page.evaluate(host.script)
                page.evaluate(_KICK, kick)
    except PlaywrightTimeout:
        return None
    return host.outcomes.pop(token, None) or {"error": "the outcome never reached the binding that delivers it"}


@cache
def _resource(name: str) -> str:
    return files("pytest_tcab.run.browser").joinpath(name).read_text(encoding="utf-8")


def _first_line(error: Error) -> str:
    """Playwright's message without its "Call log" tail, which speaks of its internals."""
    return error.message.strip().splitlines()[0] if error.message.strip() else repr(error)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
