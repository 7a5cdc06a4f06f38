"""Writes the example's asset files: the lamp reference and the produced asset runs under runs/.

Run from the repository root: `python example-suite/tools/make_assets.py`. Everything is drawn or
synthesised here, small on purpose, so the committed files can be checked against their maker.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import mido
import numpy as np
import PIL.Image
import PIL.ImageDraw
import soundfile

SUITE = Path(__file__).resolve().parents[1]
VERSION = SUITE / "versions" / "v1.0.0"
RUNS = SUITE / "runs"


def run_folder(name: str, case: str, asset: str) -> Path:
    folder = RUNS / name / "assets" / asset
    folder.mkdir(parents=True, exist_ok=True)
    (RUNS / name / ".tcab").mkdir(exist_ok=True)
    (RUNS / name / ".tcab" / "run.toml").write_text(f'case = "{case}"\n', encoding="utf-8")
    return folder


def boxes_gltf(boxes: list[tuple[tuple[float, float, float], tuple[float, float, float]]]) -> dict:
    """One mesh of axis-aligned boxes (min corner, max corner), its buffer inlined as a data URI."""
    positions: list[tuple[float, float, float]] = []
    indices: list[int] = []
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    for low, high in boxes:
        base = len(positions)
        positions += [(x, y, z) for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])]
        for a, b, c, d in faces:
            indices += [base + a, base + b, base + c, base + a, base + c, base + d]
    points = np.array(positions, dtype="<f4")
    vertex_bytes = points.tobytes()
    index_bytes = np.array(indices, dtype="<u2").tobytes()
    blob = vertex_bytes + index_bytes
    return {
        "asset": {"version": "2.0", "generator": "Blender"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "lamp", "mesh": 0}],
        "meshes": [{"name": "lamp", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(points), "type": "VEC3",
             "min": points.min(axis=0).tolist(), "max": points.max(axis=0).tolist()},
            {"bufferView": 1, "componentType": 5123, "count": len(indices), "type": "SCALAR"},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": len(vertex_bytes), "target": 34962},
            {"buffer": 0, "byteOffset": len(vertex_bytes), "byteLength": len(index_bytes), "target": 34963},
        ],
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
    }


def write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def paddle_sheet(path: Path) -> None:
    """Four 12x60 paddle frames, left to right, on transparency; the paddle tilts a little more each frame."""
    image = PIL.Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = PIL.ImageDraw.Draw(image)
    for frame in range(4):
        left = frame * 16 + 2
        draw.rounded_rectangle([left, 2 + frame, left + 11, 61 - frame], radius=3, fill=(230, 230, 240, 255))
        draw.line([left + 5, 6 + frame, left + 5, 57 - frame], fill=(120, 170, 255, 255), width=2)
    image.save(path, optimize=True)


def tone(seconds: float, rate: int, channels: int, gain: float) -> np.ndarray:
    """A decaying 440 Hz knock."""
    t = np.arange(int(seconds * rate)) / rate
    wave = gain * np.sin(2 * np.pi * 440 * t) * np.exp(-t * 25)
    return np.repeat(wave[:, None], channels, axis=1)


def main() -> None:
    write_json(VERSION / "assets/lamp/lamp.gltf",
               boxes_gltf([((-0.5, 0.0, -0.5), (0.5, 0.1, 0.5)), ((-0.05, 0.1, -0.05), (0.05, 1.2, 0.05)),
                           ((-0.3, 1.2, -0.3), (0.3, 1.5, 0.3))]))

    paddle_sheet(run_folder("paddle-sheet", "paddle-sheet", "paddle-sheet") / "paddle-sheet.png")
    write_json(run_folder("ship", "ship", "ship") / "ship.json", {
        "size": [3, 2, 3],
        "voxels": [[x, 0, z, "#8899aa"] for x in range(3) for z in range(3) if (x, z) != (1, 0)]
        + [[1, 1, 1, "#ffcc33"], [1, 0, 0, "#ff5533"]],
        "animation": {"bob": {"axis": "y", "amplitude": 0.2, "period_s": 1.5}},
    })
    write_json(run_folder("lamp", "lamp", "lamp") / "lamp.gltf",
               boxes_gltf([((-0.4, 0.0, -0.4), (0.4, 0.08, 0.4)), ((-0.04, 0.08, -0.04), (0.04, 1.1, 0.04)),
                           ((-0.25, 1.1, -0.25), (0.25, 1.4, 0.25))]))
    write_json(run_folder("spark-burst", "spark-burst", "spark-burst") / "system.json", {
        "emitters": [{"burst": 48, "lifetime_s": [0.3, 0.8], "speed": [80, 200], "colour": ["#ffee88", "#ff7722", "#aa2200"]}],
    })
    theme = mido.MidiFile(ticks_per_beat=480)
    track = mido.MidiTrack()
    theme.tracks.append(track)
    for note in (60, 64, 67, 64, 72):
        track.append(mido.Message("note_on", note=note, velocity=90, time=0))
        track.append(mido.Message("note_off", note=note, velocity=0, time=480))
    track.append(mido.MetaMessage("end_of_track", time=0))
    theme.save(run_folder("theme", "theme", "theme") / "theme.mid")

    soundfile.write(run_folder("hit", "hit", "hit") / "hit.wav", tone(0.12, 8000, 1, 0.5), 8000, subtype="PCM_U8")
    # The flawed run: CD-rate stereo, far too long, and driven into clipping.
    loud = np.clip(tone(0.6, 44100, 2, 3.0), -1.0, 1.0)
    soundfile.write(run_folder("hit-flawed", "hit", "hit") / "hit.wav", loud, 44100, subtype="PCM_16")


if __name__ == "__main__":
    main()
