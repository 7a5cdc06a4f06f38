"""`--tcab-matrix`: the JSON a GitHub Actions `strategy.matrix` takes, one entry per case version
and variant (or engine) of the suite, each with the pytest arguments that run it.

The entries come from what the session collected, as `--collect-only` would list it, so the
options given with `--tcab-matrix` shape the shards: `--tcab-reference` puts each variant's
reference run in its entry, `-k`/`-m` narrow every entry, experimental cases stay out unless
opted in. An item belongs to the variant (or engine) its name or its run names; an item of the
case version as a whole (`slug`, `errata`) rides with the first variant; the suite's own files
(`tcab.toml`, `version.toml`, specifications, assets) make one `suite` entry. The session then
ends without running anything. With `$GITHUB_OUTPUT` set, `matrix=<json>` is appended to it.

In run mode each run is an entry of its own (a tournament is one run: its entrants' folders ride
with its items), and a run that cannot be collected is one too, its folder as its argument, so
its shard reports it; `--tcab-shards=N` deals the runs into N entries instead, as `--tcab-shard`
deals them (`pytest_tcab.shards`: by the hash of each run's name, or by `--tcab-shard-plan`'s
durations). A session of one run keeps the name of its case's entry.
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
from pytest_tcab.shards import Plan
from pytest_tcab.shards import PlanUnreadable
from pytest_tcab.shards import balanced
from pytest_tcab.shards import read_durations

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
    previous = config.getoption("tcab_shard_plan", None)
    if previous:  # read now: an earlier sweep that cannot be read is a usage error before collection
        try:
            read_durations(Path(previous))
        except PlanUnreadable as exc:
            raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(_MatrixPlugin(), "tcab-matrix")


class _MatrixPlugin:
    def __init__(self) -> None:
        self.failed_runs: list[str] = []
        """The node ids of run folders whose collection failed: each still goes to a shard."""

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and getattr(report, "tcab_run", None):
            self.failed_runs.append(report.nodeid)

    @pytest.hookimpl(trylast=True)  # after the terminal's own collection output, which --collect-only prints
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        config = session.config
        found = run_entries(config, session.items, self.failed_runs) if _run_mode(session.items, self.failed_runs) \
            else entries(session.items)
        document = json.dumps({"include": [entry.as_json() for entry in found]}, separators=(",", ":"))
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


def _run_mode(items: list[pytest.Item], failed_runs: list[str]) -> bool:
    return bool(failed_runs) or any(hasattr(getattr(item, "run", None), "run_properties") for item in items)


def run_entries(config: pytest.Config, items: list[pytest.Item], failed_runs: list[str]) -> list[Entry]:
    """One entry per run (or per shard of runs with `--tcab-shards`), in run name order."""
    runs: dict[str, Entry] = {}
    entrants: dict[str, list[str]] = {}
    for item in items:
        run = getattr(item, "run", None)
        if run is None or not hasattr(run, "run_properties"):
            continue
        if run.label not in runs:
            identity = run.run_properties()
            fields = {key: identity[key] for key in ("run", "case", "version", "variant", "engine", "layout")}
            runs[run.label] = Entry(run.label, fields)
            entrants[run.label] = _entrant_folders(config, run)
        runs[run.label].nodeids.append(item.nodeid)
    for label, folders in entrants.items():  # after the first run's ids: the entrants keep their order
        runs[label].nodeids.extend(folders)
    for nodeid in failed_runs:
        label = Path(nodeid).name
        runs.setdefault(label, Entry(label, {"run": label}, [nodeid]))
    ordered = [runs[label] for label in sorted(runs)]
    shards = config.getoption("tcab_shards")
    if shards:
        plan = _plan(config, ordered, shards)
        dealt = [Entry(f"runs {index + 1} of {shards}", {"shard": str(index + 1), "plan": plan.name})
                 for index in range(shards)]
        for entry in ordered:
            shard = dealt[plan.index_of(entry.name)]
            shard.nodeids.extend(entry.nodeids)
            shard.fields["runs"] = " ".join(filter(None, [shard.fields.get("runs"), entry.name]))
        return [entry for entry in dealt if entry.nodeids]
    if len(ordered) == 1 and ordered[0].fields.get("case"):  # one run: its case's entry, as in author mode
        fields = ordered[0].fields
        layout = fields.pop("layout")
        named = _entry({}, fields["case"], fields["version"], layout,
                       fields["engine"] if layout == "definition" else fields["variant"])
        return [Entry(named.name, named.fields, ordered[0].nodeids)]
    for entry in ordered:
        entry.fields.pop("layout", None)
    return ordered


def _plan(config: pytest.Config, runs: list[Entry], count: int) -> Plan:
    """How `--tcab-shards` deals the runs: as `--tcab-shard` does, by hash or by `--tcab-shard-plan`."""
    previous = config.getoption("tcab_shard_plan", None)
    if not previous:
        return Plan(count)
    try:
        return balanced({entry.name: entry.fields.get("case") for entry in runs}, count, Path(previous))
    except PlanUnreadable as exc:
        raise pytest.UsageError(str(exc)) from None


def _entrant_folders(config: pytest.Config, run: object) -> list[str]:
    """The folders of a tournament's entrants but the first (whose run.toml its items hang under):
    given as paths, they make the shard's session play the same tournament."""
    entrants = getattr(run, "entrants", ())
    return [os.path.relpath(entrant.source, config.invocation_params.dir) for entrant in entrants[1:]]


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

