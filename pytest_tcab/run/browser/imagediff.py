"""Screenshot against baseline: pixelmatch's perceptual colour test, vectorised with numpy.

The YIQ distance and its threshold are pixelmatch's (``includeAA=True``: no anti-aliasing
detection), ported so that the counts equal those of the pure-Python ``pixelmatch`` package,
which needs about a second per 1280x720 pair where this needs milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

import numpy as np
import numpy.typing as npt
from PIL import Image

MAX_YIQ_DELTA = 35215.0
"""The largest possible YIQ distance between two colours; ``threshold`` scales it (pixelmatch)."""

DIFF_FADE = 0.1
"""Opacity of the original under the red marks of a diff image (pixelmatch's ``alpha``)."""

DIFF_COLOR = (255, 0, 0, 255)
"""Differing pixels in a diff image: opaque red, as pixelmatch draws them."""


@dataclass(frozen=True)
class Comparison:
    """How far a screenshot is from its baseline, and where.

    When the sizes differ, both images are laid at the top-left of a canvas as large as both,
    and every canvas pixel covered by only one of them counts as different. Resizing was
    rejected: resampling blurs every edge into a difference of its own, and a build that
    renders at the wrong size is itself a difference the figure should show.
    """

    differing_pixels: int
    total_pixels: int
    """The canvas area: the common size, or the size covering both when they differ."""
    note: str | None
    """Said when the sizes differ, for the report next to the figure."""
    _baseline: npt.NDArray[np.uint8] = field(repr=False, compare=False)
    """The expected image as RGBA on the canvas (transparent where it does not reach)."""
    _mask: npt.NDArray[np.bool_] = field(repr=False, compare=False)
    """Canvas-shaped, true where the pixels differ."""

    @property
    def diff_ratio(self) -> float:
        """Share of differing pixels, 0 (identical) to 1 (every pixel differs)."""
        return self.differing_pixels / self.total_pixels if self.total_pixels else 0.0

    @property
    def similarity(self) -> float:
        """``1 - diff_ratio``: the figure recorded for a check."""
        return 1.0 - self.diff_ratio

    def diff_image(self) -> Image.Image:
        """The baseline faded to light grey with differing pixels in red, as pixelmatch draws it."""
        rgb = self._baseline[..., :3].astype(np.float64)
        luma = rgb @ np.array([0.29889531, 0.58662247, 0.11448223])
        weight = DIFF_FADE * self._baseline[..., 3].astype(np.float64) / 255.0
        grey = np.clip(255.0 + (luma - 255.0) * weight, 0.0, 255.0).astype(np.uint8)
        out = np.empty(self._baseline.shape, np.uint8)
        out[..., 0] = out[..., 1] = out[..., 2] = grey
        out[..., 3] = 255
        out[self._mask] = DIFF_COLOR
        return Image.fromarray(out, "RGBA")


def compare(expected: Image.Image, actual: Image.Image, threshold: float = 0.1) -> Comparison:
    """Count the pixels of ``actual`` that differ visibly from ``expected``.

    ``threshold`` is pixelmatch's: 0 counts any change of colour, 0.1 (its default) ignores
    what the eye barely sees, 1 counts nothing. Semi-transparent pixels are blended with white
    first, as the Python pixelmatch package does (JS pixelmatch blends differently).
    The result does not depend on which image is called expected, except for the diff image.
    """
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
    first = np.asarray(expected.convert("RGBA"))
    second = np.asarray(actual.convert("RGBA"))
    note = None
    outside = None
    if first.shape != second.shape:
        width = max(expected.width, actual.width)
        height = max(expected.height, actual.height)
        first, first_cover = _on_canvas(first, width, height)
        second, second_cover = _on_canvas(second, width, height)
        outside = first_cover ^ second_cover
        note = (
            f"sizes differ: expected {expected.width}x{expected.height}, actual"
            f" {actual.width}x{actual.height}; compared on a {width}x{height} canvas where the"
            f" {int(outside.sum())} pixels covered by only one image count as different"
        )
    height, width = first.shape[:2]
    mask = np.zeros(height * width, np.bool_)
    mask[_differing(first, second, threshold)] = True
    mask = mask.reshape(height, width)
    if outside is not None:
        mask |= outside
    return Comparison(
        differing_pixels=int(mask.sum()),
        total_pixels=height * width,
        note=note,
        _baseline=first,
        _mask=mask,
    )


def _differing(
    first: npt.NDArray[np.uint8], second: npt.NDArray[np.uint8], threshold: float
) -> npt.NDArray[np.intp]:
    """Flat indices of the pixels whose YIQ distance exceeds the threshold (feasibility §4).

    Only pixels whose bytes differ are converted to float, which is what makes a screenshot
    with a small changed region cost milliseconds. float64 keeps borderline decisions equal to
    the Python package's.
    """
    packed1 = first.reshape(-1).view(np.uint32)  # one RGBA pixel per element
    packed2 = second.reshape(-1).view(np.uint32)
    changed = np.flatnonzero(packed1 != packed2)
    p1 = first.reshape(-1, 4)[changed].astype(np.float64)
    p2 = second.reshape(-1, 4)[changed].astype(np.float64)
    c1 = 255.0 + (p1[:, :3] - 255.0) * (p1[:, 3:] / 255.0)
    c2 = 255.0 + (p2[:, :3] - 255.0) * (p2[:, 3:] / 255.0)
    dr, dg, db = (c1 - c2).T
    y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
    i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189
    q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694
    delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    hits: npt.NDArray[np.intp] = changed[delta > MAX_YIQ_DELTA * threshold * threshold]
    return hits


def _on_canvas(
    pixels: npt.NDArray[np.uint8], width: int, height: int
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """``pixels`` at the top-left of a transparent canvas, and the mask of what it covers."""
    canvas = np.zeros((height, width, 4), np.uint8)
    cover = np.zeros((height, width), np.bool_)
    canvas[: pixels.shape[0], : pixels.shape[1]] = pixels
    cover[: pixels.shape[0], : pixels.shape[1]] = True
    return canvas, cover


def is_blank(image: Image.Image) -> bool:
    """Whether the image is a single colour once laid on white: a page that drew nothing.

    Laying it on white first makes a fully transparent canvas blank whatever its RGB bytes.
    An opaque image (a screenshot) is compared with its first pixel directly.
    """
    if image.mode == "RGB":
        pixels = np.asarray(image)
        return bool((pixels == pixels[0, 0]).all())
    on_white = Image.alpha_composite(
        Image.new("RGBA", image.size, (255, 255, 255, 255)), image.convert("RGBA")
    )
    # getcolors gives up (None) as soon as it meets a second colour.
    return on_white.convert("RGB").getcolors(1) is not None
