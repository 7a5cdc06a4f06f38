"""Mirrors of the test-suite layout: `version.toml`, `test-cases/<name>.toml`, specifications, assets.

A definition's keys depend on its type, so each type has its own model and resolution picks
the one the `type` key names (`DEFINITION_MODELS`); the keys a type does not declare are
explained by `KEY_OWNERS` before the strict model would call them unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Annotated
from typing import Literal
from typing import TypeAlias

from pydantic import Field
from pydantic import create_model

from pytest_tcab.models.adversarial import AdversarialTables
from pytest_tcab.models.base import StrictModel
from pytest_tcab.models.fields import Id
from pytest_tcab.models.fields import KebabSlug
from pytest_tcab.models.fields import PositiveNumber
from pytest_tcab.models.fields import RelPath
from pytest_tcab.models.fields import Text
from pytest_tcab.models.manifest import AuthoringOutput
from pytest_tcab.models.manifest import Build
from pytest_tcab.models.manifest import Difficulty
from pytest_tcab.models.manifest import Instrumentation
from pytest_tcab.models.performance import PerformanceTables

AssetKind = Literal["sprite", "sprite-sheet", "voxel", "blender", "particle", "music", "audio-fx"]
CODE_TYPES = ("end-to-end", "full-stack")
"""Types whose subject is code the model wrote: they declare engines and their tables."""
ASSET_TYPES = ("sprite", "voxel", "blender", "particle", "music", "audio-fx")
"""Types whose subject is an asset the model produces, named by the type's own table."""
WASM_TYPES = ("performance", "adversarial")
"""Types whose Rust is built into a wasm module; they name their starter folder with `workspace`."""
PENDING_TYPES = ("puzzle",)
"""Types the spec names but leaves "TBD" in the test-suite layout."""


# -- version.toml --------------------------------------------------------------------------


class VersionInfo(StrictModel):
    """`versions/<version>/version.toml`: what the site shows about one suite version."""

    version: str
    """The version folder's name, with or without its leading `v` (`v1.0.0` or `1.0.0`)."""
    tags: list[str]
    """Free-form classification tags (required, may be empty)."""
    summary: str | None = None
    """A one- or two-sentence abstract (site-facing, never seeded)."""
    description: RelPath | None = None
    """Site-facing prose, a Markdown file (never seeded)."""
    changelog: RelPath
    """What changed in this version, a Markdown file (required, never seeded)."""


# -- specifications and assets ---------------------------------------------------------------


class Requirement(StrictModel):
    """One RFC 2119 requirement of a specification: seeded, and graded by the suite's validators."""

    id: Id
    """Stable id of the requirement, unique in the suite version (no dots)."""
    kind: Literal["functional", "non-functional"]
    """`functional` or `non-functional`."""
    text: Text
    """The requirement, stated with an RFC 2119 keyword in capitals (MUST, SHOULD, MAY, ...)."""
    validators: list[RelPath] = []
    """Reporter-side validator files, relative to the version's `validators/` (never seeded)."""


class Specification(StrictModel):
    """`specifications/**/specification.toml`; its prose is `specification.md` beside it."""

    id: Id
    """The id definitions name in `specifications` (not the folder name)."""
    name: Text
    """Display name (`{{this.name}}` in prompts)."""
    summary: Text
    """One-line summary (`{{this.summary}}` in prompts)."""
    path: RelPath
    """Where the seeded document lands, under `specs/` of the run workspace."""
    requirement: list[Requirement] = []
    """The specification's RFC 2119 requirements, each an `[[requirement]]` table."""


class Asset(StrictModel):
    """`assets/<id>/asset.toml`: an asset a run is given or a model is asked to produce."""

    id: Id
    """Equal to the asset's folder name; definitions name the asset by it."""
    name: Text
    """Display name of the asset."""
    kind: AssetKind
    """What the asset is: `sprite`, `sprite-sheet`, `voxel`, `blender`, `particle`, `music` or `audio-fx`."""
    specification: Id
    """The id of the specification that describes this asset."""
    files: Annotated[list[RelPath], Field(min_length=1)]
    """The asset's files, relative to its folder."""


# -- definitions ------------------------------------------------------------------------------


class Toolchain(StrictModel):
    """The TypeScript commands run over a produced implementation."""

    typecheck: Text
    """Required: a non-zero exit rates the run broken."""
    lint: Text | None = None
    """Optional lint command; its outcome is recorded."""
    format: Text | None = None
    """Optional format-check command; its outcome is recorded."""
    test: Text | None = None
    """Optional test command; its outcome is recorded."""


class AssetTable(StrictModel):
    """The table of an asset-producing type: which asset the model produces."""

    id: Id
    """Names an asset under assets/ whose kind fits the type."""


class SpriteTable(AssetTable):
    """`[sprite]`: a single sprite, or a sprite sheet for a single entity."""

    sheet: bool = False
    """Selects the sprite-sheet asset kind over sprite."""


class VoxelTable(AssetTable):
    """`[voxel]`: a boxel-style model."""

    animated: bool = False
    """Requires rigid-body animation of the produced model."""


class _Definition(StrictModel):
    """The keys every definition declares, whatever its type."""

    name: Text
    """The display name shown wherever the test case is listed."""
    difficulty: Difficulty
    """The difficulty of this test case: `easy`, `medium` or `hard` (required)."""
    specifications: list[Id] | None = None
    """Specification ids this case covers; omitted, it covers all of the suite version's."""
    prompt: RelPath
    """The Handlebars template rendered into the instruction handed to the harness."""
    max_runtime_hours: PositiveNumber = 1.0
    """Caps the session, in hours: a run exceeding it is stopped (a positive number, default 1)."""
    experimental: bool = False
    """Keeps the definition out of the catalog for deployments that have not opted in; default false."""
    init: Text | None = None
    """Run in the container after seeding, before the harness; must not be blank."""


class CodeDefinition(_Definition):
    """An end-to-end or full-stack definition: code the model wrote, on an engine."""

    type: Literal["end-to-end", "full-stack"]
    """`end-to-end` or `full-stack`: code the model wrote, on one of `engines`."""
    engines: Annotated[list[KebabSlug], Field(min_length=1)]
    """The engine slugs a run may select one of (`none` is always known)."""
    workspaces: dict[KebabSlug, RelPath]
    """Engine slug -> the starter workspace directory seeded at the run root."""
    build: Build
    """Commands that turn the produced implementation into a served static build."""
    toolchain: Toolchain
    """The TypeScript toolchain run over the produced implementation."""
    instrumentation: Instrumentation | None = None
    """The window global the build installs its debug API on; requirement validators reach it
    through `api` (without it, `api` offers only the page-level members)."""


class SpriteDefinition(_Definition):
    type: Literal["sprite"]
    """`sprite`: the model produces a sprite or a sprite sheet (the `[sprite]` table)."""
    sprite: SpriteTable
    """Which sprite (or sprite sheet) the model produces."""


class VoxelDefinition(_Definition):
    type: Literal["voxel"]
    """`voxel`: the model produces a boxel-style model (the `[voxel]` table)."""
    voxel: VoxelTable
    """Which voxel model the model produces."""


class BlenderDefinition(_Definition):
    type: Literal["blender"]
    """`blender`: the model authors an asset with Blender's Python API (the `[blender]` table)."""
    blender: AssetTable
    """Which asset the model authors in Blender."""
    output: AuthoringOutput | None = None
    """Where the model writes the `bpy` script that builds the asset, relative to the run root."""


class ParticleDefinition(_Definition):
    type: Literal["particle"]
    """`particle`: the model authors a particle effect (the `[particle]` table)."""
    particle: AssetTable
    """Which particle effect the model authors."""


class MusicDefinition(_Definition):
    type: Literal["music"]
    """`music`: the model authors a musical score (the `[music]` table)."""
    music: AssetTable
    """Which score the model authors."""


if TYPE_CHECKING:

    class AudioFxDefinition(_Definition):
        type: Literal["audio-fx"]

else:
    # `audio-fx` is no Python name, and an alias would hide it from the key paths problems name.
    AudioFxDefinition = create_model(
        "AudioFxDefinition",
        __base__=_Definition,
        type=(Literal["audio-fx"], Field(description="`audio-fx`: the model authors short, non-musical audio "
                                          "(the `[audio-fx]` table).")),
        **{"audio-fx": (AssetTable, Field(description="Which sound effect the model authors."))},
    )


class PerformanceDefinition(_Definition, PerformanceTables):
    """A performance definition: Rust built to wasm, judged on answers and then on fuel."""

    type: Literal["performance"]
    """`performance`: Rust built to wasm, judged on answers, then on fuel."""
    workspace: RelPath | None = None
    """The starter folder seeded at the run root."""


class AdversarialDefinition(_Definition, AdversarialTables):
    """An adversarial definition: a controller played against other models' controllers."""

    type: Literal["adversarial"]
    """`adversarial`: a controller played against other models' controllers in a tournament."""
    workspace: RelPath | None = None
    """The starter folder seeded at the run root."""


Definition: TypeAlias = (
    CodeDefinition
    | SpriteDefinition
    | VoxelDefinition
    | BlenderDefinition
    | ParticleDefinition
    | MusicDefinition
    | AudioFxDefinition
    | PerformanceDefinition
    | AdversarialDefinition
)

DEFINITION_MODELS: dict[str, type[Definition]] = {
    "end-to-end": CodeDefinition,
    "full-stack": CodeDefinition,
    "sprite": SpriteDefinition,
    "voxel": VoxelDefinition,
    "blender": BlenderDefinition,
    "particle": ParticleDefinition,
    "music": MusicDefinition,
    "audio-fx": AudioFxDefinition,
    "performance": PerformanceDefinition,
    "adversarial": AdversarialDefinition,
}
"""The model of each type the test-suite layout specifies."""

KEY_OWNERS: dict[str, tuple[str, ...]] = {
    "engines": CODE_TYPES,
    "workspaces": CODE_TYPES,
    "toolchain": CODE_TYPES,
    "instrumentation": CODE_TYPES,
    "build": CODE_TYPES + WASM_TYPES,
    "workspace": WASM_TYPES,
    "contract": WASM_TYPES,
    "sandbox": WASM_TYPES,
    "case": ("performance",),
    "simulation": ("adversarial",),
    "match": ("adversarial",),
    "replay": ("adversarial",),
    "output": ("blender",),
    **{table: (table,) for table in ASSET_TYPES},
}
"""Keys only some types declare, and which: any other type declaring one is told whose it is."""


def asset_table(definition: Definition) -> AssetTable | None:
    """The type table of an asset-producing definition, None for other types."""
    table = getattr(definition, definition.type, None)
    return table if isinstance(table, AssetTable) else None


def asset_kind_for(definition: Definition) -> AssetKind | None:
    """The asset kind an asset-producing definition's table asks for (`sheet` wants a sheet)."""
    if isinstance(definition, SpriteDefinition):
        return "sprite-sheet" if definition.sprite.sheet else "sprite"
    if definition.type in ASSET_TYPES:
        return definition.type  # type: ignore[return-value]
    return None
