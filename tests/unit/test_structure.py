"""The package's structure: layers import downwards only, no import cycle anywhere (type-only and function-level imports
counted), each run wing says what it owns, and only the report wing and the plugin import it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from pytest_tcab.run.families import RUN_FAMILIES

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_tcab"
WINGS = ("sandbox", "browser", "judge", "wasm", "assets", "report")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported(path: Path) -> set[str]:
    """Every module of the package `path` imports, anywhere in it: at the top, inside a function,
    under `if TYPE_CHECKING:` (a type both sides need belongs in a module both import)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:  # relative: resolved against the importing module's package
                package = module_name(path).split(".")
                base = ".".join([*package[: len(package) - node.level + (path.name == "__init__.py")], node.module])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in MODULES and name != module_name(path)}


GRAPH = {name: imported(path) for name, path in MODULES.items()}


def cycles() -> list[list[str]]:
    """Every strongly connected group of modules larger than one (Tarjan), as sorted lists."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(GRAPH[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    return found


def test_no_import_cycle_anywhere_in_the_package() -> None:
    assert len(MODULES) > 60
    assert cycles() == []


def reaches(start: str, goal: str) -> bool:
    seen, stack = {start}, [start]
    while stack:
        current = stack.pop()
        if current == goal:
            return True
        for following in GRAPH[current] - seen:
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
    ("pytest_tcab.run.spec", "pytest_tcab.run.collect"),
    ("pytest_tcab.run.context", "pytest_tcab.run.collect"),
])
def test_lower_layers_never_reach_higher_ones(low: str, high: str) -> None:
    assert not reaches(low, high), f"{low} imports {high}, which builds on it"


def test_the_graph_sees_type_only_and_function_level_imports() -> None:
    assert "pytest_tcab.run.context" in GRAPH["pytest_tcab.run.item"]  # under TYPE_CHECKING
    assert "pytest_tcab.run.collect" in GRAPH["pytest_tcab.plugin"]  # inside a hook


def test_a_cycle_is_found_when_there_is_one() -> None:
    GRAPH["pytest_tcab.run.spec"].add("pytest_tcab.run.collect")
    try:
        assert any("pytest_tcab.run.spec" in group for group in cycles())
    finally:
        GRAPH["pytest_tcab.run.spec"].discard("pytest_tcab.run.collect")


def test_only_the_report_wing_and_the_plugin_import_the_report_wing() -> None:
    report = "pytest_tcab.run.report"
    wings = [name for name in MODULES if name.startswith("pytest_tcab.run.") and not name.startswith(report)]
    offenders = {name: sorted(t for t in GRAPH[name] if t.startswith(report)) for name in wings}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_each_wing_says_what_it_owns_and_what_it_may_import() -> None:
    for wing in WINGS:
        doc = importlib.import_module(f"pytest_tcab.run.{wing}").__doc__ or ""
        assert "Owns" in doc and "import" in doc, wing


def test_the_run_context_imports_no_family() -> None:
    assert not GRAPH["pytest_tcab.run.context"] & set(RUN_FAMILIES)


def test_every_family_is_a_module_of_the_package() -> None:
    assert set(RUN_FAMILIES) <= set(MODULES)


def test_nothing_of_run_mode_imports_the_review_wing() -> None:
    """The review wing reads run mode's records and is joined to it by a hook, never imported by it."""
    assert any(name.startswith("pytest_tcab.review.") for name in MODULES)
    offenders = {name: sorted(t for t in GRAPH[name] if t == "pytest_tcab.review" or t.startswith("pytest_tcab.review."))
                 for name in MODULES if name == "pytest_tcab.run" or name.startswith("pytest_tcab.run.")}
    assert {name: found for name, found in offenders.items() if found} == {}
