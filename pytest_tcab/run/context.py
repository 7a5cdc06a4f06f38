"""The run as its items see it: one `RunContext` per run, shared by every item of that run.

It holds the resolved case, variant and engine, the tree to build, the private snapshot of the
reporter-side material (taken at collection, before any build step), the build (done once, on
first use, or begun early in a thread of its own by `start_build`) and the loopback server of
its static output. How a session finds its runs is
`run.collect`'s; the items' base class is `run.item`'s.

A plugin of its own (registered with the run families): when a run's last item ends
(`pytest_tcab_run_finished`), the run lets go of its server, build folder and snapshot, so a
sweep holds at its thousandth run what it held at its third.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import Variant
from pytest_tcab.run.browser.serve import StaticServer
from pytest_tcab.run.sandbox.beside import beside_build
from pytest_tcab.run.sandbox.beside import end_beside
from pytest_tcab.run.sandbox.disk import RunDisk
from pytest_tcab.run.sandbox.disk import make_disk
from pytest_tcab.run.sandbox.sandbox import SandboxUnavailable
from pytest_tcab.run.sandbox.sandbox import session_sandbox
from pytest_tcab.run.sandbox.shared import Handed
from pytest_tcab.run.sandbox.shared import caps_of
from pytest_tcab.run.sandbox.shared import inputs_digest
from pytest_tcab.run.sandbox.shared import shared_builds
from pytest_tcab.run.sandbox.shared import state_digest
from pytest_tcab.run.sandbox.snapshot import release_copy
from pytest_tcab.run.sandbox.snapshot import reporter_copy
from pytest_tcab.run.sandbox.steps import BuildResult
from pytest_tcab.run.sandbox.steps import build_static
from pytest_tcab.run.spec import Producer

if TYPE_CHECKING:
    from pytest_tcab.run.material import Material

BASELINE_FOLDER = "validation-baseline"
"""Committed validation baselines live in `<version>/validation-baseline/<variant>/`."""


class RunContext:
    """What every item of one run shares; built and served at most once per session."""

    def __init__(self, config: pytest.Config, case: CaseVersion, variant: Variant, source: Path,
                 engine: str, label: str, reference: bool = False,
                 entrants: tuple[RunContext, ...] = (), producer: Producer | None = None) -> None:
        self.config = config
        self.producer = producer or Producer()
        """Who produced the run (run.toml's model, harness and labels): on every item of it."""
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
        self._early: EarlyBuild | None = None
        self._server: StaticServer | None = None
        self._disk: RunDisk | None = None
        self._material: Material | None = None
        self.build_shared_with: str | None = None
        """The run whose build this run serves and grades (`--tcab-share-builds`), else None."""
        self._built_state: str | None = None
        sharing = shared_builds(config)
        if sharing is not None:
            sharing.expect(self, lambda: self.build_inputs_digest)
        self._reporter: Path | None = reporter_copy(config, case.folder, self.reporter_paths())
        config.add_cleanup(self.release)  # what a run interrupted before its last item still holds

    @property
    def reporter_folder(self) -> Path:
        """The private copy of the case's reporter-side material, taken at collection, before any
        build step: drivers, baselines, mockups and performance cases are read from it, never the suite.

        A released run asked again copies it anew, checked against the digests of the first copy
        (`run.sandbox.snapshot`): what decides a verdict is still what the suite held before any build."""
        if self._reporter is None:
            self._reporter = reporter_copy(self.config, self.case.folder, self.reporter_paths())
        return self._reporter

    def reporter_paths(self) -> list[str]:
        """The reporter-side paths of this run, relative to the case folder (see `run.snapshot`)."""
        paths = self.driver_scripts()
        paths += [reference.path or reference.media or "" for reference in self.variant.references]
        if not self.config.getoption("tcab_capture_baselines"):  # capture writes them: they are its output
            paths.append(BASELINE_FOLDER)
        if self.case.performance is not None:
            paths += [path for case in self.case.performance.cases for path in (case.input, case.expected)]
        definition = self.case.definition
        if definition is not None and definition.produces is not None:  # what an asset run is measured against
            paths.append(definition.produces.folder.relative_to(self.case.folder).as_posix())
        if self.case.adversarial is not None:  # digested, so a change to them fails the session
            tables = self.case.adversarial
            owned = [tables.referee, tables.action_schema, *tables.house, *filter(None, [tables.renderer])]
            paths += [path.relative_to(self.case.folder).as_posix() for path in owned
                      if path.is_relative_to(self.case.folder)]
        return paths

    def driver_scripts(self) -> list[str]:
        """The validation scripts and requirement validators of this run, relative to the case folder."""
        scripts = [unit.validation.script for unit in self.variant.units() if unit.validation is not None]
        definition = self.case.definition
        if definition is not None:
            scripts += [f"validators/{validator}" for spec in definition.specifications
                        for requirement in spec.requirements for validator in requirement.validators]
        return scripts

    @property
    def model(self) -> str | None:
        return self.producer.model

    @property
    def harness(self) -> str | None:
        return self.producer.harness

    @property
    def labels(self) -> dict[str, str]:
        return self.producer.labels

    @functools.cached_property
    def out_dir(self) -> Path:
        """Where this run's media go: one folder per run under `--tcab-out` (made once)."""
        base = Path(self.config.getoption("tcab_out") or ".tcab/results").resolve()
        path = base / run_folder_name(self.label)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def scratch(self) -> Path:
        """The run's own scratch folder (its build trees, `node_modules` included), until it is released.

        Every build step works in it, so the build digest is taken first (`build_digest`)."""
        self.build_digest()
        return self.disk.path

    def build_digest(self) -> str | None:
        """The sha256 of the material this run is graded from (`run.material`), taken once, before any
        step of its build; None for a tournament (its entrants each have their own)."""
        if self._material is None and self.entrants == (self,):
            from pytest_tcab.run.material import material_of

            graders = [Path(self.config.getoption("tcab_out") or ".tcab/results"),
                       Path(self.config.getoption("tcab_reviews", None) or self.config.rootpath / ".tcab/reviews")]
            self._material = material_of(self.source, graders)
        return None if self._material is None else self._material.digest

    @property
    def disk(self) -> RunDisk:
        """The disk of the run's scratch folder, capped by `--tcab-build-disk` (`run.sandbox.disk`)."""
        if self._disk is None:
            self._disk = make_disk(self.config)
        return self._disk

    @property
    def origin(self) -> str | None:
        """The URL of the run's loopback server while it serves, else None."""
        return None if self._server is None else self._server.url

    def release(self) -> None:
        """Let go of what the run holds: its server, its build folder, its snapshot (and its
        entrants', for a tournament). Asked again afterwards, the run builds and serves anew."""
        self.end_build()  # first: a build thread still running could start steps beside it
        end_beside(self)
        for entrant in self.entrants:
            if entrant is not self:
                entrant.release()
        if self._server is not None:
            self._server.__exit__(None, None, None)
            self._server = None
        kept = self._hand_on_build()  # also when it never built: no run waits for it any more
        if self._disk is not None and not kept:
            self._disk.release()
        self._disk = None
        self._build = None
        self.build_shared_with = self._built_state = None
        if self._reporter is not None:
            release_copy(self.config, self.case.folder)
            self._reporter = None

    def start_build(self, before: tuple[RunContext, ...] = (), *, background: bool = True) -> bool:
        """Begin the build in a thread of its own (`run.across`: the next run's build while this one's
        browser items run; `run.browser.item`: the first browser run's build while the session's
        browser is launched); whether it is under way or done. Idempotent; `build()` waits for it.
        A `background` build runs at the lowest CPU priority (see `EarlyBuild`); the build the next
        item waits for does not, nor does what it starts (the judge runtime, the steps beside it).

        Everything that decides how it builds is taken first, here, as a build at its turn takes it:
        the build digest, and the run's disk share (`make_disk`, under its lock). Not started, and
        left for its turn: a run that will take a shared build (one is held for its digest, or a run
        of `before`, those ahead of it in the session, has its digest), a host without the sandbox,
        and a disk whose cap would be lowered for the room the live runs hold (at its turn it would
        have had it whole: a build started early never gets less than it would have)."""
        if self._early is not None or self._build is not None:
            return True
        if not self.builds_static or self._will_share(before):
            return False
        try:
            session_sandbox(self.config)
            self.build_digest()
            disk = self.disk
        except (SandboxUnavailable, OSError):
            return False
        if disk.asked is not None:
            disk.release()
            self._disk = None
            return False
        self._early = EarlyBuild(self._build_now, lowest=background)
        return True

    def end_build(self) -> None:
        """End a build begun by `start_build` that no item has taken (`-x`, Ctrl-C, the run let go
        first): its step is ended, its thread joined, and what it made is thrown away."""
        early, self._early = self._early, None
        if early is not None:
            early.end()
            self._build = None

    @property
    def builds_static(self) -> bool:
        """Whether the run builds a static site (`build()`): not a performance or adversarial run,
        which build modules, nor an asset run, which builds nothing."""
        return self.case.build is not None and self.case.performance is None and self.case.adversarial is None

    def build(self) -> BuildResult:
        """The static build of the source tree, done on first use and shared afterwards; when
        `start_build` began it, its result once it ends."""
        early = self._early
        if early is not None:
            try:
                early.wait()
            except Exception:
                self._early = None
                raise
            self._early = None  # kept while it is waited for: a Ctrl-C there leaves it to `release` to end
        if self._build is None:
            self._build_now()
        assert self._build is not None
        return self._build

    def _build_now(self, cancel: threading.Event | None = None) -> None:
        if self._build is None:
            assert self.case.build is not None, "only cases with a [build] are built"
            timeout = float(self.config.getoption("tcab_build_timeout"))
            try:
                sandbox = session_sandbox(self.config)
            except SandboxUnavailable as exc:
                self._build = BuildResult(ok=False, steps=(), workdir=self.scratch(), output_dir=None, message=str(exc),
                                          not_graded=True)
            else:
                if not self._take_shared_build():
                    self._build = build_static(self.source, self.case.build.install, self.case.build.build,
                                               self.scratch(), timeout, sandbox, self.disk,
                                               after_install=beside_build(self), cancel=cancel)
                    if not self._build.ok:
                        self.drop_full_disk()
                    if shared_builds(self.config) is not None and self._disk is not None:
                        self._built_state = state_digest(self._build.workdir)

    @functools.cached_property
    def build_inputs_digest(self) -> str | None:
        """The digest of what this run's build reads (`run.sandbox.shared`); None without a static
        build or without `--tcab-share-builds` (nothing is hashed then)."""
        build = self.case.build
        static = build is not None and self.case.performance is None and self.case.adversarial is None
        if shared_builds(self.config) is None or build is None or not static or self.build_digest() is None:
            return None
        assert self._material is not None  # taken by build_digest(), in the same walk
        if self._material.built is None:  # a file it cannot read: it builds for itself, its copy says why
            return None
        case = {"folder": str(self.case.folder), "version": self.case.version, "variant": self.variant.slug}
        return inputs_digest(self._material.built, {"install": build.install, "build": build.build}, case,
                             caps_of(self.config))

    def _will_share(self, before: tuple[RunContext, ...]) -> bool:
        """Whether this run may take a shared build: one is held for its digest, or a run ahead of it has it."""
        digest = self.build_inputs_digest
        sharing = shared_builds(self.config)
        if sharing is None or digest is None:
            return False
        return digest in sharing.held or any(other.build_inputs_digest == digest for other in before)

    def _take_shared_build(self) -> bool:
        """Serve the build a run with this run's digest handed on, if one is held (`--tcab-share-builds`)."""
        sharing = shared_builds(self.config)
        handed = None if sharing is None or self.build_inputs_digest is None else sharing.take(self.build_inputs_digest)
        if handed is None:
            return False
        self._build, self._disk, self._built_state = handed.result, handed.disk, handed.state
        self.build_shared_with = handed.built_by
        return True

    def _hand_on_build(self) -> bool:
        """Keep this run's build for a run still to come with the same digest (True), or not."""
        sharing = shared_builds(self.config)
        if sharing is None:
            return False
        handed = None if self._build is None else Handed(self._build, self._disk,
                                                         self.build_shared_with or self.label, self._built_state)
        return sharing.hand_on(self, self.build_inputs_digest if self._build is not None else None, handed)

    def drop_full_disk(self) -> None:
        """Remove what the run wrote at once when it filled a disk (its own or the machine's),
        not at its release: the rest of its items, and the next run, start with the room back."""
        if self._disk is not None and (self._disk.full() or self._disk.host_out_of_room()):
            self._disk.release()
            self._disk = None

    @property
    def finished_build(self) -> BuildResult | None:
        """The build if it was done and the run still holds it (never builds): what its site copy reads."""
        return self._build

    def require_build(self) -> BuildResult:
        """The build, or this item fails as not run: a broken build never looks green."""
        result = self.build()
        if not result.ok:
            pytest.fail(f"not run: build failed ({result.message})", pytrace=False)
        return result

    def server(self) -> StaticServer:
        """The loopback server of the build output, and of nothing else: no reporter-side file
        (driver, helper, baseline, mockup, held-out input) is on the build's origin, by any path."""
        if self._server is None:
            build = self.require_build()
            assert build.output_dir is not None  # a build is ok only with a static output
            server = StaticServer(build.output_dir)
            server.__enter__()
            self._server = server
        return self._server

    def run_properties(self) -> dict[str, Any]:
        """Who this run is, carried by every item so results.json needs no collection state."""
        return {
            "run": self.label,
            "case": self.case.slug,
            "version": self.case.version,
            "variant": self.variant.slug,
            "engine": self.engine,
            "source": str(self.source),
            "layout": self.case.layout,
            "model": self.model,
            "harness": self.harness,
            "labels": dict(self.labels),
            "build_digest": self.build_digest(),
        }


@pytest.hookimpl(trylast=True)
def pytest_tcab_run_finished(config: pytest.Config, run: RunContext) -> None:
    """Last, after the others let go of what is on the run (its pages, its mockups' servers)."""
    run.release()


TOP_FILES = frozenset({"results.json", "report.html", "sweep.json", "index.html", "journal.jsonl",
                       "journal.jsonl.previous", "shard-plan.json"})
"""What a sweep writes at the top of `--tcab-out`: no run's folder may take one of these names."""


class EarlyBuild:
    """A run's build under way in a daemon thread (a session that ends hard takes it along, and
    the sandbox's processes die with their parent). With `lowest`, at the lowest CPU priority
    where the kernel lets a thread's children inherit it: the run being graded beside it keeps
    the processor. What the build raised is raised again where it is waited for, as a build at
    its turn raises it."""

    def __init__(self, work: Callable[[threading.Event], None], lowest: bool = True) -> None:
        self.cancel = threading.Event()
        self._work = work
        self._lowest = lowest
        self._raised: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="tcab-early-build", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if self._lowest:
            with contextlib.suppress(OSError):  # children started from this thread inherit it (Linux)
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        try:
            self._work(self.cancel)
        except BaseException as exc:  # raised again by `wait`, in the item that waits for the build
            self._raised = exc

    def wait(self) -> None:
        self._thread.join()
        if self._raised is not None:
            raise self._raised

    def end(self) -> None:
        """End the step under way, start no other, and join the thread."""
        self.cancel.set()
        self._thread.join()


def run_folder_name(label: str) -> str:
    """A run's label as the name of its folder under `--tcab-out`: one path part, never `.` or
    `..`, a dot-file, one of the sweep's own files, or longer than a file name may be."""
    name = re.sub(r"[^A-Za-z0-9_.@#-]+", "_", label).strip("_") or "run"
    if name.startswith(".") or name in TOP_FILES:
        name = f"run-{name}"
    if len(name) > 120:
        name = f"{name[:100]}-{hashlib.sha256(label.encode()).hexdigest()[:16]}"
    return name
