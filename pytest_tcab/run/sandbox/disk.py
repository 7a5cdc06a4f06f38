"""A build's disk: each run's scratch folder on a filesystem of its own, no larger than `--tcab-build-disk`.

The scratch folder holds the copy of the produced tree, its private home and whatever its
install, build and toolchain steps write (`node_modules`, `target/`). A step that fills it
fails its own run, and the folder goes with everything in it when the run is released, so
the next run starts on an empty disk and the grading machine's own disk never fills up for
a build. How the cap is held, best first (`disk_cap_by`, in each step's record):

- `loop`: a sparse ext4 image of the cap's size, loop-mounted on the folder (root, a loop
  device and `mkfs.ext4`). The kernel refuses the write past the cap (ENOSPC), however fast
  the writer; it is disk, as the build expects.
- `tmpfs`: a tmpfs of the cap's size mounted on the folder (root, no loop device). Refused
  likewise, but it is memory: what a step writes counts against its memory cap as well.
- `watchdog`: where nothing can be mounted (not root). Each file a step writes is capped by
  RLIMIT_FSIZE at the cap, and the folder is summed every :data:`POLL_S` while a step runs:
  past the cap the step's processes are ended. A writer can overshoot by what it writes
  between two polls (about a GiB at disk speed), which the fallback bounds but cannot refuse.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import pytest

from pytest_tcab.options import BUILD_DISK_OPTION
from pytest_tcab.run.media import size_text

DEFAULT_DISK_BYTES = 4 * 2**30

MECHANISMS = {
    "loop": "a loop-mounted ext4 image of its own",
    "tmpfs": "a tmpfs of its own, in memory",
    "watchdog": "a watchdog summing its folder, each file capped by RLIMIT_FSIZE, which can overshoot by one poll",
}
"""What each way of capping a run's disk is, as failures and summaries say it."""

POLL_S = 0.25
"""How often the watchdog sums a running step's folder (the fallback without a mount)."""

_TOOL_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


def full_margin(cap: int) -> int:
    """Free space under which a run's disk counts as full: a writer stopped by ENOSPC leaves
    less than a block of its last write, an honest build stays well clear of it."""
    return max(2**20, cap // 256)


@dataclass
class RunDisk:
    """One run's scratch folder, capped at `cap` bytes by `by` (a key of :data:`MECHANISMS`)."""

    path: Path
    cap: int
    by: str
    image: Path | None = None
    """The ext4 image behind a `loop` disk, a sibling of the folder."""
    _checked: float = field(default=0.0, repr=False)

    def used(self) -> int:
        """The bytes the run has written into its disk (its filesystem's used blocks, or the
        folder's sum under the watchdog)."""
        if self.by == "watchdog":
            return tree_size(self.path)
        stat = os.statvfs(self.path)
        return (stat.f_blocks - stat.f_bfree) * stat.f_frsize

    def full(self) -> bool:
        """Whether the run has written its disk full (for a mount: less than a margin left)."""
        if self.by == "watchdog":
            return self.used() >= self.cap
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize < full_margin(self.cap)

    def over(self) -> bool:
        """Polled while a step runs: whether the watchdog ends it now. A mounted disk refuses the
        write itself, so this is only ever true under the watchdog."""
        if self.by != "watchdog" or time.monotonic() - self._checked < POLL_S:
            return False
        self._checked = time.monotonic()
        return self.used() >= self.cap

    def argv(self) -> list[str]:
        """The command prefix of each step: RLIMIT_FSIZE at the cap under the watchdog."""
        found = shutil.which("prlimit", path=_TOOL_PATH)
        if self.by != "watchdog" or found is None:
            return []
        return [found, f"--fsize={self.cap}", "--"]

    def record(self) -> dict[str, str | int]:
        """What each step's record says of the disk it had."""
        return {"disk_cap": self.cap, "disk_cap_by": self.by}

    def past_cap(self) -> str | None:
        """`past its disk cap ...` when the run's disk is full, else None."""
        if not self.full():
            return None
        return (f"past its disk cap of {size_text(self.cap)} (it wrote {size_text(self.used())} into its build folder, "
                f"{MECHANISMS[self.by]}; {BUILD_DISK_OPTION})")

    def host_out_of_room(self) -> str | None:
        """Why the grading machine's disk, not the run's, is out of room, else None: the
        filesystem holding the run's folder (and its image) has nothing left."""
        free = _free(self.path.parent)
        if free >= full_margin(self.cap):
            return None
        return (f"the grading machine ran out of disk: {self.path.parent} has {size_text(free)} free, while the "
                f"run had written {size_text(self.used())} of its {size_text(self.cap)} cap ({BUILD_DISK_OPTION} is above "
                "the room there)")

    def release(self) -> None:
        """Unmount and remove the folder and all in it (and the image behind it)."""
        if self.by != "watchdog":
            _unmount(self.path)
        shutil.rmtree(self.path, ignore_errors=True)
        if self.image is not None:
            self.image.unlink(missing_ok=True)


def tree_size(path: Path) -> int:
    """The bytes of the blocks under `path` (what `du` sums), not following symlinks."""
    total = 0
    stack = [path]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += stat.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
    return total


def make_disk(config: pytest.Config) -> RunDisk:
    """A fresh scratch folder for one run on a disk of its own, by the best mechanism this host
    allows. A mechanism that fails is not tried again in this session; the grading machine's
    own disk running out (ENOSPC) is raised, as every other such failure is (not graded)."""
    cap = int(config.getoption("tcab_build_disk"))
    path = Path(tempfile.mkdtemp(prefix="tcab-run-"))
    tried = config.stash.setdefault(_failed_key, set())
    for by in ("loop", "tmpfs"):
        if by in tried or not _may_mount():
            continue
        try:
            image = _mount(by, path, cap, config.stash.get(_image_key, cap))
            usable = _usable(path)
            if image is not None and usable < cap:  # ext4 keeps its inode tables out of it: grow the image by them
                _unmount(path)
                image = _mount(by, path, cap, image.stat().st_size + cap - usable + 2**20)
                config.stash[_image_key] = image.stat().st_size
        except OSError as exc:
            if exc.errno == errno.ENOSPC or _free(path.parent) < full_margin(cap):  # the host's disk is out of room
                shutil.rmtree(path, ignore_errors=True)
                raise OSError(errno.ENOSPC, f"no room for a build disk in {path.parent} ({exc.strerror})") from exc
            tried.add(by)
            continue
        return RunDisk(path, cap, by, image)
    return RunDisk(path, cap, "watchdog")


_failed_key = pytest.StashKey[set[str]]()
_image_key = pytest.StashKey[int]()
"""The size of image whose ext4 holds the whole cap for its files, once found."""


def _free(path: Path) -> int:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


def _usable(path: Path) -> int:
    stat = os.statvfs(path)
    return stat.f_blocks * stat.f_frsize


def mechanism(config: pytest.Config) -> str:
    """The mechanism this session's runs get (the first one not yet failed), without mounting
    anything: for the summary, which the xdist controller writes without building."""
    tried = config.stash.get(_failed_key, set())
    for by in ("loop", "tmpfs"):
        if by not in tried and _may_mount() and (by == "tmpfs" or _has_loop()):
            return by
    return "watchdog"


def _may_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount", path=_TOOL_PATH) is not None


def _has_loop() -> bool:
    return os.path.exists("/dev/loop-control") and shutil.which("mkfs.ext4", path=_TOOL_PATH) is not None


def _mount(by: str, path: Path, cap: int, image_size: int) -> Path | None:
    """Mount a filesystem of `cap` bytes of kind `by` on `path` (an image of `image_size` for
    `loop`); the image behind it, if any."""
    image = None
    if by == "loop":
        if not _has_loop():
            raise OSError(errno.ENODEV, "no loop device or mkfs.ext4")
        image = path.with_name(path.name + ".ext4")
        with open(image, "wb") as handle:
            handle.truncate(image_size)  # sparse: the host's disk is taken only as the run writes
        try:
            # No journal and no reserved blocks: the whole cap is the run's, and a scratch disk
            # removed at the run's end needs no crash safety.
            _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal",
                  "-E", "lazy_itable_init=1,nodiscard", str(image)])
            _run(["mount", "-o", "loop,nosuid,nodev,noatime", str(image), str(path)])
        except OSError:
            image.unlink(missing_ok=True)
            raise
    else:
        _run(["mount", "-t", "tmpfs", "-o", f"size={cap},mode=0700,nosuid,nodev", "tmpfs", str(path)])
    os.chmod(path, 0o700)
    return image


def _run(argv: list[str]) -> None:
    try:
        done = subprocess.run(argv, check=False, capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
                              env={**os.environ, "PATH": _TOOL_PATH})
    except subprocess.TimeoutExpired as exc:
        raise OSError(errno.ETIMEDOUT, f"{argv[0]} timed out") from exc
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()
        raise OSError(errno.ENOSPC if "No space left" in said else errno.EIO, f"{argv[0]}: {said}")


def _unmount(path: Path) -> None:
    """Unmount `path`; lazily when something still holds a file of it, so the run lets go anyway."""
    for argv in (["umount", str(path)], ["umount", "-l", str(path)]):
        done = subprocess.run(argv, check=False, capture_output=True, stdin=subprocess.DEVNULL,
                              env={**os.environ, "PATH": _TOOL_PATH})
        if done.returncode == 0:
            return
