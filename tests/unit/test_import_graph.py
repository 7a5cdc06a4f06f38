"""Run mode's modules import each other without a cycle, lazy imports included, and the run
context imports none of the families that answer `pytest_tcab_run_items` (it finds them by name)."""

from __future__ import annotations

import ast
from pathlib import Path

from pytest_tcab.run.families import RUN_FAMILIES

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_tcab"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported(path: Path) -> set[str]:
    """Every module of the package `path` imports, at any depth, except under `if TYPE_CHECKING:`."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and child.module:
                found.add(child.module)
                found.update(f"{child.module}.{alias.name}" for alias in child.names)
            elif isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in MODULES}


GRAPH = {name: imported(path) for name, path in MODULES.items()}


def cycle_from(start: str) -> list[str] | None:
    """A cycle through run-mode modules reachable from `start`, or None (depth-first, colours)."""
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for target in sorted(GRAPH[node]):
            if not target.startswith("pytest_tcab.run"):
                continue
            if state.get(target) == "open":
                return [*path[path.index(target):], target]
            if target not in state:
                found = visit(target, [*path, target])
                if found:
                    return found
        state[node] = "done"
        return None

    return visit(start, [start])


def test_no_cycle_among_run_mode_modules() -> None:
    run_modules = sorted(name for name in MODULES if name.startswith("pytest_tcab.run."))
    assert len(run_modules) > 15
    cycles = [cycle for name in run_modules if (cycle := cycle_from(name))]
    assert cycles == []


def test_the_run_context_imports_no_family() -> None:
    families = set(RUN_FAMILIES) - {"pytest_tcab.run.context"}
    assert families and not GRAPH["pytest_tcab.run.context"] & families


def test_the_graph_sees_lazy_imports() -> None:
    assert "pytest_tcab.run.build.steps" in GRAPH["pytest_tcab.run.context"]  # imported inside RunContext.build
