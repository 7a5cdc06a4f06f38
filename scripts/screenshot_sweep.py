"""The docs' picture of a sweep page: index.html opened from disk in Debian's Chromium, one run opened.

    python scripts/screenshot_sweep.py .tcab/results/sweep docs/images/sweep-page.png [RUN]

`scripts/example` writes the example sweep to `.tcab/results/sweep`; this opens its index.html
(nothing but the disk is reachable), opens the run RUN (default: the first pong run) to its
items, and saves the whole page as a PNG of at most 256 colours (small enough to commit).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

from pytest_tcab.run.browser.session import find_chromium


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    sweep, target = Path(sys.argv[1]), Path(sys.argv[2])
    run = sys.argv[3] if len(sys.argv) > 3 else None
    chromium = find_chromium(None)
    if chromium is None:
        raise SystemExit("no Chromium found (scripts/bootstrap installs Debian's)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium.path), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        page.goto((sweep / "index.html").resolve().as_uri())
        page.wait_for_selector("html[data-ready]")
        row = page.locator(f'#runs tr[data-run="{run}"]') if run else page.locator('#runs tr[data-case="pong"]').first
        row.locator("button.open").click()
        # Lazy thumbnails below the fold load for the picture as they would when scrolled to.
        page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(img => { img.loading = 'eager'; })")
        page.wait_for_function("Array.from(document.images).every(img => img.complete)")
        page.wait_for_timeout(300)
        shot = page.screenshot(full_page=True)
        browser.close()
    image = Image.open(io.BytesIO(shot)).convert("RGB").quantize(colors=256)
    target.parent.mkdir(parents=True, exist_ok=True)
    image.save(target, optimize=True)
    print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
