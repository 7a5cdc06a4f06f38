"""One edit per rule of spec/manifests.md: each breaks a clean minimal suite in one way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conftest import CATEGORIES
from conftest import LEGACY


@dataclass(frozen=True)
class Edit:
    file: Path
    old: str | None
    """Text to replace; None appends `new`, and `new=None` deletes the file."""
    new: str | None

    def apply(self, root: Path) -> None:
        path = root / self.file
        if self.new is None:
            path.unlink()
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.old is None:
            path.write_text((path.read_text() if path.exists() else "") + self.new)
            return
        text = path.read_text()
        assert self.old in text, f"{self.old!r} not in {self.file}"
        path.write_text(text.replace(self.old, self.new, 1))


def L(name: str) -> Path:
    return LEGACY / name


def C(name: str) -> Path:
    return CATEGORIES / name


M, CM = L("test-case.toml"), C("test-case.toml")

RULES: dict[str, list[Edit]] = {
    # -- TOML and shape --------------------------------------------------------------
    "toml-syntax": [Edit(M, 'name = "Demo"', 'name = "Demo')],
    "unknown-key-suggests": [Edit(M, 'difficulty = "easy"', 'dificulty = "easy"')],
    "root-key-after-header": [Edit(M, 'variants = ["variants/a.toml", "variants/b.toml"]\n', ""),
                              Edit(M, 'build = "npm run build"\n', 'build = "npm run build"\nvariants = ["variants/a.toml"]\n')],
    "slug-kebab": [Edit(M, 'slug = "demo"', 'slug = "Demo_Case"')],
    "name-required": [Edit(M, 'name = "Demo"\n', "")],
    "tags-required": [Edit(M, "tags = []\n", "")],
    "tags-strings": [Edit(M, "tags = []", "tags = [1]")],
    "difficulty-enum": [Edit(M, 'difficulty = "easy"', 'difficulty = "trivial"')],
    "difficulty-matches-folder": [Edit(M, 'difficulty = "easy"', 'difficulty = "hard"')],
    "changelog-required": [Edit(M, 'changelog = "changelog.md"\n', "")],
    "changelog-exists": [Edit(L("changelog.md"), None, None)],
    "description-exists": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\ndescription = "about.md"')],
    "prompt-required": [Edit(M, 'prompt = "prompt.hbs"\n', "")],
    "prompt-exists": [Edit(L("prompt.hbs"), None, None)],
    "max-runtime-positive": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nmax_runtime_hours = 0')],
    "max-runtime-number": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nmax_runtime_hours = "1h"')],
    "experimental-bool": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nexperimental = "yes"')],
    "init-not-blank": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\ninit = "  "')],
    "workspace-is-dir": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nworkspace = "changelog.md"')],
    "path-absolute": [Edit(M, 'changelog = "changelog.md"', 'changelog = "/etc/passwd"')],
    "path-dotdot": [Edit(M, 'changelog = "changelog.md"', 'changelog = "../v1.0.0/changelog.md"')],
    "asset-exists": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nassets = ["assets/ball.png"]')],
    "build-required": [Edit(M, '[build]\ninstall = "npm ci"\nbuild = "npm run build"\n', "")],
    "build-install-required": [Edit(M, 'install = "npm ci"\n', "")],
    "build-not-empty": [Edit(M, 'build = "npm run build"', 'build = ""')],
    # -- specs -----------------------------------------------------------------------
    "spec-source-exists": [Edit(M, None, '\n[[spec]]\nsource = "specs/missing.md"\n')],
    "spec-dest-collision": [Edit(M, None, '\n[[spec]]\nsource = "specs/overview.md"\n\n[[spec]]\nsource = "changelog.md"\ndest = "specs/overview.md"\n')],
    "spec-hbs-dest-collision": [Edit(L("specs/overview.md.hbs"), None, "# {{variant.name}}\n"),
                                Edit(M, None, '\n[[spec]]\nsource = "specs/overview.md"\n\n[[spec]]\nsource = "specs/overview.md.hbs"\n')],
    "spec-kind-enum": [Edit(M, None, '\n[[spec]]\nsource = "specs/overview.md"\nkind = "doc"\n')],
    # -- references ------------------------------------------------------------------
    "reference-path-xor-media": [Edit(M, 'path = "reference/play.html"', 'path = "reference/play.html"\nmedia = "reference/play.png"')],
    "reference-neither": [Edit(M, 'path = "reference/play.html"\n', "")],
    "reference-media-kind": [Edit(M, 'path = "reference/play.html"', 'media = "reference/play.avi"')],
    "reference-exists": [Edit(M, 'path = "reference/play.html"', 'path = "reference/nope.html"')],
    "reference-view-twice": [Edit(M, None, '\n[[reference]]\nview = "play"\npath = "reference/play.html"\n')],
    "variant-reference-shadows-common": [Edit(L("variants/a.toml"), None, 'reference = [{ view = "play", path = "reference/play.html" }]\n')],
    "variant-reference-twice": [Edit(L("variants/a.toml"), None, 'reference = [{ view = "menu", path = "reference/play.html" }, { view = "menu", path = "reference/play.html" }]\n')],
    # -- proofs ----------------------------------------------------------------------
    "proof-extension": [Edit(M, 'dest = "proof/shot.png"', 'dest = "proof/shot.bmp"')],
    "proof-id-unique": [Edit(L("variants/a.toml"), None, 'proof = [{ id = "shot", dest = "proof/other.png" }]\n')],
    "proof-dest-seeded": [Edit(M, 'dest = "proof/shot.png"', 'dest = "specs/overview.md.png"'),
                          Edit(M, None, '\n[[spec]]\nsource = "specs/overview.md"\ndest = "specs/overview.md.png"\n')],
    "proof-dest-workspace": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nworkspace = "workspaces/w"'),
                             Edit(M, 'dest = "proof/shot.png"', 'dest = "package.json.png"'),
                             Edit(L("workspaces/w/package.json.png"), None, "x")],
    # -- checks ----------------------------------------------------------------------
    "check-reference-every-variant": [Edit(M, 'view = "play"\n\n[[review_item]]', 'view = "menu"\n\n[[review_item]]'),
                                      Edit(L("variants/a.toml"), None, 'reference = [{ view = "menu", path = "reference/play.html" }]\n')],
    "check-video-baseline": [Edit(M, 'path = "reference/play.html"', 'media = "reference/play.mp4"'),
                             Edit(L("reference/play.mp4"), None, "x")],
    "check-action-unknown": [Edit(M, 'view = "play"\n\n[[review_item]]', 'view = "play"\nactions = [{ type = "jump" }]\n\n[[review_item]]')],
    "check-action-extra-field": [Edit(M, 'view = "play"\n\n[[review_item]]', 'view = "play"\nactions = [{ type = "wait", ms = 5, key = "x" }]\n\n[[review_item]]')],
    "check-action-type": [Edit(M, 'view = "play"\n\n[[review_item]]', 'view = "play"\nactions = [{ type = "wait", ms = "5" }]\n\n[[review_item]]')],
    "check-call-needs-handle": [Edit(M, '[instrumentation]\nhandle = "__demo"\n', ""),
                                Edit(M, 'validation = { script = "validation/moves.mjs", outputs = [{ id = "clip", kind = "video" }] }\n', ""),
                                Edit(M, 'view = "play"\n\n[[review_item]]', 'view = "play"\nactions = [{ type = "call", op = "reset" }]\n\n[[review_item]]')],
    "check-view-twice": [Edit(M, None, '\n[[check]]\nview = "play"\n')],
    # -- review items ----------------------------------------------------------------
    "item-weight-positive": [Edit(M, "weight = 1", "weight = 0")],
    "item-weight-required": [Edit(M, "weight = 1\n", "")],
    "item-text-required": [Edit(M, 'text = "It moves."\n', "")],
    "item-id-unique": [Edit(L("variants/a.toml"), None, '\n[[review_item]]\nid = "moves"\ntitle = "Again"\ntext = "x"\nweight = 1\n')],
    "item-domain-declared": [Edit(M, "weight = 1", 'weight = 1\ndomain = "versus"')],
    "common-item-common-domain": [Edit(M, "weight = 1", 'weight = 1\ndomain = "turbo"'),
                                  Edit(L("variants/a.toml"), None, '\n[[domain]]\nid = "turbo"\ndescription = "Turbo mode."\n')],
    "item-reference-resolves": [Edit(M, "weight = 1", 'weight = 1\nreference = "menu"')],
    "item-proof-resolves": [Edit(M, "weight = 1", 'weight = 1\nproof = "clip"')],
    "sub-items-both-spellings": [Edit(M, 'validation = { script = "validation/moves.mjs", outputs = [{ id = "clip", kind = "video" }] }\n', 'sub_items = [{ id = "a", title = "A" }]\n\n[[review_item.sub_item]]\nid = "b"\ntitle = "B"\n')],
    "sub-item-id-unique": [Edit(M, 'validation = { script = "validation/moves.mjs", outputs = [{ id = "clip", kind = "video" }] }\n', 'sub_items = [{ id = "a", title = "A" }, { id = "a", title = "B" }]\n')],
    "sub-item-id-not-empty": [Edit(M, 'validation = { script = "validation/moves.mjs", outputs = [{ id = "clip", kind = "video" }] }\n', 'sub_items = [{ id = "", title = "A" }]\n')],
    "sub-item-composite-collision": [Edit(M, 'validation = { script = "validation/moves.mjs", outputs = [{ id = "clip", kind = "video" }] }\n', 'sub_items = [{ id = "fast", title = "Fast" }]\n'),
                                     Edit(L("variants/a.toml"), None, '\n[[review_item]]\nid = "moves.fast"\ntitle = "Clash"\ntext = "x"\nweight = 1\n')],
    "item-validation-with-sub-items": [Edit(M, "weight = 1", 'weight = 1\nsub_items = [{ id = "a", title = "A" }]')],
    # -- validation ------------------------------------------------------------------
    "validation-needs-handle": [Edit(M, '[instrumentation]\nhandle = "__demo"\n', "")],
    "handle-identifier": [Edit(M, 'handle = "__demo"', 'handle = "window.__demo"')],
    "validation-script-exists": [Edit(L("validation/moves.mjs"), None, None)],
    "validation-one-video": [Edit(M, '[{ id = "clip", kind = "video" }]', '[{ id = "clip", kind = "video" }, { id = "clip2", kind = "video" }]')],
    "validation-output-ids-unique": [Edit(M, '[{ id = "clip", kind = "video" }]', '[{ id = "clip", kind = "video" }, { id = "clip", kind = "image" }]')],
    "validation-output-kind": [Edit(M, '{ id = "clip", kind = "video" }', '{ id = "clip", kind = "audio" }')],
    # -- domains ---------------------------------------------------------------------
    "domain-required": [Edit(M, '\n[[domain]]\nid = "play"\ndescription = "Playing it."\n', "")],
    "domain-description-required": [Edit(M, 'description = "Playing it."\n', "")],
    "domain-unique": [Edit(L("variants/b.toml"), None, '\n[[domain]]\nid = "play"\ndescription = "Again."\n')],
    # -- variants --------------------------------------------------------------------
    "variant-file-exists": [Edit(L("variants/b.toml"), None, None)],
    "variant-slug-unique": [Edit(L("variants/b.toml"), 'slug = "b"', 'slug = "a"')],
    "variant-unknown-key": [Edit(L("variants/a.toml"), None, 'reference_impl = "x"\n')],
    "variant-workspace-dir": [Edit(L("variants/a.toml"), None, 'workspace = "workspaces/none"\n')],
    "variant-reference-implementation-dir": [Edit(L("variants/a.toml"), None, 'reference_implementation = "reference-impl/a"\n')],
    # -- packages --------------------------------------------------------------------
    "package-unknown": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\npackages = ["@test-cabinet/voxel-rig"]')],
    "package-needs-package-json": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\npackages = ["@test-cabinet/particle-runtime"]\nworkspace = "workspaces/w"')],
    "package-file-path": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\npackages = ["@test-cabinet/particle-runtime"]\nworkspace = "workspaces/w"'),
                          Edit(L("workspaces/w/package.json"), '"private": true', '"private": true, "dependencies": {"@test-cabinet/particle-runtime": "^1.0.0"}')],
    "package-end-to-end-only": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\ntype = "sprite"\npackages = ["@test-cabinet/particle-runtime"]')],
    # -- categories grammar ----------------------------------------------------------
    "grammars-exclusive": [Edit(CM, None, '\n[[review_item]]\nid = "old"\ntitle = "Old"\ntext = "x"\nweight = 1\n')],
    "category-only-id-title": [Edit(CM, 'title = "Motion"', 'title = "Motion"\nweight = 2')],
    "category-needs-items": [Edit(CM, None, '\n[[review.categories]]\nid = "empty"\ntitle = "Empty"\nitems = []\n')],
    "category-item-id-unique": [Edit(CM, None, '\n[[review.categories.items]]\nid = "moves"\ntitle = "Again"\n')],
    "category-item-weight": [Edit(CM, 'title = "Moves"', 'title = "Moves"\nweight = -1')],
    "category-item-no-domain": [Edit(CM, 'title = "Moves"', 'title = "Moves"\ndomain = "play"')],
    "format-is-2": [Edit(CM, "format = 2", "format = 3")],
    "script-drives-one-item": [Edit(CM, None, '\n[[review.categories.items]]\nid = "again"\ntitle = "Again"\nvalidation = { script = "validation/moves.mjs" }\n')],
    "variant-no-review-item": [Edit(C("variants/a.toml"), None, '\n[[review_item]]\nid = "old"\ntitle = "Old"\ntext = "x"\nweight = 1\n')],
    "variant-no-format": [Edit(C("variants/a.toml"), None, '\n[review]\nformat = 2\n')],
    "variant-category-extends": [Edit(C("variants/a.toml"), None, '\n[[review.categories]]\nid = "motion"\ntitle = "Motion"\n\n[[review.categories.items]]\nid = "moves"\ntitle = "Clash"\n')],
    "legacy-variant-no-categories": [Edit(L("variants/a.toml"), None, '\n[[review.categories]]\nid = "x"\ntitle = "X"\n\n[[review.categories.items]]\nid = "y"\ntitle = "Y"\n')],
    # -- errata ----------------------------------------------------------------------
    "erratum-id-unique": [Edit(L("errata.toml"), None, '[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\n\n[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\n')],
    "erratum-title-body-required": [Edit(L("errata.toml"), None, '[[erratum]]\nid = "e"\n')],
    "erratum-severity": [Edit(L("errata.toml"), None, '[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\nseverity = "critical"\n')],
    "erratum-date": [Edit(L("errata.toml"), None, '[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\ndate = "17/07/2026"\n')],
    "erratum-variant-declared": [Edit(L("errata.toml"), None, '[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\nvariant = "c"\n')],
    "erratum-review-exists": [Edit(L("errata.toml"), None, '[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\nreview = "moves.fast"\n')],
    "erratum-exclude-needs-review": [Edit(L("errata.toml"), None, '[[erratum]]\nid = "e"\ntitle = "T"\nbody = "B"\nexclude_from_score = true\n')],
    # -- slugs across the catalog ----------------------------------------------------
    "slug-unique-across-folders": [Edit(CM, 'slug = "cats"', 'slug = "demo"')],
}
