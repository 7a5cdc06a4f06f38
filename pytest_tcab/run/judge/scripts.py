"""One validation script against the build: its passes in the judge runtime, and what they decided.

A script in the first two forms runs once, filmed whole; an item runs a validate pass, then,
when it declares outputs and decided its verdict, a record pass on a fresh page that films
`act` and takes the stills (DESIGN "Validation scripts of the public catalog"). Each pass is
one run of `judge.mjs` answered by `crossings.Crossings` against a freshly loaded page; the
outcome is the judge's, read here and checked against what the manifest asks of the script.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from pytest_tcab.bounded import bound_tree
from pytest_tcab.outcomes import NotGraded
from pytest_tcab.run.browser.discovery import NO_FFMPEG_REASON
from pytest_tcab.run.browser.driving import ClipRecorder
from pytest_tcab.run.browser.driving import DriveError
from pytest_tcab.run.browser.driving import PageTimeout
from pytest_tcab.run.judge.crossings import Crossings
from pytest_tcab.run.judge.runtime import JudgeDied
from pytest_tcab.run.judge.runtime import JudgeFailed
from pytest_tcab.run.judge.runtime import JudgeRuntime
from pytest_tcab.run.judge.runtime import JudgeUnavailable

if TYPE_CHECKING:
    from playwright.sync_api import Page

CLIP_MS = 8000
"""How much of an item's act the record pass films, unless the item sets `clipMs`."""

AudioReader = Callable[["Page"], list[dict[str, Any]]]


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
    """One validation script as the judge imports it, and what the manifest asks of it."""

    path: Path
    """The module the judge imports: in the run's snapshot, or the JavaScript a `.ts` script strips to."""
    name: str
    """How messages name it (its path in the case folder)."""
    roots: Mapping[str, str]
    """Absolute path prefixes -> the names that replace them in messages (the snapshot folder -> "")."""
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
    judge_restarts: int = 0
    """How often the judge died under this script and it was run again on a fresh page."""

    @property
    def failed_expectations(self) -> tuple[Expectation, ...]:
        return tuple(expectation for expectation in self.expectations if not expectation.passed)


def run_script(open_page: Callable[[], Page], script: Script, judge: JudgeRuntime, timeout_s: float,
               media_dir: Path, media_prefix: str, read_audio: AudioReader | None = None,
               media: str = "all") -> DriverRun:
    """Run one validation script against the build and judge what it decided and produced.

    `open_page` gives a page with the build loaded (raising DriveError when it cannot be
    loaded). Never raises for a script's or a build's failure: it is the verdict's reason, in
    `error`. Past `timeout_s` a pass's page is closed.

    `media` (`--tcab-media`) says which verdicts keep their media: `all`, `failed` (a verdict the
    validate pass decided false) or `none`. An item's record pass runs only for those; the single
    pass of the other forms films as ever and its stills and clip are dropped for the others. The
    validate pass alone decides: a record pass that fails is noted, so every mode decides alike.
    """
    media_dir.mkdir(parents=True, exist_ok=True)
    filmed = media != "none"
    if filmed and any(output.kind == "video" for output in script.outputs) and shutil.which("ffmpeg") is None:
        return DriverRun({}, "", {}, NO_FFMPEG_REASON)
    run = _Runner(open_page, script, judge, timeout_s, media_dir, media_prefix, read_audio)
    first = run.one_pass("validate", filming=filmed)
    decided = first.error is None and any(verdict is not None for verdict in first.verdicts.values())
    passed = all(verdict is not False for verdict in first.verdicts.values())
    if first.form != "item" or not script.outputs or not decided:
        checked = _checked(first, script, filmed)
        if media == "none" or (media == "failed" and checked.error is None and passed):
            for path in [*checked.images.values(), *filter(None, [checked.clip])]:
                path.unlink(missing_ok=True)
            return replace(checked, images={}, clip=None)
        return checked
    if media == "none" or (media == "failed" and passed):
        return _checked(first, script, filmed=False)  # its media were not asked for
    record = run.one_pass("record")
    notes = first.notes if record.error is None else "\n".join(
        filter(None, [first.notes, f"the record pass failed, so its media are missing: {record.error}"]))
    return _checked(replace(first, images=record.images, clip=record.clip, notes=notes,
                            judge_restarts=first.judge_restarts + record.judge_restarts), script,
                    filmed=record.error is None)


@dataclass(frozen=True)
class _Runner:
    open_page: Callable[[], Page]
    script: Script
    judge: JudgeRuntime
    timeout_s: float
    media_dir: Path
    media_prefix: str
    read_audio: AudioReader | None

    def one_pass(self, mode: str, filming: bool = True) -> DriverRun:
        """One run of the script in the judge, against a freshly loaded page (without `filming`,
        its clip films nothing). A judge that dies under it is the grader's crash, not the page's
        doing: it is started again and the script run once more on a fresh page; a second death
        fails the verdict with what the judge last wrote."""
        try:
            return self._attempt(mode, filming)
        except JudgeDied:
            self.judge.restarts += 1
        try:
            return replace(self._attempt(mode, filming), judge_restarts=1)
        except JudgeDied as error:
            return DriverRun({}, "", {}, f"the judge runtime died twice running this script: {error}", judge_restarts=1)

    def _attempt(self, mode: str, filming: bool) -> DriverRun:
        from playwright.sync_api import Error
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            page = self.open_page()
        except DriveError as error:
            return DriverRun({}, "", {}, f"the build could not be loaded: {error}")
        try:
            self.judge.start()  # before the deadline: Node's start-up is no script's time
        except JudgeUnavailable as error:  # the host has no Node: no act of the build's
            raise NotGraded(str(error)) from None
        except JudgeFailed as error:
            return DriverRun({}, "", {}, str(error))
        script = self.script
        clip = ClipRecorder(page, self.media_dir / f"{self.media_prefix}__{_video_id(script)}.webm", filming=filming)
        crossings = Crossings(page, script.handle, time.monotonic() + self.timeout_s, self.media_dir,
                              self.media_prefix, clip, read_audio=self.read_audio)
        spec = {
            "script": str(script.path), "name": script.name,
            "roots": sorted(script.roots.items(), key=lambda root: len(root[0]), reverse=True),
            "handle": script.handle, "outputs": [{"id": output.id, "kind": output.kind} for output in script.outputs],
            "verdictIds": list(script.verdict_ids), "pass": mode, "tickHz": script.tick_hz, "clipMs": CLIP_MS,
        }

        def idle() -> None:  # the browser's events (a clip's frames) flow while the judge computes
            if not page.is_closed():
                page.wait_for_timeout(1)

        try:
            outcome = self.judge.run(spec, crossings.serve, self.timeout_s, idle)
        except JudgeDied:
            clip.stop()
            page.close()
            raise
        except (JudgeUnavailable, JudgeFailed) as error:
            return DriverRun({}, "", crossings.images, str(error), clip=clip.save())
        except (PageTimeout, PlaywrightTimeout):  # a page call outlived the deadline
            outcome = None
        except Error as error:
            first = error.message.strip().splitlines()[0] if error.message.strip() else repr(error)
            return DriverRun({}, "", crossings.images, f"the page failed during the drive: {first}", clip=clip.save())
        if outcome is None:
            clip.stop()
            page.close()
            return DriverRun({}, "", crossings.images,
                             f"the driver did not finish within {self.timeout_s:g} s; its page was closed",
                             clip=clip.save())
        result = bound_tree(outcome)
        expectations = tuple(Expectation(e["label"], e["pass"], e.get("expected"), e.get("actual"))
                             for e in result.get("expectations", ()))
        return DriverRun(dict(result.get("verdicts", {})), result.get("notes", ""), crossings.images,
                         result.get("error"), result.get("form"), expectations, clip.save())


def _video_id(script: Script) -> str:
    return next((output.id for output in script.outputs if output.kind == "video"), "clip")


def _checked(run: DriverRun, script: Script, filmed: bool = True) -> DriverRun:
    """`run`, failed with the reason when a well-formed return still gets the manifest wrong
    (its declared outputs are checked only where they were filmed)."""
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
        return None  # left for the reviewer, or not filmed: no media were asked for
    for output in script.outputs:
        if output.kind == "image" and output.id not in run.images:
            return (f'declared image output "{output.id}" was never produced: the driver never '
                    f'called api.screenshot("{output.id}")')
        if output.kind == "video" and run.clip is None:
            return f'declared video output "{output.id}" was never produced: nothing was filmed'
    return None
