"""Suite-level slug rules: a slug is one case's identity across versions, folders and layouts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_tcab.errors import Problem
from pytest_tcab.models.fields import is_kebab
from pytest_tcab.toml import TomlDocument

if TYPE_CHECKING:
    from pytest_tcab.suite import Suite


def slug_problems(suite: Suite, manifest: Path) -> list[Problem]:
    """The slug of `manifest` must be declared identically on every version of its folder,
    and no other folder of the catalog (nor a test-suite definition) may claim it."""
    index = suite.slug_index
    doc = suite.load(manifest) if manifest in index.readable else None
    if not isinstance(doc, TomlDocument):
        return []  # unreadable: its own resolve item reports why
    slug = doc.data.get("slug")
    if not isinstance(slug, str):
        return [doc.problem((), "declares no `slug`", 'add slug = "<kebab-case identity>" at the top')]
    problems: list[Problem] = []
    folder = manifest.parent.parent
    siblings = {p: s for p, s in index.by_folder[folder].items() if s != slug}
    for other, other_slug in sorted(siblings.items()):
        problems.append(doc.problem(("slug",), f"slug {slug!r} differs from {other_slug!r} declared by "
                                    f"{other.parent.name} of the same folder",
                                    "a slug is declared identically on every version of a folder"))
    claimants = sorted({p.parent.parent for p in index.by_slug[slug]} - {folder})
    for other_folder in claimants:
        problems.append(doc.problem(("slug",), f"slug {slug!r} is also declared by "
                                    f"{other_folder.relative_to(suite.root)}/",
                                    "slugs are unique across the catalog; rename one of the cases' slugs"))
    for definition in index.definitions.get(slug, []):
        problems.append(doc.problem(("slug",), f"slug {slug!r} is also the slug of the definition "
                                    f"{definition.relative_to(suite.root)}",
                                    "slugs are unique across the whole suite, both layouts together"))
    return problems


def definition_slug_problems(suite: Suite, path: Path) -> list[Problem]:
    """A definition's slug is its file stem: kebab-case, and no catalog case nor definition of
    another test suite (another `versions/` folder) may claim it."""
    slug = path.stem
    problems: list[Problem] = []
    if not is_kebab(slug):
        fixed = re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-") or "my-case"
        problems.append(Problem(path, None, (), f"the file name makes slug {slug!r}, which is not a kebab-case token",
                                f"rename the file to {fixed}.toml: lowercase letters and digits, single hyphens"))
    versions = path.parents[2]
    others = {other.parents[2]: other for other in reversed(suite.slug_index.definitions.get(slug, []))}
    for folder, other in sorted(others.items()):
        if folder != versions:
            problems.append(Problem(path, None, (), f"slug {slug!r} is also the slug of the definition "
                                    f"{other.relative_to(suite.root).as_posix()}, of another test suite",
                                    "slugs are unique across the whole suite root, every test suite and catalog "
                                    "together; rename one of the files"))
    for manifest in sorted(suite.slug_index.by_slug.get(slug, [])):
        problems.append(Problem(path, None, (), f"slug {slug!r} is also declared by "
                                f"{manifest.relative_to(suite.root).as_posix()}",
                                "slugs are unique across the whole suite, both layouts together; rename the file "
                                "or the catalog case's slug"))
    return problems
