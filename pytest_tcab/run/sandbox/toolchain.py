"""`toolchain[<step>]` items: a code-producing definition's `[toolchain]`, run over its built copy.

spec/definitions.md: "typecheck is required and a non-zero exit rates the run broken, while the
rest are recorded". So `toolchain[typecheck]` fails as a build does, and `lint`, `format` and
`test` keep their exit code and output tail as figures: a non-zero exit of one of them is
reported RECORDED, a skip underneath, which shows in the terminal and results.json without
touching the exit status. Each step runs in a copy of its own of the workdir (its installed
dependencies are what the toolchain needs), bounded by `--tcab-build-timeout`: started beside the
build step, as soon as the install passed (`run.sandbox.beside`), or at its turn, after the build.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.models.definition import Toolchain
from pytest_tcab.options import BUILD_DISK_OPTION
from pytest_tcab.outcomes import RECORDED
from pytest_tcab.outcomes import NotGraded
from pytest_tcab.outcomes import mark_recorded
from pytest_tcab.outcomes import skip_at_item
from pytest_tcab.run.sandbox.beside import StepOutcome
from pytest_tcab.run.sandbox.beside import run_in_copy
from pytest_tcab.run.sandbox.beside import taken
from pytest_tcab.run.sandbox.beside import want
from pytest_tcab.run.sandbox.steps import _step_failure
from pytest_tcab.run.sandbox.steps import copy_workdir
from pytest_tcab.run.sandbox.steps import ending
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.item import RunItem
from pytest_tcab.run.media import size_text
from pytest_tcab.toml import line_in


CAP_FIGURES = ("over_memory_cap", "over_process_cap", "forks_refused", "held_at_process_cap_s")
"""What a step's record says of the caps it reached, beside the caps it had."""


class ToolchainFailed(TcabError):
    """The required step (typecheck) did not pass: the run is rated broken."""


class ToolchainItem(RunItem):
    """`toolchain[<step>]`: one `[toolchain]` command, run over what the build installed."""

    kind = "toolchain"

    def __init__(self, *, command: str, required: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.command = command
        self.required = required
        """Whether a non-zero exit fails the item (typecheck) rather than being recorded."""

    def runtest(self) -> None:
        self.record(command=self.command, required=self.required)  # also when the build failed
        build = self.run.require_build()
        timeout = float(self.config.getoption("tcab_build_timeout"))
        outcome = taken(self.run, self.key) or self._at_turn(build.workdir)
        result, failed = outcome.result, outcome.failed
        self.record(returncode=result.returncode, timed_out=result.timed_out, duration_s=round(result.duration_s, 3),
                    output=result.tail(200), **result.confinement,
                    **{key: value for key, value in result.figures().items() if key in CAP_FIGURES})
        if failed is not None:  # a recorded step too: the disk it filled, the processes it forked are the run's
            self.run.drop_full_disk()
            raise NotGraded(failed[0]) if failed[1] else ToolchainFailed(failed[0])
        if result.ok:
            return
        if self.required:
            message = f"{_step_failure(self.key, result, timeout)}: a failing {self.key} rates the run broken"
            raise ToolchainFailed(f"{message}\n{result.tail()}".rstrip())
        mark_recorded(self)
        skip_at_item(f"{RECORDED}: {ending(result, timeout)}")

    def _at_turn(self, workdir: Path) -> StepOutcome:
        """Run the step now, in a copy of the built workdir; a copy past the run's disk cap fails it."""
        try:
            copy = copy_workdir(workdir)
        except OSError as exc:  # the partial copy is gone with it: say the cap, not what it held
            if exc.errno != errno.ENOSPC:
                raise
            disk = self.run.disk
            host = disk.host_out_of_room()
            if host is not None:
                raise NotGraded(f"{self.key}: {host}") from None
            raise ToolchainFailed(f"{self.key} failed: a copy of the build folder to run it in does not fit the "
                                  f"run's disk cap of {size_text(disk.cap)}{disk.lowered()} ({BUILD_DISK_OPTION})"
                                  ) from None
        return run_in_copy(self.run, self.key, self.command, copy)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Only the steps of selected items (after `-k`, `--lf`, deselection) start beside a build."""
    steps: dict[RunContext, dict[str, str]] = {}
    judged: set[RunContext] = set()
    for item in session.items:
        if isinstance(item, ToolchainItem):
            steps.setdefault(item.run, {})[item.key] = item.command
        elif isinstance(item, RunItem) and item.drives_judge:
            judged.add(item.run)
    want(session.config, steps, judged)


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    """One `toolchain[<step>]` per declared step, in the model's order (typecheck first).

    Whether a step gates is read from the model: the field without a default is the required one.
    """
    toolchain = run.case.toolchain
    if toolchain is None:
        return
    path = run.case.manifest_path
    for step, field in Toolchain.model_fields.items():
        command = getattr(toolchain, step)
        if command is None:
            continue
        line = line_in(path, ("toolchain", step))
        yield ToolchainItem.from_parent(parent, name=f"toolchain[{step}]", run=run, key=step,
                                        location=(path, line), command=command, required=field.is_required())
