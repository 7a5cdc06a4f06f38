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

A run's cap never promises more room than the grading machine has: at the run's start it is
lowered to what the scratch filesystem has free, less what the other live runs there may still
write (their images' unwritten part, their watchdog caps) and a margin for the grader's own files
(:func:`room`), computed under a lock on the scratch folder so two xdist workers starting runs at
once do not both count the same room. So a build that fills its disk fills its own, and fails;
"not graded" stays for a machine out of room before the run wrote anything.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

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


MIN_DISK_BYTES = 64 * 2**20
"""The least room a run is started with: below it the grading machine is out of disk (not graded)."""
IMAGE_OVERHEAD = 1 / 8
"""What an ext4 image takes beyond the room its files get (inode tables, bitmaps, a MiB of slack),
at most: 8% below 512 MiB (where mkfs gives an inode to every 4 KiB), 2% at 4 GiB."""


def grader_margin(free: int) -> int:
    """What a run's cap leaves free on the scratch filesystem for the grader's own files (its
    reporter-side copies, the browser's profile, media before they move to --tcab-out)."""
    return max(MIN_DISK_BYTES, free // 16)


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
    asked: int | None = None
    """`--tcab-build-disk`, when `cap` is lower: what the grading machine had room for at the run's start."""
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
        """What each step's record says of the disk it had (and, when the cap was lowered, what was asked)."""
        return {"disk_cap": self.cap, "disk_cap_by": self.by,
                **({"disk_cap_asked": self.asked} if self.asked is not None else {})}

    def lowered(self) -> str:
        """`, lowered from 4096 MiB to the room ... had free`, when it was, else ``."""
        if self.asked is None:
            return ""
        return f", lowered from {size_text(self.asked)} to the room {self.path.parent} had free at the run's start"

    def past_cap(self) -> str | None:
        """`past its disk cap ...` when the run's disk is full, else None."""
        if not self.full():
            return None
        return (f"past its disk cap of {size_text(self.cap)}{self.lowered()} (it wrote {size_text(self.used())} into "
                f"its build folder, {MECHANISMS[self.by]}; {BUILD_DISK_OPTION})")

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
        _reservation(self.path).unlink(missing_ok=True)


def lowered_lines(run: dict[str, Any]) -> list[str]:
    """The terminal's line for a run (results.json's) whose disk cap was lowered to the room the
    grading machine had: its steps' records say so (`disk_cap_asked`)."""
    for item in run["items"]:
        for step in item.get("steps", [item]):
            if "disk_cap_asked" in step:
                return [f"disk cap: {size_text(int(step['disk_cap']))}, lowered from "
                        f"{size_text(int(step['disk_cap_asked']))} ({BUILD_DISK_OPTION}) to the room the grading "
                        "machine had free at the run's start"]
    return []


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
    allows, its cap lowered to the room there is (:func:`room`). A mechanism that fails is not
    tried again in this session; the grading machine's own disk running out (ENOSPC, or less
    than :data:`MIN_DISK_BYTES` of room) is raised, as every other such failure is (not graded)."""
    asked = int(config.getoption("tcab_build_disk"))
    path = Path(tempfile.mkdtemp(prefix=f"tcab-run-{os.getpid()}-"))
    tried = config.stash.setdefault(_failed_key, set())
    with _locked(path.parent):
        for by in ("loop", "tmpfs", "watchdog"):
            if by != "watchdog" and (by in tried or not _may_mount()):
                continue
            try:
                cap = _capped(asked, path, by, _workers(config))
                if by == "watchdog":
                    _reservation(path).write_text(str(cap))
                    return RunDisk(path, cap, by, asked=asked if cap < asked else None)
                image = _mount(by, path, cap, config.stash.get(_image_key, {}).get(cap, cap))
                usable = _usable(path)
                if image is not None and usable < cap:  # ext4 keeps its inode tables out of it: grow the image by them
                    _unmount(path)
                    image = _mount(by, path, cap, image.stat().st_size + cap - usable + 2**20)
                    config.stash.setdefault(_image_key, {})[cap] = image.stat().st_size
            except OSError as exc:
                if exc.errno == errno.ENOSPC or _free(path.parent) < full_margin(asked):  # the host's is out of room
                    shutil.rmtree(path, ignore_errors=True)
                    raise OSError(errno.ENOSPC, f"no room for a build disk in {path.parent} ({exc.strerror})") from exc
                tried.add(by)
                continue
            return RunDisk(path, cap, by, image, asked=asked if cap < asked else None)
    raise AssertionError("the watchdog needs no mount")  # pragma: no cover


def _capped(asked: int, path: Path, by: str, workers: int) -> int:
    """The cap a run of mechanism `by` gets: `asked`, or its share of the room there is when that
    is less, with `workers` sessions starting runs beside each other. A tmpfs is memory, not the
    scratch disk: its room is the memory cap's to bound."""
    if by == "tmpfs":
        return asked
    left, live = room(path.parent, path)
    # Runs that may still start beside this one (the other xdist workers') get their share too.
    share = left // max(1, workers - live)
    if by == "loop":
        share = int((share - 2**20) / (1 + IMAGE_OVERHEAD))
    if share < MIN_DISK_BYTES:
        raise OSError(errno.ENOSPC, f"{size_text(max(share, 0))} of room for a run, less than it needs "
                                    f"({size_text(MIN_DISK_BYTES)})")
    return min(asked, share // 2**20 * 2**20)


def room(scratch: Path, own: Path) -> tuple[int, int]:
    """What new runs in `scratch` may write, and how many other live runs' disks are there: the
    free space, less what each of those may still take (an image's unwritten part, a watchdog
    cap's unused part) and the grader's margin (:func:`grader_margin`). Disks of a session no
    longer running (killed) take no more than they hold already."""
    free = _free(scratch)
    promised = live = 0
    for other in scratch.glob("tcab-run-*"):
        if other == own or other.suffix or not _alive(other):
            continue
        image, reserved = other.with_name(other.name + ".ext4"), _reservation(other)
        with contextlib.suppress(OSError, ValueError):
            if image.exists():
                stat = image.stat()
                promised += max(0, stat.st_size - stat.st_blocks * 512)
                live += 1
            elif reserved.exists():
                promised += max(0, int(reserved.read_text()) - tree_size(other))
                live += 1
    return free - promised - grader_margin(free), live


def _workers(config: pytest.Config) -> int:
    """How many sessions share this scratch folder's room at once: this session's xdist workers,
    else one. Read from the session itself, not the environment, which a session started inside
    an xdist worker (a pytester run, a nested grader) inherits from it."""
    count = getattr(config, "workerinput", {}).get("workercount", 1)
    return count if isinstance(count, int) and count > 0 else 1


def _reservation(path: Path) -> Path:
    """Where a watchdog disk writes its cap, for the runs that start beside it (an image says its own size)."""
    return path.with_name(path.name + ".cap")


def _alive(folder: Path) -> bool:
    """Whether the session that made `folder` (`tcab-run-<its pid>-...`) still runs."""
    pid = folder.name.split("-")[2]
    return pid.isdigit() and Path(f"/proc/{pid}").exists()


@contextlib.contextmanager
def _locked(scratch: Path) -> Iterator[None]:
    """Held while a run measures the room and takes its part, so two runs starting at once
    (xdist workers) never count the same room: an flock on the scratch folder itself."""
    fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


_failed_key = pytest.StashKey[set[str]]()
_image_key = pytest.StashKey[dict[int, int]]()
"""The size of image whose ext4 holds a whole cap for its files, by cap, once found."""


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
