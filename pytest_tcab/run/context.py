"""Run mode: a produced implementation validated against the case, variant and engine it names.

`--tcab-run=DIR` collects DIR as a `RunDirectory`; `--tcab-reference` adds a `ReferenceRun`
per variant with a reference implementation under its manifest. Both share one `RunContext`
per run: the resolved case, the tree to build, the build (done once, on first use), and the
loopback server that serves the static output and, from a separate path, the reporter-side
files. Families of items (checks, drivers, performance, ...) answer `pytest_tcab_run_items` in turn.
"""

from __future__ import annotations

import functools
import importlib
import re
import shutil
import tempfile
from collections.abc import Generator
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.bounded import bound_tree
from pytest_tcab.case import Adversarial
from pytest_tcab.case import CaseVersion
from pytest_tcab.case import DefinitionCase
from pytest_tcab.case import Performance
from pytest_tcab.case import Variant
from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.errors import TcabError
from pytest_tcab.failures import is_plain
from pytest_tcab.failures import item_failure
from pytest_tcab.models.definition import AdversarialDefinition
from pytest_tcab.models.definition import CodeDefinition
from pytest_tcab.models.definition import PerformanceDefinition
from pytest_tcab.models.definition import Toolchain
from pytest_tcab.models.manifest import Build
from pytest_tcab.models.manifest import humanize
from pytest_tcab.models.suite import RunFile
from pytest_tcab.models.validate import validate
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.options import EXPERIMENTAL_OPTION
from pytest_tcab.outcomes import skip_unless_strict
from pytest_tcab.resolve.adversarial import adversarial_case
from pytest_tcab.resolve.common import indefinite
from pytest_tcab.resolve.manifest import DEFAULT_VARIANT
from pytest_tcab.session import experimental_allowed
from pytest_tcab.suite import FoundDefinition
from pytest_tcab.suite import Suite
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import line_in
from pytest_tcab.toml import load

if TYPE_CHECKING:
    from pytest_tcab.models.manifest import Proof
    from pytest_tcab.run.build import BuildResult
    from pytest_tcab.run.serve import StaticServer

RUN_FILE = Path(".tcab/run.toml")
REPORTER_PREFIX = "/__tcab__/"
"""URL prefix of reporter-side files (drivers, mockups), served from the run's snapshot
(`RunContext.reporter_folder`), never from the produced tree or the suite on disk."""
BASELINE_FOLDER = "validation-baseline"
"""Committed validation baselines live in `<version>/validation-baseline/<variant>/`."""
STRIPPED_PREFIX = "/__tcab_ts__/"
"""URL prefix of `.ts` drivers and validators, served as the JavaScript esbuild made of them."""
_CASE_SPEC = re.compile(
    r"(?P<case>[^@#:]+)(?:@(?P<version>[^#:]+))?(?:#(?P<variant>[^:]+))?(?::(?P<engine>.+))?"
)


class RunError(TcabError):
    """The run cannot be set up: no run.toml, or a case run mode cannot validate."""


@dataclass(frozen=True)
class RunSpec:
    """Which case, version, variant and engine a run was produced for."""

    case: str
    version: str | None = None
    variant: str | None = None
    engine: str | None = None

    @classmethod
    def parse(cls, text: str) -> RunSpec:
        """`SLUG[@VERSION][#VARIANT][:ENGINE]`, as `--tcab-case` and `--tcab-seed` take it."""
        match = _CASE_SPEC.fullmatch(text.strip())
        if match is None:
            raise RunError(f"{text!r} is not SLUG[@VERSION][#VARIANT][:ENGINE]")
        return cls(**match.groupdict())

    def over(self, other: RunSpec) -> RunSpec:
        """This spec with the parts it leaves open taken from `other`."""
        return RunSpec(
            self.case,
            self.version or other.version,
            self.variant or other.variant,
            self.engine or other.engine,
        )


def read_run_spec(run_dir: Path, override: str | None) -> RunSpec:
    """The run's spec: `--tcab-case` wins over `DIR/.tcab/run.toml`, part by part."""
    given = RunSpec.parse(override) if override else None
    path = run_dir / RUN_FILE
    if not path.is_file():
        if given is None:
            raise RunError(
                f"{path} does not exist, so the run names no case; "
                "write one (case = \"<slug>\") or pass --tcab-case=SLUG[@VERSION][#VARIANT][:ENGINE]"
            )
        return given
    loaded = load(path)
    if isinstance(loaded, Problem):
        raise ProblemsFound([loaded])
    run_file, problems = validate(RunFile, loaded)
    if run_file is None:
        raise ProblemsFound(problems)
    spec = RunSpec(run_file.case, run_file.version, run_file.variant, run_file.engine)
    return given.over(spec) if given is not None and given.case == spec.case else (given or spec)


def find_case(suite: Suite, spec: RunSpec, *, allow_experimental: bool = True) -> tuple[CaseVersion, Variant]:
    """The case version and variant a run validates, or a `TcabError` saying what exists instead.

    An experimental case refuses to resolve unless the deployment opts in (spec/manifests.md):
    it is treated as if it did not exist, so it is never built or graded.
    """
    found = suite.find(spec.case, spec.version, spec.variant, spec.engine)
    if found.experimental and not allow_experimental:
        raise RunError(f"case {spec.case!r} ({found.case.version}) is experimental, and this deployment has not "
                       "opted in to experimental cases, so it refuses to resolve and is not run; "
                       f"pass {EXPERIMENTAL_OPTION} or set TCAB_BACKEND_ALLOW_EXPERIMENTAL=1 to run it")
    if isinstance(found, FoundDefinition):
        return definition_run_case(found.case, found.engine)
    return found.case, found.variant


def definition_run_case(definition: DefinitionCase, engine: str) -> tuple[CaseVersion, Variant]:
    """A definition recast as the case version run mode works from, with its one default variant.

    A performance definition carries the same tables as a performance manifest, so its run is
    the catalog's to the item; a code-producing one builds like a catalog game and adds its
    `[toolchain]` and requirements; an asset-producing one builds nothing: its files are measured
    against the reference asset; an adversarial one is a tournament of the runs' controllers.
    """
    model = definition.model
    variant = Variant(slug=DEFAULT_VARIANT, name=humanize(DEFAULT_VARIANT), description=None,
                      workspace=definition.workspaces.get(engine), reference_implementation=None, specs=(),
                      references=(), proofs=(), checklist=(), domains=())
    build: Build | None = None
    performance: Performance | None = None
    toolchain: Toolchain | None = None
    handle: str | None = None
    adversarial: Adversarial | None = None
    tick_hz: int | None = None
    if isinstance(model, PerformanceDefinition):
        build = Build(install=model.build.install, build=model.build.build)
        performance = Performance(build=model.build, contract=model.contract, sandbox=model.sandbox,
                                  cases=tuple(model.case))
    elif isinstance(model, CodeDefinition):
        build, toolchain = model.build, model.toolchain
        if model.instrumentation is not None:
            handle, tick_hz = model.instrumentation.handle, model.instrumentation.tick_hz
    elif isinstance(model, AdversarialDefinition):
        build = Build(install=model.build.install, build=model.build.build)
        adversarial = adversarial_case(definition.folder, model)
    else:
        assert definition.produces is not None, f"a {model.type} definition produces an asset"
    case = CaseVersion(
        slug=definition.slug,
        version=definition.version,
        case_type=definition.case_type,
        folder=definition.folder,
        manifest_path=definition.path,
        name=definition.name,
        prompt=definition.prompt,
        max_runtime_hours=definition.max_runtime_hours,
        build=build,
        checks=(),
        handle=handle,
        tick_hz=tick_hz,
        assets=(),
        packages=(),
        variants=(variant,),
        errata=(),
        performance=performance,
        adversarial=adversarial,
        toolchain=toolchain,
        layout="definition",
        definition=definition,
    )
    return case, variant


class RunContext:
    """What every item of one run shares; built and served at most once per session."""

    def __init__(self, config: pytest.Config, case: CaseVersion, variant: Variant, source: Path,
                 engine: str, label: str, reference: bool = False,
                 entrants: tuple[RunContext, ...] = ()) -> None:
        self.config = config
        self.entrants = entrants or (self,)
        """The runs whose controllers play each other (an adversarial case): this run alone, or the
        runs given together, whose tournament this context stands for."""
        self.reference = reference
        """A reference implementation: the authored answer, which is asked for no proofs."""
        self.case = case
        self.variant = variant
        self.source = source
        self.engine = engine
        self.label = label
        """Distinguishes runs in results.json: the run dir's name, or `reference-<slug>-<version>-<variant>`."""
        self._build: BuildResult | None = None
        self._server: StaticServer | None = None
        self._scratch: Path | None = None
        from pytest_tcab.run.snapshot import reporter_copy

        self.reporter_folder = reporter_copy(config, case.folder, self.reporter_paths())
        """The private copy of the case's reporter-side material, taken now, at collection, before any
        build step: drivers, baselines, mockups and performance cases are read from it, never the suite."""

    def reporter_paths(self) -> list[str]:
        """The reporter-side paths of this run, relative to the case folder (see `run.snapshot`)."""
        paths = [unit.validation.script for unit in self.variant.units() if unit.validation is not None]
        paths += [reference.path or reference.media or "" for reference in self.variant.references]
        if not self.config.getoption("tcab_capture_baselines"):  # capture writes them: they are its output
            paths.append(BASELINE_FOLDER)
        if self.case.performance is not None:
            paths += [path for case in self.case.performance.cases for path in (case.input, case.expected)]
        definition = self.case.definition
        if definition is not None:  # requirement validators; the reference asset an asset run is measured against
            paths += [f"validators/{validator}" for spec in definition.specifications
                      for requirement in spec.requirements for validator in requirement.validators]
            if definition.produces is not None:
                paths.append(definition.produces.folder.relative_to(self.case.folder).as_posix())
        if self.case.adversarial is not None:  # digested, so a change to them fails the session
            tables = self.case.adversarial
            owned = [tables.referee, tables.action_schema, *tables.house, *filter(None, [tables.renderer])]
            paths += [path.relative_to(self.case.folder).as_posix() for path in owned
                      if path.is_relative_to(self.case.folder)]
        return paths

    @functools.cached_property
    def out_dir(self) -> Path:
        """Where this run's media go: one folder per run under `--tcab-out` (made once)."""
        base = Path(self.config.getoption("tcab_out") or ".tcab/results").resolve()
        safe = re.sub(r"[^A-Za-z0-9_.@#-]+", "_", self.label).strip("_") or "run"
        path = base / safe
        path.mkdir(parents=True, exist_ok=True)
        return path

    def scratch(self) -> Path:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="tcab-run-"))
            self.config.add_cleanup(lambda: shutil.rmtree(self._scratch or "", ignore_errors=True))
        return self._scratch

    def build(self) -> BuildResult:
        """The static build of the source tree, done on first use and shared afterwards."""
        if self._build is None:
            from pytest_tcab.run.build import BuildResult
            from pytest_tcab.run.build import build_static
            from pytest_tcab.run.sandbox import SandboxUnavailable
            from pytest_tcab.run.sandbox import session_sandbox

            assert self.case.build is not None, "only cases with a [build] are built"
            timeout = float(self.config.getoption("tcab_build_timeout"))
            try:
                sandbox = session_sandbox(self.config)
            except SandboxUnavailable as exc:
                self._build = BuildResult(ok=False, steps=(), workdir=self.scratch(), output_dir=None, message=str(exc))
            else:
                self._build = build_static(self.source, self.case.build.install, self.case.build.build,
                                           self.scratch(), timeout, sandbox)
        return self._build

    def require_build(self) -> BuildResult:
        """The build, or this item fails as not run: a broken build never looks green."""
        result = self.build()
        if not result.ok:
            pytest.fail(f"not run: build failed ({result.message})", pytrace=False)
        return result

    def server(self) -> StaticServer:
        """The loopback server of the build output, reporter-side files under `/__tcab__/`."""
        if self._server is None:
            from pytest_tcab.run.serve import StaticServer

            build = self.require_build()
            assert build.output_dir is not None  # a build is ok only with a static output
            from pytest_tcab.run.typescript import CACHE_DIR

            stripped = CACHE_DIR.resolve()
            stripped.mkdir(parents=True, exist_ok=True)
            server = StaticServer(build.output_dir, {REPORTER_PREFIX: self.reporter_folder, STRIPPED_PREFIX: stripped})
            server.__enter__()
            self.config.add_cleanup(lambda: server.__exit__(None, None, None))
            self._server = server
        return self._server

    def script_urls(self, script: str) -> tuple[str, str]:
        """Where a page imports the reporter-side `script` (relative to the case folder) from, and
        the URL its sibling modules are served under.

        A `.ts` script is served as the JavaScript esbuild strips it to, its imports bundled (the
        cache key covers the sources of its top folder, e.g. `validators/`); `typescript.StripFailed`
        says why it cannot be.
        """
        from pytest_tcab.run.typescript import is_typescript
        from pytest_tcab.run.typescript import strip_types

        server = self.server()
        if not is_typescript(script):
            return server.url_for(REPORTER_PREFIX, script), server.url_for(REPORTER_PREFIX, "")
        source = self.reporter_folder / script
        top = self.reporter_folder / Path(script).parts[0] if len(Path(script).parts) > 1 else self.reporter_folder
        stripped = strip_types(source, top)
        return server.url_for(STRIPPED_PREFIX, stripped.name), server.url_for(STRIPPED_PREFIX, "")

    def run_properties(self) -> dict[str, str]:
        """Who this run is, carried by every item so results.json needs no collection state."""
        return {
            "run": self.label,
            "case": self.case.slug,
            "version": self.case.version,
            "variant": self.variant.slug,
            "engine": self.engine,
            "source": str(self.source),
            "layout": self.case.layout,
        }


class RunItem(pytest.Item):
    """Base of run-mode items: each report carries the run's identity and the item's figures.

    Whole, as `report.tcab` (what results.json is built from; pytest-xdist ships it to the
    controller); flat, as plain `tcab.<name>` user properties (what JUnit shows).
    """

    kind = "run"

    def __init__(self, *, run: RunContext, key: str, location: tuple[Path, int | None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        match_saved_form(self)
        self.run = run
        self.key = key
        self._location = location
        self.figures: dict[str, Any] = {}
        identity = {**run.run_properties(), "kind": self.kind, "id": key}
        self.user_properties.extend((f"tcab.{name}", value) for name, value in identity.items())

    def record(self, **figures: Any) -> None:
        """Attach figures (similarity, fuel, media paths) to this item's report, every text bounded."""
        self.figures.update(bound_tree(figures))

    def report_data(self) -> dict[str, Any]:
        """What `report.tcab` holds: the run, the item, and its figures so far."""
        return {"run": self.run.run_properties(), "item": {"kind": self.kind, "id": self.key},
                "figures": dict(self.figures)}

    def publish_figures(self) -> None:
        """The figures with a plain value, as `tcab.<name>` user properties (JUnit), once each."""
        present = {name for name, _ in self.user_properties}
        for name, value in self.figures.items():
            if isinstance(value, str | int | float | bool) and f"tcab.{name}" not in present:
                self.user_properties.append((f"tcab.{name}", value))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if is_plain(excinfo.value):
            return item_failure(self, excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        path, line = self._location or (self.run.case.manifest_path, None)
        return path, (line - 1) if line else 0, f"tcab: {self.name}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if isinstance(item, RunItem):
        if call.when != "teardown":
            item.publish_figures()  # before the teardown report, the one JUnit reads properties from
        report.tcab = item.report_data()
    return report


class BuildFailed(TcabError):
    """The produced implementation does not build; the message has the command and its tail."""


class BuildItem(RunItem):
    """`build`: install then build the produced tree into a static site."""

    kind = "build"

    def runtest(self) -> None:
        result = self.run.build()
        self.record(steps=[step.figures() for step in result.steps], message=result.message)
        if not result.ok:
            tail = result.steps[-1].tail(40) if result.steps else ""
            raise BuildFailed(f"{result.message}\n{tail}".rstrip())


class ProofItem(RunItem):
    """`proof[<id>]`: the build wrote the evidence the spec asked for (informational)."""

    kind = "proof"

    def __init__(self, *, proof: Proof, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.proof = proof

    def runtest(self) -> None:
        from pytest_tcab.models.manifest import PROOF_VIDEO_EXTENSIONS
        from pytest_tcab.models.manifest import media_kind
        from pytest_tcab.paths import PathEscapes
        from pytest_tcab.paths import contained

        try:
            path = contained(self.run.source, self.proof.dest)
        except PathEscapes as exc:
            pytest.fail(f"proof {self.proof.id!r}: {self.proof.dest!r} {exc}", pytrace=False)
        if not path.is_file():
            self.record(present=False, dest=self.proof.dest, media_kind=self.proof.kind)
            skip_unless_strict(self.config, f"proof {self.proof.id!r} missing: the build wrote no {self.proof.dest}")
        copy = self.run.out_dir / "proofs" / self.proof.dest
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        self.record(present=True, dest=self.proof.dest, media_kind=media_kind(self.proof.dest, PROOF_VIDEO_EXTENSIONS),
                    media=str(copy))


def run_items(parent: pytest.Collector, run: RunContext) -> Iterator[pytest.Item]:
    """Every item of a run, in a stable order: each family's items, as `pytest_tcab_run_items` gives them."""
    register_run_families(parent.config)
    for items in parent.config.hook.pytest_tcab_run_items(run=run, parent=parent):
        yield from items


RUN_FAMILIES = (
    "pytest_tcab.run.context",
    "pytest_tcab.run.perf",
    "pytest_tcab.run.tournament_items",
    "pytest_tcab.run.toolchain",
    "pytest_tcab.run.requirements",
    "pytest_tcab.run.checks",
    "pytest_tcab.run.drivers",
    "pytest_tcab.run.assets",
)
"""The plugin's own families of run items, in the order their items are listed."""


def register_run_families(config: pytest.Config) -> None:
    """Register the plugin's families once, on the first run collected (start-up stays light).

    Their hookimpls are `tryfirst`, and pluggy calls the latest registered first among those,
    so registering in reverse makes the call order `RUN_FAMILIES`' and puts them before any
    family a conftest adds.
    """
    manager = config.pluginmanager
    for name in reversed(RUN_FAMILIES):
        if not manager.has_plugin(name):
            manager.register(importlib.import_module(name), name)


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item] | None:
    """`build` and `proof[<id>]`: every run that builds a static site (not a performance or
    adversarial run, which build modules, nor an asset run, which builds nothing)."""
    if run.case.performance is not None or run.case.adversarial is not None or run.case.build is None:
        return None
    return _build_and_proofs(run, parent)


def _build_and_proofs(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    manifest = run.case.manifest_path
    yield BuildItem.from_parent(parent, name="build", run=run, key="build",
                                location=(manifest, line_in(manifest, ("build",))))
    # A variant's proofs follow the common ones in its effective set; both are declared as `[[proof]]`.
    for proof in () if run.reference else run.variant.proofs:
        yield ProofItem.from_parent(parent, name=f"proof[{proof.id}]", run=run, key=proof.id, proof=proof,
                                    location=proof_location(run.case, run.variant, proof.id))


def variant_documents(case: CaseVersion, variant: Variant) -> list[TomlDocument]:
    """The TOML documents that declare `variant`'s effective set: the manifest, then its variant file."""
    manifest = load(case.manifest_path)
    if not isinstance(manifest, TomlDocument):
        return []
    documents = [manifest]
    for relative in manifest.data.get("variants", []):
        loaded = load(case.folder / relative)
        if isinstance(loaded, TomlDocument) and (loaded.data.get("slug") or loaded.path.stem) == variant.slug:
            documents.append(loaded)
    return documents


def proof_location(case: CaseVersion, variant: Variant, proof_id: str) -> tuple[Path, int | None]:
    """The `[[proof]]` table declaring `proof_id`, in the manifest or the variant file."""
    for document in variant_documents(case, variant):
        for index, proof in enumerate(document.data.get("proof", [])):
            if proof.get("id") == proof_id:
                return document.path, document.line_of(("proof", index))
    return case.manifest_path, None


class RunDirectory(pytest.Directory):
    """`--tcab-run=DIR`: DIR's produced implementation, as the case it names.

    Several runs (`--tcab-run` given again, or DIR a folder whose subfolders are runs) are
    collected here, under the first: they are the controllers of one adversarial tournament.
    The items live under `DIR/.tcab/run.toml` (a file an IDE opens and pytest selects by id),
    or under the case's manifest when DIR has none (`--tcab-case` names the case, or DIR is a
    folder of runs).
    """

    def collect(self) -> Iterator[pytest.Collector]:
        run = session_run(self.config)
        if isinstance(run, TcabError):
            raise self.CollectError(str(run))
        run_file = self.path / RUN_FILE
        if run_file.is_file():
            yield RunSettings.from_parent(self, path=run_file.parent, nodeid=fs_nodeid(self.config, run_file.parent))
        else:
            yield RunToml.from_parent(self, path=run.case.manifest_path,
                                      nodeid=fs_nodeid(self.config, run.case.manifest_path))


class RunSettings(pytest.Directory):
    """`DIR/.tcab/`: the folder of the run file, on the way to it."""

    def collect(self) -> Iterator[pytest.Collector]:
        yield RunToml.from_parent(self, path=self.path / RUN_FILE.name,
                                  nodeid=fs_nodeid(self.config, self.path / RUN_FILE.name))


class RunToml(pytest.File):
    """The file a run's items live under: `DIR/.tcab/run.toml`, or the case's manifest."""

    def collect(self) -> Iterator[pytest.Item]:
        run = session_run(self.config)
        if isinstance(run, TcabError):
            raise self.CollectError(str(run))
        yield from run_items(self, run)


_session_run_key = pytest.StashKey["RunContext | TcabError"]()


def session_run(config: pytest.Config) -> RunContext | TcabError:
    """The run (or tournament) `--tcab-run` names, resolved once per session, or why it cannot be."""
    if _session_run_key not in config.stash:
        config.stash[_session_run_key] = _resolve_runs(config)
    return config.stash[_session_run_key]


def _resolve_runs(config: pytest.Config) -> RunContext | TcabError:
    from pytest_tcab.session import configured_root
    from pytest_tcab.session import run_dirs
    from pytest_tcab.session import suite_for

    given = [path.resolve() for path in run_dirs(config)]
    # The run names its case in the configured suite, wherever the run dir itself lives.
    suite = suite_for(config, configured_root(config) or given[0] / RUN_FILE)
    folders = [found for path in given for found in runs_in(path)]
    try:
        runs = [_run(config, suite, folder) for folder in folders]
        if len(runs) == 1:
            return runs[0]
        # A folder of runs is named by the folder; runs given one by one, by their case.
        label = given[0].name if len(given) == 1 else f"{runs[0].case.slug}-tournament"
        return tournament_context(config, runs, label)
    except TcabError as exc:
        return exc


def _run(config: pytest.Config, suite: Suite, folder: Path) -> RunContext:
    spec = read_run_spec(folder, config.getoption("tcab_case"))
    case, variant = find_case(suite, spec, allow_experimental=experimental_allowed(config))
    return RunContext(config, case, variant, folder, spec.engine or "none", label=folder.name)


def run_anchor(config: pytest.Config, path: Path) -> bool:
    """Whether `path` is the manifest a run without run.toml hangs its items under (re-run by id)."""
    from pytest_tcab.session import run_dirs

    if (run_dirs(config)[0] / RUN_FILE).is_file():
        return False
    run = session_run(config)
    return not isinstance(run, TcabError) and run.case.manifest_path.resolve() == path.resolve()


def fs_nodeid(config: pytest.Config, path: Path) -> str | None:
    """A node id for `path`: pytest's (rootdir-relative) inside rootdir, the absolute path outside.

    pytest names a path outside rootdir relative to the argument it was found under, an id
    that selects nothing when given back; the absolute path selects the same node from anywhere.
    """
    path = path.resolve()
    try:
        path.relative_to(config.rootpath)
    except ValueError:
        return path.as_posix()
    return None


def runs_in(path: Path) -> list[Path]:
    """`path` when it is a run (it has `.tcab/run.toml`, or no subfolder has one), else its
    subfolders that are runs, in name order."""
    if (path / RUN_FILE).is_file():
        return [path]
    found = sorted(child for child in path.iterdir() if child.is_dir() and (child / RUN_FILE).is_file())
    return found or [path]


def tournament_context(config: pytest.Config, runs: list[RunContext], label: str) -> RunContext:
    """The context of several runs played against each other: they must be runs of one
    adversarial case (the same version and variant)."""
    first = runs[0]
    for other in runs[1:]:
        if (other.case.manifest_path, other.variant.slug) != (first.case.manifest_path, first.variant.slug):
            raise RunError(f"runs {first.label!r} and {other.label!r} name different cases "
                           f"({first.case.slug}@{first.case.version} and {other.case.slug}@{other.case.version}); "
                           "runs given together must be runs of one adversarial case")
    if first.case.adversarial is None:
        raise RunError(f"{len(runs)} runs were given ({', '.join(run.label for run in runs)}), but "
                       f"{first.case.slug!r} is {indefinite(first.case.case_type)} case; only the runs of an adversarial case "
                       "are played against each other: give one --tcab-run per session")
    return RunContext(config, first.case, first.variant, first.source.parent, first.engine, label=label,
                      entrants=tuple(runs))


_reference_runs_key = pytest.StashKey[dict[tuple[Path, str], RunContext]]()


def reference_context(config: pytest.Config, case: CaseVersion, variant: Variant) -> RunContext:
    """The run of a variant's reference implementation, one per session.

    Reference mode and baseline capture share it, so each reference implementation is built once.
    """
    runs = config.stash.setdefault(_reference_runs_key, {})
    key = (case.manifest_path, variant.slug)
    if key not in runs:
        assert variant.reference_implementation is not None, "only variants with a reference implementation"
        runs[key] = RunContext(config, case, variant, variant.reference_implementation, "none",
                               label=f"reference-{case.slug}-{case.version}-{variant.slug}", reference=True)
    return runs[key]


class ReferenceRun(pytest.Collector):
    """`reference-<variant>`: a variant's reference implementation, validated as a run.

    No brackets: pytest splits an id given on the command line at its first `[`, so only a
    leaf may carry them (see `pytest_tcab.nodeids`).
    """

    def __init__(self, *, run: RunContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> Iterator[pytest.Item]:
        yield from run_items(self, self.run)
