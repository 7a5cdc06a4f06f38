"""Every command docs/getting-started.md shows, run as a user would on a copy of the example
suite, prints what the page says it prints; the README's examples are the page's own.

A `console` block holds commands (`$ ...`) each followed by the lines it prints; `...` stands
for lines left out. The page's commands run in order in one folder (a later one may read what
an earlier one wrote), with `pytest` the checkout's. Durations are compared as `N`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.conftest import copy_example_suite

PAGE = REPO / "docs/getting-started.md"
_BLOCK = re.compile(r"^```console\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_DURATION = re.compile(r"\b\d+(\.\d+)?s\b")
_MEMORY_CAP = re.compile(r"(memory cap: \d+ MiB), [^)]*")
_RULE = re.compile(r"^=+ (.*?) =+$")
"""A summary line's `=` rule: pytest pads it to the terminal width around the text, so one more
digit in its duration (`in 17.83s` on a loaded host, `in 5.84s` on the page) takes one `=` off."""
"""What the memory cap bounds is the host's to say (a cgroup, else RLIMIT_DATA as the page shows)."""
LEFT_OUT = "..."


@dataclass
class Shown:
    command: str
    output: list[str]


def shown_commands(markdown: str) -> list[Shown]:
    """The page's console blocks as commands and the output lines shown under each."""
    found: list[Shown] = []
    for block in _BLOCK.findall(markdown):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append(Shown(line[2:], []))
            elif found:
                found[-1].output.append(line)
    return found


def normalised(line: str) -> str:
    line = _MEMORY_CAP.sub(r"\1, ...", _DURATION.sub("Ns", line.rstrip()))
    return _RULE.sub(r"== \1 ==", line)


def unmatched(shown: list[str], printed: list[str]) -> str | None:
    """The first shown line not printed (in order, `...` skipping any lines), or None."""
    lines = [normalised(line) for line in printed]
    at = 0
    skipping = False
    for want in shown:
        if want == LEFT_OUT:
            skipping = True
            continue
        want = normalised(want)
        if skipping:
            while at < len(lines) and lines[at] != want:
                at += 1
        if at >= len(lines) or lines[at] != want:
            return want
        at += 1
        skipping = False
    return None


def run_shown(commands: list[Shown], folder: Path) -> list[tuple[Shown, str]]:
    """Each command run with bash in `folder` (`pytest` being this checkout's), with what it printed."""
    # The page shows what a terminal prints: on CI (CI set) pytest writes its short summary whole.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_")) and k != "CI"}
    env["PYTHONPATH"] = str(REPO)
    prelude = f'pytest() {{ "{sys.executable}" -m pytest "$@"; }}\n'
    results = []
    for shown in commands:
        done = subprocess.run(["bash", "-c", prelude + shown.command], cwd=folder, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300, check=False)
        results.append((shown, done.stdout))
    return results


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Shown, str]]:
    folder = tmp_path_factory.mktemp("getting-started")
    copy_example_suite(folder)
    return run_shown(shown_commands(PAGE.read_text(encoding="utf-8")), folder)


def test_the_page_shows_commands_with_their_output() -> None:
    commands = shown_commands(PAGE.read_text(encoding="utf-8"))
    assert len(commands) >= 5
    assert sum(1 for c in commands if c.output) >= 4, "most commands show what they print"


def test_every_command_prints_what_the_page_shows(ran: list[tuple[Shown, str]]) -> None:
    for shown, printed in ran:
        missing = unmatched(shown.output, printed.splitlines())
        assert missing is None, f"$ {shown.command}\nshown but not printed: {missing!r}\nprinted:\n{printed}"


def test_the_readme_examples_are_the_pages() -> None:
    """The README shows a few of the page's commands; they are tested here, by the page."""
    page = {c.command: c.output for c in shown_commands(PAGE.read_text(encoding="utf-8"))}
    readme = shown_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert readme, "the README shows an author-mode and a run-mode example"
    for shown in readme:
        assert shown.command in page, f"README command not on the getting-started page: {shown.command}"
        assert shown.output == page[shown.command], f"README shows other output for: {shown.command}"


def test_a_line_left_out_of_the_output_is_not_skipped_silently() -> None:
    printed = ["a", "b", "c 1.5s"]
    assert unmatched(["a", "...", "c 9s"], printed) is None
    assert unmatched(["a", "c 9s"], printed) == "c Ns"  # without `...` every line is shown
    assert unmatched(["...", "d"], printed) == "d"


def test_a_summary_rule_matches_whatever_its_duration_took_of_its_width() -> None:
    shown = ["================== 1 failed, 1 passed in 5.84s =================="]
    assert unmatched(shown, ["================= 1 failed, 1 passed in 17.83s ================="]) is None
    assert unmatched(shown, ["================= 2 failed in 17.83s ================="]) == "== 1 failed, 1 passed in Ns =="
