"""`--tcab-matrix`: the JSON a GitHub Actions `strategy.matrix` takes, one entry per case version
and variant (or engine) of the suite, each with the pytest arguments that run it.

The entries come from what the session collected, as `--collect-only` would list it, so the
options given with `--tcab-matrix` shape the shards: `--tcab-reference` puts each variant's
reference run in its entry, `-k`/`-m` narrow every entry, experimental cases stay out unless
opted in. An item belongs to the variant (or engine) its name or its run names; an item of the
case version as a whole (`slug`, `errata`) rides with the first variant; the suite's own files
(`tcab.toml`, `version.toml`, specifications, assets) make one `suite` entry. The session then
ends without running anything. With `$GITHUB_OUTPUT` set, `matrix=<json>` is appended to it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import pytest

from pytest_tcab.session import suite_for

SUITE_ENTRY = "suite"
"""The entry of the suite's own files: tcab.toml, version.toml, specifications, assets."""
_CHOICE = re.compile(r"\[(?:[^\]]*[#:])?([^\]#:]+)\]$")
"""The variant or engine an author item's name ends with: `resolve[base]`, `template[p.hbs#base]`,
`template[prompts/build.hbs:simple-2d]`, `seed[none]` (checked against the case's own)."""


@dataclass
class Entry:
    """One shard: a case version's variant (or a definition's engine), and its items' node ids."""

    name: str
    fields: dict[str, str]
    nodeids: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, str]:
        return {
            "name": self.name,
            "id": re.sub(r"[^A-Za-z0-9._-]+", "-", self.name).strip("-"),
            **self.fields,
            "args": " ".join(shlex.quote(nodeid) for nodeid in self.nodeids),
        }


def configure(config: pytest.Config) -> None:
    """The matrix is worked out in one process: pytest-xdist has nothing to distribute."""
    if getattr(config.option, "numprocesses", None):
        config.option.numprocesses = 0
        config.option.dist = "no"
    config.pluginmanager.register(_MatrixPlugin(), "tcab-matrix")


class _MatrixPlugin:
    @pytest.hookimpl(trylast=True)  # after the terminal's own collection output, which --collect-only prints
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        document = json.dumps({"include": [entry.as_json() for entry in entries(session.items)]},
                              separators=(",", ":"))
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(document)
        output = os.environ.get("GITHUB_OUTPUT")
        if output:
            with open(output, "a", encoding="utf-8") as out:
                out.write(f"matrix={document}\n")
        session.config.option.collectonly = True  # as --collect-only: the session ends without running


def entries(items: list[pytest.Item]) -> list[Entry]:
    """The shards of `items`, in collection order; items that are not tcab's are left out."""
    found: dict[str, Entry] = {}
    for item in items:
        entry = _entry_of(item, found)
        if entry is not None:
            entry.nodeids.append(item.nodeid)
    return [entry for entry in found.values() if entry.nodeids]


def _entry_of(item: pytest.Item, found: dict[str, Entry]) -> Entry | None:
    run = getattr(item, "run", None)
    if run is not None and hasattr(run, "run_properties"):
        identity = run.run_properties()
        return _entry(found, identity["case"], identity["version"], identity["layout"],
                      identity["engine"] if identity["layout"] == "definition" else identity["variant"])
    if not type(item).__module__.startswith("pytest_tcab."):
        return None
    case_file = next((node for node in reversed(item.listchain()) if isinstance(node, pytest.File)), None)
    if case_file is None:
        return None
    case = _case_of(item.config, case_file.path)
    if case is None:
        return _suite_entry(found)
    slug, version, layout, choices = case
    if not choices:  # the case version does not resolve: one entry for its file
        return _entry(found, slug, version, layout, None)
    match = _CHOICE.search(item.name)
    chosen = match[1] if match and match[1] in choices else choices[0]
    return _entry(found, slug, version, layout, chosen)


def _entry(found: dict[str, Entry], slug: str, version: str, layout: str, choice: str | None) -> Entry:
    mark = ":" if layout == "definition" else "#"
    name = f"{slug}@{version}{mark}{choice}" if choice else f"{slug}@{version}"
    if name not in found:
        fields = {"case": slug, "version": version}
        if choice:
            fields["engine" if layout == "definition" else "variant"] = choice
        found[name] = Entry(name, fields)
    return found[name]


def _suite_entry(found: dict[str, Entry]) -> Entry:
    return found.setdefault(SUITE_ENTRY, Entry(SUITE_ENTRY, {}))


def _case_of(config: pytest.Config, path: Path) -> tuple[str, str, str, list[str]] | None:
    """The slug, version, layout and variants (or engines) of the case file `path`; None for a
    suite file that is no case. A case version that does not resolve has no choices."""
    from pytest_tcab.resolve.definition import definition_version_folder

    suite = suite_for(config, path)
    if path.name == "test-case.toml":
        resolution = suite.resolve(path)
        if resolution.case is None:
            return path.parent.parent.name, path.parent.name, "catalog", []
        case = resolution.case
        return case.slug, case.version, "catalog", [variant.slug for variant in case.variants]
    if definition_version_folder(path) is None:
        return None
    definition = suite.resolve_definition(path)
    if definition.case is None:
        return path.stem, path.parents[1].name, "definition", []
    found = definition.case
    return found.slug, found.version, "definition", list(found.engines)

