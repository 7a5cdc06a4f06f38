"""What a sweep carries from an earlier session: each run `--tcab-resume` keeps, read back whole
from the results.json its folder holds, so every file the resumed sweep writes (results.json,
report.html, sweep.json, index.html, the journal) holds it, and a merge of the shard finds it.

A run the journal says was graded is kept only when its results.json is there and names it;
otherwise (its folder removed, a disk that ran out between the two writes) it is graded again,
never carried as a row without its items. The paths its items record are moved with its folder
when the earlier sweep was elsewhere (`moved`, which the merge uses for its shards' media too).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_tcab.options import RESUME_OPTION
from pytest_tcab.run.context import run_folder_name
from pytest_tcab.run.report.compare import SweepUnreadable


@dataclass
class Resumed:
    """The earlier sweep `--tcab-resume` names: its folder, the rows of the runs it graded and
    keeps, and each kept run as its results.json holds it (by run)."""

    folder: Path
    rows: list[dict[str, Any]]
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    shards: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """The `shard` record of each kept run's results.json (None: not graded as a shard)."""
    heads: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """The rest of each kept run's own folder's results.json (`tool`, `graded_with`…), which its
    files are written again with (None: only the top results.json held it)."""

    def check_shard(self, record: dict[str, Any] | None) -> None:
        """A shard resumes only its own folder, dealt alike: raises SweepUnreadable when a kept run was
        graded as another shard (index, count, plan or suite) than this session is."""
        for label, earlier in self.shards.items():
            if earlier != record:
                raise SweepUnreadable(
                    f"{RESUME_OPTION}: {self.folder / run_folder_name(label) / 'results.json'} was graded as "
                    f"{describe_shard(earlier)}, and this session is {describe_shard(record)}: resume a shard's "
                    f"folder with the same --tcab-shard, --tcab-shard-plan and suite")


def describe_shard(record: dict[str, Any] | None) -> str:
    """`shard 1 of 4 (dealt by hash, suite sha256:ab12…)`, or that it was no shard."""
    if not record:
        return "no shard (the whole sweep)"
    suite = f", suite {str(record['suite'])[:19]}…" if record.get("suite") else ""
    return f"shard {record.get('index')} of {record.get('count')} (dealt by {record.get('plan')}{suite})"


def kept(folder: Path, graded: list[dict[str, Any]]) -> Resumed:
    """The runs of `graded` (rows the earlier sweep in `folder` graded) whose results.json is whole."""
    resumed = Resumed(folder, [])
    for row in graded:
        found = _read_run(folder, row["run"])
        if found is not None:
            resumed.rows.append(row)
            resumed.runs[row["run"]], resumed.shards[row["run"]], resumed.heads[row["run"]] = found
    return resumed


def _read_run(folder: Path, label: str) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None] | None:
    """The run `label` of its own folder's results.json, else of the top one (a session of one run
    writes only that), with the file's shard record and, from its own folder's, the rest of the
    file; None when neither holds it."""
    own = folder / run_folder_name(label) / "results.json"
    for path in (own, folder / "results.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        runs = data.get("runs") if isinstance(data, dict) else None
        for run in runs if isinstance(runs, list) else []:
            if isinstance(run, dict) and run.get("run") == label and isinstance(run.get("items"), list):
                shard = data.get("shard")
                head = {key: value for key, value in data.items() if key != "runs"} if path == own else None
                return run, shard if isinstance(shard, dict) else None, head
    return None


def moved(value: Any, folders: dict[str, tuple[Path, Path]]) -> Any:
    """`value` with every absolute path into one of `folders` (by folder name: where it was, where
    its copy is) pointing at the copy, where the copy holds it."""
    if isinstance(value, dict):
        return {key: moved(item, folders) for key, item in value.items()}
    if isinstance(value, list):
        return [moved(item, folders) for item in value]
    if isinstance(value, str) and value.startswith("/"):
        parts = Path(value).parts
        for index, part in enumerate(parts):
            if part in folders:
                rest = Path(*parts[index + 1:]) if index + 1 < len(parts) else Path()
                old, new = folders[part]
                if (old / rest).exists() or (new / rest).exists():
                    return str(new / rest)
    return value
