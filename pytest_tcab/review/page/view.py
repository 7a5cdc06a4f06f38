"""One run as the review page shows it: the run variant's checklist (items numbered, sub-items
lettered), each point's automated verdict and the media that back it, its domains, its errata.

The checklist's words (titles, texts, weights, media links, domain descriptions) are the suite's,
resolved for the run's case version and variant; the automated verdicts and media are the run's
results. Media are named by an index the server keeps (`MediaIndex`), never by a path a request
chooses.
"""

from __future__ import annotations

import hashlib
import os
import string
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import ChecklistItem
from pytest_tcab.case import Variant
from pytest_tcab.errors import TcabError
from pytest_tcab.review.page.runs import ReviewedRun
from pytest_tcab.run.spec import RunSpec
from pytest_tcab.run.spec import find_case
from pytest_tcab.suite import Suite

AUTOMATED = {"passed": "pass", "failed": "fail"}
"""A validator's outcome as a verdict; any other outcome (skipped: its precondition was not met,
no browser) leaves the point to the reviewer."""
VIDEO_EXTENSIONS = (".webm", ".mp4")


class MediaIndex:
    """The media files the page may show, each under `/media/<key>`: only files inside `roots`."""

    def __init__(self, roots: list[Path]) -> None:
        self._roots = [Path(os.path.realpath(root)) for root in roots]
        self.files: dict[str, Path] = {}

    def add(self, path: str | Path | None) -> str | None:
        """The URL of `path`, or None when it is missing or outside every root."""
        if not path:
            return None
        real = Path(os.path.realpath(path))
        if not real.is_file() or not any(real.is_relative_to(root) for root in self._roots):
            return None
        key = hashlib.sha256(str(real).encode()).hexdigest()[:24]
        self.files[key] = real
        return f"/media/{key}{real.suffix.lower()}"


@dataclass(frozen=True)
class Shown:
    """One pane of media: an image or a clip (with its poster), or why there is none."""

    label: str
    url: str | None = None
    video: bool = False
    poster: str | None = None
    missing: str | None = None


@dataclass
class Point:
    """A verdict unit: what the reviewer decides, or overrides."""

    id: str
    letter: str | None
    """a, b, c… for a sub-item (or a category's item); None for an item verdicted whole."""
    title: str
    weight: float
    automated: str | None
    """The validator's verdict (pass or fail), or None: left for the reviewer."""
    why: str
    """What the automated side says: the validator's outcome, or why the point is the reviewer's."""
    excluded_by: str | None = None
    text: str | None = None
    media: list[tuple[str, Shown, Shown]] = field(default_factory=list)
    """Validation media: (output name, expected, observed)."""
    reference: Shown | None = None
    proof: Shown | None = None


@dataclass
class Item:
    number: int
    id: str
    title: str
    text: str | None
    weight: float
    domain: str | None
    points: list[Point]
    reference: Shown | None = None
    proof: Shown | None = None


@dataclass
class RunView:
    run: ReviewedRun
    items: list[Item]
    domains: list[dict[str, str]]
    """Each domain of the effective set: id, name, description."""
    errata: list[dict[str, Any]]
    problem: str | None = None
    """Why the checklist could not be shown (the suite does not hold the run's case), or None."""

    @property
    def points(self) -> list[Point]:
        return [point for item in self.items for point in item.points]


def run_view(suite: Suite, run: ReviewedRun, media: MediaIndex) -> RunView:
    """The page's view of `run`: its checklist from the suite, its verdicts and media from its results."""
    data = run.data
    errata = [erratum for erratum in data.get("errata", []) if isinstance(erratum, dict)]
    definition = data.get("layout") == "definition"  # a definition has no variants; its engine tells runs apart
    spec = RunSpec(str(data.get("case")), data.get("version"), None if definition else data.get("variant"),
                   data.get("engine") if definition else None)
    try:
        case, variant = find_case(suite, spec)
    except TcabError as exc:
        return RunView(run, [], [], errata, problem=f"the suite {suite.root} cannot show this run's checklist: {exc}")
    items_by_kind = _items_by_kind(data)
    items = [_item(number, item, case, variant, items_by_kind, media)
             for number, item in enumerate(variant.checklist, start=1)]
    domains = [{"id": domain.id, "name": domain.display_name, "description": domain.description}
               for domain in variant.domains]
    return RunView(run, items, domains, errata)


def _items_by_kind(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(str(item.get("kind")), str(item.get("id"))): item for item in data.get("items", []) if isinstance(item, dict)}


def _item(number: int, item: ChecklistItem, case: CaseVersion, variant: Variant,
          recorded: dict[tuple[str, str], dict[str, Any]], media: MediaIndex) -> Item:
    whole = len(item.units) == 1 and item.units[0].id == item.id
    points = []
    for index, unit in enumerate(item.units):
        result = recorded.get(("validate", unit.id))
        automated, why = _automated(result)
        point = Point(id=unit.id, letter=None if whole else string.ascii_lowercase[index % 26], title=unit.title,
                      weight=unit.weight, automated=automated, why=why,
                      excluded_by=(result or {}).get("excluded_by"), text=unit.text,
                      media=_validation_media(result, media),
                      reference=_reference(unit.reference, case, variant, recorded, media),
                      proof=_proof(unit.proof, variant, recorded, media))
        points.append(point)
    return Item(number=number, id=item.id, title=item.title, text=item.text, weight=item.weight, domain=item.domain,
                points=points, reference=_reference(item.reference, case, variant, recorded, media),
                proof=_proof(item.proof, variant, recorded, media))


def _automated(result: dict[str, Any] | None) -> tuple[str | None, str]:
    if result is None:
        return None, "no validator decides this point: it is yours"
    outcome = str(result.get("outcome"))
    if outcome in AUTOMATED:
        return AUTOMATED[outcome], (f"decided by its validator ({result.get('script', 'a validation script')}): " \
                                  f"{AUTOMATED[outcome]}")
    if outcome == "excluded":
        return None, f"excluded from the score by erratum {result.get('excluded_by')}"
    reason = result.get("message") or "its validator decided nothing"
    return None, f"left for you: {reason}"


def _validation_media(result: dict[str, Any] | None, media: MediaIndex) -> list[tuple[str, Shown, Shown]]:
    shown = []
    for output in (result or {}).get("media", []) or []:
        if not isinstance(output, dict):
            continue
        name = str(output.get("output", "output"))
        video = output.get("kind") == "video"
        expected = _shown("expected (the reference implementation)", output.get("baseline"), video,
                          output.get("baseline_poster"), media, "no baseline was captured for this output")
        observed = _shown("observed (this build)", output.get("path"), video, output.get("poster"), media,
                          "the validator captured nothing")
        shown.append((name, expected, observed))
    return shown


def _shown(label: str, path: object, video: bool, poster: object, media: MediaIndex, missing: str) -> Shown:
    url = media.add(path if isinstance(path, str) else None)
    if url is None:
        return Shown(label, missing=missing)
    return Shown(label, url=url, video=video or url.endswith(VIDEO_EXTENSIONS),
                 poster=media.add(poster if isinstance(poster, str) else None))


def _reference(view: str | None, case: CaseVersion, variant: Variant, recorded: dict[tuple[str, str], dict[str, Any]],
               media: MediaIndex) -> Shown | None:
    """The expected side: the rendered screenshot of a mockup view (its check's), or a static reference."""
    if view is None:
        return None
    label = f"reference: {view}"
    reference = variant.reference(view)
    if reference is not None and reference.media is not None:
        return _shown(label, str(case.folder / reference.media), False, None, media, "the reference file is missing")
    check = recorded.get(("check", view))
    return _shown(label, (check or {}).get("expected"), False, None, media,
                  f"no check of view {view!r} ran in this run, so its mockup has no rendered screenshot here")


def _proof(proof_id: str | None, variant: Variant, recorded: dict[tuple[str, str], dict[str, Any]],
           media: MediaIndex) -> Shown | None:
    """The submitted side: the proof the build wrote, or what its proof item said."""
    if proof_id is None:
        return None
    label = f"proof: {proof_id}"
    item = recorded.get(("proof", proof_id)) or {}
    declared = next((proof for proof in variant.proofs if proof.id == proof_id), None)
    video = declared is not None and declared.kind == "video"
    return _shown(label, item.get("media"), video, None, media,
                  str(item.get("message") or "the build submitted no such proof"))
