"""`pytest --tcab-suite=SUITE --tcab-review=RESULTS`: the session serves the review page instead of
testing, prints its URL, and runs until interrupted (Ctrl-C ends it cleanly, exit status 0).

Registered by plugin.py; like the writing sessions (`--tcab-merge`) it collects nothing.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.options import REVIEW_OPTION
from pytest_tcab.options import SUITE_OPTION
from pytest_tcab.review.fold import ReviewTarget
from pytest_tcab.review.fold import fold
from pytest_tcab.review.grammar import Review
from pytest_tcab.review.page.runs import ResultsUnreadable
from pytest_tcab.review.page.runs import ReviewedRun
from pytest_tcab.review.page.runs import load_runs
from pytest_tcab.review.page.server import Reviewing
from pytest_tcab.review.page.server import ReviewServer
from pytest_tcab.review.page.view import MediaIndex
from pytest_tcab.review.store import LoadedReviews
from pytest_tcab.review.store import load_reviews
from pytest_tcab.review.store import reviewer_name
from pytest_tcab.review.store import reviews_dir
from pytest_tcab.review.store import save_review
from pytest_tcab.suite import Suite


def reviewing(config: pytest.Config, suite_root: Path | None) -> Reviewing:
    """What the page works from, or a usage error saying what is missing."""
    if suite_root is None:
        raise pytest.UsageError(f"{REVIEW_OPTION} needs {SUITE_OPTION}=SUITE: the suite whose checklists the runs "
                                "are reviewed against")
    results = Path(config.getoption("tcab_review")).resolve()
    try:
        runs = load_runs(results)
        reviewer = reviewer_name(config)
    except (ResultsUnreadable, TcabError) as exc:
        raise pytest.UsageError(str(exc)) from None
    folder = reviews_dir(config)
    produced = [Path(str(run.data["source"])) for run in runs if run.data.get("source")]

    def loaded(run: ReviewedRun) -> LoadedReviews:
        return load_reviews(folder, run.name, ReviewTarget.of(run.data), produced=produced)

    def own(run: ReviewedRun) -> Review | None:
        return next((review for review in loaded(run) if review.reviewer == reviewer), None)

    def figures(run: ReviewedRun) -> dict[str, Any]:
        found = loaded(run)
        return fold(run.data, found, problems=found.problems, ignored=found.ignored, root=config.rootpath) or {}

    def save(run: ReviewedRun, review: Review, note: str) -> dict[str, Any] | None:
        return save_review(folder, run.name, review, note, target=ReviewTarget.of(run.data))

    return Reviewing(runs=runs, suite=Suite(suite_root), reviews=folder, reviewer=reviewer, figures=figures,
                     save=save, own=own, media=MediaIndex([results, suite_root]))


class ReviewSession:
    """The session's test loop is the page's server; nothing is collected."""

    def __init__(self, config: pytest.Config, suite_root: Path | None) -> None:
        self.config = config
        self.server = ReviewServer(reviewing(config, suite_root))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        server = self.server
        state = server.reviewing
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        lines = [(f"review page: {server.url} (reviewing as {state.reviewer}; {len(state.runs)} run(s); reviews in "
                 f"{state.reviews})"), "press Ctrl-C to stop"]
        for line in lines:
            if reporter is not None:
                reporter.write_line(line)
            else:
                print(line)
        sys.stdout.flush()
        previous_term = signal.signal(signal.SIGTERM, _interrupt)  # a `kill` ends it as Ctrl-C does
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous_term)
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not break the close
            try:
                server.close()
            finally:
                signal.signal(signal.SIGINT, previous)
        saved = len(state.saved)
        if reporter is not None:
            reporter.write_line(f"review page stopped: {saved} revision{'s' if saved != 1 else ''} saved, "
                                f"{state.refused} request{'s' if state.refused != 1 else ''} refused")
        return True

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        session.exitstatus = pytest.ExitCode.OK


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
