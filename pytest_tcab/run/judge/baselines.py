"""`--tcab-capture-baselines`: the committed expected side of every validation driver's media.

Each validation script is driven against its variant's reference implementation, and what it
produces is written to `<version>/validation-baseline/<variant>/<verdict>__<output>.<ext>`:
one `baseline[<variant>:<verdict>]` item per verdict unit, under its manifest. A session plugin
gathers what the items wrote, removes the files of each variant folder that no driver declares
any more, and says all of it in the terminal summary, so the author knows what to commit.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import VerdictUnit
from pytest_tcab.errors import TcabError
from pytest_tcab.items import own_line
from pytest_tcab.nodeids import OwnName
from pytest_tcab.outcomes import skip_unless_strict
from pytest_tcab.run.browser.item import BrowserFunction
from pytest_tcab.run.browser.item import browser_test
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.collect import reference_context
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.judge.drivers import baseline_folder
from pytest_tcab.run.judge.drivers import drive
from pytest_tcab.run.judge.drivers import false_reason
from pytest_tcab.run.judge.drivers import media_name
from pytest_tcab.run.judge.drivers import validation_lines
from pytest_tcab.toml import line_in

NEW = "new"
CHANGED = "changed"
"""An image whose bytes differ from the committed one."""
REWRITTEN = "rewritten"
"""A video recorded again: clips are never byte-stable, so any re-recording counts."""
UNCHANGED = "unchanged"
REMOVED = "removed"
"""A file of a variant folder that no driver of the variant declares any more."""
_ORDER = (NEW, CHANGED, REWRITTEN, UNCHANGED, REMOVED)

_FOLDER_PROPERTY = "tcab.baseline.folder"
_FILES_PROPERTY = "tcab.baseline.files"
class BaselineFailed(TcabError):
    """The reference implementation did not give the driver a passing drive: nothing is written."""


class BaselineItem(OwnName, BrowserFunction):
    """`baseline[<variant>:<verdict>]`: one driver against its variant's reference implementation."""

    def __init__(self, *, run: RunContext, unit: VerdictUnit, location: tuple[Path, int | None] | None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.unit = unit
        self._location = location
        declared = sorted(media_name(u.id, output) for u in run.variant.units() if u.validation is not None
                          for output in u.validation.outputs)
        # On every report, so the controller knows each folder to prune even under xdist.
        self.user_properties.append((_FOLDER_PROPERTY, {
            "folder": str(baseline_folder(run.case, run.variant)), "declared": declared,
        }))

    def declared_at(self) -> tuple[Path, int | None]:
        """The verdict's `validation` table, in the manifest or the variant file declaring it."""
        return self._location or (self.run.case.manifest_path, None)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, own_line(self, self.declared_at(), line_in(self.path, ("variants",))), f"tcab: {self.name}"

    def use_browser(self, browser: BrowserSession) -> None:
        """Drive the reference build; only a passing drive replaces the committed media."""
        validation = self.unit.validation
        assert validation is not None
        self.run.require_build()
        timeout_s = float(self.config.getoption("tcab_driver_timeout"))
        scratch = self.run.scratch() / "baselines" / self.unit.id
        outcome = drive(browser, self.run, self.unit, scratch, timeout_s)
        kept = "the committed baseline is kept"
        if outcome.result.error is not None:
            raise BaselineFailed(f"not captured ({kept}): {validation.script}: {outcome.result.error}")
        notes = outcome.result.notes or "no notes"
        if outcome.verdict is None:
            skip_unless_strict(self.config, f"not captured ({kept}): left for the reviewer against the "
                               f"reference implementation: {notes}")
        if outcome.verdict is False:
            raise BaselineFailed(f'not captured ({kept}): verdict "{self.unit.id}" is false against the '
                                 f"reference implementation: {false_reason(outcome.result)}")
        folder = baseline_folder(self.run.case, self.run.variant)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for output in validation.outputs:
            dest = folder / media_name(self.unit.id, output)
            source = outcome.media[output.id]  # a drive without an error produced every declared output
            status = _status(source, dest, output.kind)
            if status != UNCHANGED:
                shutil.copyfile(source, dest)
            written.append({"path": str(dest), "status": status})
        self.user_properties.append((_FILES_PROPERTY, written))


def _status(source: Path, dest: Path, kind: str) -> str:
    if not dest.is_file():
        return NEW
    if kind == "video":
        return REWRITTEN
    return UNCHANGED if source.read_bytes() == dest.read_bytes() else CHANGED


def baseline_items(parent: pytest.Collector, case: CaseVersion) -> Iterator[pytest.Item]:
    """A `baseline[<variant>:<verdict>]` per validated unit of each variant with a reference implementation."""
    for variant in case.variants:
        if variant.reference_implementation is None:
            continue
        run = reference_context(parent.config, case, variant)
        lines = validation_lines(case, variant)
        for unit in variant.units():
            if unit.validation is None:
                continue
            yield BaselineItem.from_parent(parent, name=f"baseline[{variant.slug}:{unit.id}]", callobj=browser_test,
                                           run=run, unit=unit, location=lines.get(unit.id))


class BaselineRecorder:
    """Registered under --tcab-capture-baselines: what was written, what was pruned, said once."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.declared: dict[Path, set[str]] = {}
        self.files: dict[Path, dict[str, str]] = {}
        """Variant folder -> file name -> status."""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == _FOLDER_PROPERTY and isinstance(value, dict):
                self.declared.setdefault(Path(value["folder"]), set(value["declared"]))
            elif name == _FILES_PROPERTY and report.when == "call" and isinstance(value, list):
                for entry in value:
                    path = Path(entry["path"])
                    self.files.setdefault(path.parent, {})[path.name] = entry["status"]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Remove what no driver of a variant declares; a file some driver declares always stays."""
        if hasattr(self.config, "workerinput"):
            return  # an xdist worker: the controller prunes
        for folder, declared in self.declared.items():
            if not folder.is_dir():
                continue
            for entry in sorted(folder.iterdir()):
                if entry.is_file() and entry.name not in declared:
                    entry.unlink()
                    self.files.setdefault(folder, {})[entry.name] = REMOVED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if hasattr(self.config, "workerinput") or not self.files:
            return
        terminalreporter.section("tcab baselines", sep="-")
        here = self.config.invocation_params.dir
        for folder, files in sorted(self.files.items()):
            counts = [f"{sum(1 for s in files.values() if s == word)} {word}" for word in _ORDER
                      if word in files.values()]
            terminalreporter.write_line(f"{os.path.relpath(folder, here)}: {', '.join(counts)}")
            for name, status in sorted(files.items(), key=lambda entry: (_ORDER.index(entry[1]), entry[0])):
                terminalreporter.write_line(f"  {status:<9} {name}")
        terminalreporter.write_line("commit these folders: a run's report shows them as the expected side")
