"""Recorded media as reports show them: each clip's poster frame, and media embedded under a bound.

A clip (WebM) shows nothing until it is played unless the page gives it a poster, so each clip
the plugin records or copies gets one beside it: its last frame, the state the filmed act ends
on. Reports that embed media (report.html in its self-contained form, pytest-html's extras) read
them through `embeddable`: what a build wrote (proofs, assets) has no size of its own, so a
medium past `EMBED_LIMIT` is left out, and the report says so.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path

POSTER_SUFFIX = ".poster.png"
"""`<clip stem>.poster.png` beside the clip."""
POSTER_TIMEOUT_S = 60.0
EMBED_LIMIT = 8 * 2**20
"""The largest medium a report embeds: a check's screenshot at 1280x720 is a few hundred KiB and a
clip of 8 s at 1 Mbit/s about 1 MiB; a larger file is linked or named instead."""

_MIME_TYPES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".svg": "image/svg+xml", ".webm": "video/webm", ".mp4": "video/mp4",
    ".wav": "audio/wav", ".flac": "audio/flac", ".ogg": "audio/ogg", ".mid": "audio/midi",
    ".html": "text/html", ".json": "application/json", ".gltf": "model/gltf+json", ".glb": "model/gltf-binary",
}
VIDEO_SUFFIXES = frozenset({".webm", ".mp4"})


def mime_type(path: str | Path) -> str:
    return _MIME_TYPES.get(Path(path).suffix.lower(), "application/octet-stream")


def is_video(path: str | Path) -> bool:
    return Path(path).suffix.lower() in VIDEO_SUFFIXES


def poster_path(clip: Path) -> Path:
    return clip.with_name(clip.stem + POSTER_SUFFIX)


def make_poster(clip: Path) -> Path | None:
    """Write the clip's last frame as PNG beside it and return its path; None when ffmpeg is
    missing or cannot read the clip (a poster is a convenience, never a verdict).

    ffmpeg seeks to the last 0.3 s and overwrites one image with each frame it decodes
    (`-update 1`), so the image left is the last frame.
    """
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None or not clip.is_file():
        return None
    dest = poster_path(clip)
    command = [ffmpeg, "-loglevel", "error", "-sseof", "-0.3", "-i", str(clip), "-an", "-update", "1", "-y", str(dest)]
    try:
        done = subprocess.run(command, check=False, capture_output=True, timeout=POSTER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        done = None
    if done is not None and done.returncode == 0 and dest.is_file() and dest.stat().st_size > 0:
        return dest
    dest.unlink(missing_ok=True)
    return None


def poster_of(clip: str | None) -> str | None:
    """Make the poster of `clip` (a path as results.json records it) and return its path likewise.

    Made anew each time: the output folder outlives a session, and an old poster beside a new
    clip would show another take.
    """
    if not clip:
        return None
    made = make_poster(Path(clip))
    return str(made) if made is not None else None


def embeddable(path: str | Path, limit: int = EMBED_LIMIT) -> bytes | str:
    """The medium's bytes, or why a report leaves it out (missing, or larger than `limit`)."""
    target = Path(path)
    try:
        size = target.stat().st_size
    except OSError:
        return "the file is missing"
    if size > limit:
        return f"{size_text(size)} is above the {size_text(limit)} an embedded medium may take"
    try:
        return target.read_bytes()
    except OSError as error:
        return f"the file cannot be read ({error.strerror})"


def page_link(path: str | Path, page_dir: Path) -> str:
    """`path` as a page in `page_dir` reaches it: relative and POSIX (items record media by
    absolute path), or a `file:` URI where no relative path leads (another drive on Windows)."""
    target = Path(path)
    if not target.is_absolute():
        return target.as_posix()
    try:
        return Path(os.path.relpath(target, page_dir)).as_posix()
    except ValueError:
        return target.as_uri()


def base64_text(content: bytes) -> str:
    return base64.b64encode(content).decode("ascii")


def size_text(size: int) -> str:
    """`12.3 MiB`, `512 KiB`, `80 bytes`."""
    if size >= 2**20:
        return f"{size / 2**20:.1f} MiB".replace(".0 MiB", " MiB")
    if size >= 2**10:
        return f"{size / 2**10:.0f} KiB"
    return f"{size} bytes"
