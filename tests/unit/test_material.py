"""The build digest changes exactly when the material a build is made from changes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_tcab.run.material import material_digest


def make_run(root: Path) -> Path:
    run = root / "carom-base"
    (run / "src").mkdir(parents=True)
    (run / ".tcab").mkdir()
    (run / ".tcab" / "run.toml").write_text('case = "carom"\n')
    (run / "index.html").write_text("<canvas></canvas>\n")
    (run / "src" / "main.js").write_text("export const spin = 1;\n")
    return run


def test_the_digest_is_a_sha256_and_does_not_depend_on_where_the_run_lies(tmp_path: Path) -> None:
    first = material_digest(make_run(tmp_path / "a"))
    assert len(first) == 64 and int(first, 16) >= 0
    assert material_digest(make_run(tmp_path / "b")) == first


CHANGES: dict[str, Callable[[Path], object]] = {
    "a source edited": lambda run: (run / "src" / "main.js").write_text("export const spin = 2;\n"),
    "a file added": lambda run: (run / "src" / "extra.js").write_text(""),
    "a file removed": lambda run: (run / "index.html").unlink(),
    "a file renamed": lambda run: (run / "src" / "main.js").rename(run / "src" / "Main.js"),
    "run.toml edited": lambda run: (run / ".tcab" / "run.toml").write_text('case = "other"\n'),
    "an empty folder added": lambda run: (run / "assets").mkdir(),
    "an in-tree symlink added": lambda run: (run / "link.js").symlink_to("src/main.js"),
    "made executable": lambda run: (run / "index.html").chmod(0o755),
    "a deeper build/ folder (a source)": lambda run: (run / "src" / "build").mkdir(),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_change_to_the_material_changes_the_digest(tmp_path: Path, change: Callable[[Path], object]) -> None:
    run = make_run(tmp_path)
    before = material_digest(run)
    change(run)
    assert material_digest(run) != before


def dependency(run: Path) -> None:
    (run / "node_modules" / "left-pad").mkdir(parents=True)
    (run / "node_modules" / "left-pad" / "index.js").write_text("x")


SAME: dict[str, Callable[[Path], object]] = {
    "node_modules": dependency,
    ".git": lambda run: (run / ".git").mkdir(),
    "a shipped dist/ (never built from)": lambda run: (run / "dist").mkdir() or (run / "dist" / "a.js").write_text("x"),
    "a symlink leaving the tree": lambda run: (run / "secret").symlink_to("/etc/hostname"),
    "a timestamp": lambda run: os.utime(run / "index.html", (1, 1)),
    "a mode bit other than executable": lambda run: (run / "index.html").chmod(0o600),
    "the grader's results inside the run": lambda run: (run / ".tcab" / "results").mkdir()
    or (run / ".tcab" / "results" / "results.json").write_text("{}"),
    "a review inside the run's reviews folder": lambda run: (run / ".tcab" / "reviews").mkdir(),
}


@pytest.mark.parametrize("change", SAME.values(), ids=SAME.keys())
def test_what_no_build_starts_from_leaves_the_digest(tmp_path: Path, change: Callable[[Path], object]) -> None:
    run = make_run(tmp_path)
    before = material_digest(run, [run / ".tcab" / "results", run / ".tcab" / "reviews"])
    change(run)
    assert material_digest(run, [run / ".tcab" / "results", run / ".tcab" / "reviews"]) == before


def test_a_tree_deeper_than_the_recursion_limit_is_digested(tmp_path: Path) -> None:
    import sys

    run = make_run(tmp_path)
    before = material_digest(run)
    run.joinpath(*["d"] * 200).mkdir(parents=True)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)  # the tree is deeper than the stack may be
    try:
        after = material_digest(run)
    finally:
        sys.setrecursionlimit(limit)
    assert after != before


def test_a_fifo_is_not_opened(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    before = material_digest(run)
    os.mkfifo(run / "pipe")
    assert material_digest(run) == before  # not material (the build's copy drops it), and never read
