"""Recorded media: a clip's poster is its last frame; media are embedded only under a bound."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from pytest_tcab.run.media import POSTER_SUFFIX
from pytest_tcab.run.media import embeddable
from pytest_tcab.run.media import make_poster
from pytest_tcab.run.media import mime_type
from pytest_tcab.run.media import poster_of
from pytest_tcab.run.media import size_text

WHITE, RED = (255, 255, 255), (230, 20, 20)


def clip(dest: Path, colours: list[tuple[int, int, int]]) -> Path:
    """A WebM of one 64x48 frame per colour at 25 fps, encoded the way the clip recorder encodes."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.skip("ffmpeg (Debian ffmpeg) is needed to encode a clip")
    stream = bytearray()
    for colour in colours:
        buffer = io.BytesIO()
        Image.new("RGB", (64, 48), colour).save(buffer, format="JPEG", quality=95)
        stream += buffer.getvalue()
    subprocess.run([ffmpeg, "-loglevel", "error", "-f", "image2pipe", "-framerate", "25", "-c:v", "mjpeg",
                    "-i", "pipe:0", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-pix_fmt", "yuv420p",
                    "-y", str(dest)], input=bytes(stream), check=True, capture_output=True)
    return dest


def near(pixel: tuple[int, ...], colour: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(pixel, colour, strict=False))


def test_a_poster_is_the_last_frame_beside_the_clip(tmp_path: Path) -> None:
    webm = clip(tmp_path / "goal__clip.webm", [WHITE] * 30 + [RED] * 2)  # opens white, ends red
    poster = make_poster(webm)
    assert poster == tmp_path / f"goal__clip{POSTER_SUFFIX}"
    with Image.open(poster) as image:
        assert (image.format, image.size) == ("PNG", (64, 48))
        assert near(image.convert("RGB").getpixel((32, 24)), RED)
    assert poster_of(str(webm)) == str(poster)


def test_a_poster_is_made_anew_and_none_when_the_clip_cannot_be_read(tmp_path: Path) -> None:
    webm = clip(tmp_path / "a.webm", [RED] * 3)
    stale = make_poster(webm)
    assert stale is not None
    webm.write_bytes(b"not a clip")  # a later session's clip that did not encode
    assert poster_of(str(webm)) is None
    assert not stale.exists()  # no poster of an earlier take is left beside it
    assert poster_of(None) is None
    assert make_poster(tmp_path / "missing.webm") is None


def test_a_medium_is_embedded_only_under_the_bound(tmp_path: Path) -> None:
    still = tmp_path / "still.png"
    still.write_bytes(b"x" * 3000)
    assert embeddable(still, limit=3000) == b"x" * 3000
    assert embeddable(still, limit=2048) == "3 KiB is above the 2 KiB an embedded medium may take"
    assert embeddable(tmp_path / "gone.png") == "the file is missing"
    assert (size_text(80), size_text(12 * 2**20 + 2**19), size_text(8 * 2**20)) == ("80 bytes", "12.5 MiB", "8 MiB")
    assert (mime_type("a.webm"), mime_type("b.PNG"), mime_type("c.bin")) == (
        "video/webm", "image/png", "application/octet-stream")
