"""A sweep's review figures end to end, and what a produced run cannot do to them: reviews reach
the sweep only from the operator's reviews folder, under the run's own name, so a review a build
ships in its folder, or one filed under a name its own name resembles, is in no figure."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and numpy, Pillow and
# Playwright cannot be imported afresh in one process: they are loaded here and kept.
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pytest
from sweep_suite import ARGS
from sweep_suite import GAMES

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

pytestmark = [pytest.mark.browser, pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)]

GREAT = "---\nrating.play: great\nreview.moves: pass\n---\n\nThe box moves on Space, smoothly.\n"
BROKEN = "---\nrating.play: broken\nreview.moves: fail it never moves\n---\n\nNothing works.\n"
FLAWLESS = "---\nrating.play: flawless\nreview.moves: pass\n---\n\nPerfect, says the build about itself.\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture
def sweep(pytester: pytest.Pytester) -> dict[str, Any]:
    """Three runs of the demo case (one point left for the reviewer, one domain), graded in one
    sweep with the operator's reviews folder: `honest` reviewed by ana and ben; `shipper` ships
    reviews of itself and of `honest` in its own folder; `x y` has a name whose safe spelling is
    `x_y`, a folder the operator keeps reviews of another run in."""
    from tests.plugin.sweep_suite import write_sweep_suite

    write_sweep_suite(pytester.path)
    runs = pytester.path / "runs"
    for name in ("honest", "shipper", "x y"):
        shutil.copytree(GAMES / "good", runs / name)
        write(runs / name, {".tcab/run.toml": 'case = "demo"\nmodel = "m"\nharness = "h"\n'})
    write(runs / "shipper", {  # the produced build's own "reviews": of itself, and of the honest run
        ".tcab/reviews/shipper/mallory.md": FLAWLESS, "reviews/shipper/mallory.md": FLAWLESS,
        ".tcab/reviews/honest/mallory.md": BROKEN, "reviews/honest/mallory.md": BROKEN,
    })
    write(pytester.path / "reviews", {"honest/ana.md": GREAT, "honest/ben.md": BROKEN, "x_y/ana.md": FLAWLESS})
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs}", "--tcab-out=out", "--tcab-reviews=reviews")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    result.stdout.fnmatch_lines(["*shipper*mallory.md*ignored*"])
    return read(pytester.path / "out/sweep.json")


def test_the_operators_reviews_are_the_only_ones_in_the_sweeps_figures(sweep: dict[str, Any]) -> None:
    rows = {row["run"]: row["review"] for row in sweep["runs"]}
    assert set(rows) == {"honest", "shipper", "x y"}
    honest = rows["honest"]
    assert [review["reviewer"] for review in honest["reviews"]] == ["ana", "ben"]  # no mallory
    assert (honest["reviewed"], honest["rating"]) == (2, "broken")
    for name in ("shipper", "x y"):  # its own shipped review, or another run's folder: nothing counts
        assert (rows[name]["reviews"], rows[name]["score"], rows[name]["awaiting"]) == ([], None, True)
    (cell,) = sweep["leaderboard"]
    assert (cell["review"]["n"], cell["review"]["of"], cell["review"]["awaiting"]) == (1, 3, 2)
    assert cell["review"]["ratings"]["flawless"] == 0
    reviews = sweep["reviews"]
    assert (reviews["reviewers"], reviews["reviewed"], reviews["awaiting"]) == (["ana", "ben"], 1, 2)
    (domain,) = [entry for entry in reviews["agreement"] if entry["what"] == "domain"]
    assert (domain["reviewers"], domain["id"], domain["agreeing"], domain["runs"]) == (["ana", "ben"], "play", 0, 1)
    (moves,) = [entry for entry in reviews["agreement"] if entry["id"] == "moves"]
    assert (moves["share"], moves["kappa"]) == (0.0, 0.0)
