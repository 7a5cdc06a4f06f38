"""`check[<view>]` end to end, as a user runs it: a tiny suite, a run dir, real Chromium."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and neither Playwright
# (its wrappers map classes by identity) nor numpy (its C extension loads once per process) can
# be imported afresh: importing both here keeps them loaded for every run.
import playwright.sync_api  # noqa: F401
import pytest
from PIL import Image
from PIL import ImageDraw

import pytest_tcab.run.browser.imagediff  # noqa: F401  (numpy, see above)
from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON

pytestmark = pytest.mark.browser

GAMES = Path(__file__).parent / "games"
MANIFEST = Path("suite/test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml")


def project(pytester: pytest.Pytester, game: str) -> None:
    """The fixture suite and one fixture game, copied where the test may change them."""
    shutil.copytree(GAMES / "suite", pytester.path / "suite")
    shutil.copytree(GAMES / game, pytester.path / game)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def run(pytester: pytest.Pytester, game: str, *args: str) -> pytest.RunResult:
    options = ("--tcab-suite=suite", f"--tcab-run={game}", "--tcab-out=out")
    return pytester.runpytest("-p", "no:cacheprovider", *options, *args)


def lines(*patterns: str) -> list[str]:
    """fnmatch patterns with a literal `[` (node ids and key paths are full of them)."""
    return [pattern.replace("[", "[[]") for pattern in patterns]


def checks(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    """The check items of results.json, by view."""
    data = json.loads((pytester.path / "out/results.json").read_text(encoding="utf-8"))
    return {item["id"]: item for item in data["runs"][0]["items"] if item["kind"] == "check"}


def test_a_build_that_matches_its_mockups_passes(pytester: pytest.Pytester) -> None:
    project(pytester, "good")
    result = run(pytester, "good", "-v")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(
        lines(
            "good/.tcab/run.toml::check[title] PASSED*",
            "good/.tcab/run.toml::check[play] PASSED*",
            "  check play: similarity 1.0000",
            "  check title: similarity 1.0000",
        )
    )
    recorded = checks(pytester)
    assert recorded["play"]["outcome"] == "passed"
    assert (recorded["play"]["similarity"], recorded["play"]["differing_pixels"]) == (1.0, 0)
    assert recorded["play"]["baseline"] == "reference/play.html"
    media = pytester.path / "out/good/checks"
    for view in ("title", "play"):
        for name in ("expected", "actual", "diff"):
            assert recorded[view][name] == str(media / f"{view}__{name}.png")
            with Image.open(media / f"{view}__{name}.png") as image:
                assert image.size == (1280, 720)
    report = (pytester.path / "out/report.html").read_text(encoding="utf-8")
    assert '<img src="good/checks/play__actual.png"' in report


def test_checks_point_at_their_toml_lines(pytester: pytest.Pytester) -> None:
    project(pytester, "good")
    items, _ = pytester.inline_genitems(
        "-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=good"
    )
    checks = [item for item in items if item.name.startswith("check")]
    manifest = pytester.path / MANIFEST
    assert {item.name: item.declared_at() for item in checks} == {"check[title]": (manifest, 28),
                                                                  "check[play]": (manifest, 31)}
    # What an IDE opens: the file the id names (run.toml), at the line naming the case (0-based).
    run_file = pytester.path / "good/.tcab/run.toml"
    assert {item.reportinfo()[:2] for item in checks} == {(run_file, 0)}


@pytest.mark.parametrize(
    ("game", "change", "failed", "expected"),
    [
        pytest.param(
            "throws",
            None,
            2,
            [
                ("check 'title': the page threw while loading: Error: boom: the game failed to"
                 " start (/:4:*)"),
                ("check 'play': the page threw while loading: Error: boom: the game failed to"
                 " start (/:4:*)"),
            ],
            id="throws-on-load",
        ),
        pytest.param(
            "blank",
            None,
            2,
            [
                ("check 'title': the page is blank: the screenshot on load is a single colour"
                 " (#ffffff)"),
                ("check 'play': the page is blank: the screenshot after 2 actions is a single"
                 " colour (#ffffff)"),
            ],
            id="blank",
        ),
        pytest.param(
            "good",
            ("cp index.html dist/", "cp index.html dist/game.html"),
            2,
            [
                "check 'title': the page answered HTTP 404 Not Found for http://127.0.0.1:*/",
                "check 'play': the page answered HTTP 404 Not Found for http://127.0.0.1:*/",
            ],
            id="not-found",
        ),
        pytest.param(
            "good",
            ('op = "settle"', 'op = "freeze"'),
            1,
            [
                ("check 'play': actions[1] (call \"freeze\"): window.__demo.freeze is not a"
                 " function (it is undefined)"),
                "    at test-case.toml:33: `check[1].actions[1]`",
            ],
            id="missing-handle-method",
        ),
    ],
)
def test_a_build_that_cannot_be_driven_fails_the_check(
    pytester: pytest.Pytester,
    game: str,
    change: tuple[str, str] | None,
    failed: int,
    expected: list[str],
) -> None:
    project(pytester, game)
    if change is not None:
        edit(pytester.path / MANIFEST, *change)
    result = run(pytester, game)
    result.assert_outcomes(passed=3 - failed, failed=failed, skipped=1)
    result.stdout.fnmatch_lines(lines(*expected))
    assert "Traceback" not in result.stdout.str()
    # What the page showed is recorded all the same, for the report.
    assert all(Path(item["actual"]).is_file() for item in checks(pytester).values())


MIRROR = """<!doctype html>
<meta charset="utf-8">
<style>html, body { margin: 0; height: 100%; } iframe { border: 0; width: 100%; height: 100%; display: block; }</style>
<script>
  // A build that does no work: it shows the suite's own mockup, wherever it can find it.
  const guesses = ["/__tcab__/reference/title.html", "/__tcab__/title.html", "/__tcab__/mockups/title.html",
                   "/reference/title.html", "/mockups/title.html", "/title.html", "reference/title.html"];
  const found = guesses.find((url) => {
    const request = new XMLHttpRequest();
    request.open("GET", url, false);
    request.send();
    return request.status === 200;
  });
  window.__demo = { settle: () => Promise.resolve() };
  if (found) document.write(`<iframe src="${found}"></iframe>`);
</script>
"""


@pytest.mark.parametrize("copied", [False, True], ids=["attack", "control"])
def test_a_build_cannot_show_its_mockup_as_its_own_view(pytester: pytest.Pytester, copied: bool) -> None:
    # The mockups are served on an origin of their own, which the build's pages cannot request: the
    # page finds nothing and shows nothing. The control copies the mockup into the produced tree,
    # where the same page finds it and passes: the technique works wherever the file is reachable.
    project(pytester, "good")
    (pytester.path / "good/index.html").write_text(MIRROR, encoding="utf-8")
    if copied:
        shutil.copytree(GAMES / MANIFEST.parent / "reference", pytester.path / "good/reference")
        edit(pytester.path / MANIFEST, "cp index.html dist/", "cp -r index.html reference dist/")
    result = run(pytester, "good")
    recorded = checks(pytester)
    if copied:
        assert (recorded["title"]["outcome"], recorded["title"]["similarity"]) == ("passed", 1.0)
        return
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    result.stdout.fnmatch_lines(lines("check 'title': the page is blank: the screenshot on load is a single colour (#ffffff)"))


def test_max_diff_fails_a_view_that_strays_from_its_mockup(pytester: pytest.Pytester) -> None:
    project(pytester, "good")
    edit(pytester.path / "good/index.html", '"400px"', '"700px"')
    result = run(pytester, "good", "--tcab-max-diff=0.01")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "check 'play': 5.21% of the pixels differ from the baseline, above --tcab-max-diff=0.01 "
        + "(similarity 0.9479; see */out/good/checks/play__diff.png)"
    ])
    recorded = checks(pytester)
    assert recorded["play"]["differing_pixels"] == 48_000  # the box drawn twice: 2 x 200 x 120
    assert recorded["title"]["outcome"] == "passed"
    with Image.open(recorded["play"]["diff"]) as diff:
        assert diff.convert("RGB").getpixel((500, 150)) == (255, 0, 0)


def test_a_still_baseline_is_read_from_disk_at_the_viewport(pytester: pytest.Pytester) -> None:
    project(pytester, "good")
    still = Image.new("RGB", (640, 360), "#101828")
    ImageDraw.Draw(still).rectangle((400, 100, 599, 219), fill="#f5b301")
    still.save(pytester.path / MANIFEST.parent / "reference/play.png")
    edit(pytester.path / MANIFEST, 'path = "reference/play.html"', 'media = "reference/play.png"')
    result = run(pytester, "good", "--tcab-viewport=640x360")
    result.assert_outcomes(passed=3, skipped=1)
    recorded = checks(pytester)
    assert recorded["play"]["baseline"] == "reference/play.png"
    assert (recorded["play"]["viewport"], recorded["play"]["similarity"]) == ("640x360", 1.0)
    with Image.open(recorded["title"]["actual"]) as actual:
        assert actual.size == (640, 360)


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_no_browser_skips_every_check_with_one_reason(
    pytester: pytest.Pytester, strict: bool
) -> None:
    project(pytester, "good")
    pytester.makeconftest(
        f"""
        import pytest

        @pytest.fixture(scope="session")
        def tcab_browser():
            pytest.skip({NO_BROWSER_REASON!r})
        """
    )
    result = run(pytester, "good", "-k", "check", "-rs", *(["--tcab-strict"] if strict else []))
    if strict:
        result.assert_outcomes(failed=2, deselected=3)  # and the run's review gate, which strict adds
        result.stdout.fnmatch_lines([f"{NO_BROWSER_REASON} (--tcab-strict)"] * 2)
    else:
        result.assert_outcomes(skipped=2, deselected=2)
        result.stdout.fnmatch_lines(
            lines(
                f"SKIPPED [1] suite/*/test-case.toml:28: {NO_BROWSER_REASON}",
                f"SKIPPED [1] suite/*/test-case.toml:31: {NO_BROWSER_REASON}",
            )
        )
