"""One edit per rule of spec/manifests.md: each breaks a clean minimal suite in one way."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from suites import CATEGORIES
from suites import LEGACY


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


NESTINGS: dict[str, Path] = {"flat": Path(), "nested": Path("arcade"), "nested-twice": Path("suites/arcade")}
"""Where a rule test's layouts stand under the suite root (its tcab.toml): every rule holds at any depth."""


def nested(line: str, under: Path) -> str:
    """An expected problem line as it reads when the layouts stand in `under`: each path from the
    suite root (the problem's file, and the other file a slug rule names) starts with it."""
    if under == Path():
        return line
    return re.sub(r"(^|declared by |the definition )(?=test-cases/|versions/)", rf"\g<1>{under.as_posix()}/", line)


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
    "package-init-absent": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\npackages = ["@test-cabinet/particle-runtime"]')],
    "package-init-npm-ci": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\ninit = "npm ci"\npackages = ["@test-cabinet/particle-runtime"]')],
    # -- keys of the public catalog ----------------------------------------------------
    "tick-hz-positive": [Edit(M, 'handle = "__demo"', 'handle = "__demo"\ntick_hz = 0')],
    "tick-hz-integer": [Edit(M, 'handle = "__demo"', 'handle = "__demo"\ntick_hz = 59.94')],
    "upstream-key-not-supported": [Edit(M, 'prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nengines = ["none"]')],
    "output-blender-only": [Edit(M, None, '\n[output]\nactions = "build.py"\n')],
    # -- categories grammar ----------------------------------------------------------
    "grammars-exclusive": [Edit(CM, None, '\n[[review_item]]\nid = "old"\ntitle = "Old"\ntext = "x"\nweight = 1\n')],
    "category-only-id-title": [Edit(CM, 'title = "Motion"', 'title = "Motion"\nweight = 2')],
    "category-title-required": [Edit(CM, 'title = "Motion"\n', "")],
    "category-needs-items": [Edit(CM, None, '\n[[review.categories]]\nid = "empty"\ntitle = "Empty"\nitems = []\n')],
    "category-item-id-unique": [Edit(CM, None, '\n[[review.categories.items]]\nid = "moves"\ntitle = "Again"\n')],
    "category-item-weight": [Edit(CM, 'title = "Moves"', 'title = "Moves"\nweight = -1')],
    "category-item-no-domain": [Edit(CM, 'title = "Moves"', 'title = "Moves"\ndomain = "play"')],
    "format-is-2": [Edit(CM, "format = 2", "format = 3")],
    "script-drives-one-unit-legacy": [Edit(M, None, '\n[[review_item]]\nid = "again"\ntitle = "Again"\ntext = "x"\nweight = 1\nvalidation = { script = "./validation/moves.mjs" }\n')],
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


EXPECTED: dict[str, str] = {
    # The first problem line each edit produces: file, line, key path and message, exactly.
    'toml-syntax': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:2: test-case.toml is not valid TOML: at line 2, column 13, the parser expected the string to close before the end of the line",
    'unknown-key-suggests': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:3: `dificulty`: unknown key `dificulty`',
    'root-key-after-header': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:11: `build.variants`: `variants` is a root key, but it was written after the `[build]` header, so TOML put it inside that table',
    'slug-kebab': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:1: `slug`: 'Demo_Case' is not a kebab-case token: use lowercase letters and digits, with single hyphens between them (e.g. 'carom-classic')",
    'name-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml: missing required key `name`',
    'tags-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml: missing required key `tags`',
    'tags-strings': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:4: `tags[0]`: must be a string, not an integer (1)',
    'difficulty-enum': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:3: `difficulty`: 'trivial' is not allowed",
    'difficulty-matches-folder': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:3: `difficulty`: difficulty = 'hard', but the case lives under test-cases/end-to-end/easy/",
    'changelog-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml: missing required key `changelog`',
    'changelog-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:5: `changelog`: changelog 'changelog.md' does not exist; expected a file under v1.0.0/",
    'description-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `description`: description 'about.md' does not exist; expected a file under v1.0.0/",
    'prompt-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml: missing required key `prompt`',
    'prompt-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:6: `prompt`: prompt template 'prompt.hbs' does not exist; expected a file under v1.0.0/",
    'max-runtime-positive': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `max_runtime_hours`: must be a positive number, not 0.0',
    'max-runtime-number': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `max_runtime_hours`: must be a number, not a string ('1h')",
    'experimental-bool': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `experimental`: must be a boolean (true or false), not a string ('yes')",
    'init-not-blank': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `init`: must not be empty or blank',
    'workspace-is-dir': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `workspace`: workspace 'changelog.md' is a file; expected a directory under v1.0.0/",
    'path-absolute': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:5: `changelog`: changelog '/etc/passwd' is absolute",
    'path-dotdot': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:5: `changelog`: changelog '../v1.0.0/changelog.md' climbs out with '..'",
    'asset-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `assets[0]`: asset 'assets/ball.png' does not exist under v1.0.0/",
    'build-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml: missing required key `build`',
    'build-install-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:9: `build`: missing required key `install`',
    'build-not-empty': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:11: `build.build`: must not be empty or blank',
    'spec-source-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:39: `spec[0].source`: spec source 'specs/missing.md' does not exist; expected a file under v1.0.0/",
    'spec-dest-collision': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:43: `spec[1].dest`: seeds 'specs/overview.md', which `spec[0].source` (test-case.toml:39) already seeds",
    'spec-hbs-dest-collision': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:42: `spec[1].source`: seeds 'specs/overview.md', which `spec[0].source` (test-case.toml:39) already seeds",
    'spec-kind-enum': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:40: `spec[0].kind`: 'doc' is not allowed",
    'reference-path-xor-media': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:16: `reference[0]`: reference 'play' declares both `path` and `media`; declare exactly one: `path` for an HTML mockup rendered to a screenshot, `media` for a static image or .mp4",
    'reference-neither': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:16: `reference[0]`: reference 'play' declares neither `path` and `media`; declare exactly one: `path` for an HTML mockup rendered to a screenshot, `media` for a static image or .mp4",
    'reference-media-kind': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:16: `reference[0]`: `media` 'reference/play.avi' has an extension that is neither an image (png, jpg, jpeg, webp, gif) nor a video (.mp4)",
    'reference-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:18: `reference[0].path`: reference mockup 'reference/nope.html' does not exist; expected a file under v1.0.0/",
    'reference-view-twice': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:39: `reference[1].view`: view 'play' is declared twice",
    'variant-reference-shadows-common': "test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:2: `reference[0].view`: view 'play' is already a common reference",
    'variant-reference-twice': "test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:2: `reference[1].view`: view 'menu' is declared twice in this variant",
    'proof-extension': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:20: `proof[0]`: `dest` 'proof/shot.bmp' has an extension that is neither an image (png, jpg, jpeg, webp, gif) nor a video (webm, mp4); a .webm is what Playwright records natively",
    'proof-id-unique': "test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:2: `proof[0].id`: proof id 'shot' is already declared",
    'proof-dest-seeded': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:22: `proof[0].dest`: proof dest 'specs/overview.md.png' collides with a file seeded into the run of any variant",
    'proof-dest-workspace': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:23: `proof[0].dest`: proof dest 'package.json.png' collides with a file seeded into the run of any variant",
    'check-reference-every-variant': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:25: `check[0].view`: check 'menu' names reference view 'menu', which variant 'b' does not resolve",
    'check-video-baseline': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:25: `check[0].view`: check 'play' uses reference 'play', a video; a video can't be a baseline",
    'check-action-unknown': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:26: `check[0].actions[0].type`: unknown type 'jump'",
    'check-action-extra-field': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:26: `check[0].actions[0].key`: unknown key `key`',
    'check-action-type': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:26: `check[0].actions[0].ms`: must be an integer, not a string ('5')",
    'check-call-needs-handle': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:24: `check[0].actions`: a `call` action needs the case's debug-API handle",
    'check-view-twice': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:25: `check[0].view`: view 'play' is checked 2 times",
    'item-weight-positive': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:31: `review_item[0].weight`: must be a positive number, not 0.0',
    'item-weight-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:27: `review_item[0]`: missing required key `weight`',
    'item-text-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:27: `review_item[0]`: missing required key `text`',
    'item-id-unique': "test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:4: `review_item[0].id`: id 'moves' is already used by `review_item[0].id` (test-case.toml:28)",
    'item-domain-declared': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].domain`: domain 'versus' is not declared for any variant",
    'common-item-common-domain': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].domain`: domain 'turbo' is not declared for variant 'a'",
    'item-reference-resolves': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].reference`: reference view 'menu' does not resolve for any variant",
    'item-proof-resolves': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].proof`: proof 'clip' does not resolve for any variant",
    'sub-items-both-spellings': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:27: `review_item[0]`: declares sub-items twice, as `sub_items = [...]` and as `[[review_item.sub_item]]`; use one spelling',
    'sub-item-id-unique': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].sub_items[1].id`: id 'moves.a' is already used by `review_item[0].sub_items[0].id` (test-case.toml:32)",
    'sub-item-id-not-empty': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].sub_items[0].id`: '' is not a valid id: use letters, digits, '-' and '_', starting with a letter or digit (no dots: dots join composite verdict ids such as 'item.sub')",
    'sub-item-composite-collision': "test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:4: `review_item[0].id`: 'moves.fast' is not a valid id: use letters, digits, '-' and '_', starting with a letter or digit (no dots: dots join composite verdict ids such as 'item.sub')",
    'item-validation-with-sub-items': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:33: `review_item[0].validation`: an item with sub-items is verdicted per sub-item, so it cannot carry item-level `validation`',
    'validation-needs-handle': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:30: `review_item[0].validation`: declares a validation script, but the case names no debug-API handle',
    'handle-identifier': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:14: `instrumentation.handle`: 'window.__demo' is not a plain JavaScript identifier (letters, digits, '_' and '$', not starting with a digit; no 'window.' prefix, no dots)",
    'validation-script-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].validation.script`: validation script 'validation/moves.mjs' does not exist; expected a file under v1.0.0/",
    'validation-one-video': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].validation.outputs[1].kind`: declares 2 video outputs; a script may record at most one video (the clip of the whole drive)',
    'validation-output-ids-unique': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].validation.outputs[1].id`: output id 'clip' is declared twice in this script's outputs",
    'validation-output-kind': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:32: `review_item[0].validation.outputs[0].kind`: 'audio' is not allowed",
    'domain-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml: `domain`: declares no `[[domain]]`; at least one common scoring domain is required',
    'domain-description-required': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:34: `domain[0]`: missing required key `description`',
    'domain-unique': "test-cases/end-to-end/easy/demo/v1.0.0/variants/b.toml:4: `domain[0].id`: domain id 'play' is already declared",
    'variant-file-exists': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `variants[1]`: variant file 'variants/b.toml' does not exist; expected a file under v1.0.0/",
    'variant-slug-unique': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `variants`: two variant files declare slug 'a'",
    'variant-unknown-key': 'test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:2: `reference_impl`: unknown key `reference_impl`',
    'variant-workspace-dir': "test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:2: `workspace`: workspace 'workspaces/none' does not exist; expected a directory under v1.0.0/",
    'variant-reference-implementation-dir': "test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:2: `reference_implementation`: reference implementation 'reference-impl/a' does not exist; expected a directory under v1.0.0/",
    'package-unknown': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `packages[0]`: '@test-cabinet/voxel-rig' is not a shippable package of the suite's package store",
    'package-needs-package-json': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:8: `workspace`: w/package.json does not depend on package '@test-cabinet/particle-runtime'",
    'package-file-path': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:8: `workspace`: w/package.json points '@test-cabinet/particle-runtime' at '^1.0.0'",
    'package-end-to-end-only': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `type`: type = 'sprite', but the case lives under test-cases/end-to-end/",
    'package-init-absent': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `packages`: declares `packages` but no `init`; a case that declares `packages` must run `npm install` in its `init`",
    'package-init-npm-ci': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `init`: init = 'npm ci' does not run `npm install`, which a case that declares `packages` must",
    'tick-hz-positive': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:15: `instrumentation.tick_hz`: 0 is out of range: should be greater than 0',
    'tick-hz-integer': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:15: `instrumentation.tick_hz`: must be an integer, not a float (59.94)',
    'upstream-key-not-supported': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:7: `engines`: unknown key `engines`',
    'output-blender-only': 'test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:38: `output`: `[output]` is the table of Blender cases; an end-to-end case may not declare it',
    'grammars-exclusive': 'test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:20: `review`: declares both a `[review]` table (categories grammar) and `[[review_item]]` entries (legacy grammar)',
    'category-only-id-title': "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:26: `review.categories[0].weight`: category 'motion' carries only `id`, `title` and its `items`; `weight` is not allowed here",
    'category-title-required': "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:23: `review.categories[0]`: category 'motion': missing required key `title`",
    'category-needs-items': "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:39: `review.categories[1].items`: category 'empty' holds no items; a category must hold at least one",
    'category-item-id-unique': "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:37: `review.categories[0].items[1].id`: item id 'moves' is already used in category 'motion' by `review.categories[0].items[0].id` (test-case.toml:28)",
    'category-item-weight': 'test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:30: `review.categories[0].items[0].weight`: must be a positive number, not -1.0',
    'category-item-no-domain': 'test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:30: `review.categories[0].items[0].domain`: the categories grammar attaches no domain to a point',
    'format-is-2': 'test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:21: `review.format`: 3 is not allowed',
    'script-drives-one-unit-legacy': "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml:43: `review_item[1].validation.script`: script './validation/moves.mjs' already drives `review_item[0].validation` (test-case.toml:32)",
    'script-drives-one-item': "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:39: `review.categories[0].items[1].validation.script`: script 'validation/moves.mjs' already drives `review.categories[0].items[0].validation` (test-case.toml:30)",
    'variant-no-review-item': 'test-cases/end-to-end/easy/cats/v1.0.0/variants/a.toml:3: `review_item`: uses `[[review_item]]`, but the case is authored in the categories grammar (`[review] format = 2`)',
    'variant-no-format': 'test-cases/end-to-end/easy/cats/v1.0.0/variants/a.toml:4: `review.format`: a variant file must not repeat `format`',
    'variant-category-extends': "test-cases/end-to-end/easy/cats/v1.0.0/variants/a.toml:8: `review.categories[0].items[0].id`: item id 'moves' is already used in category 'motion' by `review.categories[0].items[0].id` (test-case.toml:28)",
    'legacy-variant-no-categories': 'test-cases/end-to-end/easy/demo/v1.0.0/variants/a.toml:3: `review`: declares `[review]` categories, but the case uses the legacy `[[review_item]]` grammar',
    'erratum-id-unique': "test-cases/end-to-end/easy/demo/v1.0.0/errata.toml:7: `erratum[1].id`: erratum id 'e' is used twice",
    'erratum-title-body-required': 'test-cases/end-to-end/easy/demo/v1.0.0/errata.toml:1: `erratum[0]`: missing required key `body`',
    'erratum-severity': "test-cases/end-to-end/easy/demo/v1.0.0/errata.toml:5: `erratum[0].severity`: 'critical' is not allowed",
    'erratum-date': "test-cases/end-to-end/easy/demo/v1.0.0/errata.toml:5: `erratum[0].date`: '17/07/2026' is not a date in the form YYYY-MM-DD",
    'erratum-variant-declared': "test-cases/end-to-end/easy/demo/v1.0.0/errata.toml:5: `erratum[0].variant`: variant 'c' is not declared",
    'erratum-review-exists': "test-cases/end-to-end/easy/demo/v1.0.0/errata.toml:5: `erratum[0].review`: 'moves.fast' is not a verdict id of the case's checklist",
    'erratum-exclude-needs-review': 'test-cases/end-to-end/easy/demo/v1.0.0/errata.toml:1: `erratum[0]`: `exclude_from_score = true` needs a `review` link naming the point to exclude',
    'slug-unique-across-folders': "test-cases/end-to-end/easy/cats/v1.0.0/test-case.toml:1: `slug`: slug 'demo' is also declared by test-cases/end-to-end/easy/demo/",
}
