"""`--tcab-resume` carries the runs an earlier sweep graded: with the reviews written since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_tcab.run.context import run_folder_name
from pytest_tcab.run.report.carried import kept
from pytest_tcab.run.report.sweep import sweep_row
from tests.review.test_fold import COMPLETE
from tests.review.test_fold import results_run


def carried_run(folder: Path) -> dict[str, object]:
    """A run an earlier sweep graded, as its own folder holds it (results.json, no review yet)."""
    run = {**results_run(), "case": "pong", "version": "v2.0.0", "engine": "none", "source": "/elsewhere/carom-base",
           "layout": "catalog", "counts": {"passed": 1}, "partial": False, "media": "all",
           "items": [{"nodeid": "carom-base/.tcab/run.toml::build", "kind": "build", "id": "build",
                      "outcome": "passed", "duration_s": 1.0}]}
    run["score"].update({"failed_weight": 1.0, "pending_weight": 3.0, "decided_weight": 3.0})
    own = folder / run_folder_name("carom-base")
    own.mkdir(parents=True)
    (own / "results.json").write_text(json.dumps({"tool": {}, "runs": [run]}), encoding="utf-8")
    return sweep_row(run, f"{own.name}/report.html", folder)


def test_a_carried_run_is_assembled_again_with_its_reviews(pytester: pytest.Pytester, example_suite: Path) -> None:
    earlier = pytester.path / "earlier"
    row = carried_run(earlier)
    (pytester.path / "reviews/carom-base").mkdir(parents=True)
    (pytester.path / "reviews/carom-base/ana.md").write_text(COMPLETE, encoding="utf-8")
    config = pytester.parseconfigure("--tcab-suite=example-suite", "--tcab-run=example-suite/runs/carom-base",
                                     "--tcab-reviews=reviews", "--tcab-out=out")
    writer = config.pluginmanager.get_plugin("tcab-sweep")
    writer.resumed = kept(earlier, [row])
    (pytester.path / "out").mkdir()
    (carried,) = writer._resumed_rows()
    assert carried["resumed"] is True
    (run,) = json.loads((pytester.path / "out/carom-base/results.json").read_text(encoding="utf-8"))["runs"]
    assert (run["review"]["rating"], run["review"]["reviewed"]) == ("passable", 1)
    assert "reviewed score" in (pytester.path / "out/carom-base/report.html").read_text(encoding="utf-8")


def test_a_carried_run_with_nothing_new_is_not_written_again(pytester: pytest.Pytester, example_suite: Path) -> None:
    earlier = pytester.path / "earlier"
    row = carried_run(earlier)
    config = pytester.parseconfigure("--tcab-suite=example-suite", "--tcab-run=example-suite/runs/carom-base",
                                     "--tcab-reviews=reviews", "--tcab-out=out")
    writer = config.pluginmanager.get_plugin("tcab-sweep")
    writer.resumed = kept(earlier, [row])
    (pytester.path / "out").mkdir()
    first = writer._resumed_rows()  # gains its (empty) review: written once
    written = pytester.path / "out/carom-base/results.json"
    assert json.loads(written.read_text(encoding="utf-8"))["runs"][0]["review"]["reviews_total"] == 0
    before = written.stat().st_mtime_ns
    writer.resumed = kept(pytester.path / "out", [{key: value for key, value in first[0].items() if key != "resumed"}])
    assert writer._resumed_rows() == first
    assert written.stat().st_mtime_ns == before
