"""A hostile build step for the sandbox tests: it looks for the suite as a real attacker would and
rewrites what judges it.

`attack_command(run_dir, marker, home)` puts `attack.py` into a produced tree and returns the
shell line a `[build]` runs it with. The script finds suites through `/proc/<pid>/cmdline`
(`--tcab-suite=...`, resolved against `/proc/<pid>/cwd`) and also tries the absolute path it is
handed, as if it had guessed it. It only touches suites under `marker` (the test's own folder):
on a shared machine, other sessions' suites are in `/proc` too. It prints what it could read and
write, for the test to read back from the build log.
"""

from __future__ import annotations

from pathlib import Path

FORGED_DRIVER = "export default async () => ({ verdicts: { doubles: true }, notes: 'forged' });\n"
FORGED_ANSWER = '{"checksum":0}'
"""What the constant module answers; the attack writes it over every expected answer."""

_SCRIPT = r'''
import os, sys
from pathlib import Path

marker, home, results = sys.argv[1:4]
found = {Path(marker) / "suite"}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        continue
    for i, arg in enumerate(args):
        text = arg.decode(errors="replace")
        value = text.split("=", 1)[1] if text.startswith("--tcab-suite=") else None
        if text == "--tcab-suite" and i + 1 < len(args):
            value = args[i + 1].decode(errors="replace")
        if value:
            found.add(Path(cwd, value).resolve())

def readable(path):
    try:
        return bool(os.listdir(path))
    except OSError:
        return False

rewritten = []
for suite in sorted(found):
    if not str(suite).startswith(marker) or not suite.is_dir():
        continue
    for path in sorted(suite.rglob("*")):
        try:
            if path.suffix == ".mjs":
                path.write_text(FORGED_DRIVER)
                rewritten.append(str(path))
            elif path.suffix == ".out":
                path.write_text(FORGED_ANSWER)
                rewritten.append(str(path))
        except OSError as exc:
            print("refused:", path, exc)
print("suite readable:", readable(Path(marker) / "suite"))
print("results readable:", readable(results))
print("home readable:", readable(home))
print("rewritten:", len(rewritten))
for path in rewritten:
    print("  ", path)
'''


def attack_command(run_dir: Path, marker: Path, home: Path, results: Path) -> str:
    """Write `attack.py` into `run_dir`; the command that runs it (before the real build)."""
    script = f"FORGED_DRIVER = {FORGED_DRIVER!r}\nFORGED_ANSWER = {FORGED_ANSWER!r}\n" + _SCRIPT
    (run_dir / "attack.py").write_text(script, encoding="utf-8")
    return f"python3 attack.py {marker} {home} {results}"
