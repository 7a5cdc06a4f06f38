"""A judge runtime that dies under a script is the grader's crash, never the run's: it is started
again and the script run once more on a fresh page; a second death on the same script fails that
verdict with what the judge last wrote, and the other verdicts are decided as ever. Real Node, real
Chromium, the plugin run as a user runs it (the hostile fixture's `stuck` case, its honest run)."""

from __future__ import annotations

import shutil
from pathlib import Path

from hostile_suite import HOSTILE
from hostile_suite import NEEDS_BROWSER_AND_JUDGE
from hostile_suite import STUCK

from tests.validation import run_session

pytestmark = NEEDS_BROWSER_AND_JUDGE

# fd 2 written directly: a script runs in a worker thread, whose console reaches stderr only
# later, through the main thread, and SIGKILL would come first.
KILLER = """import {{ existsSync, writeFileSync, writeSync }} from "node:fs";
const marker = {marker!r};
if ({always} || !existsSync(marker)) {{
  writeFileSync(marker, "died");
  writeSync(2, "judge killed by the suite's own script\\n");
  process.kill(process.pid, "SIGKILL");
}}
"""


def _project(dest: Path, always: bool) -> Path:
    shutil.copytree(HOSTILE / "suite", dest / "suite")
    script = dest / "suite" / STUCK / "validation/secret_answers.mjs"
    killer = KILLER.format(marker=str(dest / "died-once"), always="true" if always else "false")
    script.write_text(killer + script.read_text(encoding="utf-8"), encoding="utf-8")
    run = dest / "honest"
    (run / ".tcab").mkdir(parents=True)
    (run / ".tcab/run.toml").write_text('case = "stuck"\n', encoding="utf-8")
    shutil.copy(HOSTILE / "suite" / STUCK / "reference-impl/base/index.html", run / "index.html")
    return dest


def test_a_judge_that_dies_once_is_restarted_and_the_verdict_decided(tmp_path: Path) -> None:
    session = run_session(_project(tmp_path, always=False), "--tcab-suite=suite", "--tcab-run=honest")
    items = session.items()
    assert items["answers_h2nc"]["outcome"] == "passed", session.result.stdout.lines[-30:]
    assert items["answers_h2nc"]["judge_restarts"] == 1
    assert items["travel_q7zk"]["outcome"] == "failed" and "judge_restarts" not in items["travel_q7zk"]


def test_a_judge_that_dies_twice_on_a_script_fails_that_verdict(tmp_path: Path) -> None:
    session = run_session(_project(tmp_path, always=True), "--tcab-suite=suite", "--tcab-run=honest")
    run = session.run()
    assert "not_graded" not in run and not any("not_graded" in item for item in run["items"])
    answers = session.items()["answers_h2nc"]
    assert answers["outcome"] == "failed" and answers["judge_restarts"] == 1
    assert "the judge runtime died twice running this script" in answers["message"]
    assert "judge killed by the suite's own script" in answers["message"]  # its last stderr lines
    assert session.items()["travel_q7zk"]["outcome"] == "failed"  # decided by a judge started again
