"""Whatever a definition says, resolving it yields Problems and never raises."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.resolve.definition import resolve_definition
from pytest_tcab.resolve.definition import resolve_tree
from pytest_tcab.seeding import plan_definition
from pytest_tcab.suite import Suite

EXAMPLE = Path(__file__).resolve().parents[2] / "example-suite" / "versions" / "v1.0.0"
DEFINITIONS = {path.stem: tomli.loads(path.read_text()) for path in sorted(EXAMPLE.glob("test-cases/*.toml"))}
CONFIG = SuiteConfig.model_validate({"engines": {"simple-2d": {"name": "Simple 2D"}}})

KEYS = sorted({key for data in DEFINITIONS.values() for key in data} | {"type", "nonsense", "sheet", "id"})
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 2**40), st.floats(allow_nan=True), st.text(max_size=12),
    st.sampled_from(["none", "simple-2d", "puzzle", "sprite", "end-to-end", "../x", "/abs", "prompts/build.hbs",
                     "workspaces/none", "ball", "paddle-sheet", "sprites", ""]),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner,
                                                                                            max_size=3), max_leaves=6)


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """An example definition with keys dropped, replaced or added, at the top or one table down."""
    data = json.loads(json.dumps(DEFINITIONS[draw(st.sampled_from(sorted(DEFINITIONS)))]))
    for _ in range(draw(st.integers(1, 4))):
        table = data
        tables = [key for key, value in data.items() if isinstance(value, dict)]
        if tables and draw(st.booleans()):
            table = data[draw(st.sampled_from(tables))]
        action = draw(st.sampled_from(["drop", "set", "add"]))
        if action == "drop" and table:
            table.pop(draw(st.sampled_from(sorted(table))))
        else:
            key = draw(st.sampled_from(sorted(table))) if action == "set" and table else draw(st.sampled_from(KEYS))
            table[key] = draw(values)
    return data


def _toml(data: dict[str, Any]) -> str:
    """TOML for `data`: None values are left out, as TOML has no null; non-finite floats kept."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif value is not None:
            lines.append(f"{json.dumps(key)} = {_value(value)}")
    for key, table in tables:
        lines.append(f"[{json.dumps(key)}]")
        lines.extend(f"{json.dumps(k)} = {_value(v)}" for k, v in table.items() if v is not None)
    return "\n".join(lines) + "\n"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(str(value), repr(value))
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_value(v)}" for k, v in value.items() if v is not None) + "}"
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


@pytest.fixture(scope="module")
def version() -> Iterator[Path]:
    """A private copy of the example's version folder, where mutated definitions are written."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "versions" / "v1.0.0"
        shutil.copytree(EXAMPLE, folder)
        yield folder


@given(data=mutated(), raw=st.booleans())
def test_resolution_reports_problems_and_never_raises(version: Path, data: dict[str, Any], raw: bool) -> None:
    path = version / "test-cases" / "mutant.toml"
    text = _toml(data)
    path.write_text(text[: len(text) // 2] if raw else text)  # raw: also cut mid-way, often invalid TOML
    result = resolve_definition(path, resolve_tree(version), CONFIG)
    # Clean exactly when no problem was found; a partial case may exist beside problems.
    assert result.clean == (not result.problems)
    problems = list(result.problems)
    if result.case is not None:  # a partial case is planned as far as it resolved
        suite = Suite(version.parents[1])
        problems += [p for engine in result.case.engines for p in plan_definition(result.case, engine, suite).problems]
    for problem in problems:
        assert problem.message and problem.format()
