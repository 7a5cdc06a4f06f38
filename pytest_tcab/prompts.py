"""Template contexts of both layouts, and the `template[...]` items that render them strictly.

Each context holds exactly the names DESIGN lists, so a template naming anything else fails
with its line and the variable instead of rendering a blank:

- test-suite prompt: `workspace`, `engine.slug|name|docs`, `specifications[]` with
  `this.id|name|summary|path`;
- catalog prompt: `workspace`, `time_limit_hours`, `variant.slug|name|description`, `specs[]`
  with `this.path|dest|name`;
- catalog spec templates (`*.hbs` specs): `version`, `variant.slug|name|description`.

Items are named by the template's path in the version folder and the run choice that changes
its context: `template[prompt.hbs#frenzy]` per variant of a catalog case (`#default` for a case
without variant files), `template[prompts/build.hbs:simple-2d]` per engine of a definition
that declares engines, and plain `template[prompts/sprite.hbs]` for one that declares none.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from pathlib import PurePosixPath
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import DefinitionCase
from pytest_tcab.case import Variant
from pytest_tcab.errors import Problem
from pytest_tcab.items import Location
from pytest_tcab.items import ProblemsItem
from pytest_tcab.items import key_location
from pytest_tcab.items import same_file
from pytest_tcab.models.definition import CODE_TYPES
from pytest_tcab.models.manifest import SpecEntry
from pytest_tcab.models.manifest import humanize
from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.resolve.definition import NO_ENGINE
from pytest_tcab.session import suite_for
from pytest_tcab.template_shapes import ListOf
from pytest_tcab.template_shapes import Shape
from pytest_tcab.template_shapes import unknown_name
from pytest_tcab.templates import StrictTemplate
from pytest_tcab.templates import TemplateError
from pytest_tcab.templates import compile_template
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import load

RUN_WORKSPACE = "/workspace"
"""The absolute in-container path of the run workspace, where DIR of a seed is mounted."""
NO_ENGINE_NAME = "No engine"
"""`engine.name` when no engine is selected (its docs are then empty)."""


def run_path(dest: str) -> str:
    """The in-container path of a file seeded at `dest` (relative to the run workspace)."""
    return f"{RUN_WORKSPACE}/{dest}"


def engine_docs_dest(engine: str) -> str:
    """Where an engine's documentation is seeded, relative to the run workspace."""
    return f".tcab/engines/{engine}"


def specification_dest(path: str) -> str:
    """Where a specification document is seeded: `specs/<path>`."""
    return f"specs/{path}"


@dataclass(frozen=True)
class Rendering:
    """One template with one context: what a run would be handed, or a located problem."""

    template: Path
    name: str
    """The template's path relative to its version folder, as errors show it."""
    context: Mapping[str, Any]
    shape: Shape
    """What every context of this kind holds, whatever its values: each path of the template is
    checked against it, not only the one this context renders."""

    def compiled(self) -> StrictTemplate:
        try:
            source = self.template.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise TemplateError(self.name, None, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except OSError as exc:
            raise TemplateError(self.name, None, f"cannot be read: {exc.strerror or exc}") from None
        return compile_template(source, self.name)

    def render(self) -> str:
        """The rendered text; a `TemplateError` at the template's line otherwise."""
        return self.compiled().render(self.context)

    def checked(self) -> str:
        """The rendered text, once every path of the template names only what the shape holds."""
        template = self.compiled()
        text = template.render(self.context)
        error = unknown_name(template, self.shape)
        if error is not None:
            raise error
        return text

    def problems(self) -> list[Problem]:
        """No problem when it renders and every branch checks; else the template error, at its line."""
        try:
            self.checked()
        except TemplateError as error:
            return [as_problem(self.template, error)]
        return []


def as_problem(template: Path, error: TemplateError) -> Problem:
    """A template error located at the template file itself, so it reads like any other problem."""
    return Problem(template, error.line, (), error.message, error.hint)


# -- contexts ---------------------------------------------------------------------------------


VARIANT_SHAPE: Shape = {"slug": None, "name": None, "description": None}
CATALOG_PROMPT_SHAPE: Shape = {
    "workspace": None,
    "time_limit_hours": None,
    "variant": VARIANT_SHAPE,
    "specs": ListOf({"path": None, "dest": None, "name": None}),
}
CATALOG_SPEC_SHAPE: Shape = {"version": None, "variant": VARIANT_SHAPE}
DEFINITION_PROMPT_SHAPE: Shape = {
    "workspace": None,
    "engine": {"slug": None, "name": None, "docs": None},
    "specifications": ListOf({"id": None, "name": None, "summary": None, "path": None}),
}


def _variant(variant: Variant) -> dict[str, Any]:
    return {"slug": variant.slug, "name": variant.name, "description": variant.description}


def catalog_prompt(case: CaseVersion, variant: Variant) -> Rendering:
    specs = [
        {"path": run_path(spec.seeded_dest), "dest": spec.seeded_dest, "name": spec_name(spec)}
        for spec in variant.specs
    ]
    context = {
        "workspace": RUN_WORKSPACE,
        "time_limit_hours": case.max_runtime_hours,
        "variant": _variant(variant),
        "specs": specs,
    }
    return Rendering(case.prompt, _relative(case.prompt, case.folder), context, CATALOG_PROMPT_SHAPE)


def spec_name(spec: SpecEntry) -> str:
    """A spec's display name: its seeded file's stem, humanized (`specs/modes/frenzy.md` -> `Frenzy`)."""
    return humanize(PurePosixPath(spec.seeded_dest).stem)


def catalog_spec(case: CaseVersion, variant: Variant, spec: SpecEntry) -> Rendering:
    context = {"version": case.version, "variant": _variant(variant)}
    return Rendering(case.folder / spec.source, spec.source, context, CATALOG_SPEC_SHAPE)


def definition_prompt(case: DefinitionCase, engine: str, config: SuiteConfig) -> Rendering:
    context = {
        "workspace": RUN_WORKSPACE,
        "engine": _engine(engine, config),
        "specifications": [
            {"id": s.id, "name": s.name, "summary": s.summary, "path": run_path(specification_dest(s.path))}
            for s in case.specifications
        ],
    }
    return Rendering(case.prompt, _relative(case.prompt, case.folder), context, DEFINITION_PROMPT_SHAPE)


def _engine(engine: str, config: SuiteConfig) -> dict[str, str]:
    if engine == NO_ENGINE:
        return {"slug": NO_ENGINE, "name": NO_ENGINE_NAME, "docs": ""}
    declared = config.engines.get(engine)
    if declared is None:  # a suite without tcab.toml knows its engines by slug alone
        return {"slug": engine, "name": humanize(engine), "docs": ""}
    docs = run_path(engine_docs_dest(engine)) if declared.docs is not None else ""
    return {"slug": engine, "name": declared.name, "docs": docs}


def _relative(path: Path, folder: Path) -> str:
    return os.path.relpath(path, folder).replace(os.sep, "/")


# -- items ------------------------------------------------------------------------------------


class TemplateItem(ProblemsItem):
    """`template[<file>...]`: one template rendered strictly with one run's context.

    It lives in the file that names its template, at the key naming it (`prompt = ...`, the
    `[[spec]]` whose `source` it is): an explorer opens that file. It passes when the template
    renders, keeping the text as a report section (`-rP` shows what the harness would be
    handed); it fails with the template's own `file:line` and the variable.
    """

    def __init__(self, *, rendering: Rendering, **kwargs: Any) -> None:
        super().__init__(check=self._render, **kwargs)
        self.rendering = rendering

    def _render(self) -> list[Problem]:
        try:
            text = self.rendering.checked()
        except TemplateError as error:
            return [as_problem(self.rendering.template, error)]
        self.add_report_section("call", "rendered", text)
        return []


def catalog_template_items(parent: pytest.Collector, case: CaseVersion,
                           experimental: bool) -> Iterator[TemplateItem]:
    """The prompt per variant, then each `.hbs` spec per variant that seeds it."""
    located = reading(parent.config, case.manifest_path)
    renderings = [(variant.slug, catalog_prompt(case, variant)) for variant in case.variants]
    for spec in dict.fromkeys(spec for variant in case.variants for spec in variant.specs if spec.is_template):
        renderings.extend((variant.slug, catalog_spec(case, variant, spec))
                          for variant in case.variants if spec in variant.specs)
    for variant, rendering in renderings:
        yield TemplateItem.from_parent(parent, name=f"template[{rendering.name}#{variant}]", rendering=rendering,
                                       where=lambda rendering=rendering: located(naming_line, case.manifest_path, rendering),
                                       experimental=experimental)


def reading(config: pytest.Config, path: Path) -> Callable[..., Location]:
    """Calls a locating function with the documents the suite of `path` already parsed."""
    def located(locate: Callable[..., Location], *args: Any) -> Location:
        with suite_for(config, path).reading():
            return locate(*args)
    return located


def naming_line(manifest: Path, rendering: Rendering) -> Location:
    """The key of `manifest` that names the template: `prompt`, or the `[[spec]]` whose `source`
    it is (a spec a variant file adds: the `variants` key that names that file)."""
    loaded = load(manifest)
    data = loaded.data if isinstance(loaded, TomlDocument) else {}
    if _names(manifest, data.get("prompt"), rendering.template):
        return key_location(manifest, ("prompt",))
    specs = data.get("spec")
    for index, spec in enumerate(specs if isinstance(specs, list) else []):
        if isinstance(spec, dict) and _names(manifest, spec.get("source"), rendering.template):
            return key_location(manifest, ("spec", index, "source"))
    return key_location(manifest, ("variants",), ("prompt",))


def _names(manifest: Path, value: object, template: Path) -> bool:
    return isinstance(value, str) and same_file(manifest.parent / value, template)


def definition_template_items(parent: pytest.Collector, case: DefinitionCase, config: SuiteConfig,
                              experimental: bool) -> Iterator[TemplateItem]:
    """The prompt per engine of a code-producing definition; once for a type without engines."""
    located = reading(parent.config, case.path)
    for engine in case.engines:
        rendering = definition_prompt(case, engine, config)
        suffix = f":{engine}" if case.case_type in CODE_TYPES else ""
        yield TemplateItem.from_parent(parent, name=f"template[{rendering.name}{suffix}]", rendering=rendering,
                                       where=lambda: located(key_location, case.path, ("prompt",)),
                                       experimental=experimental)
