"""A minimal valid suite per grammar, which rule tests break one edit at a time."""

from __future__ import annotations

import textwrap
from pathlib import Path

LEGACY_MANIFEST = """\
slug = "demo"
name = "Demo"
difficulty = "easy"
tags = []
changelog = "changelog.md"
prompt = "prompt.hbs"
variants = ["variants/a.toml", "variants/b.toml"]

[build]
install = "npm ci"
build = "npm run build"

[instrumentation]
handle = "__demo"

[[reference]]
view = "play"
path = "reference/play.html"

[[proof]]
id = "shot"
dest = "proof/shot.png"

[[check]]
view = "play"

[[review_item]]
id = "moves"
title = "Moves"
text = "It moves."
weight = 1
validation = { script = "validation/moves.mjs", outputs = [{ id = "clip", kind = "video" }] }

[[domain]]
id = "play"
description = "Playing it."
"""

CATEGORIES_MANIFEST = """\
slug = "cats"
name = "Cats"
difficulty = "easy"
tags = []
changelog = "changelog.md"
prompt = "prompt.hbs"
variants = ["variants/a.toml", "variants/b.toml"]

[build]
install = "npm ci"
build = "npm run build"

[instrumentation]
handle = "__demo"

[[reference]]
view = "play"
path = "reference/play.html"

[review]
format = 2

[[review.categories]]
id = "motion"
title = "Motion"

[[review.categories.items]]
id = "moves"
title = "Moves"
validation = { script = "validation/moves.mjs", outputs = [{ id = "clip", kind = "video" }] }

[[domain]]
id = "play"
description = "Playing it."
"""

SUPPORT_FILES = {
    "changelog.md": "Introduced.\n",
    "prompt.hbs": "Build it in {{workspace}}.\n",
    "reference/play.html": "<!doctype html><meta charset='utf-8'><p>play</p>\n",
    "validation/moves.mjs": "export default async (api) => ({ verdicts: {}, notes: '' });\n",
    "variants/a.toml": 'slug = "a"\n',
    "variants/b.toml": 'slug = "b"\n',
    "workspaces/w/package.json": '{"name": "w", "private": true}\n',
    "specs/overview.md": "# Overview\n",
}

LEGACY = Path("test-cases/end-to-end/easy/demo/v1.0.0")
CATEGORIES = Path("test-cases/end-to-end/easy/cats/v1.0.0")


def write_minimal_suite(root: Path, under: Path = Path()) -> Path:
    """Two clean cases (legacy and categories grammar) and a package store, the catalog
    (`test-cases/`) in `root/under`."""
    (root / "tcab.toml").write_text(
        textwrap.dedent(
            """\
            [packages."@test-cabinet/particle-runtime"]
            path = "packages/particle-runtime"
            description = "Plays particle systems."
            """
        )
    )
    (root / "packages/particle-runtime").mkdir(parents=True)
    for folder, manifest in ((LEGACY, LEGACY_MANIFEST), (CATEGORIES, CATEGORIES_MANIFEST)):
        case = root / under / folder
        case.mkdir(parents=True)
        (case / "test-case.toml").write_text(manifest)
        for name, text in SUPPORT_FILES.items():
            (case / name).parent.mkdir(parents=True, exist_ok=True)
            (case / name).write_text(text)
    return root
