"""Path containment: whatever an author or a build writes, nothing resolves outside the folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.paths import PathEscapes
from pytest_tcab.paths import contained
from pytest_tcab.paths import is_inside

segments = st.sampled_from(["a", "b", "..", ".", "", "inside", "outside", "loop", "~", "C:", "%2e%2e", "\\..", "x\x00"])
relative = st.lists(segments, max_size=6).map("/".join) | st.text(max_size=30)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("contain")
    root = base / "root"
    (root / "a" / "b").mkdir(parents=True)
    (base / "secret").mkdir()
    os.symlink(base / "secret", root / "outside")
    os.symlink(root / "a", root / "inside")
    os.symlink("loop", root / "loop")
    return root


@given(relative)
def test_contained_never_leaves_the_root(folder: Path, text: str) -> None:
    try:
        target = contained(folder, text)
    except PathEscapes:
        return
    real_root = os.path.realpath(folder)
    real = os.path.realpath(target)
    assert real == real_root or real.startswith(real_root + os.sep)


def test_the_escapes_are_named(folder: Path) -> None:
    for text, reason in [("/etc/passwd", "is absolute"), ("a/../../x", "climbs out"),
                         ("outside/file", "symlink that leads outside")]:
        with pytest.raises(PathEscapes, match=reason):
            contained(folder, text)
    assert contained(folder, "inside/b") == folder / "inside" / "b"


@given(relative.filter(lambda text: "\x00" not in text))
@example(text="loop/../outside")
def test_is_inside_agrees_with_realpath(folder: Path, text: str) -> None:
    path = folder / text
    real_root = os.path.realpath(folder)
    real = os.path.realpath(path)
    assert is_inside(folder, path) == (real == real_root or real.startswith(real_root + os.sep))
