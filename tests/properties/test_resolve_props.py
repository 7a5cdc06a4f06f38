"""Random and mutated manifests never crash resolution: the outcome is always a problem report."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import tomli
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.errors import format_problems
from pytest_tcab.resolve.suite import slug_problems
from pytest_tcab.seeding import plan_catalog
from pytest_tcab.suite import Suite
from tests.conftest import copy_example_suite
from tests.properties.tomlgen import documents
from tests.properties.tomlgen import dumps
from tests.properties.tomlgen import values

CAROM = Path("test-cases/end-to-end/medium/carom")
TARGETS = [
    (CAROM / "v2.0.0/test-case.toml", CAROM / "v2.0.0/test-case.toml"),
    (CAROM / "v2.0.0/variants/frenzy.toml", CAROM / "v2.0.0/test-case.toml"),
    (CAROM / "v2.0.0/errata.toml", CAROM / "v2.0.0/test-case.toml"),
    (CAROM / "v1.0.0/test-case.toml", CAROM / "v1.0.0/test-case.toml"),
    (CAROM / "v1.0.0/variants/frenzy.toml", CAROM / "v1.0.0/test-case.toml"),
    (Path("test-cases/end-to-end/easy/sparks/v1.0.0/test-case.toml"),) * 2,
    (Path("test-cases/performance/medium/bounce/v1.0.0/test-case.toml"),) * 2,
    (Path("tcab.toml"), CAROM / "v2.0.0/test-case.toml"),
]
HOSTILE = st.sampled_from([
    "../../../etc/passwd", "/etc/passwd", "C:\\x", "", " ", "a\x00b", "ü" * 300, "{{x}}", 10**30, -1, 0,
    float("inf"), float("nan"), True, [], {}, [{}], {"type": "jump"}, "validation/spin/moving.mjs",
])


@pytest.fixture(scope="module")
def suite_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_example_suite(tmp_path_factory.mktemp("props"))


def _mutate(data: Any, draw: st.DrawFn) -> Any:
    """One random change somewhere in `data`: drop, retype, add an unknown key, or go hostile."""
    if isinstance(data, (dict, list)) and data and draw(st.booleans()):
        keys = list(data) if isinstance(data, dict) else list(range(len(data)))
        k = draw(st.sampled_from(keys))
        data[k] = _mutate(data[k], draw)
        return data
    action = draw(st.sampled_from(["drop", "retype", "unknown", "hostile"]))
    if action == "drop" and isinstance(data, dict) and data:
        data.pop(draw(st.sampled_from(list(data))))
    elif action == "unknown" and isinstance(data, dict):
        data[draw(st.text(min_size=1, max_size=10))] = draw(values)
    elif action == "retype":
        return draw(values)
    else:
        return draw(HOSTILE)
    return data


def _resolve_all(root: Path, manifest: Path) -> str:
    suite = Suite(root)
    resolution = suite.resolve(root / manifest)
    problems = [p for slug in resolution.variant_slugs for p in resolution.problems_for(slug)]
    problems += resolution.errata or []
    problems += slug_problems(suite, root / manifest)
    problems += suite.config_problems
    if resolution.case is not None:  # a partial case is planned as far as it resolved
        problems += [p for variant in resolution.case.variants for p in plan_catalog(resolution.case, variant, suite).problems]
    return format_problems(problems, root)


@given(st.sampled_from(TARGETS), st.data())
def test_mutated_example_manifests_only_ever_yield_problems(suite_root: Path, target, data) -> None:
    edited, manifest = target
    path = suite_root / edited
    original = path.read_text()
    mutated = _mutate(copy.deepcopy(tomli.loads(original)), data.draw)
    if not isinstance(mutated, dict):
        mutated = {"root": mutated}
    try:
        path.write_text(dumps(mutated))
        _resolve_all(suite_root, manifest)
    finally:
        path.write_text(original)


@given(documents)
def test_random_documents_only_ever_yield_problems(suite_root: Path, document: dict[str, Any]) -> None:
    path = suite_root / CAROM / "v2.0.0/test-case.toml"
    original = path.read_text()
    try:
        path.write_text(dumps(document))
        report = _resolve_all(suite_root, CAROM / "v2.0.0/test-case.toml")
        assert "test-case.toml" in report
    finally:
        path.write_text(original)


def test_the_unmutated_example_resolves_cleanly(suite_root: Path) -> None:
    for _, manifest in TARGETS:
        assert _resolve_all(suite_root, manifest) == ""
