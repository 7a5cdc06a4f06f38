"""The page's posted fields as a review, or every mistake the reviewer made, each naming its field.

The fields are named as the review file's lines are (`review.<id>`, `note.<id>`, `rating.<domain>`,
`body`), so the page, its tests and a person editing the file read the same words. A point the
validator decided and the reviewer left as it is writes no line (the review then reproduces the
automated figures); changing it is an override, which needs a note. A review missing verdicts or
ratings is saved all the same, as a draft: it counts nowhere until it is complete.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

from pytest_tcab.review.grammar import TIERS
from pytest_tcab.review.grammar import Review
from pytest_tcab.review.grammar import ReviewVerdict
from pytest_tcab.review.page.view import RunView

MAX_NOTE = 500
MAX_BODY = 64 * 1024
VERDICT_WORDS = ("pass", "fail")


@dataclass
class Submission:
    """What a save asked for: the review to write and the revision's note, or what is wrong."""

    review: Review | None
    note: str
    errors: list[str] = field(default_factory=list)


def read_form(fields: Mapping[str, object], revision: object, view: RunView, reviewer: str, build: str | None,
              first: bool) -> Submission:
    """The review `fields` say for `view`'s run, by `reviewer` of the build `build`.

    `revision` is the note of this revision (say why the review is written or changed); a first
    review may leave it empty."""
    errors: list[str] = []
    text = {name: value for name, value in fields.items() if isinstance(value, str)}
    errors += [f"`{name}`: expected text, got {type(value).__name__}" for name, value in fields.items()
               if not isinstance(value, str)]
    known = {"body"} | {f"{prefix}.{point.id}" for point in view.points for prefix in ("review", "note")} \
        | {f"rating.{domain['id']}" for domain in view.domains}
    errors += [f"`{name}`: no such field on this run's page (its points are review.<id>, its domains rating.<id>)"
               for name in sorted(set(fields) - known)]
    verdicts = {}
    for point in view.points:
        chosen = text.get(f"review.{point.id}", "").strip().lower()
        note = " ".join(text.get(f"note.{point.id}", "").split()) or None
        if "\n" in text.get(f"note.{point.id}", "").strip():
            errors.append(f"`note.{point.id}`: a note is one line (the file keeps it on the verdict's line); "
                          "put the rest in the body")
        if note is not None and len(note) > MAX_NOTE:
            errors.append(f"`note.{point.id}`: a note is at most {MAX_NOTE} characters (this one has {len(note)}); "
                          "put the rest in the body")
        if chosen not in ("", *VERDICT_WORDS):
            errors.append(f"`review.{point.id}`: {chosen!r} is not a verdict; a point passes or fails "
                          "(verdicts are binary: there is no \"not applicable\")")
            continue
        if not chosen:
            if note is not None:
                errors.append(f"`note.{point.id}`: a note without a verdict; choose pass or fail for "
                              f"{point.title!r}, or clear the note")
            continue
        if point.automated is not None and chosen != point.automated and note is None:
            errors.append(f"`review.{point.id}`: you changed its validator's {point.automated} to {chosen}; an "
                          f"override needs a note saying why (fill `note.{point.id}`)")
            continue
        if point.automated == chosen and note is None:
            continue  # as decided: no line, and the automated verdict stands
        verdicts[point.id] = ReviewVerdict(passed=chosen == "pass", note=note)
    ratings = {}
    for domain in view.domains:
        tier = text.get(f"rating.{domain['id']}", "").strip().lower()
        if tier and tier not in TIERS:
            errors.append(f"`rating.{domain['id']}`: {tier!r} is not a tier; one of {', '.join(TIERS)}")
        elif tier:
            ratings[domain["id"]] = tier
    body = text.get("body", "").strip()
    if not body:
        errors.append("`body`: write a few words on the run (what you played, what you saw): a review file needs "
                      "its prose body, a draft's too")
    elif len(body) > MAX_BODY:
        errors.append(f"`body`: at most {MAX_BODY // 1024} KiB of prose")
    note = " ".join(str(revision or "").split())
    if not note and first:
        note = "first review"
    if not note:
        errors.append("`revision`: say what this revision changes (it is kept in the review's history)")
    if errors:
        return Submission(None, note, errors)
    review = Review(reviewer=reviewer, build=build, ratings=ratings, verdicts=verdicts, body=body + "\n")
    return Submission(review, note)


def prefilled(view: RunView, review: Review | None) -> dict[str, str]:
    """The fields as the page opens them: the reviewer's saved review over the automated verdicts."""
    fields = {f"review.{point.id}": point.automated or "" for point in view.points}
    if review is None:
        return fields
    for verdict_id, verdict in review.verdicts.items():
        fields[f"review.{verdict_id}"] = verdict.outcome
        if verdict.note:
            fields[f"note.{verdict_id}"] = verdict.note
    fields.update({f"rating.{domain}": tier for domain, tier in review.ratings.items()})
    fields["body"] = review.body.strip()
    return fields
