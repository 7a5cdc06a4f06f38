"""Time pytest_tcab.run.imagediff.compare against the pure-Python pixelmatch package, side by side.

Run from the repository root: ``python benchmarks/bench_imagediff.py``. The pixelmatch column
needs ``pip install pixelmatch`` and is left out without it. Both sides get the same 1280x720
pairs and the counts are printed with the times, so a port that got faster by getting wrong
shows up here too. pixelmatch runs with ``includeAA=True``, the variant the port reproduces.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image
from PIL import ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_tcab.run.imagediff import compare

WIDTH = 1280
HEIGHT = 720


def scene() -> Image.Image:
    """A screenshot-like frame: a gradient backdrop, a few shapes and some text."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    backdrop = np.stack(
        [x * 255 // WIDTH, y * 255 // HEIGHT, np.full_like(x, 96), np.full_like(x, 255)], -1
    ).astype(np.uint8)
    image = Image.fromarray(backdrop, "RGBA")
    draw = ImageDraw.Draw(image)
    draw.ellipse((200, 150, 420, 370), fill=(240, 200, 40, 255))
    draw.rectangle((800, 400, 1100, 600), fill=(30, 30, 160, 255))
    draw.text((40, 40), "SCORE 001250", fill=(255, 255, 255, 255))
    return image


def pairs() -> dict[str, tuple[Image.Image, Image.Image]]:
    base = scene()
    moved = base.copy()
    draw = ImageDraw.Draw(moved)
    draw.ellipse((204, 150, 424, 370), fill=(240, 200, 40, 255))  # the ball moved 4 px
    draw.text((40, 40), "SCORE 001260", fill=(255, 255, 255, 255))
    # Flipping the top bit of every channel moves every pixel far past any threshold.
    flipped = Image.fromarray(np.asarray(base.convert("RGB")) ^ 0x80, "RGB").convert("RGBA")
    return {"small diff": (base, moved), "all different": (base, flipped)}


def median_time(repeat: int, run: Callable[[], int]) -> tuple[float, int]:
    """Median seconds of ``repeat`` runs, and the count the last run returned."""
    times: list[float] = []
    count = 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), count


def pixelmatch_counter() -> Callable[[Image.Image, Image.Image], int] | None:
    """The pixelmatch package's count, or None when it is not installed."""
    try:
        from pixelmatch.contrib.PIL import pixelmatch
    except ImportError:
        return None
    return lambda first, second: pixelmatch(first, second, includeAA=True)


def numpy_counter(first: Image.Image, second: Image.Image) -> int:
    return compare(first, second).differing_pixels


def main() -> None:
    reference = pixelmatch_counter()
    if reference is None:
        print("pixelmatch not importable (pip install pixelmatch): numpy column only\n")
    print(f"{'pair':<14} {'numpy':>10} {'count':>8} {'pixelmatch':>11} {'count':>8} {'ratio':>8}")
    for name, (first, second) in pairs().items():
        numpy_s, numpy_count = median_time(20, functools.partial(numpy_counter, first, second))
        line = f"{name:<14} {numpy_s * 1000:>8.1f}ms {numpy_count:>8}"
        if reference is not None:
            pm_s, pm_count = median_time(1, functools.partial(reference, first, second))
            line += f" {pm_s * 1000:>9.0f}ms {pm_count:>8} {pm_s / numpy_s:>7.0f}x"
        print(line)


if __name__ == "__main__":
    main()
