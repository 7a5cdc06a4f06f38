"""Path containment: a path an author or a build names never leads outside its folder."""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from pathlib import Path
from pathlib import PurePosixPath

_DRIVE = re.compile(r"^[A-Za-z]:")


class PathEscapes(ValueError):
    """A relative path that is absolute, climbs with `..`, or follows a symlink outside."""


def contained(root: Path, relative: str) -> Path:
    """`root / relative`, refusing anything that does not stay inside `root`.

    The path must exist only as far as symlinks are concerned: a missing target is fine
    (existence is a separate rule), a symlink whose target leaves `root` is not.
    """
    if "\x00" in relative:
        raise PathEscapes("contains a NUL character")
    if relative.startswith(("/", "\\")) or _DRIVE.match(relative):
        raise PathEscapes("is absolute")
    parts = PurePosixPath(relative.replace("\\", "/")).parts
    if ".." in parts:
        raise PathEscapes("climbs out with '..'")
    target = root.joinpath(*parts)
    real_root = _real_root(str(root))
    if not _within(real_root, _real_below(real_root, parts)):
        raise PathEscapes("follows a symlink that leads outside")
    return target


@functools.lru_cache(maxsize=256)
def _real_root(root: str) -> str:
    # Resolution checks dozens of paths against the same few folders: resolve each once.
    return os.path.realpath(root)


def _real_below(real_root: str, parts: tuple[str, ...]) -> str:
    """`os.path.realpath` of `real_root` joined with `parts` (no `..`), looking only at the
    joined parts: the root is already real, so only a symlink among the parts can lead away."""
    path = real_root
    for i, part in enumerate(parts):
        if part in ("", "."):
            continue
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return os.path.join(path, *parts[i + 1:])  # missing: nothing further can be a link
        if stat.S_ISLNK(mode):
            return os.path.realpath(os.path.join(path, *parts[i + 1:]))
    return path


def _within(real_root: str, real: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def is_inside(root: Path, path: Path) -> bool:
    """Whether `path`, with symlinks followed, is `root` or lies under it."""
    real_root = _real_root(str(root))
    try:
        parts: tuple[str, ...] | None = path.relative_to(root).parts
    except ValueError:
        parts = None
    if parts is None or ".." in parts:
        return _within(real_root, _realpath(path))
    return _within(real_root, _real_below(real_root, parts))


def _realpath(path: Path) -> str:
    """`os.path.realpath(path)` through its folder's real path, resolved once per folder.

    A path that climbs with `..` is resolved whole: below a symlink loop, realpath leaves the
    rest unresolved, and resolving the folder first would follow a link the whole path never reaches."""
    if path.name in ("", ".", "..") or ".." in path.parts:
        return os.path.realpath(path)
    return _real_below(_real_root(str(path.parent)), (path.name,))


_REFUSALS = {
    errno.ENAMETOOLONG: "the name is too long for the file system",
    errno.ELOOP: "it goes through a loop of symlinks",
    errno.ENOTDIR: "a part of it is a file, not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}


def refusal(error: OSError) -> str:
    """Why the OS refused a path, worded for the author who wrote it."""
    return _REFUSALS.get(error.errno or 0, error.strerror or str(error))


def is_file(path: Path) -> bool:
    """`path.is_file()`, false where the OS refuses the name (too long, a loop, no permission).

    For a question whose honest answer is "no such file" (can this name collide with a file?);
    where the author named the path, resolution reports the refusal (resolve.paths.check_path).
    """
    try:
        return path.is_file()
    except OSError:
        return False
