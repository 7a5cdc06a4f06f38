"""Each run's served site kept in its results, through the grader: two produced builds graded in one
sweep, one whose output is hostile (symlinks to /etc/passwd and to the suite, a fifo), one holding a
huge sparse file. Each run's own results.json (written as the run ends) and the session's say what was
kept; nothing outside the output is copied, and the oversized site not at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parent.parent / "run" / "browser" / "games"
MANIFEST = Path("suite/test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml")
BUILD = 'build = "mkdir -p dist && cp index.html dist/"'

HOSTILE = """mkdir -p dist/assets && cp index.html dist/ && echo 'play()' > dist/assets/game.js
ln -s /etc/passwd dist/passwd.txt
ln -s "$(cd / && pwd)" dist/root
ln -s ../../.. dist/up
ln -s assets/game.js dist/again.js
mkfifo dist/pipe
"""
HUGE = """mkdir -p dist && cp index.html dist/ && truncate -s 20G dist/huge.bin
"""


def test_each_run_keeps_its_site_within_bounds_and_never_what_lies_outside(pytester: pytest.Pytester) -> None:
    shutil.copytree(GAMES / "suite", pytester.path / "suite")
    text = (pytester.path / MANIFEST).read_text()
    assert BUILD in text
    (pytester.path / MANIFEST).write_text(text.replace(BUILD, 'build = "sh build.sh"'))
    for name, script in (("hostile", HOSTILE), ("huge", HUGE)):
        shutil.copytree(GAMES / "good", pytester.path / name)
        (pytester.path / name / "build.sh").write_text(script)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=hostile", "--tcab-run=huge",
                                "--tcab-out=out", "--tcab-site-size=8MiB", "-k", "build")
    result.assert_outcomes(passed=2)
    out = pytester.path / "out"
    for results in (out / "results.json", out / "hostile" / "results.json"):  # the session's, and the run's own
        (run,) = [run for run in json.loads(results.read_text())["runs"] if run["run"] == "hostile"]
        assert run["site"]["copied"] is True and run["site"]["files"] == 3
        assert sorted(run["site"]["skipped"]) == [
            "passwd.txt: a symlink out of the build's output", "pipe: not a regular file (a fifo, socket or device)",
            "root: a symlink out of the build's output", "up: a symlink out of the build's output"]
    site = out / "hostile" / "site"
    assert sorted(path.relative_to(site).as_posix() for path in site.rglob("*")) == [
        "again.js", "assets", "assets/game.js", "index.html"]
    assert not any(path.is_symlink() for path in site.rglob("*"))
    (huge,) = json.loads((out / "huge" / "results.json").read_text())["runs"]
    assert huge["site"] == {"copied": False, "skipped": [],
                            "reason": "the site holds more than 8.0 MiB (bound: --tcab-site-size; huge.bin alone is "
                                      "20480.0 MiB)"}
    assert not (out / "huge" / "site").exists()
    result.stdout.fnmatch_lines(["*site: not kept for review (the site holds more than 8.0 MiB*"])
    assert "site: not kept for review" in (out / "huge" / "report.html").read_text()
