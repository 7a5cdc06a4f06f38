"""What report.html shows of an asset file: the file itself beside pictures made from it.

Each side (the suite's reference, the run's produced file) gets a folder under the run's output
holding a copy of the file (the report's `<img>` or `<audio>` points at it) and, per format, a
picture: a sheet's frames cut apart, an audio waveform, a voxel model seen from the front. The
MIDI summary is the measured shape itself, which the report lays out as a table.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pytest_tcab.run.assets.formats import AUDIO_SUFFIXES
from pytest_tcab.run.assets.formats import IMAGE_SUFFIXES
from pytest_tcab.run.assets.formats import frame_boxes

WAVEFORM_SIZE = (640, 120)
VOXEL_CELL = 16
"""Pixels per voxel in the front view."""


def preview(source: Path, kind: str, dest: Path) -> dict[str, Any]:
    """Copy `source` into `dest` and draw its pictures there; what the report shows of it.

    Drawing never fails the item: a file the measuring step could not read is shown as its
    copy alone, with a note.
    """
    dest.mkdir(parents=True, exist_ok=True)
    copy = dest / source.name
    shutil.copyfile(source, copy)
    shown: dict[str, Any] = {"file": str(copy)}
    suffix = source.suffix.lower()
    try:
        if suffix in IMAGE_SUFFIXES and kind == "sprite-sheet":
            shown["frames"] = [str(path) for path in _frames(copy, dest)]
        elif suffix in AUDIO_SUFFIXES:
            shown["waveform"] = str(_waveform(copy, dest / f"{source.stem}.waveform.png"))
        elif suffix == ".json" and kind == "voxel":
            shown["front"] = str(_voxel_front(copy, dest / f"{source.stem}.front.png"))
    except Exception as error:  # noqa: BLE001 -- the measuring step already says why a file is unreadable
        shown["note"] = f"no picture: {type(error).__name__}"
    return shown


def _frames(sheet: Path, dest: Path) -> list[Path]:
    import numpy as np
    import PIL.Image

    with PIL.Image.open(sheet) as image:
        rgba = image.convert("RGBA")
    boxes = frame_boxes(np.asarray(rgba)[..., 3] > 0)
    paths = []
    for index, box in enumerate(boxes[:64]):
        path = dest / f"{sheet.stem}.frame-{index + 1}.png"
        rgba.crop(box).save(path)
        paths.append(path)
    return paths


def _waveform(audio: Path, dest: Path) -> Path:
    """Each column the min..max of its slice of samples (all channels mixed), on a dark strip."""
    import numpy as np
    import PIL.Image
    import PIL.ImageDraw
    import soundfile

    samples, _ = soundfile.read(audio, dtype="float32", always_2d=True)
    mono = samples.mean(axis=1)
    width, height = WAVEFORM_SIZE
    image = PIL.Image.new("RGB", WAVEFORM_SIZE, (13, 15, 20))
    draw = PIL.ImageDraw.Draw(image)
    middle = height / 2
    draw.line([(0, middle), (width, middle)], fill=(60, 66, 80))
    for column, chunk in enumerate(np.array_split(mono, width)):
        if chunk.size:
            low, high = float(chunk.min()), float(chunk.max())
            draw.line([(column, middle - high * middle), (column, middle - low * middle)], fill=(90, 200, 140))
    image.save(dest)
    return dest


def _voxel_front(model: Path, dest: Path) -> Path:
    """The model seen along -z: for each (x, y) cell the voxel nearest the viewer (largest z)."""
    import json

    import PIL.Image

    document = json.loads(model.read_text(encoding="utf-8"))
    width, height, _ = document["size"]
    image = PIL.Image.new("RGBA", (width * VOXEL_CELL, height * VOXEL_CELL), (0, 0, 0, 0))
    nearest: dict[tuple[int, int], tuple[int, str]] = {}
    for x, y, z, colour in document["voxels"]:
        if 0 <= x < width and 0 <= y < height and ((x, y) not in nearest or z > nearest[(x, y)][0]):
            nearest[(x, y)] = (z, colour)
    for (x, y), (_, colour) in nearest.items():
        top = (height - 1 - y) * VOXEL_CELL  # y up
        image.paste(PIL.Image.new("RGBA", (VOXEL_CELL, VOXEL_CELL), colour), (x * VOXEL_CELL, top))
    image.save(dest)
    return dest
