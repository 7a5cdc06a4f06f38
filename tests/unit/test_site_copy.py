"""A run's served site copied into its results: whole and bounded, and a hostile output (symlinks out
of it, a fifo, a huge sparse file, deep nesting) never reaches past it or fills the disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_tcab.run.report.results import summary_lines
from pytest_tcab.run.report.site import SITE_RECORD
from pytest_tcab.run.report.site import Bounds
from pytest_tcab.run.report.site import copy_site
from pytest_tcab.run.report.site import site_entry
from pytest_tcab.run.report.site import site_note

REPO = Path(__file__).resolve().parents[2]


def site(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><script src=assets/game.js></script>")
    (dist / "assets" / "game.js").write_text("console.log('play')")
    return dist


def tree(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_an_honest_site_is_copied_whole(tmp_path: Path) -> None:
    dist = site(tmp_path)
    record = copy_site(dist, tmp_path / "out" / "site", Bounds())
    assert record == {"copied": True, "path": "site", "files": 2, "bytes": 70, "skipped": []}
    assert tree(tmp_path / "out" / "site") == tree(dist)
    assert not (tmp_path / "out" / "site.partial").exists()


def test_a_second_copy_replaces_the_first(tmp_path: Path) -> None:
    dist = site(tmp_path)
    copy_site(dist, tmp_path / "site", Bounds())
    (dist / "assets" / "game.js").unlink()
    copy_site(dist, tmp_path / "site", Bounds())
    assert sorted(tree(tmp_path / "site")) == ["index.html"]


def test_symlinks_out_of_the_output_and_special_files_are_never_copied(tmp_path: Path) -> None:
    dist = site(tmp_path)
    (dist / "passwd.txt").symlink_to("/etc/passwd")
    (dist / "suite").symlink_to(REPO / "example-suite")
    (dist / "suite-manifest.toml").symlink_to(REPO / "pyproject.toml")
    (dist / "up").symlink_to("../..")
    (dist / "dangling").symlink_to("missing.js")
    (dist / "again.js").symlink_to("assets/game.js")  # inside: copied as the file it names
    (dist / "loop").symlink_to(".")
    os.mkfifo(dist / "pipe")
    record = copy_site(dist, tmp_path / "site", Bounds())
    assert record["copied"] is True
    copied = tree(tmp_path / "site")
    assert sorted(copied) == ["again.js", "assets/game.js", "index.html"]
    assert copied["again.js"] == b"console.log('play')"
    assert not any(path.is_symlink() for path in (tmp_path / "site").rglob("*"))
    assert sorted(record["skipped"]) == [
        "dangling: a dangling symlink",
        "loop: a symlink to something other than a file",
        "passwd.txt: a symlink out of the build's output",
        "pipe: not a regular file (a fifo, socket or device)",
        "suite-manifest.toml: a symlink out of the build's output",
        "suite: a symlink out of the build's output",
        "up: a symlink out of the build's output",
    ]


def test_a_huge_sparse_file_puts_the_site_over_the_bound_and_nothing_is_copied(tmp_path: Path) -> None:
    dist = site(tmp_path)
    with (dist / "huge.bin").open("wb") as huge:
        huge.truncate(64 * 2**30)  # 64 GiB that take no room: reading it would
    record = copy_site(dist, tmp_path / "site", Bounds(size=2**20))
    assert record["copied"] is False
    assert record["reason"] == ("the site holds more than 1.0 MiB (bound: --tcab-site-size; huge.bin alone is "
                                "65536.0 MiB)")
    assert not (tmp_path / "site").exists() and not (tmp_path / "site.partial").exists()


def test_too_many_files_put_the_site_over_the_bound(tmp_path: Path) -> None:
    dist = site(tmp_path)
    for index in range(10):
        (dist / f"f{index}.txt").write_text("x")
    record = copy_site(dist, tmp_path / "site", Bounds(files=5))
    assert record["copied"] is False and "more than 5 files" in record["reason"]
    assert "--tcab-site-files" in record["reason"]
    assert not (tmp_path / "site").exists()


def test_deep_nesting_puts_the_site_over_the_bound(tmp_path: Path) -> None:
    dist = site(tmp_path)
    deep = dist
    for _ in range(200):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "bottom.txt").write_text("x")
    record = copy_site(dist, tmp_path / "site", Bounds(depth=32))
    assert record["copied"] is False and "deeper than 32" in record["reason"]
    assert not (tmp_path / "site").exists()


def test_a_file_that_grows_after_it_was_measured_is_cut_at_its_measured_size(tmp_path: Path) -> None:
    from pytest_tcab.run.report import site as module

    dist = site(tmp_path)
    real_plan = module._plan

    def plan_then_grow(root: Path, bounds: Bounds) -> object:
        plan = real_plan(root, bounds)
        (dist / "index.html").write_bytes(b"x" * 10_000)
        return plan

    module._plan = plan_then_grow  # type: ignore[assignment]
    try:
        record = copy_site(dist, tmp_path / "site", Bounds())
    finally:
        module._plan = real_plan
    assert (tmp_path / "site" / "index.html").stat().st_size == 51
    assert record["bytes"] == 70


def test_the_record_reaches_results_json_and_the_summary_only_when_the_site_was_not_kept(tmp_path: Path) -> None:
    assert site_entry(tmp_path) == {}
    over = {"copied": False, "reason": "the site holds more than 5 files (bound: --tcab-site-files)"}
    (tmp_path / SITE_RECORD).write_text(json.dumps(over))
    assert site_entry(tmp_path) == {"site": over}
    assert site_note(over) == "site: not kept for review (the site holds more than 5 files (bound: --tcab-site-files))"
    assert summary_lines({"site": over}) == [site_note(over)]
    assert summary_lines({"site": {"copied": True, "files": 2}}) == []
    (tmp_path / SITE_RECORD).write_text("[not a record")
    assert site_entry(tmp_path) == {}


@pytest.mark.parametrize("text", ["0", "-1", "many"])
def test_the_file_bound_is_a_whole_number(text: str) -> None:
    import argparse

    from pytest_tcab.options import parse_file_count

    with pytest.raises(argparse.ArgumentTypeError, match="is not a number of files"):
        parse_file_count(text)
