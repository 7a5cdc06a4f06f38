"""A grader that agrees with itself: each verdict's stability over the runs `--tcab-regrade` graded
more than once, for sweep.json and its page.

Validation replays are seeded and driven on a manual clock, so grading one build twice should
give the same verdicts; a verdict whose gradings of one build disagree (`unstable`) is a defect of
the grader or of the case's script, not a fact about the model. Per verdict of a case, the sweep
says on how many runs it was regraded, on how many it agreed with itself, and each run where it
did not with its K outcomes: a case author sees which validation scripts are flaky.
"""

from __future__ import annotations

from typing import Any

from pytest_tcab.outcomes import UNSTABLE
from pytest_tcab.run.report.page.markup import e


def row_gradings(run: dict[str, Any]) -> dict[str, list[str]]:
    """Each regraded item's outcomes, by the key a row names its items by (`validate[ball-moves]`)."""
    return {f"{item['kind']}[{item['id']}]": list(item["gradings"])
            for item in run.get("items", []) if isinstance(item.get("gradings"), list)}


def verdict_stability(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case and verdict, over the runs it was regraded on: how often its gradings agreed; the
    least stable first."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        for key, outcomes in sorted((row.get("gradings") or {}).items()):
            entry = found.setdefault((str(row.get("case")), key), {
                "case": row.get("case"), "item": key, "runs": 0, "stable": 0, "unstable": 0, "gradings": len(outcomes),
                "unstable_runs": []})
            entry["runs"] += 1
            if (row.get("items") or {}).get(key) == UNSTABLE:
                entry["unstable"] += 1
                entry["unstable_runs"].append({"run": row["run"], "outcomes": list(outcomes)})
            else:
                entry["stable"] += 1
            entry["gradings"] = max(entry["gradings"], len(outcomes))
    for entry in found.values():
        entry["share"] = round(entry["stable"] / entry["runs"], 6)
    return sorted(found.values(), key=lambda entry: (entry["share"], str(entry["case"]), entry["item"]))


def stability_section(stability: list[dict[str, Any]]) -> str:
    """The sweep page's table of it: one line per verdict, the unstable runs named with their outcomes."""
    lines = []
    for entry in stability:
        runs = "; ".join(f"{run['run']}: {', '.join(run['outcomes'])}" for run in entry["unstable_runs"])
        lines.append(f"<tr><td>{e(entry['case'])}</td><td>{e(entry['item'])}</td>"
                     f'<td class="num">{entry["stable"]}/{entry["runs"]}</td><td class="num">{entry["gradings"]}</td>'
                     f"<td>{e(runs) or '-'}</td></tr>")
    head = "".join(f'<th scope="col">{name}</th>' for name in ("case", "verdict", "stable on", "gradings a run",
                                                               "unstable runs (each grading's outcome)"))
    note = ('<p class="note">Each run graded K times on one build (--tcab-regrade): a verdict stable on a run '
            "ended the same way every time. An unstable verdict is the grader's failure (its script or driver "
            "disagrees with itself), counted in no figure above.</p>")
    return (f'<section id="stability"><h2>Verdict stability</h2>{note}<table id="stability-table"><thead><tr>{head}'
            f"</tr></thead><tbody>{''.join(lines)}</tbody></table></section>\n")
