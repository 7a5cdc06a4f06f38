"""The example's sweep page in Chromium, opened from disk with the network blocked: the chart, the
comparisons under it (the differences between groups with their intervals and runs needed, the
pass@k curves), the suite-wide figure, the verdict map, a run opened to its media (a check's
diff, a clip that plays on click) and a filter kept in the URL's fragment work, and nothing is
requested from anywhere but the disk. Then a page rendered from a hostile sweep document:
nothing a run wrote runs as script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.report.index import write_index
from scripts.example_sweep import REVIEWS
from scripts.example_sweep import write_runs
from tests.conftest import EXAMPLE_SUITE
from tests.conftest import REPO

# A few of the example sweep's runs, one of each kind it grades (kept few: CI time is shared):
# the Carom catalog build with its flaw (check diffs and clips) twice, once reviewed by two
# reviewers (one overriding a validator) and once awaiting review, two end-to-end groups of two
# runs each under two harnesses (two honest builds; a flawed and an honest one: enough for a
# difference's interval and pass@k curves), and the Rust workspace left as handed over (incorrect).
SUBSET = ("pong-plain-loop-atlas-1", "pong-planner-birch-1", "e2e-plain-loop-atlas-1", "e2e-plain-loop-atlas-2",
          "e2e-planner-birch-1", "e2e-planner-birch-2", "bounce-planner-birch-1")
DEBIAN_CARGO = Path("/usr/bin/cargo")
chromium = find_chromium(None)
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium is None, reason=NO_BROWSER_REASON),
    pytest.mark.skipif(not DEBIAN_CARGO.is_file(), reason="the example sweep's bounce run builds Rust: needs cargo"),
]


@pytest.fixture(scope="module")
def example_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The subset graded once, as a user runs it (a subprocess), into its own --tcab-out."""
    out = tmp_path_factory.mktemp("sweep") / "out"
    runs = write_runs(out.parent / "runs", list(SUBSET))
    env = {**os.environ, "PATH": f"{DEBIAN_CARGO.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--tcab-suite={EXAMPLE_SUITE}",
         *(f"--tcab-run={run}" for run in runs), f"--tcab-out={out}", f"--tcab-reviews={REVIEWS}", "-q"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]  # 1: the flaws, reported
    assert (out / "index.html").is_file()
    return out


@pytest.fixture
def offline_page() -> Iterator[Any]:
    """A Chromium page that may read the disk and nothing else: every other request is aborted
    and recorded, and the test fails if there was one (or if the page threw)."""
    from playwright.sync_api import sync_playwright

    assert chromium is not None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium.path), args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        asked: list[str] = []
        def only_disk(route: Any) -> None:
            if route.request.url.startswith("file:"):
                route.continue_()
            else:
                asked.append(route.request.url)
                route.abort()

        context.route("**/*", only_disk)
        opened = context.new_page()
        opened.on("request", lambda request: asked.append(request.url) if not request.url.startswith("file:") else None)
        errors: list[str] = []
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.asked = asked  # type: ignore[attr-defined]
        opened.errors = errors  # type: ignore[attr-defined]
        yield opened
        browser.close()
        assert errors == [], errors
        assert [url for url in asked if not url.startswith("file:")] == [], "the page asked the network"


def test_the_example_sweep_page_works_from_disk(offline_page: Any, example_sweep: Path) -> None:
    page = offline_page
    page.goto((example_sweep / "index.html").as_uri())
    page.wait_for_selector("html[data-ready]")
    # The chart: a figure per case, a row per group, a point per graded run.
    charts = page.locator("#leaderboard figure.case")
    assert sorted(charts.nth(i).get_attribute("data-case") for i in range(charts.count())) == [
        "bounce", "end-to-end", "pong"]
    e2e = page.locator('#leaderboard figure.case[data-case="end-to-end"]')
    assert e2e.locator("g.group-row").count() == 2 and e2e.locator("[data-point]").count() == 4
    assert "n=2" in e2e.inner_text()
    bounce = page.locator('#leaderboard figure.case[data-case="bounce"]')
    assert "fuel total" in bounce.inner_text() and "1 incorrect" in bounce.inner_text()
    assert bounce.locator("[data-point]").count() == 0  # an incorrect run is counted beside, never drawn in
    # The verdict map: the verdict that separates the two end-to-end groups comes first.
    vmap = page.locator('table.verdict-map[data-case="end-to-end"]')
    first = vmap.locator("tbody tr").first
    assert first.locator("th").inner_text() == "requirement[spin-decay]"
    assert [first.locator("td.vm").nth(i).locator("a").inner_text() for i in range(2)] == ["100%", "50%"]
    assert "left for the reviewer" in vmap.inner_text()
    first.locator("td.vm").nth(1).locator("a").click()  # the runs behind the cell
    assert "item=requirement%5Bspin-decay%5D" in page.url and "harness=planner" in page.url
    assert _visible_runs(page) == ["e2e-planner-birch-1", "e2e-planner-birch-2"]
    # A run opened in place: its check diffs load, its clip plays on click.
    page.locator("#clear-filters").click()
    assert len(_visible_runs(page)) == len(SUBSET) and "#" not in page.url
    pong = page.locator('#runs tr[data-run="pong-plain-loop-atlas-1"]')
    pong.locator("button.open").click()
    opened = page.locator("#runs tr.details")
    assert "spin.stationary" in opened.inner_text() and "failed" in opened.inner_text()
    diff = opened.locator('figure.thumb:has(figcaption:text-is("diff")) img').first
    diff.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=diff.element_handle())
    clip = opened.locator("button.clip").first
    clip.scroll_into_view_if_needed()
    clip.click()
    video = opened.locator("video").first
    page.wait_for_function("video => video.readyState >= 1 && !video.error", arg=video.element_handle())
    # A filter: reflected in the fragment, and the same view when the link is opened again.
    page.locator('select[data-filter="harness"]').select_option("planner")
    assert "harness=planner" in page.url
    assert _visible_runs(page) == ["bounce-planner-birch-1", "e2e-planner-birch-1", "e2e-planner-birch-2",
                                   "pong-planner-birch-1"]
    assert page.locator('#leaderboard-table tbody tr[data-harness="plain-loop"]').first.is_hidden()
    assert e2e.locator('g.group-row[data-harness="plain-loop"]').is_hidden()  # the chart follows too
    assert e2e.locator('g.group-row[data-harness="planner"]').is_visible()
    page.goto(page.url)
    page.reload()
    page.wait_for_selector("html[data-ready]")
    assert _visible_runs(page) == ["bounce-planner-birch-1", "e2e-planner-birch-1", "e2e-planner-birch-2",
                                   "pong-planner-birch-1"]
    assert page.locator('select[data-filter="harness"]').input_value() == "planner"


def test_the_example_sweep_shows_its_reviews(offline_page: Any, example_sweep: Path) -> None:
    """The reviews the example ships (example-suite/reviews/): in sweep.json, the reviewed run's
    score and rating, the group awaiting review, ben's override of spin.moving and the two
    reviewers' agreement; on the page, its section in Chromium."""
    document = json.loads((example_sweep / "sweep.json").read_text(encoding="utf-8"))
    rows = {row["run"]: row for row in document["runs"]}
    reviewed, awaiting = rows["pong-plain-loop-atlas-1"]["review"], rows["pong-planner-birch-1"]["review"]
    assert (reviewed["reviewed"], reviewed["rating"], reviewed["awaiting"]) == (2, "passable", False)
    assert 0.0 < reviewed["score"] < 1.0
    assert [(one["reviewer"], one["overall"], one["overrides"]) for one in reviewed["reviews"]] == [
        ("ana", "great", []), ("ben", "passable", ["spin.moving"])]
    assert (awaiting["score"], awaiting["awaiting"]) == (None, True)
    cells = {(cell["harness"], cell["case"]): cell["review"] for cell in document["leaderboard"]}
    assert (cells["plain-loop", "pong"]["n"], cells["plain-loop", "pong"]["of"]) == (1, 1)
    assert cells["plain-loop", "pong"]["value"] == reviewed["score"]
    assert cells["plain-loop", "pong"]["ratings"]["passable"] == 1 and cells["plain-loop", "pong"]["worst"] == "passable"
    assert (cells["planner", "pong"]["n"], cells["planner", "pong"]["awaiting"]) == (0, 1)
    reviews = document["reviews"]
    assert (reviews["reviewers"], reviews["reviewed"], reviews["awaiting"]) == (["ana", "ben"], 1, 1)
    (moving,) = [rate for rate in reviews["overrides"] if rate["verdict"] == "spin.moving"]
    assert (moving["overrides"], moving["reviews"], moving["to_fail"], moving["share"]) == (1, 2, 1, 0.5)
    assert reviews["overrides"][0] == moving  # the most overridden first
    agreement = {(entry["what"], entry["id"]): entry for entry in reviews["agreement"]}
    assert agreement["domain", "single-player"]["agreeing"] == 0 and agreement["domain", "single-player"]["runs"] == 1
    assert agreement["verdict", "spin.decay"]["share"] == 1.0
    assert agreement["verdict", "spin.stationary"]["kappa"] is None  # both kept the validator's fail
    assert "same verdict (fail)" in agreement["verdict", "spin.stationary"]["kappa_note"]
    page = offline_page
    page.goto((example_sweep / "index.html").as_uri())
    page.wait_for_selector("html[data-ready]")
    section = page.locator("#reviews")
    section.scroll_into_view_if_needed()
    assert "1 runs reviewed, 1 awaiting review; reviewers: ana, ben." in section.inner_text()
    groups = page.locator("#reviewed-table tbody tr")
    assert groups.count() == 2
    assert "1 of 1" in groups.first.inner_text() and "1 passable" in groups.first.inner_text()
    assert groups.nth(1).locator("td").last.inner_text() == "1"  # planner / birch: awaiting review
    assert page.locator("#overrides-table tbody tr").first.locator("code").inner_text() == "spin.moving"
    assert "1 of 2" in page.locator("#overrides-table tbody tr").first.inner_text()
    assert "ana & ben" in page.locator("#agreement-table").inner_text()
    table = page.locator('#leaderboard-table tbody tr[data-harness="planner"][data-case="pong"]')
    assert "1 awaiting review" in table.inner_text()  # beside the figure in the leaderboard too


def test_the_example_sweep_page_shows_what_an_operator_decides_on(offline_page: Any, example_sweep: Path) -> None:
    """Under the end-to-end chart, the difference of the two groups with its interval, its words
    and the runs needed, and both groups' pass@k curves drawn; the suite-wide figure per group
    with its clustered interval; the rule catastrophic runs followed; sweep.json carrying each."""
    document = json.loads((example_sweep / "sweep.json").read_text(encoding="utf-8"))
    (e2e,) = [entry for entry in document["differences"] if entry["case"] == "end-to-end"]
    assert e2e["figure"]["n"] == [2, 2] and e2e["figure"]["low"] <= e2e["figure"]["difference"] <= e2e["figure"]["high"]
    assert e2e["figure"]["runs_needed"]["target_width"] == 0.05 and document["rules"]["catastrophic"] == "apart"
    page = offline_page
    page.goto((example_sweep / "index.html").as_uri())
    page.wait_for_selector("html[data-ready]")
    matrix = page.locator('table.differences[data-case="end-to-end"]')
    text = matrix.inner_text()
    assert "row − column" in text and "plain-loop / atlas-2026-10" in text and "planner / birch-2026-11" in text
    assert ("excludes 0" in text or "includes 0" in text) and ("runs/group for ±0.05" in text or "no spread" in text)
    assert f"{e2e['figure']['difference']:+.3f}" in text  # row minus column, as sweep.json has it
    curves = page.locator('figure.pass-at-k[data-case="end-to-end"]')
    assert curves.locator("polyline").count() == 4  # pass@k and pass^k for each group of two runs
    for index in range(4):  # drawn, not only written: each curve has a box in Chromium's layout
        box = curves.locator("polyline").nth(index).bounding_box()
        assert box is not None and box["width"] > 50
    assert "pass@k" in curves.inner_text() and "(n=2)" in curves.inner_text()
    suite = page.locator("#suite")
    atlas = suite.locator('table.suite[data-figure="automated score"] tr[data-model="atlas-2026-10"]')
    assert "2" in atlas.locator("td").nth(6).inner_text()  # pong and end-to-end: its clustered interval
    assert " – " in atlas.locator("td").nth(5).inner_text()
    birch = suite.locator('table.suite[data-figure="automated score"] tr[data-model="birch-2026-11"]')
    assert "2" in birch.locator("td").nth(6).inner_text()  # pong (the reviewed subset) and end-to-end
    chart = suite.locator("svg.suite-chart").first.bounding_box()
    assert chart is not None and chart["height"] > 40
    assert "Rule applied: catastrophic runs" in page.locator("#catastrophic-rule").inner_text()
    assert page.locator("#leaderboard-table thead").inner_text().count("catastrophic") == 1
    bounce = page.locator('#leaderboard figure.case[data-case="bounce"]')
    assert "Per-model best" in bounce.inner_text() and "no correct run: not ranked" in bounce.inner_text()


def _visible_runs(page: Any) -> list[str]:
    return sorted(page.eval_on_selector_all(
        "#runs tbody tr[data-run]", "rows => rows.filter(row => !row.hidden).map(row => row.dataset.run)"))


def test_a_hostile_sweep_document_runs_no_script(offline_page: Any, tmp_path: Path) -> None:
    page = offline_page
    from tests.unit.test_sweep_page import HOSTILE
    from tests.unit.test_sweep_page import document
    from tests.unit.test_sweep_page import game_run

    run = game_run("x1", harness=HOSTILE, model="</script><script>alert(4)</script>", spin="failed",
                   message=HOSTILE, media=[{"output": HOSTILE, "kind": "image", "path": "javascript:alert(3)"}])
    run["labels"] = {HOSTILE: HOSTILE}
    data = document([run, game_run("x2")])
    write_index(data, tmp_path)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_selector("html[data-ready]")
    for button in page.locator("#runs button.open").all():
        button.click()
    page.locator('select[data-filter="label"]').select_option(index=1)
    page.wait_for_timeout(200)
    assert dialogs == []
    assert HOSTILE in page.locator("#runs").inner_text()  # shown, as text
    assert json.loads(page.locator("#tcab-data").text_content())["details"]["x1"]["status"] == "graded"


def test_what_changed_shows_each_groups_figure_and_both_sides_media(offline_page: Any, tmp_path: Path) -> None:
    from PIL import Image

    from pytest_tcab.run.report.compare import compare
    from pytest_tcab.run.report.leaderboard import leaderboard
    from tests.unit.test_sweep_page import document
    from tests.unit.test_sweep_page import game_run

    page = offline_page
    for side in ("was", "now"):
        (tmp_path / side).mkdir()
        Image.new("RGB", (40, 30), (200, 40, 40) if side == "now" else (40, 200, 40)).save(tmp_path / side / "spin.png")

    def still(side: str) -> list[dict[str, Any]]:
        return [{"output": "spin", "kind": "image", "path": str(tmp_path / side / "spin.png")}]

    before = document([game_run("a1", media=still("was")), game_run("a2")])["runs"]
    now = document([game_run("a1", spin="failed", media=still("now")), game_run("a2")])["runs"]
    write_index({"runs": now, "leaderboard": leaderboard(now), "statuses": {}, "media": "all",
                 "compare": compare(now, before, "earlier")}, tmp_path)
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_selector("html[data-ready]")
    group = page.locator("#compare-table tbody tr").first
    assert "1.000 [1.000, 1.000] n=2" in group.inner_text() and "0.750" in group.inner_text()
    flip = page.locator("#compare .flip")
    assert "validate[spin] newly failing" in flip.inner_text()
    images = flip.locator("img")
    assert images.count() == 2
    for index in range(2):
        page.wait_for_function("img => img.complete && img.naturalWidth === 40", arg=images.nth(index).element_handle())


def test_the_reviews_section_renders_sorts_and_follows_the_filters(offline_page: Any, tmp_path: Path) -> None:
    """The page's reviews section in Chromium, from a sweep with two reviewers on the same runs:
    the reviewed scores beside the automated ones, the override table (most overridden first, and
    sortable), the agreement table with kappa or its words, and the case filter hiding what is not
    the chosen case's."""
    from pytest_tcab.run.report.sweep_files import sweep_document
    from tests.unit.test_reviewed import checklist_run
    from tests.unit.test_reviewed import review
    from tests.unit.test_reviewed import rows_of
    from tests.unit.test_sweep_page import perf_run

    page = offline_page
    runs = [checklist_run("a1", [review("ana", value=0.9, rating="great", verdicts={"spin.decay": "pass"}),
                                 review("ben", value=0.7, rating="scuffed", overrides={"spin.moving": "curves late"},
                                        verdicts={"spin.decay": "fail"})]),
            checklist_run("a2", [review("ana", value=0.6, rating="passable")]), checklist_run("a3"),
            checklist_run("b1", [review("ana", value=1.0, rating="flawless")], harness="h2")]
    rows = rows_of(*runs, perf_run("p1", [10, 20]))
    write_index(sweep_document(rows, tool={}, media="all"), tmp_path)
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_selector("html[data-ready]")
    section = page.locator("#reviews")
    assert section.is_visible()
    assert "3 runs reviewed, 1 awaiting review; reviewers: ana, ben." in section.inner_text()
    groups = page.locator("#reviewed-table tbody tr")
    assert groups.count() == 2  # the pong groups; the performance case has no checklist to review
    first = groups.first.inner_text()
    assert "0.700 [0.600, 0.800]" in first and "2 of 3" in first and "1 passable, 1 scuffed" in first
    overrides = page.locator("#overrides-table tbody tr")
    assert overrides.first.locator("code").inner_text() == "spin.moving"
    assert "1 of 4" in overrides.first.inner_text()
    page.locator("#overrides-table thead th", has_text="verdict").click()  # sorted by verdict now
    assert page.locator("#overrides-table tbody tr").first.locator("code").inner_text() == "scoring.point"
    agreement = page.locator("#agreement-table tbody tr")
    texts = [agreement.nth(i).inner_text() for i in range(agreement.count())]
    assert any("spin.decay" in text and "0 of 1" in text for text in texts)
    assert any("spin.stationary" in text and "undefined: both reviewers gave every run the same verdict" in text
               for text in texts)
    page.locator('select[data-filter="harness"]').select_option("h2")
    assert groups.nth(0).is_hidden() and groups.nth(1).is_visible()
    page.locator('select[data-filter="case"]').select_option("sum")
    assert overrides.first.is_hidden() and agreement.first.is_hidden()
