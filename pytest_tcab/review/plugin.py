"""The review wing in a run-mode (or merge) session: registered by `pytest_tcab.plugin`.

- `pytest_tcab_run_results`: each run's `review` key, folded from the operator's review files of
  that run (`--tcab-reviews`); a review file found where none may be (inside a produced run) is
  ignored, a malformed one is reported with its lines: both in results.json and in the terminal's
  `tcab reviews` section (not as Python warnings, which a `filterwarnings = error` would turn
  into a crash of the session's end).
- `pytest_tcab_run_items`: with `--tcab-require-review` (or `--tcab-strict`), one `review` item per
  run with a checklist, last in the run: the publication gate. It fails, saying what is missing,
  unless the run has a complete review of the build graded now.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.review.fold import ReviewTarget
from pytest_tcab.review.fold import fold
from pytest_tcab.review.store import REVIEW_SUFFIX
from pytest_tcab.review.store import load_reviews
from pytest_tcab.review.store import reviews_dir
from pytest_tcab.review.store import run_folder
from pytest_tcab.run.item import RunItem

if TYPE_CHECKING:
    from pytest_tcab.run.context import RunContext

PLUGIN_NAME = "tcab-review"
REQUIRE_OPTION = "--tcab-require-review"
SHIPPED = Path(".tcab/reviews")
"""Where a run folder would hold reviews if it were a rootdir: what a build that ships its own
review puts there (said to be ignored, never read)."""


class ReviewPlugin:
    """Folds the reviews into each run's results; adds the gate's items when asked."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.folder = reviews_dir(config)
        self.notices: dict[str, None] = {}
        """What the terminal says at the end: review files ignored or with problems (each once)."""

    @pytest.hookimpl
    def pytest_tcab_run_results(self, config: pytest.Config, run: dict[str, Any]) -> None:
        target = ReviewTarget.of(run)
        if target is None:
            return
        produced = self._produced(run)
        loaded = load_reviews(self.folder, str(run["run"]), target, produced=produced)
        ignored = [*loaded.ignored, *_shipped(run, self.folder)]
        review = fold(run, loaded, problems=loaded.problems, ignored=ignored, root=config.rootpath,
                      folder=self.folder / run_folder(str(run["run"])))
        if review is None:
            return
        run["review"] = review
        entries = [problem for entry in review["reviews"] for problem in entry.get("problems", [])]
        for line in [*ignored, *review.get("problems", []), *entries]:
            self.notices.setdefault(line)

    def _produced(self, run: dict[str, Any]) -> list[Path]:
        from pytest_tcab.runs import run_folders

        folders = [given.folder for given in run_folders(self.config)]
        if run.get("source"):
            folders.append(Path(str(run["source"])))
        return folders

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.notices and not hasattr(self.config, "workerinput"):
            terminalreporter.section("tcab reviews", sep="-", yellow=True)
            for notice in self.notices:
                terminalreporter.write_line(notice, yellow=True)

    @pytest.hookimpl(trylast=True)
    def pytest_tcab_run_items(self, run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item] | None:
        """`review`: the publication gate, last in each run with a checklist, when it is asked for."""
        config = parent.config
        if not (config.getoption("tcab_require_review") or config.getoption("tcab_strict")):
            return None
        if run.reference or len(run.entrants) > 1 or not run.variant.checklist or run.case.layout != "catalog":
            return None
        return iter([ReviewGate.from_parent(parent, name="review", run=run, key="review")])


def _shipped(run: dict[str, Any], folder: Path) -> list[str]:
    """The review files a run folder itself holds: a build that ships its own review (never read)."""
    source = run.get("source")
    if not source:
        return []
    shipped = Path(str(source)) / SHIPPED
    try:
        if not shipped.is_dir() or Path(os.path.realpath(shipped)) == folder:
            return []  # the reviews folder itself lies there: load_reviews already ignored its files
        found = sorted(shipped.rglob(f"*{REVIEW_SUFFIX}"))
    except OSError:
        return []
    return [f"{path}: ignored: it lies inside the produced run folder {source}: a build must not ship its own review"
            for path in found]


class ReviewMissing(TcabError):
    """The publication gate: the run has no complete review of the build graded now."""


class ReviewGate(RunItem):
    """`review`: passes when the run has a complete, current review; else says what is missing."""

    kind = "review"

    def runtest(self) -> None:
        from pytest_tcab.run.report.results import results_key

        recorder = self.config.stash.get(results_key, None)
        if recorder is None or self.run.label not in recorder.runs:
            raise ReviewMissing("not run: no results of this run were recorded to review")
        run = recorder.run_results(self.run.label)["runs"][0]
        review = run.get("review")
        if review is None:
            raise ReviewMissing("the run has no checklist results to review (its verdicts did not run)")
        self.record(reviewed=review["reviewed"], rating=review["rating"],
                    reviewed_score=None if review["score"] is None else review["score"]["value"])
        if not review["complete"]:
            raise ReviewMissing(missing_message(run, review, REQUIRE_OPTION))


def missing_message(run: dict[str, Any], review: dict[str, Any], option: str) -> str:
    """What the gate says: why no review counts yet, per review, and where one is written."""
    lines = [f"no complete, current review of {run['run']} ({option}): a run is published once every item and "
             "sub-item has a verdict and every domain of its variant is rated, in a review of the build graded now"]
    for entry in review["reviews"]:
        who = f"{entry['reviewer']} ({entry['file']})"
        if entry["stale"]:
            lines.append(f"- {who} is stale: it reviewed build {str(entry['build'])[:12]}, and the build graded now "
                         f"is {str(review['build'])[:12]}; review the build again (its `build:` line names it)")
            continue
        missing = entry["missing"]
        if missing["verdicts"]:
            lines.append(f"- {who} gives no verdict for {', '.join(missing['verdicts'])}")
        if missing["domains"]:
            lines.append(f"- {who} rates no {', '.join(missing['domains'])}")
        lines.extend(f"- {problem}" for problem in entry.get("problems", []))
    lines.extend(f"- {problem}" for problem in review.get("problems", []))
    if not review["reviews"] and not review.get("problems"):
        pending = [unit for item in run["score"]["items"] for unit in item["units"]
                   if unit["automated"] in ("pending", "not_run")]
        domains = [domain["id"] for domain in run["domains"]["set"]]
        lines.append(f"- no review yet: write {review['folder']}/<reviewer>.md deciding "
                     f"{', '.join(unit['id'] for unit in pending) or 'no pending point'} and rating "
                     f"{', '.join(domains)} (see docs/reference/review-file.md)")
    return "\n".join(lines)
