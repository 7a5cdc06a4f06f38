"""Mirrors of a catalog case version: `test-case.toml` and its `variants/*.toml` files."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated
from typing import Literal

from pydantic import Field
from pydantic import model_validator

from pytest_tcab.models.adversarial import AdversarialTables
from pytest_tcab.models.base import StrictModel
from pytest_tcab.models.check import Check
from pytest_tcab.models.fields import Id
from pytest_tcab.models.fields import Identifier
from pytest_tcab.models.fields import KebabSlug
from pytest_tcab.models.fields import PositiveNumber
from pytest_tcab.models.fields import RelPath
from pytest_tcab.models.fields import Text
from pytest_tcab.models.fields import Weight
from pytest_tcab.models.performance import PerformanceTables

Difficulty = Literal["easy", "medium", "hard"]
MediaKind = Literal["image", "video"]

IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif"})
PROOF_VIDEO_EXTENSIONS = frozenset({".webm", ".mp4"})
REFERENCE_VIDEO_EXTENSIONS = frozenset({".mp4"})
MOCKUP_EXTENSIONS = frozenset({".html", ".htm"})


def media_kind(path: str, videos: frozenset[str]) -> MediaKind | None:
    """The media kind a path's extension implies, or None when it implies neither."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in IMAGE_EXTENSIONS:
        return "image"
    if suffix in videos:
        return "video"
    return None


def humanize(slug: str) -> str:
    """The default display name of a slug: `ball-spin` -> `Ball spin`."""
    words = slug.replace("_", "-").split("-")
    text = " ".join(w for w in words if w)
    return text[:1].upper() + text[1:]


class Build(StrictModel):
    """How validation turns a produced implementation into a served static build."""

    install: Text
    """Dependency install command, run from the implementation's root (e.g. `npm ci`)."""
    build: Text
    """Static build command; it must write dist/, build/ or out/."""


class SpecEntry(StrictModel):
    """A file seeded into the run: `source` in the version folder onto `dest` in the workspace."""

    source: RelPath
    """Source path inside the version folder; a `.hbs` source is rendered."""
    dest: RelPath | None = None
    """Seeded path; defaults to `source` with a trailing `.hbs` removed."""
    kind: Literal["spec", "script"] = "spec"
    """Presentation only: `script` tags an executable starter the model edits."""

    @property
    def is_template(self) -> bool:
        return self.source.endswith(".hbs")

    @property
    def seeded_dest(self) -> str:
        if self.dest is not None:
            return self.dest
        return self.source[: -len(".hbs")] if self.is_template else self.source


class Reference(StrictModel):
    """A visual target: an HTML mockup rendered to a screenshot, or static media served as-is."""

    view: Id
    """The view slug checks and review items name."""
    path: RelPath | None = None
    """An HTML mockup rendered to a screenshot (never seeded itself)."""
    media: RelPath | None = None
    """A static image or .mp4, seeded and served unchanged."""

    @model_validator(mode="after")
    def _path_xor_media(self) -> Reference:
        if (self.path is None) == (self.media is None):
            both = "declares both" if self.path is not None else "declares neither"
            raise ValueError(
                f"reference {self.view!r} {both} `path` and `media`; declare exactly one: "
                "`path` for an HTML mockup rendered to a screenshot, `media` for a static "
                "image or .mp4"
            )
        if self.path is not None and PurePosixPath(self.path).suffix.lower() not in MOCKUP_EXTENSIONS:
            raise ValueError(
                f"`path` {self.path!r} is not an HTML mockup (.html); "
                "use `media` for a static image or video"
            )
        if self.media is not None and self.kind is None:
            raise ValueError(
                f"`media` {self.media!r} has an extension that is neither an image "
                "(png, jpg, jpeg, webp, gif) nor a video (.mp4)"
            )
        return self

    @property
    def kind(self) -> MediaKind | None:
        """`image` for a rendered mockup or still, `video` for an .mp4."""
        if self.media is None:
            return "image"
        return media_kind(self.media, REFERENCE_VIDEO_EXTENSIONS)


class _Named(StrictModel):
    """A declaration with a stable id and an optional display name (default: the humanized id)."""

    id: Id
    name: str | None = None

    @property
    def display_name(self) -> str:
        return self.name or humanize(self.id)


class Proof(_Named):
    """Media the build must write as evidence, at `dest` relative to the run root."""

    dest: RelPath

    @model_validator(mode="after")
    def _known_extension(self) -> Proof:
        if self.kind is None:
            raise ValueError(
                f"`dest` {self.dest!r} has an extension that is neither an image "
                "(png, jpg, jpeg, webp, gif) nor a video (webm, mp4); a .webm is what "
                "Playwright records natively"
            )
        return self

    @property
    def kind(self) -> MediaKind | None:
        return media_kind(self.dest, PROOF_VIDEO_EXTENSIONS)


class Output(_Named):
    """Media a validation script captures: a still it screenshots or a clip of the drive."""

    kind: MediaKind


class Validation(StrictModel):
    """The reporter-side driver that decides a verdict unit automatically."""

    script: RelPath
    """ES-module driver, relative to the version folder."""
    outputs: list[Output] = []
    """Media the driver captures; at most one video."""


class SubItem(StrictModel):
    """A name-only point of a review item, verdicted on its own."""

    id: Id
    title: Text
    validation: Validation | None = None


class ReviewItem(StrictModel):
    """A legacy-grammar reviewer checklist item (`[[review_item]]`)."""

    id: Id
    title: Text
    text: Text
    weight: Weight
    reference: str | None = None
    proof: str | None = None
    domain: str | None = None
    sub_items: list[SubItem] | None = None
    """Inline spelling: `sub_items = [{ id, title }, ...]`."""
    sub_item: list[SubItem] | None = None
    """Table spelling: repeated `[[review_item.sub_item]]`."""
    validation: Validation | None = None

    @model_validator(mode="after")
    def _one_spelling(self) -> ReviewItem:
        if self.sub_items is not None and self.sub_item is not None:
            raise ValueError(
                "declares sub-items twice, as `sub_items = [...]` and as "
                "`[[review_item.sub_item]]`; use one spelling"
            )
        return self

    @property
    def subs(self) -> list[SubItem]:
        return self.sub_items if self.sub_items is not None else (self.sub_item or [])


class CategoryItem(StrictModel):
    """A scored leaf of the categories grammar (`[[review.categories.items]]`)."""

    id: Id
    title: Text
    description: str | None = None
    weight: Weight = 1.0
    reference: str | None = None
    proof: str | None = None
    validation: Validation | None = None


class Category(StrictModel):
    """A group heading of the categories grammar; it carries nothing but `id` and `title`."""

    id: Id
    title: Text
    items: Annotated[list[CategoryItem], Field(min_length=1)]


class Review(StrictModel):
    """`[review]` in test-case.toml: opts the case into the categories grammar."""

    format: Literal[2]
    categories: list[Category] = []


class VariantReview(StrictModel):
    """`[review]` in a variant file: categories only; the format is inherited."""

    categories: list[Category] = []


class Domain(_Named):
    """A scoring domain the reviewer rates independently."""

    description: Text


class Instrumentation(StrictModel):
    """Names the window global the build installs its debug API on."""

    handle: Identifier
    tick_hz: Annotated[int, Field(gt=0, strict=True)] | None = None
    """The fixed simulation rate of a build whose `step` counts ticks: validation scripts'
    `advance`/`until` then take whole ticks, and the record pass plays them at this rate."""


class _CaseMaterial(StrictModel):
    """What both test-case.toml and a variant file may declare for a run."""

    workspace: RelPath | None = None
    spec: list[SpecEntry] = []
    reference: list[Reference] = []
    proof: list[Proof] = []
    review_item: list[ReviewItem] = []
    domain: list[Domain] = []


class _VersionHeader(StrictModel):
    """The keys every catalog `test-case.toml` starts with, whatever its type."""

    slug: KebabSlug
    """Stable identity: the store key, recorded in every run."""
    name: Text
    difficulty: Difficulty
    tags: list[str]
    summary: str | None = None
    description: RelPath | None = None
    changelog: RelPath
    prompt: RelPath
    max_runtime_hours: PositiveNumber = 1.0
    experimental: bool = False
    init: Text | None = None


class Manifest(_VersionHeader, _CaseMaterial):
    """`test-case.toml` of a code-producing catalog case version."""

    type: str | None = None
    """The test case type; defaults to the `test-cases/<type>/` folder it lives in."""
    assets: list[RelPath] = []
    packages: list[str] = []
    variants: list[RelPath] = []
    build: Build
    check: list[Check] = []
    review: Review | None = None
    instrumentation: Instrumentation | None = None
    output: AuthoringOutput | None = None
    """Blender cases only: where the model writes its authoring script."""


class AuthoringOutput(StrictModel):
    """`[output]` of a Blender case: the file the model's authoring trace is written to."""

    actions: RelPath
    """The `bpy` script (or action log), relative to the run root, e.g. `build.py`."""


class PerformanceManifest(_VersionHeader, PerformanceTables):
    """`test-case.toml` of a performance case: no domains or review items."""

    type: Literal["performance"]
    workspace: RelPath | None = None
    spec: list[SpecEntry] = []
    variants: list[RelPath] = []
    """Variant files (the first is the default): each adds its own specs."""


class AdversarialManifest(_VersionHeader, AdversarialTables):
    """`test-case.toml` of an adversarial case: controllers play each other; no review items."""

    type: Literal["adversarial"]
    workspace: RelPath | None = None
    spec: list[SpecEntry] = []
    variants: list[RelPath] = []
    """Variant files (the first is the default), as a performance case's: each adds its own specs."""


class VariantFile(_CaseMaterial):
    """A standalone variant document; every path in it is relative to the version folder."""

    slug: KebabSlug
    name: str | None = None
    description: str | None = None
    reference_implementation: RelPath | None = None
    review: VariantReview | None = None

    @property
    def display_name(self) -> str:
        return self.name or humanize(self.slug)


class WasmVariantFile(StrictModel):
    """A performance or adversarial case's variant document: a name and additive specs over the common material."""

    slug: KebabSlug
    name: str | None = None
    description: str | None = None
    spec: list[SpecEntry] = []

    @property
    def display_name(self) -> str:
        return self.name or humanize(self.slug)


ROOT_KEYS = frozenset(
    {"slug", "name", "difficulty", "tags", "summary", "description", "changelog", "prompt",
     "max_runtime_hours", "experimental", "type", "init", "assets", "packages", "variants",
     "workspace"}
)
"""Plain root keys of test-case.toml: one found inside a table was written after a header."""
