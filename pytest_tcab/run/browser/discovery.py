"""Where this host's Chromium and Playwright's ffmpeg are: found once, in DESIGN order, with one reason when absent."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pytest_tcab.errors import TcabError

NO_BROWSER_REASON = (
    "no Chromium found: apt-get install chromium, or pass --tcab-chromium=PATH "
    "(or set TCAB_CHROMIUM)"
)
"""The one skip reason every browser item shares when discovery finds nothing."""

NO_FFMPEG_REASON = (
    "video outputs need ffmpeg to encode the clip: apt-get install ffmpeg, "
    "or run `playwright install ffmpeg`"
)
"""Why a recording context cannot be made; items with a video output fail with it."""

# Playwright's executable layouts, keyed like its registry's host platforms.
_CHROMIUM_PARTS = {
    "linux-x64": ("chrome-linux64", "chrome"),
    "linux-arm64": ("chrome-linux-arm64", "chrome"),
    "mac-x64": ("chrome-mac-x64", "Google Chrome for Testing.app", "Contents", "MacOS",
                "Google Chrome for Testing"),
    "mac-arm64": ("chrome-mac-arm64", "Google Chrome for Testing.app", "Contents", "MacOS",
                  "Google Chrome for Testing"),
    "win-x64": ("chrome-win64", "chrome.exe"),
}
_FFMPEG_NAMES = {
    "linux-x64": "ffmpeg-linux",
    "linux-arm64": "ffmpeg-linux",
    "mac-x64": "ffmpeg-mac",
    "mac-arm64": "ffmpeg-mac",
    "win-x64": "ffmpeg-win64.exe",
}


class BrowserError(TcabError):
    """Chromium was asked for but cannot be used: a wrong path, a failed launch, no video encoder."""



@dataclass(frozen=True)
class ChromiumLocation:
    """A Chromium executable and which discovery step found it (shown in failures and headers)."""

    path: Path
    source: str
    """``--tcab-chromium``, ``TCAB_CHROMIUM``, ``playwright`` or ``system``."""


def find_chromium(explicit: str | None) -> ChromiumLocation | None:
    """Find Chromium in DESIGN order; None means "skip every browser item".

    A path the user named (option or environment) that is not an executable file raises
    instead of falling through, so a typo never silently tests with another browser.
    """
    for source, value in (("--tcab-chromium", explicit),
                          ("TCAB_CHROMIUM", os.environ.get("TCAB_CHROMIUM"))):
        if value:
            path = Path(value).expanduser()
            if not _is_executable(path):
                raise BrowserError(f"{source}={value}: no executable file there")
            return ChromiumLocation(path, source)
    own = playwright_chromium()
    if own is not None and _is_executable(own):
        return ChromiumLocation(own, "playwright")
    for candidate in (Path("/usr/bin/chromium"), shutil.which("chromium")):
        if candidate is not None and _is_executable(Path(candidate)):
            return ChromiumLocation(Path(candidate), "system")
    return None


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def playwright_chromium() -> Path | None:
    """Where ``playwright install chromium`` puts this Playwright's browser (it may be absent)."""
    parts = _CHROMIUM_PARTS.get(_host_platform())
    if parts is None:
        return None
    return playwright_registry() / f"chromium-{_revisions()['chromium']}" / Path(*parts)


def playwright_registry() -> Path:
    """Playwright's browser directory as the user's environment defines it.

    Mirrors the driver's own rule (``PLAYWRIGHT_BROWSERS_PATH``, ``0`` meaning inside the
    package, else the per-user cache). It reads the environment at call time; BrowserSession
    only redirects the variable for the instant the driver starts, so this keeps seeing the
    user's real location.
    """
    configured = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured == "0":
        return _driver_package() / ".local-browsers"
    if configured:
        return Path(os.environ.get("INIT_CWD") or os.getcwd(), configured)
    if sys.platform == "darwin":
        cache = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32":
        cache = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "ms-playwright"


def ffmpeg_for_playwright(cache_dir: Path) -> Path | None:
    """Return a browsers directory whose ``ffmpeg-<rev>`` Playwright's video recorder can run.

    Playwright records video only with its own downloaded ffmpeg. If that download exists the
    user's registry is returned unchanged; otherwise `cache_dir` gets a symlink named like it
    pointing at the system ffmpeg (Debian's encodes the VP9 Playwright asks for). Hand the
    result to the driver as ``PLAYWRIGHT_BROWSERS_PATH`` before ``sync_playwright()`` starts.
    None means no ffmpeg anywhere: recording contexts then fail with NO_FFMPEG_REASON.
    """
    name = _FFMPEG_NAMES.get(_host_platform())
    if name is None:
        return None
    folder = f"ffmpeg-{_revisions()['ffmpeg']}"
    original = playwright_registry()
    if _is_executable(original / folder / name):
        return original
    system = shutil.which("ffmpeg")
    if system is None:
        return None
    link = cache_dir / folder / name
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(system)
    return cache_dir


def _host_platform() -> str:
    import platform

    machine = platform.machine().lower()
    arch = "arm64" if machine in ("arm64", "aarch64") else "x64"
    if sys.platform.startswith("linux"):
        return f"linux-{arch}"
    if sys.platform == "darwin":
        return f"mac-{arch}"
    return "win-x64" if sys.platform == "win32" else "unknown"


def _driver_package() -> Path:
    from importlib.resources import files

    return Path(str(files("playwright"))) / "driver" / "package"


@cache
def _revisions() -> dict[str, str]:
    """Browser revisions this Playwright expects, from its driver's ``browsers.json``."""
    import json

    data = json.loads((_driver_package() / "browsers.json").read_text(encoding="utf-8"))
    return {entry["name"]: entry["revision"] for entry in data["browsers"]}
