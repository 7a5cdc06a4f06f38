"""A run's spec: which case, version, variant and engine it was produced for, and that case found.

`DIR/.tcab/run.toml` says it (and who produced the run), `--tcab-case` overrides it part by part;
`find_case` turns it into the case version and variant run mode validates (a definition recast as
a one-variant case).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from pytest_tcab.case import Adversarial
from pytest_tcab.case import CaseVersion
from pytest_tcab.case import DefinitionCase
from pytest_tcab.case import Performance
from pytest_tcab.case import Variant
from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.errors import TcabError
from pytest_tcab.models.definition import AdversarialDefinition
from pytest_tcab.models.definition import CodeDefinition
from pytest_tcab.models.definition import PerformanceDefinition
from pytest_tcab.models.definition import Toolchain
from pytest_tcab.models.manifest import Build
from pytest_tcab.models.manifest import humanize
from pytest_tcab.models.suite import RunFile
from pytest_tcab.models.validate import validate
from pytest_tcab.options import EXPERIMENTAL_OPTION
from pytest_tcab.resolve.adversarial import adversarial_case
from pytest_tcab.resolve.manifest import DEFAULT_VARIANT
from pytest_tcab.suite import FoundDefinition
from pytest_tcab.suite import Suite
from pytest_tcab.toml import load

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


@dataclass(frozen=True)
class Producer:
    """Who produced a run, as its run.toml says: what a sweep's leaderboard groups runs by."""

    model: str | None = None
    harness: str | None = None
    labels: dict[str, str] = field(default_factory=dict)

    @classmethod
    def common(cls, producers: Sequence[Producer]) -> Producer:
        """What every one of `producers` shares (a tournament's entrants): the rest is left out."""
        first = producers[0]
        return cls(
            first.model if all(p.model == first.model for p in producers) else None,
            first.harness if all(p.harness == first.harness for p in producers) else None,
            {key: value for key, value in first.labels.items() if all(p.labels.get(key) == value for p in producers)},
        )


def read_run_spec(path: Path, override: str | None) -> tuple[RunSpec, Producer]:
    """The spec of the run whose run.toml is `path` (`--tcab-case` wins over it, part by part),
    and who produced the run."""
    given = RunSpec.parse(override) if override else None
    if not path.is_file():
        if given is None:
            raise RunError(
                f"{path} does not exist, so the run names no case; "
                "write one (case = \"<slug>\") or pass --tcab-case=SLUG[@VERSION][#VARIANT][:ENGINE]"
            )
        return given, Producer()
    loaded = load(path)
    if isinstance(loaded, Problem):
        raise ProblemsFound([loaded])
    run_file, problems = validate(RunFile, loaded)
    if run_file is None:
        raise ProblemsFound(problems)
    spec = RunSpec(run_file.case, run_file.version, run_file.variant, run_file.engine)
    producer = Producer(run_file.model, run_file.harness, dict(run_file.labels))
    return (given.over(spec) if given is not None and given.case == spec.case else (given or spec)), producer


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
