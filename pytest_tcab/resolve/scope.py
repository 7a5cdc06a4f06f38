"""What the rules of a case version share: its manifest, its folder, where problems go, and what
failed already (so a link to a broken entry is not reported a second time).

`VersionResolver` (resolve/manifest.py) is one; `VariantRules` (resolve/variant.py) reads it, so
neither module needs the other.
"""

from __future__ import annotations

from pathlib import Path

from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.resolve.paths import Expect
from pytest_tcab.resolve.paths import check_path
from pytest_tcab.toml import TomlDocument


class VersionScope:
    """One case version as its rules see it."""

    def __init__(self, doc: TomlDocument, common: list[Problem], variant_slugs: list[str]) -> None:
        self.doc = doc
        self.folder = doc.path.parent
        self.common = common
        """Problems of the version as a whole: reported once, under the first variant."""
        self.variant_slugs = variant_slugs
        """The variants in manifest order (the first is the default); filled in as files load."""
        self.case_type = "end-to-end"
        self.dropped: set[str] = set()
        """Ids of entries left out of the models because their shape failed (already reported):
        a link naming one is not reported again as a link to nothing."""
        self.unresolved_variants: set[str] = set()
        """Variants whose file did not load (already reported), by slug or file stem."""
        self.missing: frozenset[str] = frozenset()
        """Required keys of the manifest that failed (already reported): the rules reading them skip."""

    def is_first(self, variant: str) -> bool:
        """Whether `variant` is the default one, under which the version's own problems are reported."""
        return self.variant_slugs[:1] == [variant]

    def path(self, doc: TomlDocument, key: KeyPath, relative: str, expect: Expect, what: str,
             into: list[Problem]) -> Path | None:
        target, problems = check_path(doc, self.folder, key, relative, expect, what)
        into.extend(problems)
        return target

    def reference_file(self, doc: TomlDocument, key: KeyPath, path: str | None, media: str | None,
                       out: list[Problem]) -> None:
        if path is not None:
            self.path(doc, key + ("path",), path, "file", "reference mockup", out)
        if media is not None:
            self.path(doc, key + ("media",), media, "file", "reference media", out)
