"""How a sweep's runs are split between shards: one dealing function, two policies.

- `hash` (the default): a run's shard is a hash of its name, so it does not depend on which other
  runs there are (adding a run moves no other).
- a duration plan (`--tcab-shard-plan=PREVIOUS`, an earlier sweep): the runs are dealt longest
  first onto the lightest shard (least-duration, largest first, as pytest-split deals), each
  weighed by its `duration_s` in PREVIOUS, a run PREVIOUS did not grade by the median of its
  case's runs there (else of all its runs). Hash shards are lopsided at a benchmark's sizes
  (16 runs over 8 shards leave one empty most of the time); a plan evens the shards' wall time.

`--tcab-shard=I/N` and `--tcab-matrix --tcab-shards=N` both deal through `deal`. A plan is named by
its digest (`sha256:` of its count and its runs' shards), which every shard records beside its
index and count (`record`), so a resume and a merge can check that every shard dealt alike.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_tcab.errors import TcabError

HASH = "hash"
"""The default policy, and the `plan` a hash shard records."""
PLAN_FILE = "shard-plan.json"
"""What a shard dealt by a plan writes into its `--tcab-out`: every run's shard and weight, so a
resume deals by the same plan whatever PREVIOUS holds by then."""


class PlanUnreadable(TcabError):
    """The earlier sweep `--tcab-shard-plan` names (or a shard's plan file) cannot be read."""


@dataclass(frozen=True)
class Plan:
    """How the runs of a session are dealt between `count` shards."""

    count: int
    shards: dict[str, int] | None = None
    """Each run's shard (0 to count-1), by run; None: by hash."""
    weights: dict[str, float] | None = None
    """What each run was weighed at, in seconds (a plan's)."""
    source: str | None = None
    """The earlier sweep the weights came from."""

    @property
    def name(self) -> str:
        """`hash`, or the plan's digest."""
        if self.shards is None:
            return HASH
        text = json.dumps({"count": self.count, "shards": self.shards}, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def index_of(self, label: str) -> int:
        """The shard of run `label` (a run the plan does not know goes by its hash)."""
        if self.shards is not None and label in self.shards:
            return self.shards[label]
        return hash_index(label, self.count)

    def shard_of(self, index: int) -> dict[str, Any]:
        """`shard` in results.json and sweep.json: which shard this is, of how many, dealt how."""
        return {"index": index, "count": self.count, "plan": self.name}

    def as_json(self) -> dict[str, Any]:
        return {"count": self.count, "plan": self.name, "from": self.source, "shards": self.shards,
                "weights": self.weights}


def hash_index(label: str, count: int) -> int:
    """The shard of run `label` by the hash of its name."""
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big") % count


def deal(weights: dict[str, float], count: int) -> dict[str, int]:
    """Each run's shard: the heaviest run first (ties by name) onto the lightest shard so far (ties:
    the one with fewer runs, then the lowest index; so N runs over N shards are one each)."""
    loads = [0.0] * count
    held = [0] * count
    shards: dict[str, int] = {}
    for label in sorted(weights, key=lambda label: (-weights[label], label)):
        lightest = min(range(count), key=lambda index: (loads[index], held[index], index))
        shards[label] = lightest
        loads[lightest] += weights[label]
        held[lightest] += 1
    return shards


def balanced(runs: dict[str, str | None], count: int, previous: Path) -> Plan:
    """The plan dealing `runs` (each run's case, None when it names none) by their durations in the
    earlier sweep `previous` (its folder or its sweep.json)."""
    seen = read_durations(previous)
    by_case: dict[str | None, list[float]] = {}
    for case, seconds in seen.values():
        by_case.setdefault(case, []).append(seconds)
    every = [seconds for _, seconds in seen.values()]
    weights = {}
    for label, case in runs.items():
        if label in seen:
            weights[label] = seen[label][1]
        else:
            known = by_case.get(case) or every
            weights[label] = round(statistics.median(known), 3) if known else 1.0
    return Plan(count, deal(weights, count), weights, str(previous))


def read_durations(previous: Path) -> dict[str, tuple[str | None, float]]:
    """Each run's case and `duration_s` in an earlier sweep's sweep.json (runs not graded there, or
    without a duration, weigh nothing in it)."""
    path = previous / "sweep.json" if previous.is_dir() else previous
    data = _read_json(path, "--tcab-shard-plan", "give an earlier sweep's --tcab-out folder or its sweep.json")
    rows = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise PlanUnreadable(f"--tcab-shard-plan: {path}: no `runs` list at the top; expected the sweep.json a "
                             "sweep writes")
    found: dict[str, tuple[str | None, float]] = {}
    for row in rows:
        if (isinstance(row, dict) and isinstance(row.get("run"), str) and row.get("status") == "graded"
                and isinstance(row.get("duration_s"), (int, float)) and row["duration_s"] >= 0):
            found[row["run"]] = (row.get("case") if isinstance(row.get("case"), str) else None,
                                 float(row["duration_s"]))
    return found


def read_plan(folder: Path) -> Plan | None:
    """The plan a shard's folder recorded (`PLAN_FILE`), or None when it was dealt by hash."""
    path = folder / PLAN_FILE
    if not path.is_file():
        return None
    data = _read_json(path, "--tcab-resume", "it is the plan this shard was dealt by; remove it to deal again")
    shards = data.get("shards") if isinstance(data, dict) else None
    count = data.get("count") if isinstance(data, dict) else None
    if (not isinstance(count, int) or count < 1 or not isinstance(shards, dict)
            or not all(isinstance(index, int) and 0 <= index < count for index in shards.values())):
        raise PlanUnreadable(f"--tcab-resume: {path}: not a shard plan (a `count` and each run's shard from 0 to "
                             "count-1); it is the plan this shard was dealt by; remove it to deal again")
    weights = data.get("weights") if isinstance(data.get("weights"), dict) else None
    return Plan(count, {str(label): index for label, index in shards.items()}, weights,
                data.get("from") if isinstance(data.get("from"), str) else None)


def suite_digest(root: Path) -> str:
    """`sha256:` of the suite's case files (each manifest and definition, by path and content):
    shards of two suites, or of one suite at two commits, differ here."""
    from pytest_tcab.layout import walk

    layout = walk(root)
    digest = hashlib.sha256()
    for path in sorted({*layout.manifests, *layout.definitions, *[root / "tcab.toml"]}):
        try:
            content = path.read_bytes()
        except OSError:
            continue
        where = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
        digest.update(where.encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(content).digest())
    return "sha256:" + digest.hexdigest()


def _read_json(path: Path, option: str, hint: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanUnreadable(f"{option}: {path} does not exist; {hint}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanUnreadable(f"{option}: {path} cannot be read: {exc}; {hint}") from None
    except json.JSONDecodeError as exc:
        raise PlanUnreadable(f"{option}: {path}:{exc.lineno}: not valid JSON: {exc.msg}; {hint}") from None
