"""`.ts` validation scripts as JavaScript: types stripped, sibling imports bundled, by esbuild.

The judge runtime imports one ES module per script, so a TypeScript validator is turned into one
before it runs: esbuild (Debian's `esbuild`, installed by scripts/bootstrap; `TCAB_ESBUILD` names
another binary) bundles the script with whatever it imports from its folder, stripping types
without checking them, with an inline source map, so the judge's stack frames name the `.ts`
files and lines. The result is cached on disk by content hash (esbuild's version, the
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


def strip_types(script: Path, root: Path, named_from: Path, cache_dir: Path = CACHE_DIR) -> Path:
    """The JavaScript module of `script` (a file under `root`, the folder its imports stay in).

    Its source map names each source by its path from `named_from` (the case folder, e.g.
    `validators/ball/spin.ts`), resolved against the cache folder: the same names whichever
    snapshot the module was stripped from, so a cached module maps its frames in every session.
    """
    found = esbuild()
    if found is None:
        raise StripFailed(NO_ESBUILD)
    binary, version = found
    target = cache_dir.resolve() / f"{_digest(script, root, named_from, version)}.mjs"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    try:  # written to stdout, esbuild names the sources from its working directory
        done = subprocess.run(
            [binary, str(script), "--bundle", "--format=esm", "--platform=node", "--sourcemap=inline",
             "--log-level=error", "--target=es2022"],
            check=False, capture_output=True, timeout=STRIP_TIMEOUT_S, cwd=named_from,
        )
    except subprocess.TimeoutExpired:
        raise StripFailed(f"esbuild did not finish stripping {script.name} within {STRIP_TIMEOUT_S:g} s") from None
    if done.returncode != 0 or not done.stdout:
        detail = "\n".join(done.stderr.decode(errors="replace").strip().splitlines()[:12])
        raise StripFailed(f"esbuild {version} could not strip the types of {script.name}:\n{detail}")
    with tempfile.NamedTemporaryFile(prefix="tcab-ts-", suffix=".mjs", dir=target.parent, delete=False) as out:
        out.write(done.stdout)
    os.replace(out.name, target)  # atomic: a parallel worker sees the whole file or none
    return target


def _digest(script: Path, root: Path, named_from: Path, version: str) -> str:
    named = script.relative_to(named_from).as_posix()
    digest = hashlib.sha256(f"esbuild {version} node sourcemap\n{named}\n{script.relative_to(root).as_posix()}\n".encode())
    for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in _SOURCE_SUFFIXES and p.is_file()):
        digest.update(f"{path.relative_to(root).as_posix()}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
