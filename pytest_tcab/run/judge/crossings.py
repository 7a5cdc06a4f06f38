"""What each judge crossing does to the build's page: one call of its handle, or the harness's own
screenshot, pixel, audio evidence, trusted input and clip.

The judge (`judge.mjs`) asks for one `api` member at a time; `Crossings.serve` answers it. Into
the page goes a fixed function with the handle's name, the op and the script's JSON arguments,
nothing else: never the script, its path, a verdict id, a label, a predicate or an expected
value. What comes back is the page's word about its own state, cut to a bounded JSON text
inside the page and checked for its shape here; evidence the page cannot fake (screenshots,
pixels, frames) is taken by Playwright from outside its realm. Every page call is bounded by
the run's deadline, so a page that never answers cannot hold the session.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from pytest_tcab.run.browser.driving import ANSWER_LIMIT
from pytest_tcab.run.browser.driving import PageTimeout
from pytest_tcab.run.browser.driving import call_handle
from pytest_tcab.run.browser.driving import evaluate_within
from pytest_tcab.run.judge.runtime import Refused

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_tcab.run.browser.driving import ClipRecorder

_PRESENT = """([handle]) => {
  const target = window[handle];
  return target === undefined || target === null ? String(target) : true;
}"""

_PROBE = """([handle, names, limit]) => {
  const target = window[handle];
  const absent = target === undefined || target === null;
  const ops = {};
  for (const name of names) ops[name] = absent ? "undefined" : typeof target[name];
  const text = JSON.stringify({ version: absent ? null : target.version ?? null, ops });
  return typeof text === "string" && text.length <= limit ? text : null;
}"""

# Two painted frames (the state just posed reaches the screen) before a clip starts or stops filming.
_TWO_FRAMES = "() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))"
_FRAMES_WAIT_S = 0.25

# Where each canvas lies in the viewport (the page may lie here too: it then picks the pixel it
# shows, which it paints as it likes anyway; the colour is read from a screenshot).
_CANVASES = """() => [...document.querySelectorAll("canvas")].slice(0, 100).map((canvas) => {
  const box = canvas.getBoundingClientRect();
  return [box.left, box.top, box.width, box.height];
})"""


@dataclass
class Crossings:
    """The answers to one pass's crossings, against `page` until `deadline` (time.monotonic)."""

    page: Page
    handle: str | None
    deadline: float
    media_dir: Path
    media_prefix: str
    clip: ClipRecorder
    images: dict[str, Path] = field(default_factory=dict)
    read_audio: Callable[[Page], list[dict[str, Any]]] | None = None

    def serve(self, member: str, args: list[Any]) -> Any:
        """One crossing; Refused carries what the script's call rejects with."""
        members: dict[str, Callable[..., Any]] = {
            "present": self._present, "call": self._call, "stepSnapshot": self._step_snapshot,
            "probe": self._probe, "screenshot": self._screenshot, "pixel": self._pixel, "audio": self._audio,
            "userKey": self._user_key, "userClick": self._user_click, "clipStart": self._clip_start,
            "clipStop": self._clip_stop,
        }
        serve = members.get(member)
        if serve is None:
            raise Refused(f"the harness has no crossing {member!r}")
        return serve(*args)

    def _left(self) -> float:
        return self.deadline - time.monotonic()

    def _handle_call(self, op: Any, args: Any, then: str | None) -> dict[str, Any]:
        if not isinstance(op, str) or not isinstance(args, list) or self.handle is None:
            raise Refused("a handle call names its op and passes a list of arguments")
        return call_handle(self.page, self.handle, op, args, self._left(), then)

    def _call(self, op: Any, args: Any) -> dict[str, Any]:
        return self._handle_call(op, args, None)

    def _step_snapshot(self, op: Any, args: Any) -> dict[str, Any]:
        return self._handle_call(op, args, "snapshot")

    def _present(self) -> bool | str:
        found = evaluate_within(self.page, _PRESENT, [self.handle], self._left())
        return found if found is True or found in ("undefined", "null") else "not an object"

    def _probe(self, names: Any) -> dict[str, Any]:
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise Refused("api.probe(opNames): expected a list of op names")
        text = evaluate_within(self.page, _PROBE, [self.handle, names, ANSWER_LIMIT], self._left())
        try:
            probed = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            probed = None
        if not isinstance(probed, dict) or not isinstance(probed.get("ops"), dict) or set(probed["ops"]) != set(names):
            raise Refused("api.probe(): the page's answer was not a probe")
        return {"version": probed.get("version"), "ops": {name: str(kind)[:20] for name, kind in probed["ops"].items()}}

    def _screenshot(self, output_id: Any) -> None:
        path = self.media_dir / f"{self.media_prefix}__{output_id}.png"
        self.page.screenshot(path=path, type="png", timeout=max(1.0, self._left()) * 1000)
        self.images[str(output_id)] = path

    def _pixel(self, u: float, v: float) -> dict[str, Any]:
        """The colour at fractions (u, v) of the largest canvas, as the compositor painted it."""
        from PIL import Image

        found = evaluate_within(self.page, _CANVASES, None, self._left())
        boxes = [box for box in (found if isinstance(found, list) else [])
                 if isinstance(box, list) and len(box) == 4 and all(isinstance(n, (int, float)) for n in box)
                 and box[2] > 0 and box[3] > 0]
        if not boxes:
            return {"missing": True}
        left, top, width, height = max(boxes, key=lambda box: box[2] * box[3])
        x = max(0, int(min(left + u * width, left + width - 1)))
        y = max(0, int(min(top + v * height, top + height - 1)))
        png = self.page.screenshot(type="png", clip={"x": x, "y": y, "width": 1, "height": 1},
                                   timeout=max(1.0, self._left()) * 1000)
        with Image.open(io.BytesIO(png)) as image:
            r, g, b = image.convert("RGB").getpixel((0, 0))  # type: ignore[misc]
        return {"rgb": {"r": r, "g": g, "b": b}}

    def _audio(self) -> list[dict[str, Any]]:
        if self.read_audio is None:
            raise Refused("api.audio(): this page was opened without its Web Audio evidence")
        return self.read_audio(self.page)

    def _user_key(self, code: Any) -> None:
        from playwright.sync_api import Error

        try:
            self.page.keyboard.press(str(code))
        except Error as error:
            raise Refused(f"api.userKey({json.dumps(code)}): {error.message.splitlines()[0]}") from None

    def _user_click(self, x: Any, y: Any) -> None:
        self.page.mouse.click(float(x), float(y))

    def _clip_start(self) -> None:
        self._frames_drawn()
        self.clip.start()

    def _clip_stop(self) -> None:
        self._frames_drawn()  # the clip ends on what the page drew by now, not on a frame before it
        self.clip.stop()

    def _frames_drawn(self) -> None:
        """Wait (briefly) until what the page drew so far has reached the screen."""
        try:
            evaluate_within(self.page, _TWO_FRAMES, None, min(_FRAMES_WAIT_S, self._left()))
        except PageTimeout:
            pass  # a page that holds its frames back is filmed as it is
