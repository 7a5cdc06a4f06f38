"""The base of every run item: the run's identity and the item's figures on each report.

A plugin of its own (registered with the run families, `run.families`): its report hook puts
`report.tcab` on every run item's report, which results.json is built from.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.bounded import bound_tree
from pytest_tcab.failures import is_plain
from pytest_tcab.failures import item_failure
from pytest_tcab.items import own_line
from pytest_tcab.nodeids import OwnName
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.outcomes import NOT_GRADED_PROPERTY
from pytest_tcab.outcomes import not_graded_reason
from pytest_tcab.run.versions import graded_by
from pytest_tcab.run.versions import graded_with
from pytest_tcab.run.versions import note_browser
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import line_in
from pytest_tcab.toml import load

if TYPE_CHECKING:
    from pytest_tcab.case import CaseVersion
    from pytest_tcab.case import Variant
    from pytest_tcab.run.context import RunContext


class RunItem(OwnName, pytest.Item):
    """Base of run-mode items: each report carries the run's identity and the item's figures.

    Whole, as `report.tcab` (what results.json is built from; pytest-xdist ships it to the
    controller); flat, as plain `tcab.<name>` user properties (what JUnit shows).
    """

    kind = "run"
    drives_judge = False
    """Whether it drives a script in the judge runtime: a run with one selected warms the judge during its build."""

    def __init__(self, *, run: RunContext, key: str, location: tuple[Path, int | None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        match_saved_form(self)
        self.run = run
        self.key = key
        self._location = location
        self.figures: dict[str, Any] = {}
        identity = {**run.run_properties(), "kind": self.kind, "id": key}
        labels = identity.pop("labels")
        self.user_properties.extend((f"tcab.{name}", value) for name, value in identity.items() if value is not None)
        self.user_properties.extend((f"tcab.label.{name}", value) for name, value in sorted(labels.items()))

    def fresh_attempt(self, properties: list[tuple[str, object]]) -> None:
        """Forget what an earlier attempt left on the item (its figures, its properties beyond
        `properties`, those it had before its first attempt), before it is graded again
        (`run.attempts`): each attempt says only what it found itself."""
        self.figures = {}
        self.user_properties[:] = properties
        following = getattr(super(), "fresh_attempt", None)  # a browser item's own state, when it is one
        if following is not None:
            following()

    def record(self, **figures: Any) -> None:
        """Attach figures (similarity, fuel, media paths) to this item's report, every text bounded."""
        self.figures.update(bound_tree(figures))

    def record_attempts(self, attempts: list[dict[str, Any]], gradings: list[str] | None) -> None:
        """Every attempt of an item graded more than once (`run.attempts`): a retry after the grader
        broke, or each grading of `--tcab-regrade` (then `gradings` holds each one's outcome)."""
        if len(attempts) > 1:
            self.record(attempts=attempts)
        if gradings is not None:
            self.record(gradings=gradings)

    def report_data(self) -> dict[str, Any]:
        """What `report.tcab` holds: the run, the item, and its figures so far."""
        return {"run": self.run.run_properties(), "item": {"kind": self.kind, "id": self.key},
                "figures": dict(self.figures)}

    def publish_figures(self) -> None:
        """The figures with a plain value, as `tcab.<name>` user properties (JUnit), once each."""
        present = {name for name, _ in self.user_properties}
        for name, value in self.figures.items():
            if isinstance(value, str | int | float | bool) and f"tcab.{name}" not in present:
                self.user_properties.append((f"tcab.{name}", value))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if is_plain(excinfo.value):
            return item_failure(self, excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def declared_at(self) -> tuple[Path, int | None]:
        """The TOML table the item is about (the manifest's `[[check]]`, a specification's
        requirement): where its failures are told (`file:line` in their text)."""
        return self._location or (self.run.case.manifest_path, None)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """A line of the file the item's id names: its table when that is the file (a run without
        run.toml lives under its manifest), else `run.toml`'s line that names the case."""
        return self.path, own_line(self, self.declared_at(), line_in(self.path, ("case",))), f"tcab: {self.name}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    """A run ends with its last item in this process: the next item belongs to another run, or
    to none. Items run in collection order, and under xdist a run is one work unit, so the
    worker's `nextitem` is the item that really comes next."""
    if not isinstance(item, RunItem):
        return (yield)
    last = nextitem is None or getattr(nextitem, "run", None) is not item.run
    item.stash[_last_of_run_key] = last
    result = yield
    if last:
        item.config.hook.pytest_tcab_run_finished(config=item.config, run=item.run)
    return result


_last_of_run_key = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if isinstance(item, RunItem):
        if report.skipped and isinstance(report.longrepr, tuple):
            # Told at its table, as its failures are (its id's run.toml line is one for every item):
            # `-rs` then says which check or stress case was skipped.
            path, line = item.declared_at()
            report.longrepr = (str(path), line or 1, report.longrepr[2])
        why = not_graded_reason(call.excinfo.value) if call.excinfo is not None else None
        if why is not None:
            report.user_properties.append((NOT_GRADED_PROPERTY, why))
        if call.when != "teardown":
            item.publish_figures()  # before the teardown report, the one JUnit reads properties from
        report.tcab = item.report_data()
        if call.when == "call":
            note_browser(item, item.run.label)
        if call.when == "teardown" and item.stash.get(_last_of_run_key, False):
            report.tcab["run_finished"] = True
            report.tcab["graded_by"] = graded_by(item.config, item.run.label)
            report.tcab["graded_with"] = graded_with(item.config)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> Generator[None, Any, Any]:
    """pytest keeps every report to the session's end (its terminal summary's): once every hook
    has read a run item's `report.tcab` (the recorder, the sweep writer, JUnit), the report lets
    go of it, or a sweep would hold it for every item of every run it graded (issue 33)."""
    try:
        return (yield)
    finally:
        report.__dict__.pop("tcab", None)


def variant_documents(case: CaseVersion, variant: Variant) -> list[TomlDocument]:
    """The TOML documents that declare `variant`'s effective set: the manifest, then its variant file."""
    manifest = load(case.manifest_path)
    if not isinstance(manifest, TomlDocument):
        return []
    documents = [manifest]
    for relative in manifest.data.get("variants", []):
        loaded = load(case.folder / relative)
        if isinstance(loaded, TomlDocument) and (loaded.data.get("slug") or loaded.path.stem) == variant.slug:
            documents.append(loaded)
    return documents
