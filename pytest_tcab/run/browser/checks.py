"""`check[<view>]` items: drive the build into a view, screenshot it, compare with the baseline.

A check is a `pytest.Function` so that the session browser reaches it as a fixture through
public API (`from_parent(..., callobj=...)` resolves fixtures from the function's signature);
it is also a `RunItem`, so its run identity and figures reach results.json like every other
run item's.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.errors import format_key_path
from pytest_tcab.models.check import Check
from pytest_tcab.options import MAX_DIFF_OPTION
from pytest_tcab.options import Viewport
from pytest_tcab.run.browser.item import BrowserFunction
from pytest_tcab.run.browser.item import browser_test
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.item import RunItem
from pytest_tcab.toml import line_in

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_tcab.case import Variant
    from pytest_tcab.run.browser.driving import PageLog
    from pytest_tcab.run.browser.imagediff import Comparison
    from pytest_tcab.run.browser.serve import PageServer


CHECK_TIMEOUT_MS = 30_000.0
"""Bounds loading the build, rendering a mockup, and each `call` action."""

SALVAGE_TIMEOUT_MS = 2_000.0
"""How long the screenshot of a page that already failed may take: it is evidence, not the test."""

_baselines_key = pytest.StashKey[dict[tuple[Path, Viewport], bytes]]()
"""Still baselines, read once per session."""
_mockup_servers_key = pytest.StashKey[dict[Path, "PageServer"]]()
"""The server of each mockup folder, started on its first render and stopped with the session."""


class CheckFailed(TcabError):
    """The build could not be driven into the view, drew nothing, or strays too far from it."""


class CheckItem(RunItem, BrowserFunction):
    """`check[<view>]`: one `[[check]]` of the case, reported at its line of test-case.toml."""

    kind = "check"

    def __init__(self, *, check: Check, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.index = index
        """Position in `[[check]]`, for the key path of a failing action."""

    def use_browser(self, browser: BrowserSession) -> None:
        """Render the baseline, drive the build, screenshot, compare, record; then judge."""
        from PIL import Image

        from pytest_tcab.run.browser.driving import DriveError
        from pytest_tcab.run.browser.imagediff import compare
        from pytest_tcab.run.browser.imagediff import is_blank
        from pytest_tcab.run.browser.session import DEFAULT_VIEWPORT

        self.run.require_build()
        server = self.run.server()
        viewport: Viewport = self.config.getoption("tcab_viewport") or DEFAULT_VIEWPORT
        reference = _reference(self.run.variant, self.check)
        expected_png = self._baseline(browser, reference, viewport)
        problem: str | None = None
        page = browser.page(viewport, origin=server.url)
        page.set_default_timeout(CHECK_TIMEOUT_MS)
        try:
            self._drive_page(page, server.url)
        except DriveError as error:
            problem = str(error) + self._action_location(error.action_index)
            if not page.is_closed():  # a call that never settled closes its page
                page.set_default_timeout(SALVAGE_TIMEOUT_MS)
        actual_png = self._screenshot(page)
        if actual_png is None:
            raise CheckFailed(
                f"check {self.check.view!r}: {problem or 'the page cannot be screenshotted'}"
            )
        actual = Image.open(io.BytesIO(actual_png))
        comparison = compare(Image.open(io.BytesIO(expected_png)), actual)
        media = self._write_media(expected_png, actual_png, comparison)
        self.record(
            view=self.check.view,
            baseline=reference.source,
            viewport=f"{viewport[0]}x{viewport[1]}",
            similarity=round(comparison.similarity, 6),
            diff_ratio=round(comparison.diff_ratio, 6),
            differing_pixels=comparison.differing_pixels,
            size_note=comparison.note,
            **media,
        )
        if problem is not None:
            raise CheckFailed(f"check {self.check.view!r}: {problem}")
        if is_blank(actual):
            when = (
                f"after {_count(len(self.check.actions), 'action')}"
                if self.check.actions
                else "on load"
            )
            red, green, blue = actual.convert("RGB").getpixel((0, 0))  # type: ignore[misc]
            raise CheckFailed(
                f"check {self.check.view!r}: the page is blank: the screenshot {when} is a single "
                f"colour (#{red:02x}{green:02x}{blue:02x})"
            )
        max_diff: float | None = self.config.getoption("tcab_max_diff")
        if max_diff is not None and comparison.diff_ratio > max_diff:
            raise CheckFailed(
                f"check {self.check.view!r}: {comparison.diff_ratio:.2%} of the pixels differ from "
                f"the baseline, above {MAX_DIFF_OPTION}={max_diff:g} (similarity "
                f"{comparison.similarity:.4f}; see {media['diff']})"
            )

    def _drive_page(self, page: Page, url: str) -> None:
        from pytest_tcab.run.browser.driving import DriveError
        from pytest_tcab.run.browser.driving import load
        from pytest_tcab.run.browser.driving import perform

        log: PageLog = load(page, url, CHECK_TIMEOUT_MS)
        perform(page, self.check.actions, self.run.case.handle, CHECK_TIMEOUT_MS)
        if log.page_errors:
            raise DriveError(f"the page threw while being driven: {log.page_errors[0]}")

    def _screenshot(self, page: Page) -> bytes | None:
        """The viewport as PNG, or None when the page cannot be screenshotted (hung or closed)."""
        from playwright.sync_api import Error

        from pytest_tcab.run.browser.driving import screenshot_png

        try:
            return screenshot_png(page)
        except Error:
            return None

    def _action_location(self, action_index: int | None) -> str:
        """Where a failing action is written, so the author can go straight to it."""
        if action_index is None:
            return ""
        key = ("check", self.index, "actions", action_index)
        line = line_in(self.run.case.manifest_path, key)
        where = self.run.case.manifest_path.name + (f":{line}" if line else "")
        return f"\n    at {where}: `{format_key_path(key)}`"

    def _baseline(self, browser: BrowserSession, reference: _Baseline, viewport: Viewport) -> bytes:
        """The baseline as PNG bytes: a still read once per session, a mockup rendered once per
        content, viewport and Chromium (`mockups.py`); whether the render was cached is recorded."""
        from PIL import Image

        from pytest_tcab.run.browser.driving import DriveError
        from pytest_tcab.run.browser.driving import render_on
        from pytest_tcab.run.browser.mockups import cached_render

        source = (self.run.reporter_folder / reference.source).resolve()
        cache = self.config.stash.setdefault(_baselines_key, {})
        if reference.media:
            if (source, viewport) not in cache:
                buffer = io.BytesIO()
                with Image.open(source) as still:
                    still.save(buffer, format="PNG")
                cache[(source, viewport)] = buffer.getvalue()
            return cache[(source, viewport)]
        def render() -> bytes:
            # An origin and a context of its own: the build's pages can neither load the mockup
            # into themselves (and screenshot it as their own) nor share its storage.
            server, url = _mockup_page(self.config, self.run.reporter_folder, reference.source)
            page = browser.page(viewport, origin=server.url)
            try:
                return render_on(page, url, viewport, CHECK_TIMEOUT_MS)
            except DriveError as error:
                raise CheckFailed(
                    f"check {self.check.view!r}: the baseline mockup {reference.source} "
                    f"cannot be rendered: {error}"
                ) from None
            finally:
                page.close()

        facts = {"viewport": list(viewport), "chromium": browser.browser.version, "context": browser.context_args}
        png, hit = cached_render(self.config, self.run.reporter_folder, reference.source, facts, render)
        self.record(baseline_cache="hit" if hit else "rendered")
        return png

    def _write_media(self, expected_png: bytes, actual_png: bytes, comparison: Comparison) -> dict[str, str]:
        """`checks/<view>__{expected,actual,diff}.png` under the run's output folder."""
        folder = self.run.out_dir / "checks"
        folder.mkdir(parents=True, exist_ok=True)
        paths = {
            name: folder / f"{self.check.view}__{name}.png"
            for name in ("expected", "actual", "diff")
        }
        paths["expected"].write_bytes(expected_png)
        paths["actual"].write_bytes(actual_png)
        # Mostly flat grey: zlib's fastest level makes it as small, in a third of the time.
        comparison.diff_image().save(paths["diff"], format="PNG", compress_level=1)
        return {name: str(path) for name, path in paths.items()}


@dataclass(frozen=True)
class _Baseline:
    """The reference a check compares against: a mockup `path` or a still `media`."""

    source: str
    """The file, relative to the version folder."""
    media: bool
    """True for a still loaded from disk, False for a mockup rendered in the browser."""


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_finished(config: pytest.Config, run: RunContext) -> None:
    """The servers of a finished run's mockups stop: a later run of the case starts its own."""
    servers = config.stash.get(_mockup_servers_key, {})
    if servers:
        _stop_mockup_servers(servers, [folder for folder in servers if folder.is_relative_to(run.reporter_folder)])


def _stop_mockup_servers(servers: dict[Path, PageServer], folders: list[Path]) -> None:
    for folder in folders:
        servers.pop(folder).__exit__(None, None, None)


def _mockup_page(config: pytest.Config, reporter_folder: Path, source: str) -> tuple[PageServer, str]:
    """The server of the mockup's folder (its top-level folder in the reporter-side snapshot,
    which the render cache digests too) and the mockup's URL on it."""
    from pytest_tcab.run.browser.serve import PageServer

    parts = Path(source).parts
    folder, inner = (reporter_folder / parts[0], parts[1:]) if len(parts) > 1 else (reporter_folder, parts)
    servers = config.stash.get(_mockup_servers_key, None)
    if servers is None:
        servers = config.stash[_mockup_servers_key] = {}
        config.add_cleanup(lambda: _stop_mockup_servers(servers, list(servers)))
    server = servers.get(folder)
    if server is None:
        server = servers[folder] = PageServer({"mockup": folder}).__enter__()
    return server, server.page_url("mockup", "/".join(inner))


def _reference(variant: Variant, check: Check) -> _Baseline:
    reference = variant.reference(check.baseline_view)
    if reference is None:  # resolution rejects this; kept as a plain failure, not a crash
        raise CheckFailed(
            f"check {check.view!r}: variant {variant.slug!r} has no reference "
            f"{check.baseline_view!r}"
        )
    if reference.media is not None:
        return _Baseline(reference.media, media=True)
    return _Baseline(reference.path or "", media=False)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    """One `check[<view>]` per `[[check]]` of the case, pointing at its line of test-case.toml."""
    for index, check in enumerate(run.case.checks):
        line = line_in(run.case.manifest_path, ("check", index))
        yield CheckItem.from_parent(
            parent,
            name=f"check[{check.view}]",
            callobj=browser_test,
            run=run,
            key=check.view,
            location=(run.case.manifest_path, line),
            check=check,
            index=index,
        )
