"""On-disk caches shared between sessions and xdist workers: compiled wasm modules, compiled
templates, rendered mockups."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file beside it, so a concurrent reader (another
    xdist worker) sees the whole file or none. An `OSError` leaves no temporary file behind."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
