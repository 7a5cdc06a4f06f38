"""A 20 MB note, driver error and page error are capped in every output, and memory stays bounded."""

from __future__ import annotations

import re

import pytest

from pytest_tcab.bounded import TEXT_LIMIT
from pytest_tcab.run.report.junit import QUOTED
from tests.validation import GAUGE_VERSION
from tests.validation import Session
from tests.validation import edit
from tests.validation import gauge_project
from tests.validation import run_session

pytestmark = pytest.mark.browser

HUGE = 20 * 1024 * 1024
PEAK_RSS_BOUND_KIB = 400 * 1024
"""Measured here: 63 MiB for this session without the huge texts, 241 MiB with them (a page
error crosses from Playwright whole before it is cut; the notes and the thrown error are cut in
the page), 711 MiB before the caps."""

# A session-end hook that leaves the process's peak RSS (KiB, Linux) where the test can read it:
# VmHWM, its own memory's high-water mark. Not getrusage's ru_maxrss, which Linux carries over
# exec from the process that started it (a test worker grown to 470 MiB late in a suite).
PEAK_RSS_CONFTEST = """\
from pathlib import Path


def pytest_sessionfinish(session):
    status = Path("/proc/self/status").read_text()
    peak = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    Path("peak-rss-kib").write_text(peak)
"""


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Session:
    project = gauge_project(tmp_path_factory.mktemp("huge"))
    validation = project / GAUGE_VERSION / "validation"
    edit(validation / "false.mjs", "return { verdicts: { doubles: value === 4 }, notes: `1 + 2 read ${value}, expected 4` };",
         'await api.settle(300);\n  return { verdicts: { doubles: value === 4 }, notes: '
         f'"NOTEHEAD " + "n".repeat({HUGE}) + " NOTETAIL" }};')
    edit(validation / "throws.mjs", "throw new Error(`the dial reads ${value} after a reset`);",
         f'throw new Error("THROWHEAD " + "t".repeat({HUGE}) + " THROWTAIL");')
    # Both drives outlast the page's error (thrown 100 ms after load), so both record it.
    edit(validation / "throws.mjs", "await api.add(5);", "await api.add(5);\n  await api.settle(300);")
    with (project / "game/index.html").open("a", encoding="utf-8") as page:
        page.write("<script>addEventListener('load', () => setTimeout(() => { throw new Error("
                   f"'PAGEHEAD ' + 'p'.repeat({HUGE}) + ' PAGETAIL'); }}, 100));</script>\n")
    (project / "conftest.py").write_text(PEAK_RSS_CONFTEST, encoding="utf-8")
    return run_session(project, "--tcab-suite=suite", "--tcab-run=game", "--junitxml=out/junit.xml",
                       "-k", "doubles or throws")


def _head_and_tail(text: str, head: str, tail: str) -> None:
    assert len(text.encode()) <= TEXT_LIMIT
    assert head in text
    assert tail in text
    assert re.search(r"\n\[\d+ bytes truncated\]\n", text)


def test_the_items_fail_as_before(huge: Session) -> None:
    huge.result.assert_outcomes(failed=2)


def test_the_terminal_shows_head_and_tail_once(huge: Session) -> None:
    out = "\n".join(huge.result.outlines)
    assert len(out) < 4 * TEXT_LIMIT
    # doubles quotes its notes; throws its error, then the page error (whose tail ends the text).
    for head, tail in (("NOTEHEAD", "NOTETAIL"), ("THROWHEAD", "PAGETAIL")):
        assert head in out  # in the failure, and maybe in its short summary line
        assert out.count(tail) == 1


def test_results_json_holds_bounded_texts(huge: Session) -> None:
    assert (huge.path / "out/results.json").stat().st_size < 8 * TEXT_LIMIT
    items = huge.items()
    _head_and_tail(items["doubles"]["notes"], "NOTEHEAD", "NOTETAIL")
    _head_and_tail(items["doubles"]["message"], 'verdict "doubles" is false: NOTEHEAD', "NOTETAIL")
    _head_and_tail(items["throws"]["message"], "validation/throws.mjs: the driver threw Error: THROWHEAD",
                   "PAGETAIL")
    (page_error, *_) = items["doubles"]["page_errors"]
    _head_and_tail(page_error, "Error: PAGEHEAD", "PAGETAIL")


def test_junit_holds_each_text_once(huge: Session) -> None:
    junit = (huge.path / "out/junit.xml").read_text(encoding="utf-8")
    assert len(junit) < 8 * TEXT_LIMIT
    # The failure's message attribute is its headline; the body holds the text; the figures
    # property points at the failure instead of repeating the notes.
    assert junit.count("NOTETAIL") == 1
    # Once: throws quotes the page error in its failure; JUnit properties hold plain values only.
    assert junit.count("PAGETAIL") == 1
    assert junit.count(QUOTED) == 1  # doubles' notes, which its failure quotes
    assert 'message="verdict &quot;doubles&quot; is false: NOTEHEAD nnn' in junit


def test_report_html_holds_bounded_texts(huge: Session) -> None:
    report = (huge.path / "out/report.html").read_text(encoding="utf-8")
    assert len(report) < 12 * TEXT_LIMIT
    assert "NOTETAIL" in report
    assert "PAGETAIL" in report


def test_memory_stays_bounded(huge: Session) -> None:
    peak_kib = int((huge.path / "peak-rss-kib").read_text())
    assert peak_kib < PEAK_RSS_BOUND_KIB, f"peak RSS {peak_kib // 1024} MiB"

