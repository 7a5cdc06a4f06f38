"""Rules of an adversarial case's tables, shared by both layouts: the referee, schemas, house
controllers and replay page exist, are what they claim to be, and stay reporter-side.

The referee is suite code, but author mode never imports it: it is parsed with `ast`, so a
broken or missing function is reported at the TOML key that names the file, and nothing the
module would do on import runs during collection.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TypeAlias

from pytest_tcab.case import Adversarial
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.models.definition import AdversarialDefinition
from pytest_tcab.models.manifest import AdversarialManifest
from pytest_tcab.paths import is_inside
from pytest_tcab.resolve.paths import check_path
from pytest_tcab.toml import TomlDocument

Tables: TypeAlias = AdversarialManifest | AdversarialDefinition

REFEREE_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "new_match": ("seed", "players"),
    "observe": ("state", "player"),
    "apply": ("state", "player", "action"),
    "step": ("state",),
    "frame": ("state",),
}
"""The referee interface: each function and the parameters the tournament passes it, in order."""

HOUSE_SUFFIXES = (".wasm", ".wat")
"""A house controller is a compiled module, or WebAssembly text the harness compiles."""


def adversarial_case(folder: Path, tables: Tables) -> Adversarial:
    """The resolved tables: every path made absolute against the version folder."""
    return Adversarial(
        build=tables.build,
        contract=tables.contract,
        sandbox=tables.sandbox,
        simulation=tables.simulation,
        match=tables.match,
        referee=folder / tables.simulation.referee,
        action_schema=folder / tables.contract.action,
        house=tuple(folder / house for house in tables.match.house),
        renderer=folder / tables.replay.renderer if tables.replay is not None else None,
    )


def adversarial_problems(doc: TomlDocument, folder: Path, tables: Tables, *, seeded: Sequence[Path]) -> list[Problem]:
    """Every problem of the tables' files; `seeded` lists what a run receives (workspace, specs,
    schemas), which must not hold the referee or a house controller."""
    problems: list[Problem] = []

    def existing(key: KeyPath, relative: str, what: str) -> Path | None:
        target, found = check_path(doc, folder, key, relative, "file", what)
        problems.extend(found)
        return target

    for name in ("world", "action"):
        schema = existing(("contract", name), getattr(tables.contract, name), f"contract {name} schema")
        if schema is not None:
            problems.extend(_schema_problems(doc, ("contract", name), schema))
    referee = existing(("simulation", "referee"), tables.simulation.referee, "referee")
    if referee is not None:
        problems.extend(_referee_problems(doc, ("simulation", "referee"), referee))
    reporter_side: list[tuple[KeyPath, Path | None, str]] = [(("simulation", "referee"), referee, "the referee")]
    for i, relative in enumerate(tables.match.house):
        key: KeyPath = ("match", "house", i)
        house = existing(key, relative, "house controller")
        reporter_side.append((key, house, "a house controller"))
        if house is not None and house.suffix not in HOUSE_SUFFIXES:
            problems.append(doc.problem(key, f"house controller {relative!r} is neither a .wasm module nor .wat text",
                                        "build the controller to wasm32 (or write it in WebAssembly text) and "
                                        "name that file"))
    if tables.replay is not None:
        existing(("replay", "renderer"), tables.replay.renderer, "replay renderer")
    for where, path, what in reporter_side:
        leak = next((seed for seed in seeded if path is not None and is_inside(seed, path)), None)
        if leak is not None:
            problems.append(doc.problem(where, f"{what} lies inside {leak.relative_to(folder).as_posix()}, which is "
                                        "seeded into every run, so the model would see it",
                                        "keep reporter-side files apart from the workspace, the specs and the "
                                        "contract schemas, e.g. under referee/ and house/"))
    return problems


def _schema_problems(doc: TomlDocument, key: KeyPath, path: Path) -> list[Problem]:
    """The schema is JSON and a valid JSON Schema: actions are validated against it in run mode."""
    import jsonschema

    name = path.name
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return [doc.problem(key, f"{name} is not JSON: {exc}", "write the schema as a JSON document")]
    if not isinstance(schema, (dict, bool)):
        return [doc.problem(key, f"{name} is a JSON {type(schema).__name__}, not a schema",
                            "a JSON Schema is an object (or true/false)")]
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(part) for part in exc.absolute_path) or "the root"
        return [doc.problem(key, f"{name} is not a valid JSON Schema: at {where}, {exc.message}",
                            "see https://json-schema.org/understanding-json-schema/")]
    return []


def _referee_problems(doc: TomlDocument, key: KeyPath, path: Path) -> list[Problem]:
    """The referee is Python that defines the five functions with the parameters they are called with."""
    if path.suffix != ".py":
        return [doc.problem(key, f"referee {path.name!r} is not a Python module (.py)",
                            "the referee is a Python module defining " + ", ".join(REFEREE_FUNCTIONS))]
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as exc:
        return [doc.problem(key, f"referee {path.name} does not parse: line {exc.lineno}: {exc.msg}")]
    except (OSError, ValueError) as exc:
        return [doc.problem(key, f"referee {path.name} cannot be read: {exc}")]
    defined: dict[str, ast.FunctionDef | None] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            defined[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update({t.id: None for t in targets if isinstance(t, ast.Name)})
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update({(alias.asname or alias.name).split(".")[0]: None for alias in node.names})
    problems: list[Problem] = []
    missing = [name for name in REFEREE_FUNCTIONS if name not in defined]
    if missing:
        problems.append(doc.problem(key, f"referee {path.name} does not define {', '.join(missing)}",
                                    "a referee defines " + "; ".join(f"{name}({', '.join(params)})"
                                                                     for name, params in REFEREE_FUNCTIONS.items())))
    for name, params in REFEREE_FUNCTIONS.items():
        function = defined.get(name)
        if function is not None and not _accepts(function.args, len(params)):
            problems.append(doc.problem(key, f"referee {path.name}:{function.lineno}: {name}() cannot be called with "
                                        f"{len(params)} positional argument{'s' if len(params) > 1 else ''}",
                                        f"define it as {name}({', '.join(params)})"))
    return problems


def _accepts(args: ast.arguments, count: int) -> bool:
    positional = len(args.posonlyargs) + len(args.args)
    required = positional - len(args.defaults)
    required_keywords = any(default is None for default in args.kw_defaults)
    return required <= count and (count <= positional or args.vararg is not None) and not required_keywords
