"""Where a run's media go besides results.json: report.html's form chosen in the ini file, an
asset's pictures in pytest-html's self-contained report, and no pytest-html work at all when
pytest-html is not there (the example run's session in tests/run/browser/test_drivers.py covers the
self-contained page and pytest-html's extras of checks, verdicts and proofs)."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from tests.conftest import EXAMPLE_SUITE
from tests.html_reports import media_attributes
from tests.html_reports import pytest_html_extras

GAMES = Path(__file__).resolve().parent.parent / "run" / "browser" / "games"

needs_browser = pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)

# Written into the session's folder: whether anything imported pytest-html.
PROBE = """
import sys
from pathlib import Path

def pytest_unconfigure(config):
    Path("imported.txt").write_text(str(sorted(name for name in sys.modules if name.startswith("pytest_html"))))
"""


@pytest.mark.browser
@needs_browser
def test_without_pytest_html_a_run_passes_and_its_ini_makes_the_report_self_contained(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(GAMES / "suite", pytester.path / "suite")
    shutil.copytree(GAMES / "good", pytester.path / "good")
    pytester.makeini("[pytest]\ntcab_report = self-contained\n")
    pytester.makeconftest(PROBE)
    # pytest-html's two plugins left out: as a session of an environment that does not install it.
    result = pytester.runpytest_subprocess("-p", "no:html", "-p", "no:html_fixtures", "-p", "no:cacheprovider",
                                           "--tcab-suite=suite", "--tcab-run=good", "--tcab-out=out")
    result.assert_outcomes(passed=3, skipped=1)
    assert (pytester.path / "imported.txt").read_text() == "[]"
    page = (pytester.path / "out/report.html").read_text(encoding="utf-8")
    sources = [value for _, _, value in media_attributes(page)]
    assert len(sources) == 6 and all(source.startswith("data:image/png;base64,") for source in sources)
    actual = (pytester.path / "out/good/checks/play__actual.png").read_bytes()
    assert f"data:image/png;base64,{base64.b64encode(actual).decode()}" in sources


def test_an_asset_runs_pictures_are_embedded_in_pytest_htmls_report_under_xdist(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--tcab-suite={EXAMPLE_SUITE}",
                                           f"--tcab-run={EXAMPLE_SUITE / 'runs/paddle-sheet'}", "--tcab-out=out",
                                           "--html=html/report.html", "--self-contained-html",
                                           "-n", "2", "-p", "xdist")  # the extras cross from a worker
    result.assert_outcomes(passed=1)
    extras = pytest_html_extras((pytester.path / "html/report.html").read_text(encoding="utf-8"))
    [(test, attached)] = [(test, found) for test, found in extras.items() if found]
    assert test.endswith("::asset[paddle-sheet.png]")
    assert [extra["name"] for extra in attached] == ["reference: paddle-sheet.png", "produced: paddle-sheet.png"]
    produced = pytester.path / "out/paddle-sheet/assets/paddle-sheet.png/produced/paddle-sheet.png"
    assert attached[1]["content"] == f"data:image/png;base64,{base64.b64encode(produced.read_bytes()).decode()}"
