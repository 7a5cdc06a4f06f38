"""Run results: every run item's outcome and figures, written to results.json and summarised.

Each run item's report carries its run's identity and its figures (`report.tcab`, see
`RunItem`), so the recorder needs nothing from collection: it reads reports, which is also
what reaches the controller under pytest-xdist. It writes `results.json` (and the HTML report)
at the session's end; in a sweep, each run's own slice (`run_results`) is written by the sweep as
that run ends (its last item's teardown report says `run_finished`, with the items of the run
deselected where it ran and the versions that graded it).
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.bounded import bound
from pytest_tcab.failures import failure_text
from pytest_tcab.outcomes import NOT_GRADED_PROPERTY
from pytest_tcab.outcomes import OVER_CEILING
from pytest_tcab.outcomes import RECORDED
from pytest_tcab.outcomes import STATUS_PROPERTY
from pytest_tcab.run.context import run_folder_name
from pytest_tcab.outcomes import outcome_of
from pytest_tcab.run.report.attempts import retry_lines
from pytest_tcab.run.report.attempts import run_attempts
from pytest_tcab.run.report.records import RunRecord
from pytest_tcab.run.report.scoring import for_run
from pytest_tcab.run.report.site import site_entry
from pytest_tcab.run.report.site import site_note
from pytest_tcab.run.report.sweep import judge_restarts

results_key = pytest.StashKey["ResultsRecorder"]()
_DESELECTED_OUTPUT = "tcab_deselected"
_EXPECTED_OUTPUT = "tcab_expected"


class ResultsRecorder:
    """Registered as a plugin in run mode; unregistered when the session is done."""

    def __init__(self, config: pytest.Config, out_dir: Path) -> None:
        self.config = config
        self.out_dir = out_dir
        self.runs: dict[str, RunRecord] = {}
        self.written: list[Path] = []
        self.expected: dict[str, dict[str, Any]] = {}
        """Every run item the session collected to run, by node id (what an interruption leaves out)."""
        self.data: dict[str, Any] | None = None
        """results.json as written at the session's end."""
        self.carried: dict[str, dict[str, Any]] = {}
        """The runs `--tcab-resume` kept, by run, as their results.json holds them: in results.json too."""

    # -- collecting ----------------------------------------------------------------------
    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        from pytest_tcab.run.item import RunItem

        for item in items:
            if isinstance(item, RunItem):
                self._deselect(item.nodeid, item.report_data())

    def _deselect(self, nodeid: str, data: dict[str, Any]) -> None:
        run = self.runs.setdefault(data["run"]["run"], RunRecord(data["run"]))
        run.deselected[nodeid] = data["item"]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from pytest_tcab.run.item import RunItem

        self.expected = {item.nodeid: item.report_data() for item in session.items
                         if isinstance(item, RunItem)}

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist: a worker's deselected and collected items (workers collect; the controller does not)."""
        output = getattr(node, "workeroutput", {})
        for nodeid, data in output.get(_DESELECTED_OUTPUT, {}).items():
            self._deselect(nodeid, data)
        self.expected.update(output.get(_EXPECTED_OUTPUT, {}))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        """A run's finished report takes along the items of it that were deselected here (an
        xdist worker's, which the controller would otherwise learn of only at the end)."""
        report = yield
        data = getattr(report, "tcab", None)
        if data and data.get("run_finished"):
            record = self.runs.get(data["run"]["run"])
            if record is not None and record.deselected:
                data["deselected"] = dict(record.deselected)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data: dict[str, Any] | None = getattr(report, "tcab", None)
        if not data:
            return
        identity: dict[str, str] = data["run"]
        run = self.runs.setdefault(identity["run"], RunRecord(identity))
        if data.get("run_finished"):
            run.deselected.update(data.get("deselected", {}))
            run.graded_by = dict(data.get("graded_by", {}))
            run.graded_with = dict(data.get("graded_with", {}))
        if report.when != "call" and not (report.failed or report.skipped):
            return
        props: dict[str, Any] = dict(report.user_properties)
        item: dict[str, str] = data["item"]
        figures: dict[str, Any] = data["figures"]
        entry = run.items.setdefault(report.nodeid, {"kind": item["kind"], "id": item["id"]})
        entry["outcome"] = outcome_of(report)
        entry["duration_s"] = round(entry.get("duration_s", 0.0) + report.duration, 3)
        entry.update(figures)
        if report.failed or report.skipped:  # the report's reason wins over a figure's summary
            entry["message"] = _message(report)
        if props.get(NOT_GRADED_PROPERTY):
            entry["not_graded"] = str(props[NOT_GRADED_PROPERTY])

    def _interrupted(self, session: pytest.Session) -> None:
        """The runs whose items the session meant to run and never did: not graded, saying why."""
        stopped = session.shouldstop or session.shouldfail
        if not stopped and session.exitstatus != pytest.ExitCode.INTERRUPTED:
            return
        why = "the session was interrupted" if session.exitstatus == pytest.ExitCode.INTERRUPTED \
            else f"the session stopped early ({stopped})"
        left: dict[str, int] = {}
        for nodeid, data in self.expected.items():
            run = self.runs.setdefault(data["run"]["run"], RunRecord(data["run"]))
            if nodeid not in run.items and nodeid not in run.deselected:
                left[data["run"]["run"]] = left.get(data["run"]["run"], 0) + 1
        for label, count in left.items():
            self.runs[label].not_graded = f"{why} before {count} of its items ran"

    # -- writing -------------------------------------------------------------------------
    def results(self) -> dict[str, Any]:
        """results.json of every run recorded so far."""
        every = {**self.carried, **self.runs}  # a run kept by a resume, unless this session graded it again
        return {**self._session_part(), "runs": [self._run(record) if isinstance(record, RunRecord) else record
                                                 for _, record in sorted(every.items())]}

    def run_results(self, label: str) -> dict[str, Any]:
        """results.json of the run `label` alone, as its own folder of a sweep holds it."""
        return {**self._session_part(), "runs": [self._run(self.runs[label])]}

    def _run(self, record: RunRecord) -> dict[str, Any]:
        partial = {"partial": True, "deselected": [dict(nodeid=nodeid, **item) for nodeid, item
                                                   in sorted(record.deselected.items())]}
        run = {
            "media": self.config.getoption("tcab_media"), **record.identity,
            **({"not_graded": record.not_graded} if record.not_graded else {}),
            "counts": dict(sorted(record.counts().items())),
            **(partial if record.deselected else {"partial": False}),
            "items": [dict(nodeid=nodeid, **entry) for nodeid, entry in sorted(record.items.items())],
            **({"graded_by": record.graded_by} if record.graded_by else {}),
            **({"graded_with": record.graded_with} if record.graded_with else {}),
            **run_attempts(self.config, record),  # retries on record (run.report.attempts)
            **for_run(self.config, record),
            **site_entry(self.out_dir / run_folder_name(record.identity["run"])),
        }
        self.config.hook.pytest_tcab_run_results(config=self.config, run=run)  # e.g. the review wing's `review`
        return run

    def _session_part(self) -> dict[str, Any]:
        from pytest_tcab.run.sandbox.sandbox import described
        from pytest_tcab.run.sandbox.snapshot import suite_changes

        from pytest_tcab.run.collect import shard_record
        from pytest_tcab.run.versions import graded_with

        data: dict[str, Any] = {"tool": _tool_versions(), "sandbox": described(self.config),
                                "graded_with": graded_with(self.config)}
        shard = shard_record(self.config) if self.config.getoption("tcab_shard", None) else None
        if shard is not None:  # which shard of how many, dealt how: what a merge checks
            data["shard"] = shard
        changed = suite_changes(self.config)
        if changed is not None:  # checked when the session ended: a failure of the whole session
            data["suite_changed"] = changed
        return data

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write results.json and report.html, and hand JUnit the scores before it writes its file."""
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller writes the results
            workeroutput[_DESELECTED_OUTPUT] = {
                nodeid: {"run": run.identity, "item": item}
                for run in self.runs.values() for nodeid, item in run.deselected.items()
            }
            workeroutput[_EXPECTED_OUTPUT] = self.expected
            return
        self._interrupted(session)
        if not self.runs and not self.carried and self.config.getoption("tcab_shard", None) is None:
            return  # a shard writes its results.json even with no run in it: the merge reads every shard
        data = self.data = self.results()
        from pytest_tcab.run.report.html import SELF_CONTAINED
        from pytest_tcab.run.report.html import Media
        from pytest_tcab.run.report.html import render
        from pytest_tcab.run.report.journal import write_whole

        report = render(data, Media(self.out_dir, self.config.getoption("tcab_report") == SELF_CONTAINED))
        self.written = [write_whole(self.out_dir / "results.json", json.dumps(data, indent=2) + "\n"),
                        write_whole(self.out_dir / "report.html", report)]
        _junit_suite_properties(self.config, data)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not (self.runs or self.carried) or hasattr(self.config, "workerinput"):
            return
        terminalreporter.section("tcab", sep="-")
        data = self.results() if not self.written else json.loads(self.written[0].read_text())
        from pytest_tcab.run.sandbox.sandbox import summary_line

        sandbox = data["sandbox"]
        terminalreporter.write_line(summary_line(sandbox), red=not sandbox["sandboxed"], bold=not sandbox["sandboxed"])
        for run in data["runs"]:
            counts = ", ".join(f"{n} {word}" for word, n in run["counts"].items())
            why = sorted({item["not_graded"] for item in run["items"] if item.get("not_graded")}
                         | ({run["not_graded"]} if run.get("not_graded") else set()))
            aside = f" (not graded: {'; '.join(why)})" if why else ""
            terminalreporter.write_line(f"{run_heading(run)}: {counts}{aside}", yellow=bool(why))
            for line in figure_lines(run):
                terminalreporter.write_line(f"  {line}")
        for path in self.written:
            terminalreporter.write_line(f"wrote {path}")


def run_heading(run: dict[str, Any]) -> str:
    """`pong@v2.0.0#base (carom-base)`: the case a run was judged against, and the run."""
    # A definition has no variants; the engine is what tells its runs apart.
    choice = f":{run['engine']}" if run.get("layout") == "definition" else f"#{run['variant']}"
    return f"{run['case']}@{run['version']}{choice} ({run['run']})"


def _junit_suite_properties(config: pytest.Config, data: dict[str, Any]) -> None:
    """Each run's score (automated, and reviewed when it is), rating and fuel as `<testsuite>` properties
    of `--junitxml`, when it is written."""
    from _pytest.junitxml import xml_key  # what the `record_testsuite_property` fixture uses

    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    for run in data["runs"]:
        suffix = "" if len(data["runs"]) == 1 else f"[{run['run']}]"
        if "score" in run:
            xml.add_global_property(f"tcab.score{suffix}", f"{run['score']['earned']:g}/{run['score']['available']:g}")
        reviewed = (run.get("review") or {}).get("score")
        if reviewed is not None:  # the review wing's figures, when a complete, current review exists
            xml.add_global_property(f"tcab.reviewed_score{suffix}", f"{reviewed['earned']:g}/{reviewed['available']:g}")
            xml.add_global_property(f"tcab.rating{suffix}", run["review"]["rating"])
        if run.get("performance", {}).get("total_fuel") is not None:
            xml.add_global_property(f"tcab.total_fuel{suffix}", run["performance"]["total_fuel"])


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    if hasattr(report, "wasxfail"):
        return str(report.wasxfail)
    return bound(failure_text(report).strip())


_VERDICT_WORDS = {"passed": "pass", "failed": "fail", "skipped": "left for the reviewer", "excluded": "fail"}


def figure_lines(run: dict[str, Any]) -> list[str]:
    lines = []
    for item in run["items"]:
        if item["kind"] == "build" and item.get("shared_with"):
            lines.append(f"build: shared with {item['shared_with']} (the same inputs, {item['build_inputs'][:16]}...)")
        elif item["kind"] == "proof":
            lines.append(f"proof {item['id']}: {'present' if item.get('present') else 'missing'}")
        elif item["kind"] == "check" and "similarity" in item:
            lines.append(f"check {item['id']}: similarity {item['similarity']:.4f}")
        elif item["kind"] == "fuel" and "fuel" in item:
            lines.append(f"fuel {item['id']}: {item['fuel']:,} ({item['outcome']})")
        elif item["kind"] == "toolchain" and "returncode" in item:
            lines.append(f"toolchain {item['id']}: exit {item['returncode']} ({item['outcome']})")
        elif item["kind"] == "asset" and "format" in item:
            off = len(item.get("mismatches", []))
            state = "fits the reference" if item["outcome"] == "passed" else (
                f"{off} figure{'s' if off != 1 else ''} off the reference" if off else item["outcome"])
            lines.append(f"asset {item['id']} ({item['format']}): {state}")
        elif item["kind"] == "standings" and "table" in item:
            lines.extend(item["table"])
            if item.get("champion"):
                lines.append(f"champion: {item['champion']}")
        elif item["kind"] == "requirement":
            lines.append(f"requirement {item['id']}: {_VERDICT_WORDS.get(item['outcome'], item['outcome'])}")
        elif item["kind"] == "validate":
            word = _VERDICT_WORDS.get(item["outcome"], item["outcome"])
            if item.get("excluded_by"):
                word += f" (excluded from the score by erratum {item['excluded_by']})"
            lines.append(f"verdict {item['id']}: {word}")
    restarts = judge_restarts(run)
    if restarts:
        lines.append(f"judge: restarted {restarts} time{'s' if restarts != 1 else ''} (it died under a script, "
                     "which then ran once more on a fresh page)")
    from pytest_tcab.run.sandbox.disk import lowered_lines

    return lines + lowered_lines(run) + retry_lines(run) + summary_lines(run)


def summary_lines(run: dict[str, Any]) -> list[str]:
    """What results.json concluded about the run as a whole: its score, rating or fuel."""
    lines = []
    if "score" in run:
        score = run["score"]
        lines.append(
            f"score: {score['earned']:g} of {score['available']:g} automated points earned"
            f" ({score['failed_weight']:g} failed); {score.get('declared', score['available']):g} declared,"
            f" {score['pending_weight']:g} left for the reviewer"
            + (f", {score['not_run_weight']:g} not run (deselected)" if score.get("not_run") else "")
        )
    if "review" in run:
        lines.extend(review_lines(run["review"]))
    for erratum in run.get("errata", []):
        if erratum["affects_scoring"]:
            point = f" on {erratum['review']}" if erratum.get("review") else ""
            lines.append(f"erratum {erratum['id']}{point} affects scoring: {erratum['title']}")
    if "requirements" in run:
        req = run["requirements"]
        share = f" = {req['score']:.0%}" if req["score"] is not None else ""
        lines.append(f"requirements: {len(req['passed'])} passed of {req['decided']} decided{share}; "
                     f"{len(req['pending'])} left for the reviewer")
    if run.get("toolchain", {}).get("broken"):
        lines.append("toolchain: the run is rated broken (typecheck did not pass)")
    if site_note(run.get("site")):
        lines.append(str(site_note(run.get("site"))))
    if "performance" in run and run["performance"].get("total_fuel") is not None:
        perf = run["performance"]
        # A session narrowed to the fuel items (`-k fuel`, a node id) records no build item.
        module = (f"wasmtime {perf['wasmtime']}, module sha256 {perf['module_sha256'][:12]}" if perf.get("module_sha256")
                  else "no build item selected, so no module recorded")
        lines.append(f"performance: {perf['total_fuel']:,} fuel ({module})")
    return lines


def review_lines(review: dict[str, Any]) -> list[str]:
    """The reviewed figures (the review wing's `review` key): the run's, then each review's state."""
    counted = review["reviewed"]
    if review["score"] is not None:
        score = review["score"]
        lines = [f"reviewed score: {score['earned']:g} of {score['available']:g} points ({score['value']:.0%}),"
                 f" rating: {review['rating']} (the {'mean and worst' if counted > 1 else 'score and rating'} of"
                 f" {counted} complete, current review{'s' if counted != 1 else ''})"]
    else:
        lines = [f"reviewed score: none yet, no complete and current review"
                 f" ({review['reviews_total']} found under {review.get('folder', 'the reviews folder')})"]
    for entry in review["reviews"]:
        if entry["stale"]:
            state = "stale (the build changed since), counts nowhere"
        elif entry["complete"]:
            state = f"{entry['score']['earned']:g} of {entry['score']['available']:g}, overall {entry['overall']}"
        else:
            state = f"incomplete (misses {_gaps(entry)}), counts nowhere"
        overrides = len(entry["overrides"])
        notes = ([] if entry["pinned"] else ["unpinned"]) + (
            [f"{overrides} override{'s' if overrides != 1 else ''}"] if overrides else [])
        lines.append(f"review {entry['reviewer']}: {state}" + (f" ({', '.join(notes)})" if notes else ""))
    if review.get("problems"):
        lines.append(f"review files with problems: {len(review['problems'])} (see the warnings)")
    return lines


def _gaps(entry: dict[str, Any]) -> str:
    """What keeps a review from completion: `2 verdicts and the rating of versus`."""
    missing, problems = entry["missing"], entry.get("problems", [])
    gaps = []
    if missing["verdicts"]:
        gaps.append(f"{len(missing['verdicts'])} verdict{'s' if len(missing['verdicts']) != 1 else ''}")
    if missing["domains"]:
        gaps.append(f"the rating of {', '.join(missing['domains'])}")
    if problems:
        gaps.append(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} fixed")
    return " and ".join(gaps) or "nothing"


def _tool_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version

    versions = {"python": platform.python_version()}
    for name in ("pytest-tcab", "pytest", "playwright", "wasmtime", "pydantic"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            pass
    return versions
