"""Module structure: the author-mode families and the resolvers import one another in one direction."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_tcab"


def _imports() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports (TYPE_CHECKING ones too)."""
    modules = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pytest_tcab"):
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names
                             if f"{node.module}.{alias.name}" in modules)
        graph[name] = found
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, stack = set(), [start]
    while stack:
        current = stack.pop()
        if current == goal:
            return True
        for following in graph.get(current, set()) - seen:
            seen.add(following)
            stack.append(following)
    return False


@pytest.mark.parametrize(("low", "high"), [
    ("pytest_tcab.prompts", "pytest_tcab.author"),
    ("pytest_tcab.seeding", "pytest_tcab.author"),
    ("pytest_tcab.prompts", "pytest_tcab.seeding"),
    ("pytest_tcab.items", "pytest_tcab.author"),
    ("pytest_tcab.resolve.variant", "pytest_tcab.resolve.manifest"),
    ("pytest_tcab.resolve.definition", "pytest_tcab.suite"),
])
def test_no_import_circle(low: str, high: str) -> None:
    graph = _imports()
    assert not _reaches(graph, low, high), f"{low} imports {high}, which imports it back"
