"""Asset files measured with a library made for their format: does a file decode, and what is its shape.

One reader per format measures a file into a `Shape` (JSON-ready figures); the same reader
measures the suite's reference and the produced file, and `compare` words each figure of the
produced file that does not fit the reference's (DESIGN "Test-suite runs: games and assets"):

| format | library | figures compared |
|---|---|---|
| image (`.png`, `.webp`, `.gif`, `.jpg`) | Pillow | size, alpha channel, transparent pixels, visible pixels; a sheet's frame grid |
| audio (`.wav`, `.flac`, `.ogg`) | soundfile (libsndfile) | sample rate, channels, duration (reference ±50%), not silent, not clipped |
| MIDI (`.mid`, `.midi`) | mido | tracks, duration (reference ±50%), notes |
| glTF (`.gltf`, `.glb`) | pygltflib | validity (indices, buffers), meshes, bounds (each axis ±50%) |
| voxel model (`.json`) | jsonschema | dimensions, voxels inside the bounds, voxel count, animation |
| particle system (`.json`) | jsonschema | the particle runtime's `schema.json`, emitters (played in the page by `assets.py`) |

The produced file is hostile: every reader bounds what it reads and turns any decoding error into
`Unreadable`, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any
from typing import Protocol

from pytest_tcab.errors import TcabError

Shape = dict[str, Any]
"""A file's measured figures, by name; recorded in results.json as they are."""

TOLERANCE = 0.5
"""Durations and extents may differ from the reference's by this share either way."""
MAX_ASSET_BYTES = 64 * 1024 * 1024
"""A produced file larger than this is refused before any library reads it."""
MAX_AUDIO_SAMPLES = 48_000 * 60 * 20
"""Twenty minutes of 48 kHz mono: a compressed file that would decode to more is refused."""
SILENCE_DBFS = -60.0
"""Audio whose peak stays below this level is silent."""
CLIP_LEVEL = 0.99
"""A sample at or above this share of full scale, three in a row or more, is clipped."""
_CLIP_RUN = 3


class Unreadable(TcabError):
    """The file does not decode as its format (the message says what the library found)."""


@dataclass(frozen=True)
class Mismatch:
    """One figure of the produced file that does not fit the reference's."""

    figure: str
    produced: object
    reference: object
    rule: str

    def __str__(self) -> str:
        return f"{self.figure}: produced {self.produced}, reference {self.reference} ({self.rule})"


class Format(Protocol):
    @property
    def name(self) -> str:
        """What the file is read as, e.g. `image`, `audio`, `MIDI`."""

    def measure(self, path: Path) -> Shape: ...

    def compare(self, reference: Shape, produced: Shape) -> list[Mismatch]: ...


def _within(produced: float, reference: float) -> bool:
    return reference * (1 - TOLERANCE) <= produced <= reference * (1 + TOLERANCE)


def _decoding(name: str, path: Path, error: BaseException) -> Unreadable:
    detail = str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__
    return Unreadable(f"{path.name} is not a readable {name} file: {type(error).__name__}: {detail}")


# -- images -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Image:
    """A sprite (or a sprite sheet, whose frames are the cells its transparent gutters separate)."""

    sheet: bool
    name: str = "image"

    def measure(self, path: Path) -> Shape:
        import numpy as np
        import PIL.Image

        try:
            with PIL.Image.open(path) as image:
                image.load()
                bands = image.getbands()
                alpha = "A" in bands or "transparency" in image.info
                rgba = np.asarray(image.convert("RGBA"))
                shape: Shape = {"width": image.width, "height": image.height, "mode": image.mode, "alpha": alpha}
        except Exception as error:  # noqa: BLE001 -- a hostile file may make Pillow raise anything
            raise _decoding(self.name, path, error) from None
        visible = rgba[..., 3] > 0
        shape["transparent_share"] = round(float((~visible).mean()), 4)
        shape["visible_share"] = round(float(visible.mean()), 4)
        if self.sheet:
            shape["frames"] = frame_grid(visible)
        return shape

    def compare(self, reference: Shape, produced: Shape) -> list[Mismatch]:
        found = []
        size, ref_size = f"{produced['width']}x{produced['height']}", f"{reference['width']}x{reference['height']}"
        if size != ref_size:
            found.append(Mismatch("size", size, ref_size, "must be equal"))
        if reference["alpha"] and not produced["alpha"]:
            found.append(Mismatch("alpha channel", f"none (mode {produced['mode']})",
                                  f"present (mode {reference['mode']})", "a sprite needs one"))
        if reference["transparent_share"] > 0 and produced["transparent_share"] == 0:
            found.append(Mismatch("transparent pixels", "0%", f"{reference['transparent_share']:.1%}",
                                  "pixels outside the shape must be transparent"))
        if produced["visible_share"] == 0:
            found.append(Mismatch("visible pixels", "0%", f"{reference['visible_share']:.1%}",
                                  "the image is blank"))
        if self.sheet and produced["frames"] != reference["frames"]:
            found.append(Mismatch("frame grid", _grid(produced["frames"]), _grid(reference["frames"]),
                                  "columns x rows of frames must be equal"))
        return found


def frame_grid(visible: Any) -> list[int]:
    """`[columns, rows]` of a sheet: runs of columns (rows) holding a visible pixel, split by gutters."""
    return [_runs(visible.any(axis=0)), _runs(visible.any(axis=1))]


def frame_boxes(visible: Any) -> list[tuple[int, int, int, int]]:
    """Each frame's `(left, top, right, bottom)`, row by row: the cells `frame_grid` counts."""
    columns = _spans(visible.any(axis=0))
    rows = _spans(visible.any(axis=1))
    return [(left, top, right, bottom) for top, bottom in rows for left, right in columns]


def _spans(occupied: Sequence[bool]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = None
    for index, on in enumerate([*occupied, False]):
        if on and start is None:
            start = index
        elif not on and start is not None:
            spans.append((start, index))
            start = None
    return spans


def _runs(occupied: Sequence[bool]) -> int:
    return len(_spans(occupied))


def _grid(frames: list[int]) -> str:
    return f"{frames[0]}x{frames[1]}"


# -- audio ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Audio:
    """A sound: its stream format, length and levels."""

    name: str = "audio"

    def measure(self, path: Path) -> Shape:
        import numpy as np
        import soundfile

        try:
            info = soundfile.info(path)
            if info.frames * info.channels > MAX_AUDIO_SAMPLES:
                raise Unreadable(f"{path.name} holds {info.frames:,} frames of {info.channels} channels; "
                                 f"more than {MAX_AUDIO_SAMPLES:,} samples are not read")
            samples, rate = soundfile.read(path, dtype="float32", always_2d=True)
        except Unreadable:
            raise
        except Exception as error:  # noqa: BLE001 -- libsndfile's errors on a hostile file are many
            raise _decoding("audio", path, error) from None
        frames, channels = samples.shape
        if frames == 0:
            raise Unreadable(f"{path.name} decodes as {info.format} audio but holds no samples")
        peak = float(np.abs(samples).max())
        return {
            "format": f"{info.format} {info.subtype}",
            "sample_rate": int(rate),
            "channels": int(channels),
            "duration_s": round(frames / rate, 4),
            "peak_dbfs": round(_dbfs(peak), 1),
            "rms_dbfs": round(_dbfs(float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))), 1),
            "clipped_samples": clipped_samples(samples),
        }

    def compare(self, reference: Shape, produced: Shape) -> list[Mismatch]:
        found = [Mismatch(figure, produced[key], reference[key], "must be equal")
                 for figure, key in (("sample rate", "sample_rate"), ("channels", "channels"))
                 if produced[key] != reference[key]]
        if not _within(produced["duration_s"], reference["duration_s"]):
            found.append(Mismatch("duration", f"{produced['duration_s']:g} s", f"{reference['duration_s']:g} s",
                                  f"must be within ±{TOLERANCE:.0%} of the reference"))
        if produced["peak_dbfs"] < SILENCE_DBFS:
            found.append(Mismatch("peak level", _level(produced["peak_dbfs"]), _level(reference["peak_dbfs"]),
                                  f"silent: must peak above {SILENCE_DBFS:g} dBFS"))
        if produced["clipped_samples"] > reference["clipped_samples"]:
            found.append(Mismatch("clipped samples", produced["clipped_samples"], reference["clipped_samples"],
                                  f"clipped: runs of {_CLIP_RUN}+ samples at {CLIP_LEVEL:.0%} of full scale"))
        return found


def clipped_samples(samples: Any) -> int:
    """Samples in runs of `_CLIP_RUN` or more at `CLIP_LEVEL` of full scale, in any channel."""
    import numpy as np

    hot = np.abs(samples) >= CLIP_LEVEL
    count = 0
    for channel in hot.T:
        count += sum(end - start for start, end in _spans(channel.tolist()) if end - start >= _CLIP_RUN)
    return int(count)


def _dbfs(level: float) -> float:
    import math

    return 20 * math.log10(level) if level > 0 else -math.inf


def _level(dbfs: float) -> str:
    return "-inf dBFS" if dbfs == float("-inf") else f"{dbfs:g} dBFS"


# -- MIDI -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Midi:
    """A score: its tracks, length and notes."""

    name: str = "MIDI"

    def measure(self, path: Path) -> Shape:
        import mido

        try:
            midi = mido.MidiFile(path)
            duration = midi.length if midi.type != 2 else None
        except Exception as error:  # noqa: BLE001 -- mido raises OSError, EOFError, ValueError, KeyError...
            raise _decoding("MIDI", path, error) from None
        notes = [message for track in midi.tracks for message in track
                 if message.type == "note_on" and message.velocity > 0]
        pitches = [message.note for message in notes]
        return {
            "type": midi.type,
            "tracks": len(midi.tracks),
            "ticks_per_beat": midi.ticks_per_beat,
            "duration_s": round(duration, 3) if duration is not None else None,
            "notes": len(notes),
            "channels": sorted({message.channel for message in notes}),
            "pitch_range": [min(pitches), max(pitches)] if pitches else None,
        }

    def compare(self, reference: Shape, produced: Shape) -> list[Mismatch]:
        found = []
        if produced["tracks"] != reference["tracks"]:
            found.append(Mismatch("tracks", produced["tracks"], reference["tracks"], "must be equal"))
        if produced["duration_s"] is None or reference["duration_s"] is None:
            if produced["duration_s"] != reference["duration_s"]:
                found.append(Mismatch("MIDI type", produced["type"], reference["type"],
                                      "a type 2 file has no single duration"))
        elif not _within(produced["duration_s"], reference["duration_s"]):
            found.append(Mismatch("duration", f"{produced['duration_s']:g} s", f"{reference['duration_s']:g} s",
                                  f"must be within ±{TOLERANCE:.0%} of the reference"))
        if produced["notes"] == 0:
            found.append(Mismatch("notes", 0, reference["notes"], "the score plays nothing"))
        return found


# -- glTF -------------------------------------------------------------------------------------

_COMPONENTS = {5120: "i1", 5121: "u1", 5122: "i2", 5123: "u2", 5125: "u4", 5126: "f4"}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


@dataclass(frozen=True)
class Gltf:
    """A model exported as glTF 2.0: valid references, meshes, and the bounds of its vertices."""

    name: str = "glTF"

    def measure(self, path: Path) -> Shape:
        import numpy as np
        import pygltflib

        try:
            gltf = pygltflib.GLTF2().load(str(path))
            if gltf is None:
                raise ValueError("not a glTF file")
        except Exception as error:  # noqa: BLE001 -- malformed JSON or a broken .glb header
            raise _decoding("glTF", path, error) from None
        problems = _gltf_problems(gltf)
        if problems:
            raise Unreadable(f"{path.name} is not valid glTF 2.0: {'; '.join(problems)}")
        points = []
        for m, mesh in enumerate(gltf.meshes):
            for p, primitive in enumerate(mesh.primitives):
                where = f"meshes[{m}].primitives[{p}]"
                if primitive.attributes.POSITION is None:
                    raise Unreadable(f"{path.name} is not valid glTF 2.0: {where} has no POSITION attribute")
                points.append(_positions(gltf, primitive.attributes.POSITION, path, where))
        shape: Shape = {"version": gltf.asset.version, "meshes": len(gltf.meshes), "nodes": len(gltf.nodes),
                        "vertices": int(sum(len(block) for block in points))}
        if points:
            every = np.concatenate(points)
            low, high = every.min(axis=0), every.max(axis=0)
            shape["bounds_min"] = [round(float(v), 4) for v in low]
            shape["bounds_max"] = [round(float(v), 4) for v in high]
            shape["extent"] = [round(float(v), 4) for v in high - low]
        return shape

    def compare(self, reference: Shape, produced: Shape) -> list[Mismatch]:
        found = []
        if reference["meshes"] and not produced["meshes"]:
            found.append(Mismatch("meshes", 0, reference["meshes"], "the model must have at least one"))
        for axis, ref_extent, extent in zip("xyz", reference.get("extent", []), produced.get("extent", [])):
            if ref_extent > 0 and not _within(extent, ref_extent):
                found.append(Mismatch(f"bounds extent along {axis}", f"{extent:g}", f"{ref_extent:g}",
                                      f"must be within ±{TOLERANCE:.0%} of the reference"))
        return found


def _gltf_problems(gltf: Any) -> list[str]:
    """The broken references of a glTF document: indices past their arrays, a wrong version."""
    problems = []
    if not str(getattr(gltf.asset, "version", "")).startswith("2."):
        problems.append(f"asset.version is {gltf.asset.version!r}, expected \"2.0\"")

    def check(what: str, index: int | None, array: list[Any]) -> None:
        if index is not None and not 0 <= index < len(array):
            problems.append(f"{what} is {index}, but there are {len(array)}")

    check("scene", gltf.scene, gltf.scenes)
    for s, scene in enumerate(gltf.scenes):
        for n, node in enumerate(scene.nodes or []):
            check(f"scenes[{s}].nodes[{n}]", node, gltf.nodes)
    for n, node in enumerate(gltf.nodes):
        check(f"nodes[{n}].mesh", node.mesh, gltf.meshes)
        for c, child in enumerate(node.children or []):
            check(f"nodes[{n}].children[{c}]", child, gltf.nodes)
    for m, mesh in enumerate(gltf.meshes):
        for p, primitive in enumerate(mesh.primitives):
            check(f"meshes[{m}].primitives[{p}].attributes.POSITION", primitive.attributes.POSITION, gltf.accessors)
            check(f"meshes[{m}].primitives[{p}].indices", primitive.indices, gltf.accessors)
    for a, accessor in enumerate(gltf.accessors):
        check(f"accessors[{a}].bufferView", accessor.bufferView, gltf.bufferViews)
    for v, view in enumerate(gltf.bufferViews):
        check(f"bufferViews[{v}].buffer", view.buffer, gltf.buffers)
    return problems


def _positions(gltf: Any, index: int, path: Path, where: str) -> Any:
    """The VEC3 float positions of accessor `index`, read from its buffer (a data URI, the .glb
    blob, or a file beside the model)."""
    import numpy as np

    accessor = gltf.accessors[index]
    if accessor.type != "VEC3" or accessor.componentType != 5126 or accessor.bufferView is None:
        raise Unreadable(f"{path.name} is not valid glTF 2.0: {where} POSITION must be a VEC3 of floats in a "
                         f"bufferView (accessors[{index}] is {accessor.type} of component {accessor.componentType})")
    view = gltf.bufferViews[accessor.bufferView]
    data = _buffer(gltf, view.buffer, path)
    stride = view.byteStride or 12
    start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
    end = start + stride * (accessor.count - 1) + 12 if accessor.count else start
    if accessor.count and (end > (view.byteOffset or 0) + view.byteLength or end > len(data)):
        raise Unreadable(f"{path.name} is not valid glTF 2.0: accessors[{index}] reads {accessor.count} vertices "
                         f"past the end of its buffer ({len(data)} bytes)")
    rows = np.ndarray((accessor.count, 3), dtype="<f4", buffer=data, offset=start, strides=(stride, 4))
    if not np.isfinite(rows).all():
        raise Unreadable(f"{path.name}: accessors[{index}] holds non-finite vertex positions")
    return rows.astype(np.float64)


def _buffer(gltf: Any, index: int, path: Path) -> bytes:
    from pytest_tcab.paths import PathEscapes
    from pytest_tcab.paths import contained

    buffer = gltf.buffers[index]
    uri = buffer.uri
    if uri is None:
        blob = gltf.binary_blob()
        if blob is None:
            raise Unreadable(f"{path.name} is not valid glTF 2.0: buffers[{index}] has no uri and no GLB chunk")
        return bytes(blob)
    if uri.startswith("data:"):
        try:
            return bytes(gltf.get_data_from_buffer_uri(uri))
        except Exception as error:  # noqa: BLE001 -- a malformed data URI
            raise _decoding("glTF", path, error) from None
    try:
        target = contained(path.parent, uri)
    except PathEscapes as error:
        raise Unreadable(f"{path.name}: buffers[{index}].uri {uri!r} {error}") from None
    if not target.is_file() or target.stat().st_size > MAX_ASSET_BYTES:
        raise Unreadable(f"{path.name}: buffers[{index}].uri {uri!r} is not a readable file beside the model")
    return target.read_bytes()


# -- JSON formats: voxel models and particle systems -----------------------------------------


def _json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _decoding(what, path, error) from None


def schema_problems(document: Any, schema: dict[str, Any]) -> list[str]:
    """Every place `document` breaks `schema`, as `` `key.path`: what is wrong ``."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
    return [f"`{_json_path(error.absolute_path)}`: {error.message[:200]}" for error in errors[:10]]


def _json_path(parts: Sequence[object]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "(the document)"


@cache
def voxel_schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(files("pytest_tcab.run.assets").joinpath("voxel.schema.json").read_text("utf-8"))
    return loaded


@dataclass(frozen=True)
class VoxelModel:
    """A voxel model as JSON (`voxel.schema.json`): `size`, `voxels` as `[x, y, z, "#rrggbb"]`, and an
    optional rigid-body `animation`."""

    animated: bool
    """The definition's `animated = true`: the model must carry an animation."""
    name: str = "voxel model"

    def measure(self, path: Path) -> Shape:
        document = _json(path, self.name)
        problems = schema_problems(document, voxel_schema())
        if problems:
            raise Unreadable(f"{path.name} is not a voxel model (voxel.schema.json): {'; '.join(problems)}")
        size = document["size"]
        voxels = document["voxels"]
        outside = [v for v in voxels if not all(0 <= v[i] < size[i] for i in range(3))]
        shape: Shape = {"size": size, "voxels": len(voxels), "outside": len(outside),
                        "colours": len({v[3].lower() for v in voxels}), "animated": "animation" in document}
        if voxels:
            shape["bounds_min"] = [min(v[i] for v in voxels) for i in range(3)]
            shape["bounds_max"] = [max(v[i] for v in voxels) for i in range(3)]
        return shape

    def compare(self, reference: Shape, produced: Shape) -> list[Mismatch]:
        found = []
        if produced["size"] != reference["size"]:
            found.append(Mismatch("dimensions", _dims(produced["size"]), _dims(reference["size"]), "must be equal"))
        if produced["outside"]:
            found.append(Mismatch("voxels outside the bounds", produced["outside"], reference["outside"],
                                  f"every voxel must lie inside {_dims(produced['size'])}"))
        if produced["voxels"] == 0:
            found.append(Mismatch("voxels", 0, reference["voxels"], "the model is empty"))
        if self.animated and not produced["animated"]:
            found.append(Mismatch("animation", "none", "present" if reference["animated"] else "none",
                                  "the definition sets animated = true"))
        return found


def _dims(size: list[int]) -> str:
    return "x".join(str(n) for n in size)


@dataclass(frozen=True)
class ParticleSystem:
    """A `system.json` of the particle runtime, checked against the runtime package's `schema.json`."""

    schema: dict[str, Any]
    name: str = "particle system"

    def measure(self, path: Path) -> Shape:
        document = _json(path, self.name)
        problems = schema_problems(document, self.schema)
        if problems:
            raise Unreadable(f"{path.name} does not match the particle runtime's schema.json: {'; '.join(problems)}")
        emitters = document.get("emitters", [])
        return {"emitters": len(emitters) if isinstance(emitters, list) else 0}

    def compare(self, reference: Shape, produced: Shape) -> list[Mismatch]:
        if produced["emitters"] == 0:
            return [Mismatch("emitters", 0, reference["emitters"], "the system emits nothing")]
        return []


IMAGE_SUFFIXES = frozenset({".png", ".webp", ".gif", ".jpg", ".jpeg"})
AUDIO_SUFFIXES = frozenset({".wav", ".flac", ".ogg"})
MIDI_SUFFIXES = frozenset({".mid", ".midi"})
GLTF_SUFFIXES = frozenset({".gltf", ".glb"})


def format_for(kind: str, suffix: str, *, animated: bool = False,
               particle_schema: dict[str, Any] | None = None) -> Format | None:
    """The reader for a file of an asset of `kind`, by its extension; None for a format none reads."""
    suffix = suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return Image(sheet=kind == "sprite-sheet")
    if suffix in AUDIO_SUFFIXES:
        return Audio()
    if suffix in MIDI_SUFFIXES:
        return Midi()
    if suffix in GLTF_SUFFIXES:
        return Gltf()
    if suffix == ".json" and kind == "voxel":
        return VoxelModel(animated=animated)
    if suffix == ".json" and kind == "particle" and particle_schema is not None:
        return ParticleSystem(particle_schema)
    return None


MEASURED = "images (.png .webp .gif .jpg), audio (.wav .flac .ogg), MIDI (.mid), glTF (.gltf .glb), " \
           "voxel models (.json) and particle systems (.json)"
"""What `format_for` reads, for the message of a file it does not."""
