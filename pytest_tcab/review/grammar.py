"""The review file: the public Test Cabinet's grammar ("Reviewing Test Run Results"), plus `build:`.

```markdown
---
build: 3f5a...            (ours: the sha256 the grader computed for the build reviewed)
rating.single-player: flawless
review.ball-spin.moving: pass
review.obstacle-bank: fail ball clips the top obstacle corner
---

The prose body (required).
```

Tokens are case- and whitespace-insensitive; a BOM and leading blank lines are tolerated; a line
of the frontmatter that opens with `#` is a comment. Every mistake is collected with its line and
raised at once (`ReviewProblems`), worded as author mode words a manifest's. A parsed file keeps
its text, so writing it back unchanged gives the same bytes; a new or edited review is written in
the canonical form `dump_review` gives.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.resolve.common import suggest
from pytest_tcab.scoring import RATING_SCALE

TIERS: tuple[str, ...] = RATING_SCALE
"""The five tiers a domain is rated on, best first."""
VERDICTS = ("pass", "fail")
BUILD_KEY = "build"
RATING_PREFIX = "rating"
REVIEW_PREFIX = "review"
FENCE = "---"
_DIGEST = re.compile(r"[0-9a-f]{64}")
_NOT_APPLICABLE = frozenset({"na", "n/a", "n.a.", "none", "skip", "skipped", "pending", "todo", "-", "?"})
_LINE_HINT = "write `rating.<domain>: <tier>`, `review.<verdict id>: pass|fail [note]` or `build: <digest>`"


class ReviewKeys(Protocol):
    """What a review is checked against: the run variant's verdict ids and effective domains."""

    @property
    def verdict_ids(self) -> Collection[str]: ...

    @property
    def domain_ids(self) -> Collection[str]: ...

    @property
    def split_items(self) -> Mapping[str, tuple[str, ...]]:
        """Items with sub-items (which have no verdict of their own): item id -> composite ids."""
        ...


@dataclass(frozen=True)
class ReviewVerdict:
    """One checklist line: pass or fail, and the one-line note that says why."""

    passed: bool
    note: str | None = None

    @property
    def outcome(self) -> str:
        return "pass" if self.passed else "fail"


@dataclass(frozen=True)
class Review:
    """One reviewer's review of one run, as its file says it.

    `lines` maps each key (`build`, `rating.<domain>`, `review.<id>`) to its 1-based line, so later
    checks (an override without a note) can point at it; `origin` keeps the parsed text.
    """

    reviewer: str
    build: str | None
    ratings: Mapping[str, str]
    verdicts: Mapping[str, ReviewVerdict]
    body: str
    path: Path | None = field(default=None, compare=False)
    when: str | None = field(default=None, compare=False)
    """When it was last revised (UTC, ISO 8601), as the store found it."""
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    origin: tuple[str, tuple[object, ...]] | None = field(default=None, compare=False, repr=False)
    """The text parsed and what it said: `dump_review` gives that text back while nothing changed."""

    def content(self) -> tuple[object, ...]:
        """What the review says, order aside: what decides whether an edit is a revision."""
        return (self.build, tuple(sorted(self.ratings.items())),
                tuple(sorted((key, verdict.passed, verdict.note) for key, verdict in self.verdicts.items())),
                self.body.strip())


class ReviewProblems(ProblemsFound):
    """A review file breaks the grammar: every problem, with its file and line."""


def parse_review(text: str, path: Path, target: ReviewKeys | None = None, *, reviewer: str | None = None) -> Review:
    """The review `text` (read from `path`, whose stem names the reviewer unless `reviewer` does).

    With a `target`, verdict ids and domains are checked against it (and spelled as it spells them).
    Raises `ReviewProblems` listing every mistake.
    """
    parser = _Parser(path, target)
    review = parser.parse(text, reviewer if reviewer is not None else path.stem)
    if parser.problems:
        raise ReviewProblems(parser.problems)
    assert review is not None
    return review


class _Parser:
    def __init__(self, path: Path, target: ReviewKeys | None) -> None:
        self.path = path
        self.target = target
        self.problems: list[Problem] = []
        self.seen: dict[str, int] = {}

    def problem(self, line: int, key: str | None, message: str, hint: str | None = None) -> None:
        self.problems.append(Problem(self.path, line, tuple(key.split(".")) if key else (), message, hint))

    def parse(self, text: str, reviewer: str) -> Review | None:
        lines = text.removeprefix("\ufeff").split("\n")
        lines = [line.removesuffix("\r") for line in lines]
        start = next((index for index, line in enumerate(lines) if line.strip()), None)
        if start is None:
            self.problem(1, None, "the review is empty",
                         f"open it with a `{FENCE}` line, then {_LINE_HINT}, close with `{FENCE}` and write the body")
            return None
        if lines[start].strip() != FENCE:
            self.problem(start + 1, None, f"missing frontmatter: a review opens with a `{FENCE}` line",
                         f"put `{FENCE}` above the ratings and verdicts and another below them, then the body")
            return None
        end = next((index for index in range(start + 1, len(lines)) if lines[index].strip() == FENCE), None)
        if end is None:
            self.problem(start + 1, None, f"unterminated frontmatter: the `{FENCE}` on this line is never closed",
                         f"close the ratings and verdicts with a `{FENCE}` line, and write the body below it")
            return None
        build: str | None = None
        ratings: dict[str, str] = {}
        verdicts: dict[str, ReviewVerdict] = {}
        for index in range(start + 1, end):
            found = self.line(index + 1, lines[index])
            if found is None:
                continue
            key, value = found
            if key == BUILD_KEY:
                build = value  # type: ignore[assignment]
            elif key.startswith(RATING_PREFIX + "."):
                ratings[key.partition(".")[2]] = value  # type: ignore[assignment]
            else:
                verdicts[key.partition(".")[2]] = value  # type: ignore[assignment]
        body = "\n".join(lines[end + 1:])
        if not body.strip():
            self.problem(end + 1, None, "the body is empty: a review needs its prose",
                         f"below the closing `{FENCE}`, say what you played and why you rated it so")
        review = Review(reviewer=reviewer, build=build, ratings=ratings, verdicts=verdicts, body=body.strip(),
                        path=self.path, lines=dict(self.seen))
        return replace(review, origin=(text, review.content()))

    def line(self, number: int, raw: str) -> tuple[str, object] | None:
        """One frontmatter line: its canonical key and value, or None (blank, comment, or a problem)."""
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            return None
        raw_key, colon, raw_value = stripped.partition(":")
        key = "".join(raw_key.split()).lower()
        if not colon or not key:
            self.problem(number, None, f"not a `key: value` line: {_shown(stripped)}", _LINE_HINT)
            return None
        value = raw_value.strip()
        prefix, _, rest = key.partition(".")
        if key == BUILD_KEY:
            parsed: object = self.build(number, value)
        elif prefix == RATING_PREFIX and rest:
            rest = self.domain(number, rest)
            parsed = self.tier(number, f"{RATING_PREFIX}.{rest}", value)
        elif prefix == REVIEW_PREFIX and rest:
            rest = self.verdict_id(number, rest)
            parsed = self.verdict(number, f"{REVIEW_PREFIX}.{rest}", value)
        else:
            self.unknown_key(number, key, prefix, rest)
            return None
        key = BUILD_KEY if key == BUILD_KEY else f"{prefix}.{rest}"
        if key in self.seen:
            self.problem(number, key, f"duplicate line: already given on line {self.seen[key]}",
                         "keep one of the two lines")
            return None
        self.seen[key] = number
        return None if parsed is None else (key, parsed)

    def unknown_key(self, number: int, key: str, prefix: str, rest: str) -> None:
        known = {RATING_PREFIX: f"{RATING_PREFIX}.{rest or '<domain>'}",
                 REVIEW_PREFIX: f"{REVIEW_PREFIX}.{rest or '<verdict id>'}", BUILD_KEY: BUILD_KEY}
        if prefix in known and not rest:
            what = "domain" if prefix == RATING_PREFIX else "verdict id"
            self.problem(number, None, f"`{key}` names no {what}", f"write `{known[prefix]}`")
            return
        close = difflib.get_close_matches(prefix, known, n=1)
        hint = f"did you mean `{known[close[0]]}`?" if close else _LINE_HINT
        self.problem(number, None, f"unknown key `{key}`", hint)

    def build(self, number: int, value: str) -> str | None:
        digest = value.lower().removeprefix("sha256:")
        if _DIGEST.fullmatch(digest):
            return digest
        self.problem(number, BUILD_KEY, f"{_shown(value)} is not a build digest (64 hex digits of a sha256)",
                     "copy the run's `review.build` from results.json, or drop the line: the review then "
                     "applies to the build graded now")
        return None

    def domain(self, number: int, domain: str) -> str:
        if self.target is None:
            return domain
        known = {d.lower(): d for d in self.target.domain_ids}
        if domain in known:
            return known[domain]
        self.problem(number, f"{RATING_PREFIX}.{domain}", "unknown domain: not in the run variant's effective set",
                     suggest(domain, self.target.domain_ids, "domains"))
        return domain

    def tier(self, number: int, key: str, value: str) -> str | None:
        tier = "".join(value.split()).lower()
        if tier in TIERS:
            return tier
        close = suggest(tier, TIERS, "tiers") if tier else ""
        self.problem(number, key, f"{_shown(value)} is not a tier" if tier else "gives no tier",
                     (close + " " if close.startswith("did you mean") else "")
                     + f"one of {', '.join(TIERS)} (best first)")
        return None

    def verdict_id(self, number: int, verdict_id: str) -> str:
        if self.target is None:
            return verdict_id
        known = {v.lower(): v for v in self.target.verdict_ids}
        if verdict_id in known:
            return known[verdict_id]
        split = {item.lower(): units for item, units in self.target.split_items.items()}
        if verdict_id in split:
            each = ", ".join(f"`review.{unit}`" for unit in split[verdict_id])
            self.problem(number, f"{REVIEW_PREFIX}.{verdict_id}",
                         "this item has sub-items and no verdict of its own", f"verdict each sub-item: {each}")
        else:
            self.problem(number, f"{REVIEW_PREFIX}.{verdict_id}", "unknown verdict id: not in the run variant's "
                         "checklist", suggest(verdict_id, self.target.verdict_ids, "verdict ids"))
        return verdict_id

    def verdict(self, number: int, key: str, value: str) -> ReviewVerdict | None:
        word, *rest = value.split(None, 1) or [""]
        word, note = word.lower(), " ".join(" ".join(rest).split())
        if word in VERDICTS:
            return ReviewVerdict(passed=word == "pass", note=note or None)
        hint = "pass or fail, then an optional one-line note"
        if not word:
            self.problem(number, key, "gives no verdict", hint)
        elif word in _NOT_APPLICABLE:
            self.problem(number, key, f"{_shown(word)} is not a verdict: verdicts are binary, there is no "
                         "\"not applicable\"", hint + " (an erratum, not a review, retires a point from the score)")
        else:
            self.problem(number, key, f"{_shown(word)} is not a verdict: verdicts are binary", hint)
        return None


def _shown(text: str, limit: int = 60) -> str:
    """A piece of the file, quoted and cut short, for a message."""
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return "`" + text.replace("`", "'") + "`"


def dump_review(review: Review) -> str:
    """The file of `review`: the text it was parsed from while it says the same, else the canonical form
    (fence, `build`, ratings, verdicts in their order, fence, a blank line, the body)."""
    if review.origin is not None and review.origin[1] == review.content():
        return review.origin[0]
    lines = [FENCE]
    if review.build is not None:
        lines.append(f"{BUILD_KEY}: {review.build}")
    lines.extend(f"{RATING_PREFIX}.{domain}: {tier}" for domain, tier in review.ratings.items())
    for verdict_id, verdict in review.verdicts.items():
        note = " ".join((verdict.note or "").split())
        lines.append(f"{REVIEW_PREFIX}.{verdict_id}: {verdict.outcome}" + (f" {note}" if note else ""))
    lines.extend([FENCE, "", review.body.strip(), ""])
    return "\n".join(lines)
