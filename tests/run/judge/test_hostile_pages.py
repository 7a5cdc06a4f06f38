"""Hostile builds against the judge runtime, with real Chromium, each a build of its own.

The fixture case `stuck` (hostile/suite) is a game whose simulation never advances: its three
motion verdicts fail honestly and its control verdict passes. Each run puts one hostile script
(hostile/pages/*.js) before the game (at the reference page's `<!--HOSTILE-->`), as a build wanting a pass without the work would; all
runs are driven by the plugin as a user runs it. None may change a verdict, and none may learn what is
tested: each page says what it saw in its snapshot (`report`), which the scripts carry out in
their notes, and no id, label, expected value, script name or snapshot path may be in it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from hostile_suite import HOSTILE
from hostile_suite import NEEDS_BROWSER_AND_JUDGE
from hostile_suite import STUCK

from tests.validation import Session
from tests.validation import run_session

pytestmark = NEEDS_BROWSER_AND_JUDGE

RUNS = ("honest", "wrap", "builtins", "fetcher", "serviceworker", "recorder")
OUTCOMES = {"travel_q7zk": "failed", "bounce_w3xv": "failed", "drift_m9pt": "failed", "answers_h2nc": "passed"}
SECRETS = re.compile(r"secret_|label_|q7zk|w3xv|m9pt|h2nc|48213|73519|tcab-reporter|_tally_r5|\.mjs|validation/")


def _project(dest: Path) -> Path:
    shutil.copytree(HOSTILE / "suite", dest / "suite")
    game = (HOSTILE / "suite" / STUCK / "reference-impl/base/index.html").read_text(encoding="utf-8")
    for name in RUNS:
        run = dest / name
        (run / ".tcab").mkdir(parents=True)
        (run / ".tcab/run.toml").write_text('case = "stuck"\n', encoding="utf-8")
        hostile = HOSTILE / f"pages/{name}.js"
        script = f"<script>\n{hostile.read_text(encoding='utf-8')}</script>" if hostile.is_file() else ""
        (run / "index.html").write_text(game.replace("<!--HOSTILE-->", script), encoding="utf-8")
    shutil.copy(HOSTILE / "pages/sw-worker.js", dest / "serviceworker/sw-worker.js")
    return dest


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Session]:
    """One session per hostile run (one run per session), over one project folder."""
    project = _project(tmp_path_factory.mktemp("hostile"))
    return {name: run_session(project, "--tcab-suite=suite", f"--tcab-run={name}", f"--tcab-out=out/{name}")
            for name in RUNS}


def _items(sweep: dict[str, Session], run: str) -> dict[str, dict[str, Any]]:
    data = json.loads((sweep[run].path / "out" / run / "results.json").read_text(encoding="utf-8"))
    (only,) = data["runs"]
    return {item["id"]: item for item in only["items"] if item["kind"] == "validate"}


def _report(item: dict[str, Any]) -> Any:
    """What the page said it saw, as the script carried it out (notes, or an expectation's label)."""
    texts = [item.get("notes") or ""] + [e["label"] for e in item.get("expectations", ())]
    carried = next(text for text in texts if text.startswith("page report: "))
    return json.loads(carried.removeprefix("page report: "))


@pytest.mark.parametrize("run", RUNS)
def test_no_hostile_page_changes_a_verdict(sweep: dict[str, Session], run: str) -> None:
    items = _items(sweep, run)
    assert {verdict: item["outcome"] for verdict, item in items.items()} == OUTCOMES, sweep[run].result.stdout.str()
    assert items["bounce_w3xv"]["message"].startswith(
        'verdict "bounce_w3xv" is false: 2 of 2 expectations failed:\n'
        "    label_ticks_counted_x4: expected > 48213, actual 0\n"
        "    label_tick_exact_b6: expected 48, actual 0\n")
    assert items["travel_q7zk"]["message"].startswith('verdict "travel_q7zk" is false: page report: ')


@pytest.mark.parametrize("run", RUNS[1:])
def test_no_hostile_page_learns_what_is_tested(sweep: dict[str, Session], run: str) -> None:
    for verdict, item in _items(sweep, run).items():
        report = _report(item)
        assert report is not None, f"{run}: {verdict} carried no report"
        if run == "fetcher":  # its paths are its own guesses: what matters is what they answered
            report = sorted(report["answers"].values())
        assert not SECRETS.search(json.dumps(report)), f"{run}: {verdict}: {report}"


def test_the_recorder_saw_the_drive_and_nothing_of_the_scripts(sweep: dict[str, Session]) -> None:
    for item in _items(sweep, "recorder").values():
        report = _report(item)
        assert report["strings"] > 0 and report["caught"] == []
    drift = _report(_items(sweep, "recorder")["drift_m9pt"])
    assert {"reset", "setAutoStep", "snapshot", "step"} <= set(drift["ops"])  # it was listening


def test_patched_builtins_saw_strings_and_none_of_the_scripts(sweep: dict[str, Session]) -> None:
    for item in _items(sweep, "builtins").values():
        report = _report(item)
        assert report["strings"] > 0 and report["caught"] == []


def test_reporter_side_paths_are_not_served_to_the_page(sweep: dict[str, Session]) -> None:
    reports = [_report(item)["answers"] for item in _items(sweep, "fetcher").values()]
    answers = max(reports, key=len)
    assert len(answers) == 17
    # every refused path answers exactly like a missing file
    assert all(set(report.values()) == {"404"} for report in reports), reports


def test_a_service_worker_sees_none_of_the_scripts(sweep: dict[str, Session]) -> None:
    report = _report(_items(sweep, "serviceworker")["answers_h2nc"])
    assert report["supported"] is True
    assert report["controlled"] is False  # the browser's contexts block service workers
