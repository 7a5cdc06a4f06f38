"""The sweep page's reviews: what the reviewers decided, in a section of its own.

Three tables, plain HTML (sortable and filtered by the page's own script like the rest): per
(harness, model) group and case, the reviewed score beside the automated one with the ratings
and the runs awaiting review; per verdict, how often reviewers override its validator; and per
pair of reviewers, how often they agree on each verdict and domain, with Cohen's kappa (or, where
it is undefined, why). Reviewer names, verdict ids and domains are escaped like every other text.
"""

from __future__ import annotations

from typing import Any

from pytest_tcab.run.report.page.markup import e
from pytest_tcab.run.report.page.markup import group_attributes
from pytest_tcab.run.report.page.markup import number_cell
from pytest_tcab.run.report.page.markup import sortable_table
from pytest_tcab.run.report.page.markup import text_cell
from pytest_tcab.scoring import RATING_SCALE


def reviews_section(board: list[dict[str, Any]], reviews: dict[str, Any] | None) -> str:
    """The section, or a line saying no run of the sweep has a checklist to review."""
    cells = [cell for cell in board if (cell.get("review") or {}).get("of")]
    if not cells:
        return ('<section id="reviews"><h2>Reviews</h2><p class="note">No run of this sweep has a checklist '
                "for a reviewer.</p></section>\n")
    reviews = reviews or {}
    reviewers = reviews.get("reviewers") or []
    summary = (f"{reviews.get('reviewed', 0)} runs reviewed, {reviews.get('awaiting', 0)} awaiting review; "
               f"reviewers: {', '.join(reviewers) if reviewers else 'none yet'}.")
    note = ('<p class="note">Only complete, current reviews count (a draft, or a review of a build that has '
            "changed since, counts nowhere). A run's reviewed score is the mean of its reviews' scores over every "
            "declared point, its rating the worst of theirs; a group's reviewed score is the mean over its reviewed "
            "runs with a seeded 95% bootstrap interval, beside the automated score of all its graded runs.</p>")
    return (f'<section id="reviews"><h2>Reviews</h2><p>{e(summary)}</p>{note}'
            f"{_groups(cells)}{_overrides(reviews.get('overrides') or [])}"
            f"{_agreement(reviews.get('agreement') or [])}</section>\n")


def _groups(cells: list[dict[str, Any]]) -> str:
    rows = []
    for cell in cells:
        review = cell["review"]
        automated = "-" if cell.get("mean") is None else f"{cell['mean']:.3f} [{cell['low']:.3f}, {cell['high']:.3f}]"
        reviewed = ("-" if review.get("value") is None
                    else f"{review['value']:.3f} [{review['low']:.3f}, {review['high']:.3f}]")
        ratings = ", ".join(f"{count} {tier}" for tier, count in (review.get("ratings") or {}).items() if count)
        rows.append(f"<tr {group_attributes(cell)}>" + "".join([
            text_cell(cell["harness"] or "-"), text_cell(cell["model"] or "-"), text_cell(cell["case"]),
            text_cell(automated, cell.get("mean")), number_cell(cell.get("runs")),
            text_cell(reviewed, review.get("value")), text_cell(f"{review['n']} of {review['of']}", review["n"]),
            text_cell(ratings or "-"), _tier(review.get("best")), _tier(review.get("worst")),
            number_cell(review.get("awaiting")),
        ]) + "</tr>")
    head = ["harness", "model", "case", "automated mean [95%]", "n", "reviewed mean [95%]", "reviewed of graded",
            "ratings (runs per tier)", "best", "worst", "awaiting review"]
    return (f'<h3>Reviewed scores</h3><div class="scroll">{sortable_table(head, rows, "reviewed-table")}</div>')


def _overrides(rates: list[dict[str, Any]]) -> str:
    if not rates:
        return '<h3>Overrides</h3><p class="note">No reviewed run has a verdict a validator decided.</p>'
    rows = [f'<tr data-case="{e(rate["case"])}" data-group="">' + "".join([
        text_cell(rate["case"]), f'<td data-sort="{e(rate["verdict"])}"><code>{e(rate["verdict"])}</code></td>',
        text_cell(f"{rate['overrides']} of {rate['reviews']}", rate["overrides"]), number_cell(rate["share"], 2),
        number_cell(rate["to_fail"]), number_cell(rate["to_pass"]), number_cell(rate["runs"]),
    ]) + "</tr>" for rate in rates]
    head = ["case", "verdict", "overridden", "share", "pass made fail", "fail made pass", "runs"]
    note = ('<p class="note">Per verdict a validation script decided: of the reviews of the runs where it '
            "decided, how many overrode it. The most overridden first: the scripts reviewers disagree with.</p>")
    return f"<h3>Overrides</h3>{note}{sortable_table(head, rows, 'overrides-table')}"


def _agreement(found: list[dict[str, Any]]) -> str:
    if not found:
        return ('<h3>Agreement</h3><p class="note">No run has two complete, current reviews yet: agreement '
                "needs two reviewers on the same runs.</p>")
    rows = []
    for entry in found:
        kappa = (f'<td class="num" data-sort="{entry["kappa"]}">{entry["kappa"]:.2f}</td>'
                 if entry["kappa"] is not None else f'<td class="note" data-sort="-2">{e(entry["kappa_note"])}</td>')
        rows.append(f'<tr data-case="{e(entry["case"])}" data-group="">' + "".join([
            text_cell(" & ".join(entry["reviewers"])), text_cell(entry["case"]), text_cell(entry["what"]),
            f'<td data-sort="{e(entry["id"])}"><code>{e(entry["id"])}</code></td>', number_cell(entry["runs"]),
            text_cell(f"{entry['agreeing']} of {entry['runs']}", entry["agreeing"]), number_cell(entry["share"], 2), kappa,
        ]) + "</tr>")
    head = ["reviewers", "case", "of", "verdict or domain", "runs both reviewed", "agreeing", "share",
            "Cohen's kappa"]
    note = ('<p class="note">Per pair of reviewers, on the runs both reviewed: how often their effective verdicts '
            "(the validators' where neither overrode them) and their domain ratings (the exact tier) agree, and "
            "Cohen's kappa, the agreement beyond chance (1: always agree; 0: no better than chance).</p>")
    return f"<h3>Agreement</h3>{note}{sortable_table(head, rows, 'agreement-table')}"


def _tier(tier: object) -> str:
    rank = RATING_SCALE.index(tier) if tier in RATING_SCALE else len(RATING_SCALE)
    return f'<td data-sort="{rank}">{e(tier or "-")}</td>'
