"""GitHub Actions: every tcab problem as a workflow annotation, and each session's Markdown summary.

Active when `GITHUB_ACTIONS=true` (what GitHub sets on its runners), silent otherwise. Each
failing tcab item's problems are worked out where the item ran (its exception is there) and
ride on its report, which is also what reaches the pytest-xdist controller: the controller
prints each annotation once, at the end, on its own line (`::error file=...,line=...,title=...::...`),
and appends to `$GITHUB_STEP_SUMMARY` (never overwriting it: several steps share the file) one
Markdown section per run (score, failures, fuel) and, in author mode, the counts and failing items.

A plugin of its own (listed in plugin.py), so that workers and the xdist controller both have it.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.errors import ProblemsFound
from pytest_tcab.errors import format_key_path

_ANNOTATIONS = "tcab_annotations"
"""A failing tcab item's report attribute: its problems, each `{file, line, title, message}`."""
_TITLE = "tcab_title"
"""Every tcab item's report attribute under GitHub Actions: the case and the item, for people."""
_MESSAGE_LIMIT = 4000
"""An annotation's message is cut here: GitHub shows a few lines of it beside the code."""


def enabled() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def pytest_configure(config: pytest.Config) -> None:
    if enabled() and not hasattr(config, "workerinput"):  # the controller, or a session without xdist
        config.pluginmanager.register(GitHubReporter(config), "tcab-github")


def pytest_unconfigure(config: pytest.Config) -> None:
    plugin = config.pluginmanager.get_plugin("tcab-github")
    if plugin is not None:
        config.pluginmanager.unregister(plugin)


# -- where the item ran: its problems onto its report ------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if enabled() and _is_tcab(item):
        setattr(report, _TITLE, title(item))
        if report.failed:
            setattr(report, _ANNOTATIONS, _item_annotations(item, call, report))
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """A tcab file that cannot be collected (a run.toml naming no case, ...) is a problem too."""
    report = yield
    if enabled() and report.failed and type(collector).__module__.startswith("pytest_tcab."):
        setattr(report, _ANNOTATIONS, [_annotation(collector.path, None, f"tcab: {collector.name}",
                                                   report.longreprtext)])
    return report


def _is_tcab(item: pytest.Item) -> bool:
    return type(item).__module__.startswith("pytest_tcab.") or hasattr(item, "report_data")


def title(item: pytest.Item) -> str:
    """`pong@v2.0.0 resolve[base]` for an author item, `pong@v2.0.0#base (carom-base) check[title]` for a run item."""
    run = getattr(item, "run", None)
    if run is not None and hasattr(run, "run_properties"):
        from pytest_tcab.run.report.results import run_heading

        return f"{run_heading(run.run_properties())} {item.name}"
    from pytest_tcab.items import header

    return header(item)


def _item_annotations(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> list[dict[str, Any]]:
    heading = title(item)
    error = call.excinfo.value if call.excinfo is not None else None
    if isinstance(error, ProblemsFound) and error.problems:
        return [_annotation(problem.path, problem.line, heading, _problem_text(problem.key, problem.message,
                                                                               problem.hint))
                for problem in error.problems]
    from pytest_tcab.failures import is_plain
    from pytest_tcab.failures import item_location

    text = str(error) if error is not None and is_plain(error) else report.longreprtext
    path, line = item_location(item)
    return [_annotation(path, line, heading, text)]


def _problem_text(key: Any, message: str, hint: str | None) -> str:
    text = f"`{format_key_path(key)}`: {message}" if key else message
    return f"{text}\nHint: {hint}" if hint else text


def _annotation(path: Path, line: int | None, heading: str, message: str) -> dict[str, Any]:
    message = message.strip() or "failed"
    if len(message) > _MESSAGE_LIMIT:
        message = message[: _MESSAGE_LIMIT - 3] + "..."
    return {"file": str(path), "line": line, "title": heading, "message": message}


# -- the controller: annotations and the step summary ------------------------------------------


def escape_data(text: str) -> str:
    """A workflow command's message, as GitHub's runner reads it back."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (`file`, `line`, `title`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(annotation: dict[str, Any], base: Path) -> str:
    """`::error file=...,line=...,title=...::message`, the file relative to the repository root."""
    file = Path(annotation["file"])
    try:
        shown = file.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        shown = file.as_posix()  # outside the repository: GitHub cannot place it, but it still lists it
    properties = [f"file={escape_property(shown)}"]
    if annotation.get("line"):
        properties.append(f"line={int(annotation['line'])}")
    properties.append(f"title={escape_property(annotation['title'])}")
    return f"::error {','.join(properties)}::{escape_data(annotation['message'])}"


class GitHubReporter:
    """Registered on the controller under GitHub Actions: collects what the reports carry."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.annotations: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.author: Counter[str] = Counter()
        self.author_failures: dict[str, str] = {}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._keep(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._keep(report)
        heading = getattr(report, _TITLE, None)
        if heading is None or any(name == "tcab.kind" for name, _ in report.user_properties):
            return  # not a tcab item, or a run item (results.json tells its story)
        if report.when == "call" or report.failed or report.skipped:
            self.author[report.outcome] += 1
        if report.failed:
            first = next(iter(getattr(report, _ANNOTATIONS, None) or []), None)
            self.author_failures[report.nodeid] = first["message"].splitlines()[0] if first else heading

    def _keep(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        for annotation in getattr(report, _ANNOTATIONS, None) or []:
            key = tuple(annotation[name] for name in ("file", "line", "title", "message"))
            self.annotations.setdefault(key, annotation)  # each xdist worker collects: once per problem

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        base = Path(os.environ.get("GITHUB_WORKSPACE") or self.config.rootpath)
        for annotation in self.annotations.values():
            terminalreporter.write_line(command(annotation, base))

    @pytest.hookimpl(trylast=True)  # after results.json is written
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        path = os.environ.get("GITHUB_STEP_SUMMARY")
        if not path:
            return
        sections = [*self._run_sections(), *self._author_section()]
        if sections:
            with open(path, "a", encoding="utf-8") as out:
                out.write("\n".join(sections))

    def _run_sections(self) -> list[str]:
        """A section per run of the results.json this session wrote (a run's, or `--tcab-merge`'s)."""
        written = [getattr(self.config.pluginmanager.get_plugin(name), "written", None)
                   for name in ("tcab-results", "tcab-merge")]
        results = next((paths[0] for paths in written if paths), None)
        if results is None:
            return []
        from pytest_tcab.step_summary import run_markdown

        return [run_markdown(run) for run in _read_json(results)["runs"]]

    def _author_section(self) -> list[str]:
        if not self.author:
            return []
        from pytest_tcab.step_summary import author_markdown

        return [author_markdown(self.author, self.author_failures)]


def _read_json(path: Path) -> Any:
    import json

    return json.loads(path.read_text(encoding="utf-8"))
