"""The docs' pictures of a sweep page: index.html opened from disk in Debian's Chromium.

    python scripts/screenshot_sweep.py .tcab/results/sweep docs/images [RUN]

`scripts/example` writes the example sweep to `.tcab/results/sweep`; this opens its index.html
(nothing but the disk is reachable) and saves, as PNGs of at most 256 colours (small enough to
commit): `sweep-page.png` (the filters and the leaderboard's charts and table),
`sweep-verdicts.png` (the end-to-end case's verdict map), `sweep-reviews.png` (the reviews
section: reviewed scores, overrides, agreement), `sweep-decision.png` (the end-to-end case's chart
with its differences and pass@k curves), `sweep-suite.png` (the suite-wide figure) and
`sweep-run.png` (the run RUN, default the first pong run, opened to its items and media).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

from pytest_tcab.run.browser.discovery import find_chromium


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    sweep, target = Path(sys.argv[1]), Path(sys.argv[2])
    run = sys.argv[3] if len(sys.argv) > 3 else None
    chromium = find_chromium(None)
    if chromium is None:
        raise SystemExit("no Chromium found (scripts/bootstrap installs Debian's)")
    target.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium.path), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        page.goto((sweep / "index.html").resolve().as_uri())
        page.wait_for_selector("html[data-ready]")
        top = page.locator("#leaderboard").bounding_box()
        assert top is not None
        save(page.screenshot(full_page=True, clip={"x": 0, "y": 0, "width": 1400, "height": top["y"] + top["height"]}),
             target / "sweep-page.png")
        save(page.locator('table.verdict-map[data-case="end-to-end"]').screenshot(), target / "sweep-verdicts.png")
        save(page.locator("#reviews").screenshot(), target / "sweep-reviews.png")
        save(page.locator('#leaderboard figure.case[data-case="end-to-end"]').screenshot(), target / "sweep-decision.png")
        save(page.locator("#suite").screenshot(), target / "sweep-suite.png")
        row = page.locator(f'#runs tr[data-run="{run}"]') if run else page.locator('#runs tr[data-case="pong"]').first
        row.locator("button.open").click()
        # Lazy thumbnails below the fold load for the picture as they would when scrolled to.
        page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(img => { img.loading = 'eager'; })")
        page.wait_for_function("() => Array.from(document.images).every(img => img.complete)")
        page.wait_for_timeout(300)
        opened = row.bounding_box()
        details = page.locator("#runs tr.details").bounding_box()
        assert opened is not None and details is not None
        scrolled = float(page.evaluate("window.scrollY"))  # boxes are in the viewport's coordinates
        save(page.screenshot(full_page=True, clip={"x": 0, "y": scrolled + opened["y"] - 40, "width": 1400,
                                                   "height": details["y"] + details["height"] - opened["y"] + 50}),
             target / "sweep-run.png")
        browser.close()


def save(shot: bytes, target: Path) -> None:
    image = Image.open(io.BytesIO(shot)).convert("RGB").quantize(colors=256)
    image.save(target, optimize=True)
    print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")

if __name__ == "__main__":
    main()
