"""imagediff: counts equal to the pixelmatch package's, sizes, alpha, blank pages, diff images."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from PIL import Image

from pytest_tcab.run.browser.imagediff import compare
from pytest_tcab.run.browser.imagediff import is_blank

WIDTH = 64
HEIGHT = 48


def _gradient() -> npt.NDArray[np.uint8]:
    """An opaque image where every pixel has its own colour, so no two pixels compare alike."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    return np.stack([x * 4, y * 5, (x + y) * 2, np.full_like(x, 255)], -1).astype(np.uint8)


def _region_pair() -> tuple[Image.Image, Image.Image]:
    """The gradient, and a copy whose 24x16 block at (20, 16) shifts red up and green down by
    amounts that grow across the block (0 at its top-left corner), so that each threshold cuts
    it at a different place."""
    base = _gradient()
    other = base.copy()
    ry, rx = np.mgrid[0:16, 0:24]
    shift = rx * 5 + ry
    block = other[16:32, 20:44, :3].astype(np.int64)
    block[..., 0] = np.clip(block[..., 0] + shift, 0, 255)
    block[..., 1] = np.clip(block[..., 1] - shift // 2, 0, 255)
    other[16:32, 20:44, :3] = block.astype(np.uint8)
    return Image.fromarray(base, "RGBA"), Image.fromarray(other, "RGBA")


def _alpha_pair() -> tuple[Image.Image, Image.Image]:
    """The gradient, and a copy whose alpha falls from 255 (column 0) by 4 per column."""
    base = _gradient()
    other = base.copy()
    x = np.mgrid[0:HEIGHT, 0:WIDTH][1]
    other[..., 3] = (255 - x * 4).astype(np.uint8)
    return Image.fromarray(base, "RGBA"), Image.fromarray(other, "RGBA")


def _solid(colour: tuple[int, int, int, int], size: tuple[int, int] = (8, 6)) -> Image.Image:
    return Image.new("RGBA", size, colour)


# Counts from the pure-Python pixelmatch 0.4.0 (pixelmatch.contrib.PIL, includeAA=True) on these
# exact pairs; its diff images were byte-identical to diff_image() at every threshold.
@pytest.mark.parametrize(
    ("threshold", "expected"),
    [(0.0, 383), (0.05, 331), (0.1, 267), (0.2, 133), (0.3, 0)],
)
def test_region_counts_match_pixelmatch(threshold: float, expected: int) -> None:
    first, second = _region_pair()
    result = compare(first, second, threshold)
    assert result.differing_pixels == expected
    assert result.total_pixels == WIDTH * HEIGHT
    assert result.note is None


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [(0.0, 3024), (0.05, 2817), (0.1, 2530), (0.2, 1568), (0.3, 923)],
)
def test_alpha_counts_match_pixelmatch(threshold: float, expected: int) -> None:
    first, second = _alpha_pair()
    assert compare(first, second, threshold).differing_pixels == expected


def test_identical_images_do_not_differ() -> None:
    image = Image.fromarray(_gradient(), "RGBA")
    result = compare(image, image.copy())
    assert (result.differing_pixels, result.diff_ratio, result.similarity) == (0, 0.0, 1.0)


def test_every_pixel_differs() -> None:
    result = compare(_solid((0, 0, 0, 255)), _solid((255, 255, 255, 255)))
    assert result.differing_pixels == result.total_pixels == 48
    assert (result.diff_ratio, result.similarity) == (1.0, 0.0)


def test_small_known_region() -> None:
    expected = _solid((255, 255, 255, 255), (100, 50))
    actual = expected.copy()
    actual.paste((0, 0, 255, 255), (10, 20, 15, 23))  # 5x3 blue block
    result = compare(expected, actual)
    assert result.differing_pixels == 15
    assert result.diff_ratio == pytest.approx(15 / 5000)
    mask = np.asarray(result.diff_image())[..., 0:3].tolist()
    assert mask[20][10] == [255, 0, 0] and mask[22][14] == [255, 0, 0]
    assert mask[19][10] == [255, 255, 255] and mask[20][15] == [255, 255, 255]


def test_threshold_is_a_strict_bound() -> None:
    # A grey step just visible at 0 and invisible at 1; no threshold outside 0..1 is accepted.
    darker = _solid((250, 250, 250, 255))
    lighter = _solid((255, 255, 255, 255))
    assert compare(darker, lighter, 0.0).differing_pixels == 48
    assert compare(darker, lighter, 1.0).differing_pixels == 0
    with pytest.raises(ValueError, match="between 0 and 1"):
        compare(darker, lighter, 1.5)


def test_transparency_is_blended_with_white() -> None:
    # Fully transparent pixels are white whatever their colour bytes.
    assert compare(_solid((0, 0, 0, 0)), _solid((255, 255, 255, 255)), 0.0).differing_pixels == 0
    assert compare(_solid((255, 0, 0, 0)), _solid((0, 0, 255, 0)), 0.0).differing_pixels == 0
    # Black at alpha 128 on white is 255 - 128 = 127 grey exactly.
    assert compare(_solid((0, 0, 0, 128)), _solid((127, 127, 127, 255)), 0.0).differing_pixels == 0
    assert compare(_solid((0, 0, 0, 128)), _solid((0, 0, 0, 255))).differing_pixels == 48


def test_other_modes_are_compared_as_rgba() -> None:
    rgb = Image.new("RGB", (4, 4), (10, 20, 30))
    assert compare(rgb, rgb.convert("RGBA")).differing_pixels == 0


def test_different_sizes_use_a_shared_canvas() -> None:
    expected = _solid((0, 0, 0, 255), (10, 20))
    actual = _solid((0, 0, 0, 255), (20, 10))
    result = compare(expected, actual)
    # 20x20 canvas: 10x10 common and equal, 2 x 100 covered by one image, 100 covered by neither.
    assert result.total_pixels == 400
    assert result.differing_pixels == 200
    assert result.note is not None
    assert "expected 10x20, actual 20x10" in result.note
    assert "20x20 canvas" in result.note
    diff = np.asarray(result.diff_image())
    assert diff.shape == (20, 20, 4)
    assert diff[5, 15].tolist() == [255, 0, 0, 255]  # only in actual
    assert diff[15, 5].tolist() == [255, 0, 0, 255]  # only in expected
    assert diff[15, 15].tolist() == [255, 255, 255, 255]  # in neither


def test_larger_actual_counts_its_extra_area() -> None:
    result = compare(_solid((9, 9, 9, 255), (8, 6)), _solid((9, 9, 9, 255), (8, 7)))
    assert (result.differing_pixels, result.total_pixels) == (8, 56)


def test_diff_image_fades_the_baseline_and_marks_red() -> None:
    expected = Image.new("RGBA", (3, 1))
    expected.putdata([(255, 255, 255, 255), (0, 0, 0, 255), (0, 0, 0, 0)])
    actual = expected.copy()
    actual.putpixel((1, 0), (255, 255, 255, 255))
    diff = compare(expected, actual).diff_image()
    assert diff.mode == "RGBA"
    assert [diff.getpixel((x, 0)) for x in range(3)] == [
        (255, 255, 255, 255),  # white stays white
        (255, 0, 0, 255),  # the differing pixel
        (255, 255, 255, 255),  # transparent fades to white
    ]
    black = compare(_solid((0, 0, 0, 255)), _solid((0, 0, 0, 255))).diff_image()
    # 255 + (0 - 255) * 0.1 = 229.5, truncated as pixelmatch does.
    assert black.getpixel((0, 0)) == (229, 229, 229, 255)


@pytest.mark.parametrize(
    ("image", "blank"),
    [
        (Image.new("RGB", (16, 9), (0, 0, 0)), True),
        (Image.new("RGBA", (16, 9), (30, 60, 90, 255)), True),
        (Image.new("RGBA", (16, 9), (0, 0, 0, 0)), True),
        (Image.new("L", (16, 9), 200), True),
    ],
)
def test_single_colour_is_blank(image: Image.Image, blank: bool) -> None:
    assert is_blank(image) is blank


def test_one_different_pixel_is_not_blank() -> None:
    image = Image.new("RGB", (1280, 720), (255, 255, 255))
    image.putpixel((1279, 719), (255, 255, 254))
    assert not is_blank(image)


def test_transparent_pixels_of_varied_bytes_are_blank() -> None:
    image = Image.new("RGBA", (2, 1))
    image.putdata([(255, 0, 0, 0), (0, 0, 255, 0)])
    assert is_blank(image)


@st.composite
def _images(draw: st.DrawFn) -> Image.Image:
    width = draw(st.integers(1, 6))
    height = draw(st.integers(1, 6))
    data = draw(st.binary(min_size=width * height * 4, max_size=width * height * 4))
    return Image.frombytes("RGBA", (width, height), data)


@settings(max_examples=300, deadline=None)
@given(_images(), _images(), st.sampled_from([0.0, 0.05, 0.1, 0.5, 1.0]))
def test_comparison_is_symmetric_and_bounded(
    first: Image.Image, second: Image.Image, threshold: float
) -> None:
    forward = compare(first, second, threshold)
    backward = compare(second, first, threshold)
    assert forward.differing_pixels == backward.differing_pixels
    assert forward.total_pixels == backward.total_pixels
    assert 0.0 <= forward.diff_ratio <= 1.0
    assert forward.similarity == pytest.approx(1.0 - forward.diff_ratio)
