"""Asset formats: each reader decodes with its library and compares the figures DESIGN names."""

from __future__ import annotations

import json
from pathlib import Path

import mido
import numpy as np
import PIL.Image
import pytest
import soundfile

from pytest_tcab.run.assets.formats import Audio
from pytest_tcab.run.assets.formats import Gltf
from pytest_tcab.run.assets.formats import Image
from pytest_tcab.run.assets.formats import Midi
from pytest_tcab.run.assets.formats import ParticleSystem
from pytest_tcab.run.assets.formats import Unreadable
from pytest_tcab.run.assets.formats import VoxelModel
from pytest_tcab.run.assets.formats import format_for

EXAMPLE = Path(__file__).resolve().parents[2] / "example-suite"
ASSETS = EXAMPLE / "versions/v1.0.0/assets"


def sheet(path: Path, frames: int, alpha: bool = True) -> Path:
    image = PIL.Image.new("RGBA" if alpha else "RGB", (64, 64), (0, 0, 0, 0) if alpha else (0, 0, 0))
    for n in range(frames):
        image.paste(PIL.Image.new(image.mode, (8, 40), (200, 200, 200)), (n * (64 // frames) + 2, 10))
    image.save(path)
    return path


def texts(reader: object, reference: Path, produced: Path) -> list[str]:
    return [str(m) for m in reader.compare(reader.measure(reference), reader.measure(produced))]  # type: ignore[attr-defined]


def test_a_sheet_with_another_grid_and_no_alpha_names_each_figure(tmp_path: Path) -> None:
    reader = Image(sheet=True)
    found = texts(reader, ASSETS / "paddle-sheet/paddle-sheet.png", sheet(tmp_path / "s.png", 3, alpha=False))
    assert found == [
        "alpha channel: produced none (mode RGB), reference present (mode RGBA) (a sprite needs one)",
        "transparent pixels: produced 0%, reference 29.7% (pixels outside the shape must be transparent)",
        "frame grid: produced 1x1, reference 4x1 (columns x rows of frames must be equal)",
    ]
    assert texts(reader, ASSETS / "paddle-sheet/paddle-sheet.png", sheet(tmp_path / "t.png", 4)) == []


def test_an_image_of_another_size_or_blank(tmp_path: Path) -> None:
    PIL.Image.new("RGBA", (32, 16), (0, 0, 0, 0)).save(tmp_path / "b.png")
    assert texts(Image(sheet=False), ASSETS / "ball/ball.png", tmp_path / "b.png") == [
        "size: produced 32x16, reference 16x16 (must be equal)",
        "visible pixels: produced 0%, reference 56.2% (the image is blank)",
    ]


def test_silent_audio_is_named_with_its_level(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "h.wav", np.zeros(800), 8000, subtype="PCM_U8")
    assert texts(Audio(), ASSETS / "hit/hit.wav", tmp_path / "h.wav") == [
        "peak level: produced -inf dBFS, reference -10.1 dBFS (silent: must peak above -60 dBFS)"]


def test_audio_that_does_not_decode(tmp_path: Path) -> None:
    (tmp_path / "h.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk")
    with pytest.raises(Unreadable, match=r"h.wav is not a readable audio file: "):
        Audio().measure(tmp_path / "h.wav")


def test_midi_tracks_duration_and_notes(tmp_path: Path) -> None:
    midi = mido.MidiFile(type=1)
    for _ in range(2):
        track = mido.MidiTrack([mido.MetaMessage("end_of_track", time=4800)])
        midi.tracks.append(track)
    midi.save(tmp_path / "t.mid")
    assert texts(Midi(), ASSETS / "theme/theme.mid", tmp_path / "t.mid") == [
        "tracks: produced 2, reference 1 (must be equal)",
        "duration: produced 5 s, reference 2 s (must be within ±50% of the reference)",
        "notes: produced 0, reference 4 (the score plays nothing)",
    ]


def test_gltf_validity_meshes_and_bounds(tmp_path: Path) -> None:
    reference = ASSETS / "lamp/lamp.gltf"
    document = json.loads(reference.read_text())
    document["nodes"][0]["mesh"] = 3
    (tmp_path / "broken.gltf").write_text(json.dumps(document))
    with pytest.raises(Unreadable, match=r"broken.gltf is not valid glTF 2.0: nodes\[0\].mesh is 3, but there are 1"):
        Gltf().measure(tmp_path / "broken.gltf")
    document["nodes"][0]["mesh"] = 0
    document["accessors"][0]["count"] = 10_000
    (tmp_path / "short.gltf").write_text(json.dumps(document))
    with pytest.raises(Unreadable, match=r"reads 10000 vertices past the end of its buffer"):
        Gltf().measure(tmp_path / "short.gltf")
    shape = Gltf().measure(reference)
    assert shape["meshes"] == 1 and shape["extent"] == [1.0, 1.5, 1.0]
    small = {**shape, "extent": [0.2, 1.5, 1.0]}
    assert [str(m) for m in Gltf().compare(shape, small)] == [
        "bounds extent along x: produced 0.2, reference 1 (must be within ±50% of the reference)"]


def test_voxel_dimensions_bounds_and_animation(tmp_path: Path) -> None:
    (tmp_path / "v.json").write_text(json.dumps({"size": [3, 2, 2], "voxels": [[5, 0, 0, "#ffffff"]]}))
    assert texts(VoxelModel(animated=True), ASSETS / "ship/ship.json", tmp_path / "v.json") == [
        "dimensions: produced 3x2x2, reference 3x2x3 (must be equal)",
        "voxels outside the bounds: produced 1, reference 0 (every voxel must lie inside 3x2x2)",
        "animation: produced none, reference present (the definition sets animated = true)",
    ]
    (tmp_path / "w.json").write_text(json.dumps({"size": [3, 2], "voxels": []}))
    with pytest.raises(Unreadable, match=r"w.json is not a voxel model \(voxel.schema.json\): `size`: "):
        VoxelModel(animated=False).measure(tmp_path / "w.json")


def test_a_particle_system_is_held_to_the_runtime_schema(tmp_path: Path) -> None:
    schema = json.loads((EXAMPLE / "packages/particle-runtime/schema.json").read_text())
    (tmp_path / "s.json").write_text(json.dumps({"emitters": [{"burst": 4, "lifetime_s": [1], "speed": "fast",
                                                               "colour": ["#fff"]}]}))
    with pytest.raises(Unreadable) as raised:
        ParticleSystem(schema).measure(tmp_path / "s.json")
    assert "`emitters[0].colour[0]`: '#fff' does not match" in str(raised.value)
    assert "`emitters[0].speed`: 'fast' is not of type 'array'" in str(raised.value)


@pytest.mark.parametrize(("kind", "name", "expected"), [
    ("sprite", "a.PNG", "image"), ("audio-fx", "a.flac", "audio"), ("music", "a.mid", "MIDI"),
    ("blender", "a.glb", "glTF"), ("voxel", "a.json", "voxel model"), ("blender", "a.blend", None),
])
def test_formats_are_chosen_by_kind_and_extension(kind: str, name: str, expected: str | None) -> None:
    reader = format_for(kind, Path(name).suffix)
    assert (reader.name if reader else None) == expected
