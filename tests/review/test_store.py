"""Where reviews live: contained paths, whole-file writes, a history of real revisions, and no review
taken from a produced run."""

from __future__ import annotations

import datetime
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_tcab.review.grammar import ReviewProblems
from pytest_tcab.review.grammar import ReviewVerdict
from pytest_tcab.review.grammar import parse_review
from pytest_tcab.review.store import MAX_REVIEW_BYTES
from pytest_tcab.review.store import ReviewStoreError
from pytest_tcab.review.store import checked_reviewer
from pytest_tcab.review.store import history_file
from pytest_tcab.review.store import load_reviews
from pytest_tcab.review.store import read_history
from pytest_tcab.review.store import review_file
from pytest_tcab.review.store import run_folder
from pytest_tcab.review.store import safe_reviewer
from pytest_tcab.review.store import save_review
from tests.review.test_grammar import GUIDE
from tests.review.test_grammar import TARGET

WHEN = datetime.datetime(2026, 12, 1, 22, 0, tzinfo=datetime.timezone.utc)


def guide_review(reviewer: str = "ana"):  # type: ignore[no-untyped-def]
    return parse_review(GUIDE, Path(f"{reviewer}.md"), TARGET)


@pytest.mark.parametrize("name", ["ana", "Ana.Perez", "r2-d2", "a_b", "x" * 64])
def test_safe_reviewer_names_are_kept(name: str) -> None:
    assert checked_reviewer(name) == name


@pytest.mark.parametrize("name", ["", "../ana", "a/b", "a\\b", ".ana", "-ana", "ana pérez", "x" * 65, "con",
                                  "NUL.txt", "ana.history", "ana.md", "ana\x00", "..", "."])
def test_unsafe_reviewer_names_are_refused_with_a_safe_spelling(name: str) -> None:
    with pytest.raises(ReviewStoreError) as raised:
        checked_reviewer(name, "--tcab-reviewer")
    assert "--tcab-reviewer" in str(raised.value) and "e.g. '" in str(raised.value)
    assert checked_reviewer(safe_reviewer(name)) == safe_reviewer(name)


def test_a_git_name_becomes_a_safe_reviewer_name() -> None:
    assert safe_reviewer("Ana Pérez") == "ana-p-rez"
    assert safe_reviewer("../../etc/passwd") == "etc-passwd"
    assert safe_reviewer("!!!") == "reviewer"


@pytest.mark.parametrize("name", ["../../outside", "/etc", "a/b", ".", "..", ".hidden", "con", "a b", "run\x00"])
def test_a_run_name_is_always_one_contained_path_part(name: str, tmp_path: Path) -> None:
    folder = run_folder(name)
    assert "/" not in folder and folder not in (".", "..") and not folder.startswith(".")
    assert review_file(tmp_path, name, "ana").parent.parent == tmp_path


def test_runs_whose_names_spell_alike_never_share_a_folder() -> None:
    names = ["a b", "a_b", "a/b", "a\\b", "a:b"]
    assert len({run_folder(name) for name in names}) == len(names)
    assert run_folder("carom-base") == "carom-base"


def test_saving_writes_the_file_whole_and_a_revision_with_its_note(tmp_path: Path) -> None:
    revision = save_review(tmp_path, "carom-base", guide_review(), "first pass", when=WHEN)
    path = tmp_path / "carom-base" / "ana.md"
    assert path.read_text(encoding="utf-8") == GUIDE
    assert revision is not None and revision["created"] and revision["note"] == "first pass"
    assert revision["when"] == "2026-12-01T22:00:00Z"
    assert revision["ratings"] == {"single-player": [None, "flawless"], "versus": [None, "scuffed"]}
    assert revision["verdicts"]["obstacle-bank"] == [
        None, "fail ball clips the top obstacle corner"]
    assert read_history(history_file(path)) == [revision]
    assert sorted(p.name for p in path.parent.iterdir()) == ["ana.history.jsonl", "ana.md"]  # no temporary left


def test_an_edit_that_changes_nothing_is_no_revision(tmp_path: Path) -> None:
    save_review(tmp_path, "carom-base", guide_review(), "first pass", when=WHEN)
    path = tmp_path / "carom-base" / "ana.md"
    before = path.stat().st_mtime_ns
    assert save_review(tmp_path, "carom-base", guide_review(), "again", when=WHEN) is None
    same_words = replace(guide_review(), body=guide_review().body + "\n\n")  # whitespace around the body only
    assert save_review(tmp_path, "carom-base", same_words, "again") is None
    assert path.stat().st_mtime_ns == before
    assert len(read_history(history_file(path))) == 1


def test_a_revision_records_what_changed_and_only_that(tmp_path: Path) -> None:
    save_review(tmp_path, "carom-base", guide_review(), "first pass", when=WHEN)
    review = guide_review()
    edited = replace(review, ratings={**review.ratings, "versus": "passable"},
                     verdicts={**review.verdicts, "obstacle-bank": ReviewVerdict(True, "fixed on replay")},
                     body=review.body.replace("feels right", "feels great"))
    revision = save_review(tmp_path, "carom-base", edited, "replayed versus")
    assert revision is not None and not revision["created"]
    assert revision["ratings"] == {"versus": ["scuffed", "passable"]}
    assert revision["verdicts"] == {"obstacle-bank": ["fail ball clips the top obstacle corner", "pass fixed on replay"]}
    assert "-Single player feels right. Versus has a serve bug that resets the score, so it's" in revision["body"]
    assert "+Single player feels great. Versus has a serve bug that resets the score, so it's" in revision["body"]
    assert "build" not in revision
    history = read_history(history_file(tmp_path / "carom-base" / "ana.md"))
    assert [entry["note"] for entry in history] == ["first pass", "replayed versus"]


@pytest.mark.parametrize("note", ["", "   ", "\n\t"])
def test_a_revision_needs_a_note(tmp_path: Path, note: str) -> None:
    with pytest.raises(ReviewStoreError, match="needs a note"):
        save_review(tmp_path, "carom-base", guide_review(), note)
    assert not (tmp_path / "carom-base" / "ana.md").exists()


def test_a_review_that_would_not_parse_back_is_not_written(tmp_path: Path) -> None:
    with pytest.raises(ReviewProblems, match="the body is empty"):
        save_review(tmp_path, "carom-base", replace(guide_review(), body=" "), "draft")
    with pytest.raises(ReviewProblems, match="unknown domain"):
        save_review(tmp_path, "carom-base", replace(guide_review(), ratings={"nope": "great"}), "x", target=TARGET)
    assert not (tmp_path / "carom-base" / "ana.md").exists()


def test_an_unsafe_reviewer_cannot_write_outside_its_folder(tmp_path: Path) -> None:
    with pytest.raises(ReviewStoreError, match="not a reviewer name"):
        save_review(tmp_path / "reviews", "carom-base", replace(guide_review(), reviewer="../../evil"), "note")
    assert list(tmp_path.rglob("*.md")) == []


def test_a_run_folder_that_is_a_symlink_out_of_the_reviews_folder_is_not_written(tmp_path: Path) -> None:
    reviews, elsewhere = tmp_path / "reviews", tmp_path / "elsewhere"
    reviews.mkdir()
    elsewhere.mkdir()
    (reviews / "carom-base").symlink_to(elsewhere)
    with pytest.raises(ReviewStoreError, match="leads out of the reviews folder"):
        save_review(reviews, "carom-base", guide_review(), "note")
    assert list(elsewhere.iterdir()) == []


def test_loading_gives_each_reviewers_review_with_when_it_was_revised(tmp_path: Path) -> None:
    save_review(tmp_path, "carom-base", guide_review("ana"), "first", when=WHEN)
    save_review(tmp_path, "carom-base", guide_review("bo"), "first", when=WHEN + datetime.timedelta(hours=1))
    loaded = load_reviews(tmp_path, "carom-base", TARGET)
    assert [(r.reviewer, r.when) for r in loaded] == [("ana", "2026-12-01T22:00:00Z"), ("bo", "2026-12-01T23:00:00Z")]
    assert len(loaded) == 2 and not loaded.problems and not loaded.ignored
    assert loaded.reviews[0].path == tmp_path / "carom-base" / "ana.md"
    assert len(load_reviews(tmp_path, "another-run")) == 0


def test_a_hand_written_review_without_history_is_dated_by_its_file(tmp_path: Path) -> None:
    path = tmp_path / "carom-base" / "ana.md"
    path.parent.mkdir()
    path.write_text(GUIDE, encoding="utf-8")
    os.utime(path, (WHEN.timestamp(), WHEN.timestamp()))
    assert [r.when for r in load_reviews(tmp_path, "carom-base")] == ["2026-12-01T22:00:00Z"]


def test_a_malformed_review_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    folder = tmp_path / "carom-base"
    folder.mkdir()
    (folder / "ana.md").write_text(GUIDE, encoding="utf-8")
    (folder / "bo.md").write_text("---\nrating.versus: superb\n---\nbody\n", encoding="utf-8")
    (folder / "cy.md").write_bytes(b"---\nrating.versus: great\n---\n\xff\xfe body\n")
    (folder / "dee.md").write_text("---\n" + "x" * MAX_REVIEW_BYTES + "\n---\nbody\n", encoding="utf-8")
    loaded = load_reviews(tmp_path, "carom-base", TARGET)
    assert [r.reviewer for r in loaded] == ["ana"]
    shown = [str(problems) for problems in loaded.problems]
    assert shown[0].startswith(f"{folder / 'bo.md'}:2: ") and "superb" in shown[0]
    assert shown[1] == f"{folder / 'cy.md'}:4: is not UTF-8 text\n    Hint: save the file as UTF-8"
    assert "is over" in shown[2]


def test_a_review_inside_a_produced_run_folder_is_ignored_and_said_to_be(tmp_path: Path) -> None:
    """The rootdir is the run itself (`pytest --tcab-run=.`): its shipped `.tcab/reviews/` is the
    default reviews folder, and it must not count."""
    run = tmp_path / "carom-base"
    shipped = run / ".tcab" / "reviews" / "carom-base" / "ana.md"
    shipped.parent.mkdir(parents=True)
    shipped.write_text(GUIDE.replace("fail ball clips", "pass ball clips"), encoding="utf-8")
    loaded = load_reviews(run / ".tcab" / "reviews", "carom-base", TARGET, produced=[run])
    assert len(loaded) == 0 and not loaded.problems
    assert loaded.ignored == [f"{shipped}: ignored: it lies inside the produced run folder {run}: reviews are the "
                              "operator's files, and a build must not ship its own review; keep reviews under "
                              "--tcab-reviews, outside every run"]


def test_a_review_symlinked_into_a_produced_run_is_ignored(tmp_path: Path) -> None:
    run, reviews = tmp_path / "runs" / "carom-base", tmp_path / "reviews"
    run.mkdir(parents=True)
    (run / "review.md").write_text(GUIDE, encoding="utf-8")
    (reviews / "carom-base").mkdir(parents=True)
    (reviews / "carom-base" / "ana.md").symlink_to(run / "review.md")
    (reviews / "carom-base" / "bo.md").symlink_to(tmp_path / "runs")  # not a file, and out of the folder
    loaded = load_reviews(reviews, "carom-base", TARGET, produced=[run])
    assert len(loaded) == 0
    assert "inside the produced run folder" in loaded.ignored[0]
    assert "leads out of the reviews folder" in loaded.ignored[1]


def test_a_run_folder_symlinked_into_a_produced_run_is_ignored(tmp_path: Path) -> None:
    run, reviews = tmp_path / "runs" / "carom-base", tmp_path / "reviews"
    (run / "reviews").mkdir(parents=True)
    (run / "reviews" / "ana.md").write_text(GUIDE, encoding="utf-8")
    reviews.mkdir()
    (reviews / "carom-base").symlink_to(run / "reviews")
    loaded = load_reviews(reviews, "carom-base", TARGET, produced=[run])
    assert len(loaded) == 0 and "inside the produced run folder" in loaded.ignored[0]


def test_files_that_name_no_reviewer_are_ignored_and_histories_are_not_reviews(tmp_path: Path) -> None:
    save_review(tmp_path, "carom-base", guide_review(), "first")
    (tmp_path / "carom-base" / ".ana.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "carom-base" / "ana pérez.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "carom-base" / "notes.txt").write_text("x", encoding="utf-8")
    loaded = load_reviews(tmp_path, "carom-base")
    assert [r.reviewer for r in loaded] == ["ana"]
    assert len(loaded.ignored) == 2 and all("not a reviewer name" in why for why in loaded.ignored)


def test_a_history_line_that_is_not_json_is_skipped(tmp_path: Path) -> None:
    save_review(tmp_path, "carom-base", guide_review(), "first", when=WHEN)
    with history_file(tmp_path / "carom-base" / "ana.md").open("a", encoding="utf-8") as out:
        out.write("not json\n[1]\n")
    assert [entry["note"] for entry in read_history(history_file(tmp_path / "carom-base" / "ana.md"))] == ["first"]
    assert json.loads((tmp_path / "carom-base" / "ana.history.jsonl").read_text().splitlines()[0])["note"] == "first"


class FakeConfig:
    """What `reviews_dir` and `reviewer_name` read of a pytest config."""

    def __init__(self, tmp_path: Path, **options: object) -> None:
        self.options = options
        self.rootpath = tmp_path / "root"
        self.invocation_params = type("Params", (), {"dir": tmp_path / "cwd"})()

    def getoption(self, name: str, default: object = None) -> object:
        return self.options.get(name, default)


def test_the_reviews_folder_defaults_under_the_rootdir_and_an_option_is_read_from_where_pytest_ran(
        tmp_path: Path) -> None:
    from pytest_tcab.review.store import reviews_dir

    assert reviews_dir(FakeConfig(tmp_path)) == tmp_path / "root" / ".tcab" / "reviews"  # type: ignore[arg-type]
    assert reviews_dir(FakeConfig(tmp_path, tcab_reviews="r")) == tmp_path / "cwd" / "r"  # type: ignore[arg-type]


def test_the_reviewer_is_the_option_else_git_else_the_login(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tcab.review import store

    assert store.reviewer_name(FakeConfig(tmp_path, tcab_reviewer="ana")) == "ana"  # type: ignore[arg-type]
    with pytest.raises(ReviewStoreError, match="--tcab-reviewer: '../x' is not a reviewer name"):
        store.reviewer_name(FakeConfig(tmp_path, tcab_reviewer="../x"))  # type: ignore[arg-type]
    monkeypatch.setattr(store, "_git_user_name", lambda: "Ana Pérez")
    assert store.reviewer_name(FakeConfig(tmp_path)) == "ana-p-rez"  # type: ignore[arg-type]
    monkeypatch.setattr(store, "_git_user_name", lambda: None)
    monkeypatch.setattr(store, "_login_name", lambda: "root")
    assert store.reviewer_name(FakeConfig(tmp_path)) == "root"  # type: ignore[arg-type]
