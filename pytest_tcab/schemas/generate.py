"""JSON Schemas (draft 2020-12) of every TOML file a suite holds, generated from the pydantic models.

The models are the one source: a field, its docstring (the hover text), its enum, default and
constraints reach the schema with no second list to keep. pydantic's output is then made to read
as TOML does: TOML has no null, so optional keys lose their `null` branch; titles (Python names)
go; a union keyed by `type` becomes `if`/`then` branches, so an editor reports the mistakes of the
branch the document chose rather than of every branch at once.

`python -m pytest_tcab.schemas.generate` writes them into the package (tests check they are current).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from pytest_tcab.models.definition import DEFINITION_MODELS
from pytest_tcab.models.definition import Asset
from pytest_tcab.models.definition import Specification
from pytest_tcab.models.definition import VersionInfo
from pytest_tcab.models.errata import ErrataFile
from pytest_tcab.models.manifest import AdversarialManifest
from pytest_tcab.models.manifest import Manifest
from pytest_tcab.models.manifest import PerformanceManifest
from pytest_tcab.models.manifest import VariantFile
from pytest_tcab.models.manifest import WasmVariantFile
from pytest_tcab.models.suite import RunFile
from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.resolve.manifest import CASE_TYPES

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parent
SPANNING = (
    "Rules that span files stay the plugin's (`pytest --tcab-suite=SUITE` checks them): {rules}."
)


@dataclass(frozen=True)
class FileKind:
    """One kind of TOML file: where the layouts put it and which model (or models, by `type`) it mirrors."""

    name: str
    """The schema's file stem: `<name>.schema.json`."""
    file: str
    """The file as an author knows it (the schema's title)."""
    layout: str
    globs: tuple[str, ...]
    """Where the layout puts it, as taplo `include` globs (any depth under the suite root)."""
    models: dict[str, type[BaseModel]]
    """The model of each `type` value; the key `""` is the model of a file that names none."""
    about: str
    spanning: str
    """The rules a single file cannot show, which the plugin alone checks."""
    types: tuple[str, ...] = ()
    """The values `type` may take (when the models are chosen by it)."""

    @property
    def filename(self) -> str:
        return f"{self.name}.schema.json"

    def model_for(self, data: Mapping[str, Any]) -> type[BaseModel] | None:
        """The model the plugin validates a document of this kind with; None for a `type` none has."""
        declared = data.get("type")
        if isinstance(declared, str) and declared in self.models:
            return self.models[declared]
        return self.models.get("")


_CATALOG = "**/test-cases/*/*/*/*"
_VERSION = "**/versions/*"

FILE_KINDS: tuple[FileKind, ...] = (
    FileKind(
        "test-case", "test-case.toml", "catalog", (f"{_CATALOG}/test-case.toml",),
        {"performance": PerformanceManifest, "adversarial": AdversarialManifest, "": Manifest},
        "A catalog case version's manifest: what is seeded into a run, which references are rendered as "
        "visual targets, which checks run and how the checklist is scored. `type` (default: the type folder) "
        "chooses the keys: a performance or adversarial case carries its wasm tables instead of review material.",
        "paths exist inside the version folder (prompt, changelog, specs, references, variants, workspace); the "
        "slug is declared identically on every version of a folder; the type and difficulty agree with their "
        "folders; ids are unique within a variant's effective set; review items name declared references, "
        "proofs and domains; packages are in the suite's package store; templates render with known variables",
        CASE_TYPES,
    ),
    FileKind(
        "variant", "variants/<slug>.toml", "catalog", (f"{_CATALOG}/variants/*.toml",), {"": VariantFile},
        "A standalone variant file of a code-producing catalog case: its own slug, additive specs, references, "
        "review items and domains, and an optional reference implementation. Every path in it is relative to "
        "the version folder.",
        "the file is listed in its manifest's `variants`; its slug is unique among the case's variants; a view "
        "is declared once across the common references and the variant's; domain and item ids are unique "
        "across the common ones and the variant's own; the review grammar matches the manifest's",
    ),
    FileKind(
        "wasm-variant", "variants/<slug>.toml (performance, adversarial)", "catalog",
        ("**/test-cases/performance/*/*/*/variants/*.toml", "**/test-cases/adversarial/*/*/*/variants/*.toml"),
        {"": WasmVariantFile},
        "A variant file of a performance or adversarial catalog case: a slug, a name and additive specs.",
        "the file is listed in its manifest's `variants`; its slug is unique among the case's variants; its "
        "spec sources exist inside the version folder",
    ),
    FileKind(
        "errata", "errata.toml", "catalog", (f"{_CATALOG}/errata.toml",), {"": ErrataFile},
        "Known issues with a shipped case version, auto-discovered beside its manifest; site-facing, never seeded.",
        "ids are unique within the file; `variant` names a declared variant; `review` names a verdict id of "
        "the case's checklist",
    ),
    FileKind(
        "tcab", "tcab.toml", "suite root", ("**/tcab.toml",), {"": SuiteConfig},
        "The suite's own configuration at its root: the engines definitions may select and the package store "
        "cases draw `packages` from.",
        "engine docs folders and package folders exist under the suite root",
    ),
    FileKind(
        "version", "version.toml", "test suite", (f"{_VERSION}/version.toml",), {"": VersionInfo},
        "What the site shows about one suite version (`versions/<version>/version.toml`).",
        "`version` names the version folder it lives in; the changelog and description exist",
    ),
    FileKind(
        "definition", "test-cases/<name>.toml", "test suite", (f"{_VERSION}/test-cases/*.toml",),
        DEFINITION_MODELS,
        "A test-suite definition: one runnable test case of the suite version, its slug the file stem. "
        "`type` is required and decides which keys and type table the definition carries (a key another "
        "type owns is refused).",
        "paths exist under the suite tree (prompt, workspaces, validators); engines are `none` or declared in "
        "tcab.toml, and each has a workspace; `specifications` name specification ids of the version; the "
        "type table's `id` names an asset whose kind fits the type; the prompt renders with known variables",
        tuple(DEFINITION_MODELS),
    ),
    FileKind(
        "specification", "specification.toml", "test suite", (f"{_VERSION}/specifications/**/specification.toml",),
        {"": Specification},
        "A specification of the suite version; its prose is `specification.md` beside it, and it is seeded "
        "with its requirements at `path` under specs/.",
        "ids of specifications and requirements are unique in the suite version; `specification.md` and the "
        "validators exist",
    ),
    FileKind(
        "asset", "asset.toml", "test suite", (f"{_VERSION}/assets/*/asset.toml",), {"": Asset},
        "An asset a run is given or a model is asked to produce (`assets/<id>/asset.toml`).",
        "`id` equals the folder name; `specification` names a specification of the version; the files exist",
    ),
    FileKind(
        "run", ".tcab/run.toml", "runs", ("**/.tcab/run.toml",), {"": RunFile},
        "A run folder's record: which case, version, variant and engine it was produced for, and who produced it.",
        "the case, version, variant and engine exist in the suite",
    ),
)
"""Every TOML file kind of a suite, in the order the docs list them."""


def schemas() -> dict[str, dict[str, Any]]:
    """Every file kind's schema, by file name."""
    return {kind.filename: schema(kind) for kind in FILE_KINDS}


def schema(kind: FileKind) -> dict[str, Any]:
    """The JSON Schema of one file kind: its root model's keys at the top, the nested tables in `$defs`."""
    models = list(dict.fromkeys(kind.models.values()))
    _, generated = models_json_schema([(model, "validation") for model in models], ref_template="#/$defs/{model}")
    defs: dict[str, Any] = {name: _toml(node) for name, node in generated["$defs"].items()}
    head = {"$schema": DRAFT, "title": kind.file,
            "description": f"{kind.about}\n\n{SPANNING.format(rules=kind.spanning)}"}
    if len(models) == 1:
        (model,) = models
        root = defs.pop(model.__name__)
        root["description"] = head["description"]
        return {**head, **root, "$defs": defs}
    branches = {value: model.__name__ for value, model in kind.models.items() if value}
    root = _by_type(branches, kind.models.get(""), kind.types, required="" not in kind.models)
    # Every branch's keys, described but unconstrained, so an editor completes and explains them before
    # `type` is written (the branch the document chose does the checking).
    for model in sorted(models, key=lambda model: model is not kind.models.get("")):
        for key, node in defs[model.__name__]["properties"].items():
            root["properties"].setdefault(key, {"description": node["description"]})
    return {**head, **root, "$defs": defs}


def _by_type(branches: dict[str, str], default: type[BaseModel] | None, types: tuple[str, ...],
             *, required: bool) -> dict[str, Any]:
    """A table whose `type` chooses its schema: one `if`/`then` per value (and `else`, the default's)."""
    cases: list[dict[str, Any]] = [
        {"if": {"properties": {"type": {"const": value}}, "required": ["type"]}, "then": {"$ref": f"#/$defs/{name}"}}
        for value, name in branches.items()
    ]
    if default is not None:
        cases.append({"if": {"properties": {"type": {"enum": list(branches)}}, "required": ["type"]},
                      "else": {"$ref": f"#/$defs/{default.__name__}"}})
    node: dict[str, Any] = {
        "type": "object",
        "properties": {"type": {"enum": list(types or branches), "description": "The test case type: it decides "
                                "which keys the table carries."}},
        "allOf": cases,
    }
    if required:
        node["required"] = ["type"]
    return node


_LINE_BREAK = re.compile(r"(?<!\n)\n(?!\n)")
_SUBSCHEMA_MAPS = ("properties", "$defs", "patternProperties")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else", "propertyNames", "contains")


def _toml(node: dict[str, Any]) -> dict[str, Any]:
    """One pydantic schema node as a TOML document can meet it (recursively)."""
    node = dict(node)
    if isinstance(node.get("title"), str):
        del node["title"]
    if node.get("default", ...) is None:
        del node["default"]
    if isinstance(node.get("description"), str):  # a wrapped docstring reads as one paragraph
        node["description"] = _LINE_BREAK.sub(" ", node["description"])
    for key in _SUBSCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            node[key] = {name: _toml(sub) for name, sub in node[key].items()}
    for key in _SUBSCHEMA_LISTS:
        if isinstance(node.get(key), list):
            node[key] = [_toml(sub) for sub in node[key] if sub != {"type": "null"}]
    for key in _SUBSCHEMAS:
        if isinstance(node.get(key), dict):
            node[key] = _toml(node[key])
    if len(node.get("patternProperties", ())) == 1 and "additionalProperties" not in node:
        # pydantic spells a constrained table key as a pattern, which lets any other key through
        ((pattern, value),) = node.pop("patternProperties").items()
        node["propertyNames"] = {"pattern": pattern}
        node["additionalProperties"] = value
    if "discriminator" in node:
        mapping = node.pop("discriminator")["mapping"]
        del node["oneOf"]
        node.update(_by_type({value: ref.rsplit("/", 1)[1] for value, ref in mapping.items()}, None, (),
                             required=True))
        node["properties"]["type"]["description"] = "The kind of action: it decides the action's other keys."
    if list(node.get("anyOf", ())) and len(node["anyOf"]) == 1:  # `X | None` in TOML is X, or the key left out
        (only,) = node.pop("anyOf")
        node = {**only, **node}
    return node


def refs(node: Any) -> Iterator[str]:
    """Every `$ref` in a schema (to check that each resolves)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def dumps(document: dict[str, Any]) -> str:
    """A schema as the package ships it: stable key order, so a regenerated file diffs cleanly."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    """Write every schema into the package, beside this module."""
    for name, document in schemas().items():
        (SCHEMA_DIR / name).write_text(dumps(document), encoding="utf-8")
        print(SCHEMA_DIR / name)


if __name__ == "__main__":
    main()
