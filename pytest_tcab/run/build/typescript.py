"""`.ts` validation scripts served as JavaScript: types stripped, sibling imports bundled, by esbuild.

A browser imports JavaScript only, so a TypeScript validator is turned into one ES module before
it is served: esbuild (Debian's `esbuild`, installed by scripts/bootstrap; `TCAB_ESBUILD` names
another binary) bundles the script with whatever it imports from its folder, stripping types
without checking them. The result is cached on disk by content hash (esbuild's version, the
script's path and every source file of its folder), so each script is stripped once and again
only when a file it may import changes.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from pytest_tcab.errors import TcabError

TYPESCRIPT_SUFFIXES = frozenset({".ts", ".mts"})
_SOURCE_SUFFIXES = frozenset({".ts", ".mts", ".js", ".mjs", ".json"})
CACHE_DIR = Path(".tcab/ts-cache")
"""Under the current directory, beside the run's other caches."""
STRIP_TIMEOUT_S = 60.0
NO_ESBUILD = ("stripping the types of a .ts validator needs esbuild: apt-get install esbuild (scripts/bootstrap "
              "does), or set TCAB_ESBUILD to an esbuild binary")


class StripFailed(TcabError):
    """The script could not be turned into JavaScript: no esbuild, or esbuild refused it."""


def is_typescript(script: str) -> bool:
    return Path(script).suffix.lower() in TYPESCRIPT_SUFFIXES


@functools.cache
def esbuild() -> tuple[str, str] | None:
    """The esbuild binary and its version, or None when none is found."""
    binary = os.environ.get("TCAB_ESBUILD") or shutil.which("esbuild")
    if not binary:
        return None
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=STRIP_TIMEOUT_S,
                              check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return binary, done.stdout.strip()


def strip_types(script: Path, root: Path, cache_dir: Path = CACHE_DIR) -> Path:
    """The JavaScript module of `script` (a file under `root`, the folder its imports stay in)."""
    found = esbuild()
    if found is None:
        raise StripFailed(NO_ESBUILD)
    binary, version = found
    target = cache_dir.resolve() / f"{_digest(script, root, version)}.mjs"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tcab-ts-", dir=target.parent) as scratch:
        out = Path(scratch) / "out.mjs"
        try:
            done = subprocess.run(
                [binary, str(script), "--bundle", "--format=esm", "--platform=browser", "--log-level=error",
                 "--target=es2022", f"--outfile={out}"],
                check=False, capture_output=True, text=True, timeout=STRIP_TIMEOUT_S, cwd=root,
            )
        except subprocess.TimeoutExpired:
            raise StripFailed(f"esbuild did not finish stripping {script.name} within {STRIP_TIMEOUT_S:g} s") from None
        if done.returncode != 0 or not out.is_file():
            detail = "\n".join(line for line in done.stderr.strip().splitlines()[:12])
            raise StripFailed(f"esbuild {version} could not strip the types of {script.name}:\n{detail}")
        os.replace(out, target)  # atomic: a parallel worker sees the whole file or none
    return target


def _digest(script: Path, root: Path, version: str) -> str:
    digest = hashlib.sha256(f"esbuild {version}\n{script.relative_to(root).as_posix()}\n".encode())
    for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in _SOURCE_SUFFIXES and p.is_file()):
        digest.update(f"{path.relative_to(root).as_posix()}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
