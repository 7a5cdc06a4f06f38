"""What `--tcab-review=RESULTS` holds: its runs (results.json of one run's `--tcab-out` or of a
sweep's), each run's folder and site copy, and the worklist order for the reviewer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_tcab.errors import TcabError
from pytest_tcab.run.context import run_folder_name

RESULTS_FILE = "results.json"

NOT_REVIEWED = "not reviewed by you"
DRAFT = "your review is incomplete"
STALE = "your review is stale (the build changed)"
DONE = "reviewed by you"
WORK_ORDER = (NOT_REVIEWED, DRAFT, STALE, DONE)
"""The worklist: runs not yet reviewed by you first, then incomplete, then stale, then done."""


class ResultsUnreadable(TcabError):
    """RESULTS is not a folder of results the page can review."""


@dataclass(frozen=True)
class ReviewedRun:
    """One run of RESULTS as results.json recorded it, and where its files are."""

    data: dict[str, Any]
    """The run's entry of results.json (`runs[]`)."""
    folder: Path
    """The run's folder under RESULTS: its media and its site copy."""

    @property
    def name(self) -> str:
        return str(self.data["run"])

    @property
    def slug(self) -> str:
        """The run's one path part in the page's URLs."""
        return run_folder_name(self.name)

    @property
    def site(self) -> Path | None:
        """The run's site copy, when one was kept."""
        site = self.data.get("site") or {}
        folder = self.folder / "site"
        return folder if site.get("copied") and folder.is_dir() else None

    @property
    def heading(self) -> str:
        return f"{self.data.get('case')}@{self.data.get('version')}#{self.data.get('variant')}"


def load_runs(results: Path) -> list[ReviewedRun]:
    """Every run RESULTS holds: its results.json's, else each run folder's (a sweep's), by name."""
    if not results.is_dir():
        raise ResultsUnreadable(f"--tcab-review: {results} is not a folder; give a run's or a sweep's --tcab-out folder")
    files = [results / RESULTS_FILE] if (results / RESULTS_FILE).is_file() else sorted(results.glob(f"*/{RESULTS_FILE}"))
    if not files:
        raise ResultsUnreadable(f"--tcab-review: {results} holds no {RESULTS_FILE} (nor do its folders); give the "
                                "--tcab-out folder of a graded run or sweep")
    runs: dict[str, ReviewedRun] = {}
    for path in files:
        for data in _runs_of(path):
            if isinstance(data, dict) and isinstance(data.get("run"), str):
                runs.setdefault(data["run"], ReviewedRun(data, results / run_folder_name(data["run"])))
    if not runs:
        raise ResultsUnreadable(f"--tcab-review: {', '.join(map(str, files))} records no run to review")
    return [runs[name] for name in sorted(runs)]


def _runs_of(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResultsUnreadable(f"--tcab-review: {path} cannot be read as results.json ({exc})") from None
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, list):
        raise ResultsUnreadable(f"--tcab-review: {path} is not a results.json (it has no `runs` list)")
    return runs


def work_state(review: dict[str, Any] | None) -> str:
    """Where a run stands for the reviewer, given their entry of the run's folded `review.reviews`."""
    if review is None:
        return NOT_REVIEWED
    if review.get("stale"):
        return STALE
    return DONE if review.get("complete") else DRAFT
