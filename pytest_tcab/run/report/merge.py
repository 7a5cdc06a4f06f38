"""`--tcab-merge=DIR`: the results.json of several shards (CI matrix jobs) as one results.json and
report.html in `--tcab-out`, as if one session had run every item.

Each shard's items are taken back into the recorder's runs (`RunRecord`) and the results are
recomputed from them, so scores, ratings and fuel totals cover every shard's items. An item
two shards recorded must agree on its outcome (the first shard's figures are kept); a run two
shards name must be the same run (case, version, variant, engine); an item a shard deselected
that another ran is no longer missing, and a run whose items are still missing stays partial.
Each shard's media folders are copied into `--tcab-out` and the paths its items record are
moved with them. Every problem with a shard (missing, unreadable, not JSON, not results.json)
is a usage error naming the file and what is wrong. The session collects and runs nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.options import ALLOW_PARTIAL_OPTION
from pytest_tcab.options import MERGE_OPTION
from pytest_tcab.options import SUITE_OPTION
from pytest_tcab.run.report.carried import describe_shard
from pytest_tcab.run.report.carried import moved
from pytest_tcab.run.report.compare import SweepUnreadable
from pytest_tcab.run.report.compare import read_sweep_rows
from pytest_tcab.run.report.leaderboard import Rules
from pytest_tcab.run.report.records import RunRecord
from pytest_tcab.run.report.results import ResultsRecorder
from pytest_tcab.run.report.sweep import BAD_INPUT
from pytest_tcab.run.report.sweep import SWEEP_FILE
from pytest_tcab.run.report.sweep import held_shards
from pytest_tcab.run.report.sweep import indexes_text
from pytest_tcab.run.report.sweep import shards_line
from pytest_tcab.run.report.sweep_files import write_sweep
from pytest_tcab.run.versions import differing_options
from pytest_tcab.run.versions import option_flag
from pytest_tcab.writing import WritingSession

IDENTITY = ("run", "case", "version", "variant", "engine", "source", "layout", "model", "harness", "labels", "media",
            "build_digest")
"""What `RunContext.run_properties` writes at the top of each run of results.json."""
_RECOMPUTED = ("score", "domains", "errata", "performance", "tournament", "toolchain", "requirements")
"""The parts of a run results.json computes from its items (`scoring_report.for_run`)."""


class Merge(WritingSession):
    """Registered by plugin.py when `--tcab-merge` is given: the session merges the shards' results
    instead of collecting (the shards ran the items)."""

    def __init__(self, config: pytest.Config, out_dir: Path) -> None:
        super().__init__()
        self.config = config
        self.out_dir = out_dir

    def write(self) -> list[Path]:
        shards = [Path(value) for value in self.config.getoption("tcab_merge")]
        data = merge(self.config, shards, self.out_dir)
        from pytest_tcab.run.report.html import write_report

        path = self.out_dir / "results.json"
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        written = [path, write_report(data, self.out_dir, self.config.getoption("tcab_report"))]
        bad = [row for shard in shards for row in shard_sweep_rows(shard) if row["status"] == BAD_INPUT]
        if bad or len(data["runs"]) > 1 or "shards" in data or any(shard_sweep_rows(shard) for shard in shards):
            media = next((run["media"] for run in data["runs"] if run.get("media")), "all")
            written += write_sweep(data, self.out_dir, form=self.config.getoption("tcab_report"), media=media,
                                   extra_rows=bad, rules=Rules.of(self.config))
        return written

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.written:
            return
        terminalreporter.section("tcab merge", sep="-")
        data = json.loads(self.written[0].read_text(encoding="utf-8"))
        runs = data["runs"]
        held = data.get("shards")
        if held:
            terminalreporter.write_line(shards_line(held), red=bool(held["missing"]), bold=bool(held["missing"]))
        from pytest_tcab.run.report.results import figure_lines
        from pytest_tcab.run.report.results import run_heading

        for run in runs:
            counts = ", ".join(f"{n} {word}" for word, n in run["counts"].items())
            partial = " (partial)" if run.get("partial") else ""
            terminalreporter.write_line(f"{run_heading(run)}: {counts}{partial}")
            for line in figure_lines(run):
                terminalreporter.write_line(f"  {line}")
        for path in self.written:
            terminalreporter.write_line(f"wrote {path}")


def merge(config: pytest.Config, shards: list[Path], out_dir: Path) -> dict[str, Any]:
    """The merged results.json of `shards` (each a shard's `--tcab-out` folder or its results.json);
    media are copied into `out_dir`."""
    if not shards:
        raise pytest.UsageError(f"{MERGE_OPTION}: no shard given")
    loaded = [(shard, read_shard(shard)) for shard in shards]
    held = shards_held(loaded, allow_partial=bool(config.getoption("tcab_allow_partial")))
    out_dir.mkdir(parents=True, exist_ok=True)
    recorder = ResultsRecorder(config, out_dir)
    origin: dict[str, Path] = {}
    previous: dict[str, dict[str, Any]] = {}
    for shard, data in loaded:
        folder = shard if shard.is_dir() else shard.parent
        if folder.resolve() == out_dir.resolve():
            raise pytest.UsageError(f"{MERGE_OPTION}: {shard} is also --tcab-out; merge into another folder")
        folders = _copy_media(folder, out_dir)
        for run in data["runs"]:
            identity = {key: run[key] for key in IDENTITY if key in run}
            record = recorder.runs.setdefault(identity["run"], RunRecord(identity))
            if record.identity != identity:
                raise pytest.UsageError(_conflict(f"run {identity['run']!r}", origin[identity["run"]], shard,
                                           _describe(record.identity), _describe(identity)))
            origin.setdefault(identity["run"], shard)
            if isinstance(run.get("graded_by"), dict):
                record.graded_by = record.graded_by or dict(run["graded_by"])
            if isinstance(run.get("graded_with"), dict):
                record.graded_with = record.graded_with or dict(run["graded_with"])
            for item in run["items"]:
                entry = moved({key: value for key, value in item.items() if key != "nodeid"}, folders)
                known = record.items.setdefault(item["nodeid"], entry)
                if known["outcome"] != entry["outcome"]:
                    raise pytest.UsageError(_conflict(f"item {item['nodeid']}", origin[f"item {item['nodeid']}"], shard,
                                               known["outcome"], entry["outcome"]))
                origin.setdefault(f"item {item['nodeid']}", shard)
            for item in run.get("deselected", []):
                record.deselected[item["nodeid"]] = {"kind": item["kind"], "id": item["id"]}
            previous.setdefault(identity["run"], run)
    for record in recorder.runs.values():
        for nodeid in set(record.deselected) & set(record.items):
            del record.deselected[nodeid]  # another shard ran it
    merged = recorder.results()
    for run in merged["runs"]:
        _check_recomputed(run, previous[run["run"]])
    return {**_session(loaded), **({"shards": held} if held is not None else {}),
            "merged_from": [str(shard) for shard in shards], "runs": merged["runs"]}


def shards_held(loaded: list[tuple[Path, dict[str, Any]]], *, allow_partial: bool) -> dict[str, Any] | None:
    """Which shards of how many the merge holds (`shards` of the merged results.json and sweep.json),
    or None when the shards record none (CI matrix entries, an older version's); every way they do
    not make one sweep is a usage error naming the folders: shards of different counts, plans,
    suites, plugin versions or grading options, a shard given twice, a folder that is no shard
    beside ones that are, and a missing index (unless `allow_partial`)."""
    problems = _differing(loaded, "the plugin", lambda data: (data.get("tool") or {}).get("pytest-tcab"))
    records = {shard: data["shard"] for shard, data in loaded if isinstance(data.get("shard"), dict)}
    for name, values in differing_options([data["graded_with"] for _, data in loaded
                                           if isinstance(data.get("graded_with"), dict)]).items():
        problems += _differing(loaded, option_flag(name), _option_value(name))
    if not records:
        _refuse(problems)
        return None
    unsharded = [shard for shard, _ in loaded if shard not in records]
    if unsharded:
        first = next(iter(records.items()))
        problems.append(f"{_folders(unsharded)} {'is' if len(unsharded) == 1 else 'are'} no shard (no `shard` in its "
                        f"results.json: graded without --tcab-shard), but {first[0]} is {describe_shard(first[1])}; "
                        "merge the shards of one sweep")
    for key, what in (("count", "shard counts"), ("plan", "plans"), ("suite", "suites")):
        problems += _differing([(shard, {"v": record.get(key)}) for shard, record in records.items()], what,
                               lambda data: data["v"])
    by_index: dict[int, list[Path]] = {}
    for shard, record in records.items():
        places = by_index.setdefault(int(record.get("index", -1)), [])
        if all(place.resolve() != shard.resolve() for place in places):
            places.append(shard)
    for index, places in sorted(by_index.items()):
        if len(places) > 1:
            problems.append(f"shard {index} is given twice, as {_folders(places)}; give one folder of each shard")
    count = int(next(iter(records.values())).get("count", 0))
    missing = [index for index in range(count) if index not in by_index]
    if missing and not allow_partial:
        problems.append(f"{indexes_text(missing)} of {count} {'is' if len(missing) == 1 else 'are'} missing (given: "
                        f"{indexes_text(sorted(by_index)) or 'none'}): give every shard's folder (a failed array task? a "
                        f"glob that missed one?), or {ALLOW_PARTIAL_OPTION} to merge what is there and say what is not")
    _refuse(problems)
    return held_shards(count, next(iter(records.values())).get("plan"), sorted(by_index), missing)


def _option_value(name: str) -> Any:
    """What a shard's results.json says of grading option `name` (as JSON text), or None."""
    def value(data: dict[str, Any]) -> str | None:
        options = data.get("graded_with")
        return json.dumps(options[name]) if isinstance(options, dict) and name in options else None
    return value


def _differing(loaded: list[tuple[Path, dict[str, Any]]], what: str, value_of: Any) -> list[str]:
    """The problem of shards that hold different values of `what` (a shard that holds none is not
    counted against the others), naming the folders of each value."""
    found: dict[str, list[Path]] = {}
    for shard, data in loaded:
        value = value_of(data)
        if value is not None:
            found.setdefault(str(value), []).append(shard)
    if len(found) < 2:
        return []
    return [f"shards differ in {what}: " + "; ".join(f"{value.strip(chr(34))} in {_folders(folders)}"
                                                     for value, folders in sorted(found.items()))]


def _refuse(problems: list[str]) -> None:
    if problems:
        raise pytest.UsageError("\n".join(f"{MERGE_OPTION}: {problem}" for problem in problems))


def _folders(folders: list[Path]) -> str:
    return ", ".join(str(folder) for folder in folders)


def shard_sweep_rows(shard: Path) -> list[dict[str, Any]]:
    """The rows of a shard's sweep.json, or none when it wrote none."""
    folder = shard if shard.is_dir() else shard.parent
    if not (folder / SWEEP_FILE).is_file():
        return []
    try:
        return read_sweep_rows(folder / SWEEP_FILE, MERGE_OPTION)
    except SweepUnreadable as exc:
        raise pytest.UsageError(str(exc)) from None


def read_shard(shard: Path) -> dict[str, Any]:
    """A shard's results.json, checked for the shape the merge reads."""
    path = shard / "results.json" if shard.is_dir() else shard
    if not path.is_file():
        where = f"{shard} holds no results.json" if shard.is_dir() else f"{shard} does not exist"
        raise pytest.UsageError(f"{MERGE_OPTION}: {where}; expected a shard's --tcab-out folder (or its results.json)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise pytest.UsageError(f"{MERGE_OPTION}: {path} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise pytest.UsageError(f"{MERGE_OPTION}: {path} is not UTF-8 text; expected a results.json") from None
    except json.JSONDecodeError as exc:
        raise pytest.UsageError(f"{MERGE_OPTION}: {path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    problem = _shape_problem(data)
    if problem is not None:
        raise pytest.UsageError(f"{MERGE_OPTION}: {path}: {problem}; expected the results.json a run writes")
    record = data.get("shard")
    if record is not None and not (isinstance(record, dict) and isinstance(record.get("count"), int)
                                   and isinstance(record.get("index"), int) and 0 <= record["index"] < record["count"]
                                   and isinstance(record.get("plan"), str)):
        raise pytest.UsageError(f"{MERGE_OPTION}: {path}: `shard` is not a shard record (`index` from 0 to `count`-1, "
                                "`count`, `plan`); expected the results.json a run writes")
    if "sandbox" in data:  # the merged report says it in one line: a shard's must be one a session wrote
        from pytest_tcab.run.sandbox.sandbox import summary_line

        try:
            summary_line(data["sandbox"])
        except (KeyError, TypeError, ValueError, AttributeError):
            raise pytest.UsageError(f"{MERGE_OPTION}: {path}: `sandbox` is not the sandbox a session records "
                                    "(`sandboxed`, `network`, its caps); expected the results.json a run writes"
                                    ) from None
    return data  # type: ignore[no-any-return]


def _shape_problem(data: Any) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        return "no `runs` list at the top"
    for i, run in enumerate(data["runs"]):
        where = f"`runs[{i}]`"
        if not isinstance(run, dict):
            return f"{where} is not an object"
        missing = [key for key in ("run", "case", "version", "variant", "items") if key not in run]
        if missing:
            return f"{where} has no `{missing[0]}`"
        if not isinstance(run["items"], list) or not isinstance(run.get("deselected", []), list):
            return f"{where}: `items` and `deselected` must be lists"
        for j, item in enumerate(run["items"] + run.get("deselected", [])):
            keys = ("nodeid", "kind", "id", "outcome") if j < len(run["items"]) else ("nodeid", "kind", "id")
            absent = [key for key in keys if not isinstance(item, dict) or not isinstance(item.get(key), str)]
            if absent:
                part = f"items[{j}]" if j < len(run["items"]) else f"deselected[{j - len(run['items'])}]"
                return f"`runs[{i}].{part}` has no `{absent[0]}` text"
    return None


def _conflict(what: str, first: Path, second: Path, was: str, now: str) -> str:
    return f"{MERGE_OPTION}: {what} is {was} in {first} but {now} in {second}; shards must not disagree"


def _describe(identity: dict[str, Any]) -> str:
    return "/".join(str(identity.get(key, "")) for key in ("case", "version", "variant", "engine"))


def _check_recomputed(run: dict[str, Any], shard_run: dict[str, Any]) -> None:
    """A score a shard computed must not vanish: the suite it came from is needed to recompute it."""
    lost = [key for key in _RECOMPUTED if key in shard_run and key not in run]
    if lost:
        raise pytest.UsageError(f"{MERGE_OPTION}: the {lost[0]} of run {run['run']!r} ({run['case']}@{run['version']}) "
                         f"cannot be recomputed without its case: give {SUITE_OPTION}=SUITE, the suite the "
                         "shards ran")


def _session(loaded: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """The session-wide part: the first shard's tools; the sandbox of a shard that was not
    sandboxed, if any (the merged report must not read safer than its worst shard)."""
    datas = [data for _, data in loaded]
    found: dict[str, Any] = {"tool": datas[0].get("tool", {})}
    sandboxes = [data["sandbox"] for data in datas if isinstance(data.get("sandbox"), dict)]
    if sandboxes:
        found["sandbox"] = next((box for box in sandboxes if not box.get("sandboxed")), sandboxes[0])
    graded_with = next((data["graded_with"] for data in datas if isinstance(data.get("graded_with"), dict)), None)
    if graded_with is not None:  # the shards' own, which `shards_held` found to agree
        found["graded_with"] = graded_with
    changed = sorted({change for data in datas for change in data.get("suite_changed", [])})
    if changed:
        found["suite_changed"] = changed
    return found


def _copy_media(folder: Path, out_dir: Path) -> dict[str, tuple[Path, Path]]:
    """Copy the shard's run folders into `out_dir`; by folder name, where they were and are now."""
    folders = {}
    for child in sorted(folder.iterdir()):
        if child.is_dir():
            shutil.copytree(child, out_dir / child.name, dirs_exist_ok=True)
            folders[child.name] = (child, out_dir / child.name)
    return folders
