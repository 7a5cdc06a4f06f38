"""Cache files are written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tcab.caches import write_atomically


def test_a_cache_file_is_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "entry.bin"
    target.write_bytes(b"old")
    write_atomically(target, b"new contents")
    assert target.read_bytes() == b"new contents"
    assert [path.name for path in tmp_path.iterdir()] == ["entry.bin"]


def test_a_failed_write_leaves_neither_a_file_nor_a_temporary(tmp_path: Path) -> None:
    target = tmp_path / "entry.bin"
    target.mkdir()  # the rename onto a folder fails
    with pytest.raises(OSError):
        write_atomically(target, b"contents")
    assert [path.name for path in tmp_path.iterdir()] == ["entry.bin"] and target.is_dir()
