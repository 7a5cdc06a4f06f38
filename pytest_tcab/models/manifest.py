"""Mirrors of a catalog case version: `test-case.toml` and its `variants/*.toml` files."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated
from typing import Literal

from pydantic import ConfigDict
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
from pytest_tcab.models.fields import shown
from pytest_tcab.models.performance import PerformanceTables

Difficulty = Literal["easy", "medium", "hard"]
MediaKind = Literal["image", "video"]

IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif"})
PROOF_VIDEO_EXTENSIONS = frozenset({".webm", ".mp4"})
REFERENCE_VIDEO_EXTENSIONS = frozenset({".mp4"})
MOCKUP_EXTENSIONS = frozenset({".html", ".htm"})


def extension_pattern(extensions: frozenset[str]) -> str:
    """A JSON Schema pattern for a path whose extension is one of `extensions`, in any case (as
    `media_kind` reads it: the name before the dot must not be empty)."""
    either = "|".join(sorted("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in ext[1:])
                             for ext in extensions))
    return f"[^/]\\.({either})$"


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

    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["path"]}, {"required": ["media"]}]})

    view: Id
    """The view slug checks and review items name."""
    path: Annotated[RelPath, shown(pattern=extension_pattern(MOCKUP_EXTENSIONS))] | None = None
    """An HTML mockup (.html) rendered to a screenshot, never seeded itself; declare `path` or `media`, not both."""
    media: Annotated[RelPath, shown(pattern=extension_pattern(IMAGE_EXTENSIONS | REFERENCE_VIDEO_EXTENSIONS))] | None = None
    """A static image (png, jpg, jpeg, webp, gif) or .mp4, seeded and served unchanged; declare `path` or `media`,
    not both."""

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
    """Stable id recorded in results (letters, digits, `-` and `_`; no dots)."""
    name: str | None = None
    """Display name (optional; defaults to the humanized id)."""

    @property
    def display_name(self) -> str:
        return self.name or humanize(self.id)


class Proof(_Named):
    """Media the build must write as evidence, at `dest` relative to the run root."""

    dest: Annotated[RelPath, shown(pattern=extension_pattern(IMAGE_EXTENSIONS | PROOF_VIDEO_EXTENSIONS))]
    """Where the build must write the proof, relative to the run root; its extension names the kind
    (png/jpg/jpeg/webp/gif image, webm/mp4 video)."""

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
    """`image` (a still the script screenshots) or `video` (a clip recorded across the drive); at most one
    video per script."""


class Validation(StrictModel):
    """The reporter-side driver that decides a verdict unit automatically."""

    script: RelPath
    """ES-module driver, relative to the version folder."""
    outputs: list[Output] = []
    """Media the driver captures; at most one video."""


class SubItem(StrictModel):
    """A name-only point of a review item, verdicted on its own."""

    id: Id
    """Keys the sub-item's verdict, recorded as `<item id>.<sub-item id>`; unique within the item."""
    title: Text
    """The sub-item's heading, shown lettered a, b, c... in the reviewer UI."""
    validation: Validation | None = None
    """The driver that decides this sub-item automatically (a sub-item's own: item-level validation beside
    sub-items is rejected)."""


class ReviewItem(StrictModel):
    """A legacy-grammar reviewer checklist item (`[[review_item]]`)."""

    model_config = ConfigDict(json_schema_extra={"not": {"required": ["sub_items", "sub_item"]}})

    id: Id
    """Stable id, recorded with the reviewer's verdict; unique within a variant's effective set (common
    plus its own)."""
    title: Text
    """Short heading shown above the item (numbered) in the reviewer UI."""
    text: Text
    """What the reviewer checks, restating an observable requirement of the seeded specification."""
    weight: Weight
    """Points this item is worth toward the score (required, greater than zero); split evenly across its
    sub-items."""
    reference: str | None = None
    """Optional: a reference view shown as the expected target."""
    proof: str | None = None
    """Optional: a proof id whose submitted media is shown."""
    domain: str | None = None
    """Optional: the scoring domain the item rolls up to (a common item may name only a common domain)."""
    sub_items: list[SubItem] | None = None
    """Inline spelling: `sub_items = [{ id, title }, ...]`."""
    sub_item: list[SubItem] | None = None
    """Table spelling: repeated `[[review_item.sub_item]]`."""
    validation: Validation | None = None
    """Optional: the driver that decides the item automatically (not beside sub-items: each sub-item
    carries its own)."""

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
    """Stable id; the verdict is recorded as `<category id>.<item id>`, so it need only be unique within
    its category."""
    title: Text
    """The item's heading in the reviewer UI."""
    description: str | None = None
    """Optional requirement prose the reviewer reads."""
    weight: Weight = 1.0
    """Points this item is worth (optional, default 1, greater than zero)."""
    reference: str | None = None
    """Optional: a reference view shown as the expected target."""
    proof: str | None = None
    """Optional: a proof id whose submitted media is shown."""
    validation: Validation | None = None
    """Optional: the driver that decides the item automatically; a script may drive at most one item."""


class Category(StrictModel):
    """A group heading of the categories grammar; it carries nothing but `id` and `title`."""

    id: Id
    """Groups its items; not itself a verdict id."""
    title: Text
    """The accordion group heading; a category carries nothing else."""
    items: Annotated[list[CategoryItem], Field(min_length=1)]
    """The category's scored review items (at least one)."""


class Review(StrictModel):
    """`[review]` in test-case.toml: opts the case into the categories grammar."""

    format: Literal[2]
    """`2`: opts into the categories grammar (declared once, here; a variant file inherits it)."""
    categories: list[Category] = []
    """The checklist's categories, each holding its review items."""


class VariantReview(StrictModel):
    """`[review]` in a variant file: categories only; the format is inherited."""

    categories: list[Category] = []
    """This variant's own categories, added to the case's (the format is inherited: do not repeat it)."""


class Domain(_Named):
    """A scoring domain the reviewer rates independently."""

    description: Text
    """What the reviewer is rating (required)."""


class Instrumentation(StrictModel):
    """Names the window global the build installs its debug API on."""

    handle: Identifier
    """The window property the build installs its debug API on (`__carom` for `window.__carom`): a plain
    identifier, without `window.`."""
    tick_hz: Annotated[int, Field(gt=0, strict=True)] | None = None
    """The fixed simulation rate of a build whose `step` counts ticks: validation scripts'
    `advance`/`until` then take whole ticks, and the record pass plays them at this rate."""


class _CaseMaterial(StrictModel):
    """What both test-case.toml and a variant file may declare for a run."""

    workspace: RelPath | None = None
    """An optional starter directory whose files seed the run root before the specs; relative to the
    version folder, must be a directory."""
    spec: list[SpecEntry] = []
    """Specs seeded for every variant: each maps a `source` in the version folder onto a `dest` in the run
    workspace."""
    reference: list[Reference] = []
    """Reference views seeded as visual targets: each an HTML mockup (`path`) or static media (`media`),
    exactly one."""
    proof: list[Proof] = []
    """Proof media the build must write as evidence (a screenshot or .webm clip at `dest`); recorded,
    informational."""
    review_item: list[ReviewItem] = []
    """Reviewer checklist items (legacy grammar; reporter-side, never seeded); exclusive with a `[review]`
    table."""
    domain: list[Domain] = []
    """Scoring domains the reviewer rates independently; the run's overall rating is the worst of them (a
    case declares at least one)."""


class _VersionHeader(StrictModel):
    """The keys every catalog `test-case.toml` starts with, whatever its type."""

    slug: KebabSlug
    """Stable identity: the store key, recorded in every run."""
    name: Text
    """Human-readable display name (site-facing, required); it has no bearing on how a run is executed."""
    difficulty: Difficulty
    """Relative difficulty (required): `easy`, `medium` or `hard`, the same as the difficulty folder the
    version lives in."""
    tags: list[str]
    """Free-form classification tags (site-facing, required; may be an empty list, `tags = []`)."""
    summary: str | None = None
    """An optional one- or two-sentence abstract for the site's cards, inline plain text; never seeded."""
    description: RelPath | None = None
    """An optional path to a Markdown file describing the case for the site; never seeded, must exist
    inside the version folder."""
    changelog: RelPath
    """Required: a Markdown file recording what changed in this version (the first reads `Introduced.`);
    never seeded, must exist inside the version folder."""
    prompt: RelPath
    """Required: the Handlebars template rendered into the instruction handed to the harness (rendered, not
    seeded)."""
    max_runtime_hours: PositiveNumber = 1.0
    """Cap on the harness session, in hours (fractions allowed, e.g. 0.5); a positive number, default 1."""
    experimental: bool = False
    """True hides the case unless the deployment enables experimental cases (`--tcab-experimental`);
    default false."""
    init: Text | None = None
    """An optional command run in the container after seeding, before the harness starts (e.g. `npm
    install`); must not be blank."""


class Manifest(_VersionHeader, _CaseMaterial):
    """`test-case.toml` of a code-producing catalog case version."""

    type: str | None = None
    """The test case type; defaults to the `test-cases/<type>/` folder it lives in."""
    assets: list[RelPath] = []
    """Asset files or directories seeded into the run (relative paths; a directory is seeded recursively)."""
    packages: list[str] = []
    """Test Cabinet packages (names such as `@test-cabinet/particle-runtime`, not paths) from the suite's
    package store, installed into the run; end-to-end only."""
    variants: list[RelPath] = []
    """An ordered list of standalone variant files (the first is the default), relative to the version
    folder; a root key, so it must come before the first table header."""
    build: Build
    """Required: how validation builds the produced implementation into a served static site (`install` and
    `build`, no defaults)."""
    check: list[Check] = []
    """Opt-in visual comparisons of the driven build against a reference view; only declared checks run."""
    review: Review | None = None
    """Opts the case into the categories grammar (`format = 2`); exclusive with `[[review_item]]`."""
    instrumentation: Instrumentation | None = None
    """Names the window global the build installs its debug API on; required as soon as a review item
    declares a validation script."""
    output: AuthoringOutput | None = None
    """Blender cases only: where the model writes its authoring script."""


class AuthoringOutput(StrictModel):
    """`[output]` of a Blender case: the file the model's authoring trace is written to."""

    actions: RelPath
    """The `bpy` script (or action log), relative to the run root, e.g. `build.py`."""


class PerformanceManifest(_VersionHeader, PerformanceTables):
    """`test-case.toml` of a performance case: no domains or review items."""

    type: Literal["performance"]
    """`performance`: Rust built to wasm, judged on answers, then on fuel (required in a performance
    folder)."""
    workspace: RelPath | None = None
    """The starter folder seeded at the run root (relative to the version folder)."""
    spec: list[SpecEntry] = []
    """Specs seeded for every variant (`source` in the version folder onto `dest` in the workspace)."""
    variants: list[RelPath] = []
    """Variant files (the first is the default): each adds its own specs."""


class AdversarialManifest(_VersionHeader, AdversarialTables):
    """`test-case.toml` of an adversarial case: controllers play each other; no review items."""

    type: Literal["adversarial"]
    """`adversarial`: a controller played against other models' controllers (required in an adversarial
    folder)."""
    workspace: RelPath | None = None
    """The starter folder seeded at the run root (relative to the version folder)."""
    spec: list[SpecEntry] = []
    """Specs seeded for every variant (`source` in the version folder onto `dest` in the workspace)."""
    variants: list[RelPath] = []
    """Variant files (the first is the default), as a performance case's: each adds its own specs."""


class VariantFile(_CaseMaterial):
    """A standalone variant document; every path in it is relative to the version folder."""

    slug: KebabSlug
    """Stable slug of the variant, recorded in the run record (kebab-case)."""
    name: str | None = None
    """Display name (optional; defaults to the humanized slug)."""
    description: str | None = None
    """Optional inline prose (site-facing)."""
    reference_implementation: RelPath | None = None
    """Optional: the correct buildable static build of this variant (by convention `reference-
    impl/<variant>`); never seeded."""
    review: VariantReview | None = None
    """This variant's own categories (categories grammar; the format is inherited from test-case.toml)."""

    @property
    def display_name(self) -> str:
        return self.name or humanize(self.slug)


class WasmVariantFile(StrictModel):
    """A performance or adversarial case's variant document: a name and additive specs over the common material."""

    slug: KebabSlug
    """Stable slug of the variant, recorded in the run record (kebab-case)."""
    name: str | None = None
    """Display name (optional; defaults to the humanized slug)."""
    description: str | None = None
    """Optional inline prose (site-facing)."""
    spec: list[SpecEntry] = []
    """Specs this variant adds to the common ones (same `{ source, dest }` shape)."""

    @property
    def display_name(self) -> str:
        return self.name or humanize(self.slug)


ROOT_KEYS = frozenset(
    {"slug", "name", "difficulty", "tags", "summary", "description", "changelog", "prompt",
     "max_runtime_hours", "experimental", "type", "init", "assets", "packages", "variants",
     "workspace"}
)
"""Plain root keys of test-case.toml: one found inside a table was written after a header."""
