"""A case version's documents and resolution are let go once its items ran, and read again if asked."""

from __future__ import annotations

from pathlib import Path

from pytest_tcab.seeding import plan_catalog
from pytest_tcab.suite import Suite

EXAMPLE = Path(__file__).resolve().parents[2] / "example-suite"
CAROM = EXAMPLE / "test-cases/end-to-end/medium/carom/v2.0.0/test-case.toml"


def test_release_drops_the_version_and_keeps_the_rest() -> None:
    suite = Suite(EXAMPLE)
    first = suite.resolve(CAROM)
    older = EXAMPLE / "test-cases/end-to-end/medium/carom/v1.0.0/test-case.toml"
    other = suite.resolve(older)
    assert first.case is not None and len(first.case.variants) > 1
    plan_catalog(first.case, first.case.variants[0], suite)  # lists the workspace, reads the variant files
    held = [path for path in suite._documents if CAROM.parent in path.parents]
    assert CAROM in held and any(path.parent.name == "variants" for path in held)
    assert any(CAROM.parent in path.parents for path in suite.listings)

    suite.release(CAROM)

    assert not [path for path in suite._documents if CAROM.parent in path.parents]
    assert not [path for path in suite.listings if CAROM.parent in path.parents]
    assert suite.resolve(older) is other  # the other version stays
    again = suite.resolve(CAROM)
    assert again is not first and again.case == first.case and again.problems == first.problems
