"""`validate[<verdict>]` items: a validation script decides a verdict against the served build.

Each verdict unit that declares `validation` becomes one item, reported at the line of its
`validation` table. The item loads the build from the loopback server, runs the script (any
form, `scripts.run_script`) in the judge runtime from the run's snapshot and maps its verdict: true passes,
false fails with each failed expectation or the script's notes, null is left for the reviewer
(a skip), and any load-bearing failure fails with its reason. The media the script produces
land in the run's output folder beside the committed baseline they are compared with.
Baseline capture (`baselines.py`) drives through `drive` too."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import Variant
from pytest_tcab.case import VerdictUnit
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import TcabError
from pytest_tcab.models.manifest import Output
from pytest_tcab.outcomes import skip_unless_strict
from pytest_tcab.run.browser.item import BrowserFunction
from pytest_tcab.run.browser.item import browser_test
from pytest_tcab.run.browser.session import DEFAULT_VIEWPORT
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.context import BASELINE_FOLDER
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.item import RunItem
from pytest_tcab.run.item import variant_documents
from pytest_tcab.run.media import poster_of
from pytest_tcab.scoring import excluded_verdicts

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_tcab.run.judge.scripts import DriverRun

MEDIA_FOLDER = "validation"
"""A run's driver media go to `<out>/<run>/validation/`."""
LOAD_TIMEOUT_MS = 30_000.0
"""Bounds loading the build before its driver starts; the driver has its own timeout."""


class DriverFailed(TcabError):
    """The verdict fails: the driver decided false, or could not decide (a load-bearing failure)."""


def media_name(verdict_id: str, output: Output) -> str:
    """`<verdict>__<output>.<ext>`: the same name for a run's media and the committed baseline."""
    return f"{verdict_id}__{output.id}.{'webm' if output.kind == 'video' else 'png'}"


def baseline_folder(case: CaseVersion, variant: Variant) -> Path:
    return case.folder / BASELINE_FOLDER / variant.slug


@dataclass(frozen=True)
class Drive:
    """One driver run against one build: what it decided and the media it left, by output id."""

    result: DriverRun
    verdict: bool | None
    """The unit's verdict; None when the driver left it open or could not decide (see `result.error`)."""
    media: dict[str, Path]
    page_errors: tuple[str, ...]
    """Uncaught errors of the build while it was driven: context for a failure, not a verdict."""


def drive(browser: BrowserSession, run: RunContext, unit: VerdictUnit, media_dir: Path,
          timeout_s: float, still: Path | None = None) -> Drive:
    """Run the unit's validation script against the run's build, each pass on a fresh page.

    The script and its sibling modules are imported by the judge runtime from the run's snapshot
    (a `.ts` script as the JavaScript esbuild strips it to); its stills and clip land in
    `media_dir` as `<verdict>__<output>.<ext>`, whether the verdict passed or failed. With
    `still`, the page as the script left it is saved there too (media under the `page` key).
    """
    from pytest_tcab.run.browser.audio import audio_sources
    from pytest_tcab.run.sandbox.typescript import StripFailed
    from pytest_tcab.run.judge.runtime import session_judge
    from pytest_tcab.run.judge.scripts import DriverRun
    from pytest_tcab.run.judge.scripts import OutputSpec
    from pytest_tcab.run.judge.scripts import Script
    from pytest_tcab.run.judge.scripts import run_script

    validation = unit.validation
    assert validation is not None, "only units that declare validation are driven"
    server = run.server()
    try:
        module, roots = _script_module(run.reporter_folder, validation.script)
    except StripFailed as error:
        return Drive(DriverRun({}, "", {}, str(error)), None, {}, ())
    script = Script(
        path=module, name=validation.script, roots=roots, handle=run.case.handle,
        outputs=[OutputSpec(output.id, output.kind) for output in validation.outputs],
        verdict_ids=[unit.id], tick_hz=run.case.tick_hz,
    )
    viewport = run.config.getoption("tcab_viewport") or DEFAULT_VIEWPORT
    pages = BuildPages(browser, server.url, viewport)  # closed by the session when the item ends
    result = run_script(pages.open, script, session_judge(run.config), timeout_s, media_dir, unit.id,
                        audio_sources, media=media_mode(run.config))
    left = pages.screenshot(still) if still is not None else None
    media = dict(result.images)
    video = next((output for output in validation.outputs if output.kind == "video"), None)
    if video is not None and result.clip is not None:
        media[video.id] = result.clip
    if left is not None:
        media["page"] = left
    return Drive(result, result.verdicts.get(unit.id), media, tuple(pages.page_errors))


def _script_module(snapshot: Path, script: str) -> tuple[Path, dict[str, str]]:
    """The module the judge imports for `script` (relative to the case folder), and how its
    messages name the paths it runs from: the snapshot's files by their paths in the case folder.

    A `.ts` script is the JavaScript esbuild strips it to, its imports bundled and its source map
    inline (the cache key covers the sources of its top folder, e.g. `validators/`), so its frames
    name the `.ts` files and lines; `typescript.StripFailed` says why it cannot be.
    """
    from pytest_tcab.run.sandbox.typescript import is_typescript
    from pytest_tcab.run.sandbox.typescript import strip_types

    folder = os.path.realpath(snapshot)
    roots = {f"{folder}/": ""}
    source = Path(folder) / script
    if not is_typescript(script):
        return source, roots
    top = Path(folder) / Path(script).parts[0] if len(Path(script).parts) > 1 else Path(folder)
    stripped = strip_types(source, top, Path(folder))
    # Frames in the stripped module name its digest; its source map names the .ts files beside it.
    return stripped, {**roots, os.path.realpath(stripped): script, f"{os.path.realpath(stripped.parent)}/": ""}


def media_mode(config: pytest.Config) -> str:
    """`--tcab-media`; baseline capture always films, since the media are what it writes."""
    return "all" if config.getoption("tcab_capture_baselines") else str(config.getoption("tcab_media"))


class BuildPages:
    """Fresh pages with the build loaded, lent by the session for the current item: each in a
    context of the build's origin, its Web Audio watched from outside its realm, the previous
    page closed and its storage cleared first, so every pass starts as a fresh context would."""

    def __init__(self, browser: BrowserSession, url: str, viewport: tuple[int, int]) -> None:
        self.browser = browser
        self.url = url
        self.viewport = viewport
        self.page_errors: list[str] = []
        """Uncaught errors of the build while any of its pages was driven."""
        self._last: Page | None = None

    def open(self) -> Page:
        from pytest_tcab.run.browser.audio import watch_audio
        from pytest_tcab.run.browser.driving import load

        if self._last is not None:
            self.browser.recycle(self._last)
        page = self._last = self.browser.page(self.viewport, origin=self.url)
        watch_audio(page)  # before it navigates: api.audio() reads what Chromium's engine saw
        self.page_errors = load(page, self.url, LOAD_TIMEOUT_MS).page_errors
        return page

    def screenshot(self, dest: Path) -> Path | None:
        """The last page as the script left it, saved to `dest`; None when it was closed (a timeout)."""
        if self._last is None or self._last.is_closed():
            return None
        dest.parent.mkdir(parents=True, exist_ok=True)
        self._last.screenshot(path=dest, type="png")
        return dest



def false_reason(result: DriverRun) -> str:
    """Why a script decided false: each failed expectation with both values, then its notes."""
    failed = result.failed_expectations
    if not failed:
        return result.notes or "the driver left no notes"
    lines = [f"{len(failed)} of {len(result.expectations)} expectations failed:"]
    lines += [f"    {expectation.describe()}" for expectation in failed]
    if result.notes:
        lines.append(f"    notes: {result.notes}")
    return "\n".join(lines)


class ValidateItem(RunItem, BrowserFunction):
    """`validate[<verdict>]`: one verdict unit's driver against the run's build."""

    kind = "validate"
    drives_judge = True

    def __init__(self, *, unit: VerdictUnit, excluded_by: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unit = unit
        self.excluded_by = excluded_by
        """The erratum whose `exclude_from_score` removes this point: its failure is an xfail."""

    def use_browser(self, browser: BrowserSession) -> None:
        """Drive, record what the driver decided and produced, then judge the verdict."""
        assert self.unit.validation is not None
        self.run.require_build()
        timeout_s = float(self.config.getoption("tcab_driver_timeout"))
        outcome = drive(browser, self.run, self.unit, self.run.out_dir / MEDIA_FOLDER, timeout_s)
        folder = self.run.reporter_folder / BASELINE_FOLDER / self.run.variant.slug  # the snapshot's
        media = []
        for output in self.unit.validation.outputs:
            produced = outcome.media.get(output.id)
            entry = {"output": output.id, "kind": output.kind, "path": str(produced) if produced else None,
                     "baseline": self._copy_baseline(folder / media_name(self.unit.id, output))}
            if output.kind == "video":  # each clip shows its poster frame until it is played
                entry |= {"poster": poster_of(entry["path"]), "baseline_poster": poster_of(entry["baseline"])}
            media.append(entry)
        figures: dict[str, Any] = {"script": self.unit.validation.script, "form": outcome.result.form,
                                   "verdict": outcome.verdict, "notes": outcome.result.notes, "media": media}
        if outcome.result.expectations:
            figures["expectations"] = [asdict(expectation) for expectation in outcome.result.expectations]
        if self.excluded_by is not None:
            figures["excluded_by"] = self.excluded_by
        if outcome.page_errors:
            figures["page_errors"] = list(outcome.page_errors)
        if outcome.result.judge_restarts:
            figures["judge_restarts"] = outcome.result.judge_restarts
        self.record(**figures)
        self._judge(outcome, self.unit.validation.script)

    def _copy_baseline(self, baseline: Path) -> str | None:
        """The committed baseline, copied beside the observed media so the results folder
        stays whole when it is moved (a CI artifact, say)."""
        if not baseline.is_file():
            return None
        copy = self.run.out_dir / MEDIA_FOLDER / "baseline" / baseline.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(baseline, copy)
        return str(copy)

    def _judge(self, outcome: Drive, script: str) -> None:
        notes = outcome.result.notes
        if outcome.result.error is not None:
            reason = f"{script}: {outcome.result.error}"
            if notes:
                reason += f"\n    notes: {notes}"
            if outcome.page_errors:
                reason += f"\n    the page threw while driven: {outcome.page_errors[0]}"
            self._fail(reason)
        elif outcome.verdict is None:
            skip_unless_strict(self.config, "left for the reviewer: "
                               f"{notes or 'the driver could not meet its precondition (no notes)'}")
        elif outcome.verdict is False:
            self._fail(f'verdict "{self.unit.id}" is false: {false_reason(outcome.result)}')

    def _fail(self, reason: str) -> None:
        """Fail the verdict, unless an erratum excludes the point: then it no longer gates the run."""
        if self.excluded_by is not None:
            pytest.xfail(f"excluded by erratum {self.excluded_by}: {reason}")
        raise DriverFailed(reason)


def excluding_errata(case: CaseVersion, variant: Variant) -> dict[str, str]:
    """Verdict id -> the id of the first erratum that excludes it from this variant's score."""
    excluded: dict[str, str] = {}
    for erratum in case.errata:
        for verdict in excluded_verdicts(variant, [erratum]):
            excluded.setdefault(verdict, erratum.id)
    return excluded


def validation_lines(case: CaseVersion, variant: Variant) -> dict[str, tuple[Path, int | None]]:
    """Verdict id -> the file and line of its `validation` table (test-case.toml or the variant file)."""
    return {verdict: (document.path, document.line_of(key))
            for document in variant_documents(case, variant) for verdict, key in _validation_keys(document.data)}


def _validation_keys(data: dict[str, Any]) -> Iterator[tuple[str, KeyPath]]:
    """Each verdict id a document declares validation for, with the key path of that table."""
    for i, item in enumerate(data.get("review_item", [])):
        if "validation" in item:
            yield item["id"], ("review_item", i, "validation")
        for spelling in ("sub_items", "sub_item"):
            for j, sub in enumerate(item.get(spelling, [])):
                if "validation" in sub:
                    yield f"{item['id']}.{sub['id']}", ("review_item", i, spelling, j, "validation")
    for i, category in enumerate(data.get("review", {}).get("categories", [])):
        for j, item in enumerate(category.get("items", [])):
            if "validation" in item:
                yield f"{category['id']}.{item['id']}", ("review", "categories", i, "items", j, "validation")


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    """One `validate[<verdict>]` per verdict unit of the run's variant that declares validation."""
    lines = validation_lines(run.case, run.variant)
    excluded = excluding_errata(run.case, run.variant)
    for unit in run.variant.units():
        if unit.validation is None:
            continue
        yield ValidateItem.from_parent(
            parent, name=f"validate[{unit.id}]", callobj=browser_test, run=run, key=unit.id,
            location=lines.get(unit.id), unit=unit, excluded_by=excluded.get(unit.id),
        )
