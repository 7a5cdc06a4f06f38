"""Read a sweep for analysis: one plain dict per run (or per item), and a pandas DataFrame of them.

    from pytest_tcab import sweep

    rows = sweep.load(".tcab/results/sweep")              # list of dicts, one per run
    frame = sweep.load(".tcab/results/sweep", frame=True)  # a pandas DataFrame (pandas installed)
    items = sweep.load_items(".tcab/results/sweep")        # one dict per item of every run

A row is flat, so it fits a data frame as it is: who produced the run (`model`, `harness`,
each label as `label.<key>`), what it was graded against (`case`, `version`, `variant`,
`engine`), how it ended (`status`, `score`, `duration_s`, each outcome count as `count.<word>`)
and the figure its case is ranked by (`figure`, `value`, `unit`, `better`, and `fuel_state` for
a performance run), and what its reviewers decided (`review.score`, the reviewed score;
`review.rating`, the worst of their overall ratings; `review.reviewed`, how many complete, current
reviews count; `review.awaiting`, whether it still awaits one). Nothing here needs pandas unless a
frame is asked for.

    reviews = sweep.load_reviews(".tcab/results/sweep")    # one dict per review of every run
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_tcab.run.report.sweep import SWEEP_FILE

__all__ = ["load", "load_items", "load_reviews", "read_document"]


def read_document(path: str | Path) -> dict[str, Any]:
    """sweep.json's document: `path` is the file, or the `--tcab-out` folder holding it."""
    where = Path(path)
    if where.is_dir():
        where = where / SWEEP_FILE
    data = json.loads(where.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise ValueError(f"{where}: not a sweep.json (no `runs` list at the top)")  # noqa: TRY004 (a bad file)
    return data


def load(path: str | Path, *, frame: bool = False) -> Any:
    """One flat dict per run of the sweep at `path`; with `frame=True`, a pandas DataFrame of them."""
    rows = [run_record(row) for row in read_document(path)["runs"]]
    return _frame(rows) if frame else rows


def load_items(path: str | Path, *, frame: bool = False) -> Any:
    """One flat dict per item of every run (`run`, `model`, `harness`, `case`, `item`, `outcome`,
    `message`, `fuel`); with `frame=True`, a pandas DataFrame of them."""
    records = []
    for row in read_document(path)["runs"]:
        details = row.get("details") or {}
        for key, outcome in (row.get("items") or {}).items():
            detail = details.get(key) or {}
            records.append({"run": row["run"], "model": row.get("model"), "harness": row.get("harness"),
                            "case": row.get("case"), "item": key, "kind": key.partition("[")[0],
                            "outcome": outcome, "message": detail.get("message"), "fuel": detail.get("fuel")})
    return _frame(records) if frame else records


def load_reviews(path: str | Path, *, frame: bool = False) -> Any:
    """One flat dict per review of every run (`run`, `model`, `harness`, `case`, `reviewer`,
    `complete`, `stale`, `overall`, each domain's tier as `rating.<domain>`, each verdict as
    `verdict.<id>`: `pass` or `fail`, and `overrides`, the ids it overrode, comma-separated); with
    `frame=True`, a pandas DataFrame of them."""
    records = []
    for row in read_document(path)["runs"]:
        for review in (row.get("review") or {}).get("reviews") or []:
            record = {"run": row["run"], "model": row.get("model"), "harness": row.get("harness"),
                      "case": row.get("case"), **{key: review.get(key) for key in
                                                  ("reviewer", "complete", "stale", "overall")}}
            record.update({f"rating.{domain}": tier for domain, tier in sorted((review.get("ratings") or {}).items())})
            record.update({f"verdict.{key}": verdict for key, verdict in sorted((review.get("verdicts") or {}).items())})
            record["overrides"] = ",".join(review.get("overrides") or [])
            records.append(record)
    return _frame(records) if frame else records


def run_record(row: dict[str, Any]) -> dict[str, Any]:
    """A sweep.json row made flat: its nested labels, counts and figure become columns."""
    figure = row.get("figure") or {}
    record: dict[str, Any] = {
        key: row.get(key) for key in ("run", "case", "version", "variant", "engine", "layout", "model", "harness",
                                      "status", "error", "score", "duration_s", "media", "partial", "report")
    }
    record.update({
        "figure": figure.get("name"), "value": figure.get("value"), "unit": figure.get("unit"),
        "better": figure.get("better"), "fuel_state": figure.get("state"),
    })
    review = row.get("review") or {}
    record.update({f"review.{key}": review.get(key) for key in ("score", "rating", "reviewed", "awaiting")})
    record.update({f"label.{key}": value for key, value in sorted((row.get("labels") or {}).items())})
    record.update({f"count.{word}": count for word, count in sorted((row.get("counts") or {}).items())})
    return record


def _frame(records: list[dict[str, Any]]) -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError("pytest_tcab.sweep: frame=True needs pandas (pip install pandas); "
                          "without it, load() returns the rows as plain dicts") from None
    return pandas.DataFrame.from_records(records)
