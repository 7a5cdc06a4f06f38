"""Where reviews live: the operator's files, never the produced code's.

`--tcab-reviews=DIR` (default `.tcab/reviews/` under the rootdir) holds one folder per run name and
one `<reviewer>.md` per reviewer, with `<reviewer>.history.jsonl` beside it: one revision a line
(when, the required note, what changed). Every path is contained: a run name becomes one safe
path part, a reviewer name must be a safe file name, and a review whose real path lies inside a
produced run folder, or outside the reviews folder, is ignored and said to be (a build must not
ship or plant its own review).
"""

from __future__ import annotations

import contextlib
import datetime
import difflib
import fcntl
import getpass
import hashlib
import json
import os
import re
import subprocess
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.review.grammar import Review
from pytest_tcab.review.grammar import ReviewKeys
from pytest_tcab.review.grammar import ReviewProblems
from pytest_tcab.review.grammar import dump_review
from pytest_tcab.review.grammar import parse_review
from pytest_tcab.run.report.journal import write_whole

REVIEWER_OPTION = "--tcab-reviewer"
DEFAULT_REVIEWS = Path(".tcab/reviews")
REVIEW_SUFFIX = ".md"
HISTORY_SUFFIX = ".history.jsonl"
MAX_REVIEW_BYTES = 1 << 20
"""A review is a page of prose: a bigger file is refused, not read."""
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_WINDOWS_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)),
                              *(f"lpt{n}" for n in range(10))})


class ReviewStoreError(TcabError):
    """A review cannot be stored or named as asked (an unsafe name, a missing note, a path leaving DIR)."""


# -- names and places ---------------------------------------------------------------------------

def reviews_dir(config: pytest.Config) -> Path:
    """`--tcab-reviews` (or its ini twin), else `.tcab/reviews/` under the rootdir; resolved."""
    given = config.getoption("tcab_reviews", None)
    base = config.invocation_params.dir if given else config.rootpath
    return Path(os.path.realpath(base / (given or DEFAULT_REVIEWS)))


def reviewer_name(config: pytest.Config) -> str:
    """`--tcab-reviewer`, else git's `user.name`, else the login name, as a safe file name."""
    given = config.getoption("tcab_reviewer", None)
    if given:
        return checked_reviewer(given, REVIEWER_OPTION)
    return safe_reviewer(_git_user_name() or _login_name() or "reviewer")


def checked_reviewer(name: str, where: str = "the reviewer") -> str:
    """`name` when it is a safe file name (what `<reviewer>.md` needs), else a clear error."""
    if is_safe_reviewer(name):
        return name
    raise ReviewStoreError(
        f"{where}: {name!r} is not a reviewer name: it names the file <reviewer>.md, so it must be 1 to 64 "
        "letters, digits, '.', '_' or '-', start with a letter or digit, and not be a device name; "
        f"e.g. {safe_reviewer(name)!r}")


def is_safe_reviewer(name: str) -> bool:
    return (bool(_SAFE_NAME.fullmatch(name)) and name.split(".")[0].lower() not in _WINDOWS_DEVICES
            and not name.lower().endswith((".history", REVIEW_SUFFIX)))


def safe_reviewer(name: str) -> str:
    """A name as a safe reviewer name: `Ana Pérez` -> `ana-p-rez`."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:64].strip("-") or "reviewer"
    return slug if is_safe_reviewer(slug) else f"reviewer-{slug}"[:64]


def _git_user_name() -> str | None:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True, timeout=10, check=False)
        return done.stdout.strip() or None
    return None


def _login_name() -> str | None:
    with contextlib.suppress(Exception):
        return getpass.getuser()
    return None


def run_folder(run_name: str) -> str:
    """A run's name as the one path part of its reviews' folder: the name itself when it is a safe
    name, else a safe spelling of it tagged with a hash of the name (two runs never share a folder)."""
    if _SAFE_NAME.fullmatch(run_name) and run_name.lower() not in _WINDOWS_DEVICES:
        return run_name
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", run_name).strip("._") or "run"
    return f"{slug[:80]}-{hashlib.sha256(run_name.encode()).hexdigest()[:12]}"


def review_file(reviews_dir: Path, run_name: str, reviewer: str) -> Path:
    """`DIR/<run>/<reviewer>.md`."""
    return reviews_dir / run_folder(run_name) / f"{checked_reviewer(reviewer)}{REVIEW_SUFFIX}"


def history_file(review_path: Path) -> Path:
    """`<reviewer>.history.jsonl` beside `<reviewer>.md`."""
    return review_path.with_name(review_path.name.removesuffix(REVIEW_SUFFIX) + HISTORY_SUFFIX)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


# -- reading ------------------------------------------------------------------------------------

@dataclass
class LoadedReviews:
    """A run's reviews as found: the well-formed ones (iterate it), the files with problems, and
    the files ignored (each with why)."""

    reviews: list[Review] = field(default_factory=list)
    problems: list[ReviewProblems] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[Review]:
        return iter(self.reviews)

    def __len__(self) -> int:
        return len(self.reviews)


def load_reviews(reviews_dir: Path, run_name: str, target: ReviewKeys | None = None, *,
                 produced: Iterable[Path] = ()) -> LoadedReviews:
    """Every `<reviewer>.md` of `run_name`, parsed (against `target` when given), with when each
    was last revised. `produced`: the session's run folders; a review that really lies in one is
    ignored."""
    found = LoadedReviews()
    root = Path(os.path.realpath(reviews_dir))
    folder = root / run_folder(run_name)
    produced = [Path(os.path.realpath(p)) for p in produced]
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob(f"*{REVIEW_SUFFIX}")):
        why = _ignored_because(path, root, produced)
        if why is not None:
            found.ignored.append(f"{path}: ignored: {why}")
            continue
        try:
            text = _read(path)
            review = parse_review(text, path, target)
        except ReviewProblems as problems:
            found.problems.append(problems)
            continue
        found.reviews.append(replace(review, when=_last_revised(path)))
    return found


def _ignored_because(path: Path, root: Path, produced: list[Path]) -> str | None:
    real = Path(os.path.realpath(path))
    inside_run = next((run for run in produced if _inside(real, run)), None)
    if inside_run is not None:
        return (f"it lies inside the produced run folder {inside_run}: reviews are the operator's files, and a "
                "build must not ship its own review; keep reviews under --tcab-reviews, outside every run")
    if not _inside(real, root):
        return f"it leads out of the reviews folder {root} (to {real})"
    if not real.is_file():
        return "not a regular file"
    if not is_safe_reviewer(path.name.removesuffix(REVIEW_SUFFIX)):
        return "its name is not a reviewer name (letters, digits, '.', '_', '-')"
    return None


def _read(path: Path) -> str:
    from pytest_tcab.errors import Problem

    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_REVIEW_BYTES + 1)
    except OSError as exc:
        raise ReviewProblems([Problem(path, None, (), f"cannot be read: {exc.strerror or exc}")]) from None
    if len(data) > MAX_REVIEW_BYTES:
        raise ReviewProblems([Problem(path, None, (), f"is over {MAX_REVIEW_BYTES} bytes: a review is a page "
                                      "of prose, not a file this size")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ReviewProblems([Problem(path, line, (), "is not UTF-8 text", "save the file as UTF-8")]) from None


def _last_revised(path: Path) -> str:
    """The `when` of the review's last revision, else the file's modification time (UTC, ISO 8601)."""
    for revision in reversed(read_history(history_file(path))):
        if isinstance(revision.get("when"), str):
            return str(revision["when"])
    return _iso(datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.timezone.utc))


def read_history(path: Path) -> list[dict[str, Any]]:
    """The revisions of a review, oldest first (lines that are not JSON objects are skipped)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    revisions = []
    for line in lines:
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict):
                revisions.append(entry)
    return revisions


def _iso(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# -- writing ------------------------------------------------------------------------------------

def save_review(reviews_dir: Path, run_name: str, review: Review, note: str, *,
                target: ReviewKeys | None = None, when: datetime.datetime | None = None) -> dict[str, Any] | None:
    """Write `review` as `DIR/<run>/<reviewer>.md` (whole, by one rename) and append its revision to
    the history beside it; the revision, or None when the file already says the same (no revision).

    `note` says why (required); the text written must parse back (against `target` when given).
    """
    note = " ".join(note.split())
    if not note:
        raise ReviewStoreError(f"a revision of {review.reviewer}'s review of {run_name} needs a note: say why "
                               "the review is written or changed")
    root = Path(os.path.realpath(reviews_dir))
    path = review_file(root, run_name, review.reviewer)
    text = dump_review(review)
    new = parse_review(text, path, target, reviewer=review.reviewer)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not _inside(Path(os.path.realpath(path.parent)), root):
        raise ReviewStoreError(f"{path.parent} leads out of the reviews folder {root}: refusing to write there")
    with _locked(history_file(path)):
        old = _existing(path)
        if old is not None and old.content() == new.content():
            return None
        write_whole(path, text)
        revision = {"when": _iso(when or datetime.datetime.now(datetime.timezone.utc)), "reviewer": review.reviewer,
                    "note": note, "created": old is None, **changes(old, new)}
        with history_file(path).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(revision, sort_keys=True) + "\n")
    return revision


def _existing(path: Path) -> Review | None:
    """The review the file holds now; one that no longer parses counts as empty (all is new)."""
    if not path.is_file():
        return None
    try:
        return parse_review(_read(path), path)
    except ReviewProblems:
        return Review(reviewer=path.stem, build=None, ratings={}, verdicts={}, body="")


def changes(old: Review | None, new: Review) -> dict[str, Any]:
    """What a revision changed: `build`, `ratings` and `verdicts` as {key: [before, after]}, `body` as a
    unified diff (lines), each present only when something changed."""
    before = old or Review(reviewer=new.reviewer, build=None, ratings={}, verdicts={}, body="")
    diff: dict[str, Any] = {}
    if before.build != new.build:
        diff["build"] = [before.build, new.build]
    ratings = {key: [before.ratings.get(key), new.ratings.get(key)]
               for key in dict.fromkeys([*before.ratings, *new.ratings])
               if before.ratings.get(key) != new.ratings.get(key)}
    if ratings:
        diff["ratings"] = ratings

    def said(review: Review, key: str) -> str | None:
        verdict = review.verdicts.get(key)
        return None if verdict is None else verdict.outcome + (f" {verdict.note}" if verdict.note else "")

    verdicts = {key: [said(before, key), said(new, key)] for key in dict.fromkeys([*before.verdicts, *new.verdicts])
                if said(before, key) != said(new, key)}
    if verdicts:
        diff["verdicts"] = verdicts
    if before.body.strip() != new.body.strip():
        diff["body"] = list(difflib.unified_diff(before.body.strip().splitlines(), new.body.strip().splitlines(),
                                                 "before", "after", lineterm="", n=1))
    return diff


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One save of a review at a time (two page sessions of one reviewer, say)."""
    with path.open("a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
