"""Every `--tcab-*` option and its ini twin: names, parsers and registration, light enough for `pytest --help`.

The plugin is loaded in every pytest session of an environment that installs it, so this
module and `plugin.py` import nothing heavy; the collectors come in when a suite is collected.
Each option `--tcab-x-y` has the ini key `tcab_x_y`: the command line wins, then the ini file
(paths relative to it), then the default. Code reads the effective value with `config.getoption`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from typing import Literal

import pytest

SUITE_OPTION = "--tcab-suite"
RUN_OPTION = "--tcab-run"
SEED_OPTION = "--tcab-seed"
EXPERIMENTAL_OPTION = "--tcab-experimental"
VIEWPORT_OPTION = "--tcab-viewport"
MAX_DIFF_OPTION = "--tcab-max-diff"
DRIVER_TIMEOUT_OPTION = "--tcab-driver-timeout"
WASM_TIMEOUT_OPTION = "--tcab-wasm-timeout"
WASM_CACHE_OPTION = "--tcab-wasm-cache"
CAPTURE_BASELINES_OPTION = "--tcab-capture-baselines"
NO_SANDBOX_OPTION = "--tcab-no-sandbox"
BUILD_NETWORK_OPTION = "--tcab-build-network"
MATRIX_OPTION = "--tcab-matrix"
MERGE_OPTION = "--tcab-merge"
SHARE_BUILDS_OPTION = "--tcab-share-builds"
NETWORK_POLICIES = ("none", "install", "all")
"""`--tcab-build-network`: which steps reach the network (`install` means install steps only)."""
SHARDS_OPTION = "--tcab-shards"
RESUME_OPTION = "--tcab-resume"
SHARD_OPTION = "--tcab-shard"
SHARD_INDEX_VARIABLES = ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX")
"""Where `--tcab-shard=auto/N` finds I: a Kubernetes Indexed Job, a Slurm array, an AWS Batch array job."""
SHARD_PLAN_OPTION = "--tcab-shard-plan"
ALLOW_PARTIAL_OPTION = "--tcab-allow-partial"
COMPARE_OPTION = "--tcab-compare"
MEDIA_OPTION = "--tcab-media"
MEDIA_MODES = ("all", "failed", "none")
"""`--tcab-media`: the stills, clips and record passes of every verdict, of failed ones only, or of none."""
BUILD_MEMORY_OPTION = "--tcab-build-memory"
PAGE_MEMORY_OPTION = "--tcab-page-memory"
BUILD_DISK_OPTION = "--tcab-build-disk"
REPORT_OPTION = "--tcab-report"
SCHEMAS_OPTION = "--tcab-schemas"
REVIEW_OPTION = "--tcab-review"
REPORT_FORMS = ("linked", "self-contained")
"""`--tcab-report`: report.html links its media beside it, or embeds them."""
CONCURRENCY_OPTION = "--tcab-concurrency"
# -- retries and regrading (run/attempts.py) --
RETRIES_OPTION = "--tcab-retries"
REGRADE_OPTION = "--tcab-regrade"

# -- the sweep's comparisons (issue 34) --
BASELINE_OPTION = "--tcab-baseline"
TARGET_WIDTH_OPTION = "--tcab-target-width"
CATASTROPHIC_OPTION = "--tcab-catastrophic"
CATASTROPHIC_RULES = ("apart", "zero")
"""`--tcab-catastrophic`: a catastrophic run kept out of the score as a rate of its own, or counted as 0."""
# -- end of the sweep's comparisons --

Viewport = tuple[int, int]

_VIEWPORT = re.compile(r"(\d{2,5})x(\d{2,5})")


def parse_viewport(text: str) -> Viewport:
    """`--tcab-viewport` as `WIDTHxHEIGHT` logical pixels (argparse `type`)."""
    match = _VIEWPORT.fullmatch(text.strip().lower())
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1280x720")
    return int(match[1]), int(match[2])


def parse_ratio(text: str) -> float:
    """`--tcab-max-diff` as a share of differing pixels between 0 and 1 (argparse `type`)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a ratio between 0 and 1, e.g. 0.05")
    return value


def parse_report_form(text: str) -> str:
    """`--tcab-report` as one of `REPORT_FORMS` (argparse `type`, so the ini twin is checked too)."""
    return _one_of(text, REPORT_FORMS)


TRACING_OPTION = "--tcab-tracing"
TRACING_MODES = ("off", "on", "retain-on-failure")


def parse_tracing(text: str) -> str:
    """`--tcab-tracing` as one of TRACING_MODES (argparse `type`, so the ini twin is checked too)."""
    return _one_of(text, TRACING_MODES)


def _one_of(text: str, choices: tuple[str, ...]) -> str:
    value = text.strip().lower()
    if value not in choices:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(choices)}")
    return value


def parse_group(text: str) -> tuple[str, str]:
    """`HARNESS/MODEL` (split at the first `/`: a model name may hold more), `-` for a part run.toml
    does not give: the (harness, model) group `--tcab-baseline` names."""
    harness, slash, model = text.strip().partition("/")
    if not slash or not harness or not model:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not HARNESS/MODEL (a run.toml's harness and model, e.g. planner/atlas-2026-10; "
            "- for a part it does not give)")
    return ("" if harness == "-" else harness), ("" if model == "-" else model)


def parse_width(text: str) -> float:
    """A half-width above 0 (`--tcab-target-width`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a half-width, e.g. 0.05)") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a half-width must be a number above 0, e.g. 0.05")
    return value


def parse_catastrophic(text: str) -> str:
    """`--tcab-catastrophic` as one of CATASTROPHIC_RULES (argparse `type`, so the ini twin is checked too)."""
    return _one_of(text, CATASTROPHIC_RULES)


def parse_media_mode(text: str) -> str:
    """`--tcab-media` as one of `MEDIA_MODES` (argparse `type`, so the ini twin is checked too)."""
    return _one_of(text, MEDIA_MODES)


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(|k|m|g|ki|mi|gi)b?", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "ki": 2**10, "mi": 2**20, "gi": 2**30}


def parse_size(text: str) -> int:
    """A memory size in bytes from `4GiB`, `512MiB`, `2G` or a plain number of bytes (argparse `type`)."""
    match = _SIZE.fullmatch(text.strip())
    value = int(float(match[1]) * _SIZE_UNITS[match[2].lower()]) if match else 0
    if value < 2**20:
        raise argparse.ArgumentTypeError(f"{text!r} is not a memory size of at least 1MiB, e.g. 4GiB or 512MiB")
    return value


def whole_number(counted: str, minimum: int, example: int) -> Callable[[str], int]:
    """An argparse `type`: a whole number of `counted` of at least `minimum`, else a message with `example`."""

    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < minimum:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {counted} ({minimum} or more), "
                                             f"e.g. {example}")
        return int(text)

    return parse


parse_shards = whole_number("shards", 1, 4)
parse_retries = whole_number("retries", 0, 1)
parse_gradings = whole_number("gradings", 1, 3)
parse_concurrency = whole_number("runs", 1, 2)
parse_file_count = whole_number("files", 1, 5000)


BUILD_PROCESSES_OPTION = "--tcab-build-processes"
MIN_BUILD_PROCESSES = 8
"""Below this no step starts: bwrap's init, the shell and the command it runs are processes too."""
parse_processes = whole_number("processes", MIN_BUILD_PROCESSES, 512)


def parse_shard(text: str) -> tuple[int, int]:
    """`--tcab-shard` as (I, N): `I/N` with 0 <= I < N, or `auto/N` with I from the first of
    `SHARD_INDEX_VARIABLES` the environment sets (argparse `type`)."""
    import os

    index, _, count = text.strip().partition("/")
    if not count.strip().isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not I/N or auto/N (N shards, 1 or more), e.g. 0/4")
    if index.strip() == "auto":
        named = next(((name, os.environ[name]) for name in SHARD_INDEX_VARIABLES if os.environ.get(name, "").strip()),
                     None)
        if named is None:
            raise argparse.ArgumentTypeError(f"{text!r}: none of {', '.join(SHARD_INDEX_VARIABLES)} is set, so "
                                             "there is no shard index to take; give I/N")
        where, index = f" ({named[0]}={named[1]!r})", named[1]
    else:
        where = ""
    if not index.strip().isdigit() or not 0 <= int(index) < int(count):
        raise argparse.ArgumentTypeError(f"{text!r}{where}: the shard index must be a whole number from 0 to "
                                         f"{int(count) - 1}")
    return int(index), int(count)


def parse_milliseconds(text: str) -> float:
    """`--tcab-slowmo` as a non-negative number of milliseconds (argparse `type`)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of milliseconds, e.g. 250")
    return value


def add_options(parser: pytest.Parser) -> None:
    """Every `--tcab-*` option, in one group, each with its ini twin."""
    group = _TwinnedGroup(parser, parser.getgroup("tcab", "Test Cabinet suites"))
    group.addoption(SUITE_OPTION, metavar="SUITE",
                    help="collect the Test Cabinet suite rooted at SUITE (alone, when no paths are given)")
    group.addoption("--tcab-experimental", action="store_true",
                    help="collect experimental cases too (as TCAB_BACKEND_ALLOW_EXPERIMENTAL=1 does)")
    group.addoption(RUN_OPTION, metavar="DIR", action="append",
                    help="grade the produced implementation in DIR (its .tcab/run.toml names the case); repeat it, "
                         "or let DIR be a folder of runs, to grade many runs of any cases in one session (the runs "
                         "of one adversarial case play its tournament); run folders may also be given as paths")
    group.addoption("--tcab-case", metavar="SLUG[@VERSION][#VARIANT][:ENGINE]",
                    help="the case a run was produced for; overrides DIR/.tcab/run.toml")
    group.addoption("--tcab-reference", action="store_true",
                    help="validate every variant's reference_implementation as a run")
    group.addoption(SEED_OPTION, metavar="SLUG[@VERSION][#VARIANT][:ENGINE]",
                    help="write what a run of the case receives into --tcab-out=DIR (an empty folder)")
    group.addoption("--tcab-out", metavar="DIR",
                    help="where results.json, report.html and media go (default .tcab/results)")
    group.addoption(REPORT_OPTION, type=parse_report_form, default="linked",
                    metavar="linked|self-contained",
                    help="report.html links its media beside it (default: linked, the smaller page) or embeds "
                         "them (self-contained: one file to move anywhere)")
    group.addoption(MEDIA_OPTION, type=parse_media_mode, default="all",
                    metavar="all|failed|none",
                    help="which verdicts keep their stills, clips and record passes: all (default), failed "
                         "(a quick ranking: the passed ones skip them), none; verdicts are decided alike in every mode")
    group.addoption(COMPARE_OPTION, metavar="PATH",
                    help="say what changed since an earlier sweep (its --tcab-out folder or sweep.json): runs "
                         "newly failing or passing, scores up or down, runs added or gone; changes no outcome")
    # -- the sweep's comparisons (issue 34) --
    group.addoption(BASELINE_OPTION, type=parse_group, metavar="HARNESS/MODEL",
                    help="in a sweep, compare each (harness, model) group with this one, case by case (default: "
                         "every pair); - for a part run.toml does not give")
    group.addoption(TARGET_WIDTH_OPTION, type=parse_width, default=0.05, metavar="WIDTH",
                    help="the half-width of a difference's 95%% interval the sweep counts the runs needed for "
                         "(default 0.05 of a score; for fuel and duration a share of the smaller median)")
    group.addoption(CATASTROPHIC_OPTION, type=parse_catastrophic, default="apart",
                    metavar="apart|zero",
                    help="a run whose build failed, page never loaded or module never instantiated: kept out of "
                         "the sweep's scores as a catastrophic rate of its own (apart, default) or counted as 0 (zero)")
    # -- end of the sweep's comparisons --
    group.addoption(RESUME_OPTION, metavar="PATH",
                    help="grade again only the runs an earlier sweep (its --tcab-out folder) did not grade, and "
                         "write one sweep of both")
    group.addoption(BUILD_MEMORY_OPTION, type=parse_size, default=4 * 2**30,
                    metavar="SIZE",
                    help="memory cap of each build and toolchain step, e.g. 4GiB (default), 512MiB: of its whole "
                         "process tree where the host gives a cgroup, else of each process (RLIMIT_DATA); "
                         "a step past it fails its run")
    group.addoption(BUILD_DISK_OPTION, type=parse_size, default=4 * 2**30, metavar="SIZE",
                    help="disk cap of a run's build folder (its tree, home, node_modules and what its steps write), "
                         "e.g. 4GiB (default): a step that fills it fails its run, and it is removed with the run")
    group.addoption(BUILD_PROCESSES_OPTION, type=parse_processes, default=512,
                    metavar="N",
                    help="process cap of each build and toolchain step, threads included (default 512): of its whole "
                         "process tree where the host gives a pids cgroup, else of its sandbox's user namespace "
                         "(RLIMIT_NPROC); a step that reaches it fails its run")
    group.addoption(PAGE_MEMORY_OPTION, type=parse_size, default=2**30, metavar="SIZE",
                    help="JavaScript heap cap of the pages of a build (default 1GiB); a page past it crashes, "
                         "which fails its items")
    group.addoption("--tcab-build-timeout", type=float, default=600.0,
                    metavar="SECONDS", help="timeout of each build step (default 600)")
    group.addoption(NO_SANDBOX_OPTION, action="store_true",
                    help="run install, build and toolchain steps without the bubblewrap sandbox "
                         "(the graded code then runs with your rights; every output says so)")
    group.addoption(BUILD_NETWORK_OPTION, choices=NETWORK_POLICIES, default="install",
                    help="which sandboxed steps reach the network: none, install (default: install steps "
                         "only), all")
    group.addoption("--tcab-strict", action="store_true",
                    help="fail instead of skipping: missing proofs, verdicts left for the reviewer, no browser")
    group.addoption(WASM_TIMEOUT_OPTION, type=float, default=60.0, metavar="SECONDS",
                    help="wall-clock bound of each performance case, beside its fuel budget (default 60)")
    group.addoption(WASM_CACHE_OPTION, default=".tcab/wasm-cache", metavar="DIR",
                    help="where compiled wasm modules are kept between sessions (default .tcab/wasm-cache)")
    group.addoption("--tcab-chromium", metavar="PATH",
                    help="the Chromium to drive builds with (else TCAB_CHROMIUM, Playwright's, /usr/bin/chromium)")
    group.addoption(VIEWPORT_OPTION, type=parse_viewport,
                    metavar="WxH", help="viewport of checks and their baselines, in logical pixels (default 1280x720)")
    group.addoption(MAX_DIFF_OPTION, type=parse_ratio, default=None, metavar="RATIO",
                    help="fail a check whose share of differing pixels is above RATIO (0 to 1; default: record only)")
    group.addoption(DRIVER_TIMEOUT_OPTION, type=float, default=60.0, metavar="SECONDS",
                    help="fail a validation driver still running after SECONDS (default 60)")
    group.addoption(MATRIX_OPTION, action="store_true",
                    help="print the JSON of a GitHub Actions strategy.matrix (one entry per case version and "
                         "variant or engine, with the pytest arguments that run it; in run mode one entry per run, "
                         "or per shard of runs with --tcab-shards; appended to $GITHUB_OUTPUT when set) and exit "
                         "without running tests, like --collect-only")
    group.addoption(SHARDS_OPTION, type=parse_shards, metavar="N",
                    help="with --tcab-matrix in run mode: N entries, the runs dealt between them (default: one "
                         "entry per run)")
    group.addoption(SHARD_OPTION, type=parse_shard, metavar="I/N|auto/N",
                    help="grade only shard I (0 to N-1) of the runs, chosen by a hash of each run's name (adding "
                         "runs moves none of the others) or by --tcab-shard-plan; auto/N takes I from JOB_COMPLETION_INDEX, "
                         "SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX; join the shards with --tcab-merge")
    group.addoption(SHARD_PLAN_OPTION, metavar="PATH",
                    help="with --tcab-shard or --tcab-matrix --tcab-shards: deal the runs by their durations in an "
                         "earlier sweep PATH (its --tcab-out folder or sweep.json), longest first onto the lightest "
                         "shard, instead of by hash; a run PATH lacks weighs its case's median there")
    group.addoption(ALLOW_PARTIAL_OPTION, action="store_true",
                    help="with --tcab-merge: merge the shards given though some of the count are missing; the "
                         "merged sweep says which (without it, a missing shard fails the merge)")
    group.addoption(MERGE_OPTION, metavar="DIR", action="append",
                    help="merge the results.json (and sweep.json) of each shard DIR (repeat the option) into one "
                         "results.json and report.html (and one sweep) in --tcab-out; runs no tests")
    # -- retries and regrading (run/attempts.py) --
    group.addoption(RETRIES_OPTION, type=parse_retries, default=0, metavar="N",
                    help="grade an item that was not graded (the grader broke: no browser, no Node, the machine's "
                         "disk full) again in the same session, at most N times (default 0); a graded failure is a "
                         "result and never retried; every attempt is kept in results.json and JUnit")
    group.addoption(REGRADE_OPTION, type=parse_gradings, default=1, metavar="K",
                    help="grade each run K times in one session (built once; its browser, judge and wasm items run "
                         "K times on fresh pages and instances): a verdict whose outcome differs between gradings "
                         "is unstable, a failure of the grader that earns nothing until a reviewer overrides it (default 1)")
    # -- end of retries and regrading --
    group.addoption(TRACING_OPTION, type=parse_tracing, metavar="off|on|retain-on-failure",
                    help="write a Playwright trace.zip per browser item into its output folder: off (default, or "
                         "pytest-playwright's --tracing), on, retain-on-failure")
    group.addoption("--tcab-headed", action="store_true",
                    help="run Chromium headed, on the display (also pytest-playwright's --headed)")
    group.addoption("--tcab-slowmo", type=parse_milliseconds, metavar="MS",
                    help="slow every Playwright operation of browser items down by MS milliseconds "
                         "(default 0, or pytest-playwright's --slowmo)")
    group.addoption(SCHEMAS_OPTION, action="store_true",
                    help="write a JSON Schema for every TOML file kind into SUITE/.tcab-schemas/ and a .taplo.toml "
                         "mapping the suite's layouts to them (editors then flag a mistake as it is typed), and "
                         "exit without running tests")
    group.addoption(CAPTURE_BASELINES_OPTION, action="store_true",
                    help="drive every validation script against its variant's reference implementation and "
                         "write validation-baseline/<variant>/ into the version folder")
    # builds shared by digest (issue 36)
    group.addoption(SHARE_BUILDS_OPTION, action="store_true",
                    help="build once the runs of a session whose build reads byte-identical files with the same "
                         "commands and caps: each is still served and graded as its own, and says whose build it used")

    # -- reviews (pytest_tcab/review/) --
    group.addoption("--tcab-reviews", metavar="DIR",
                    help="where reviews are kept: DIR/<run name>/<reviewer>.md, a history beside each (default "
                         ".tcab/reviews under the rootdir); never inside a produced run folder")
    group.addoption("--tcab-reviewer", metavar="NAME",
                    help="who is reviewing: names the file <NAME>.md (default: git's user.name, else the login name)")
    group.addoption("--tcab-require-review", action="store_true",
                    help="fail a run that has no complete, current review (the publication gate; --tcab-strict "
                         "implies it): a `review` item per run says what is missing")

    _add_review_page_options(group)
    _add_concurrency_options(group)


def _add_concurrency_options(group: _TwinnedGroup) -> None:
    """Runs built ahead of their turn (`run.across`)."""
    group.addoption(CONCURRENCY_OPTION, type=parse_concurrency, metavar="N",
                    help="in a sweep, begin the next runs' builds while a run's browser and judge items run, up "
                         "to N runs building or grading at once (default: the cores, no more than the memory "
                         "holds at --tcab-build-memory each; 1: one run at a time). Off under xdist. No outcome, "
                         "order or report changes")


def _add_review_page_options(group: _TwinnedGroup) -> None:
    """The review page's options: each run's served site kept for it, and the page itself."""
    group.addoption("--tcab-site-size", type=parse_size, default=256 * 2**20, metavar="SIZE",
                    help="the most a run's served site may hold to be kept in its results for the review page, "
                         "e.g. 256MiB (default); a bigger site is not kept, and the run says so")
    group.addoption("--tcab-site-files", type=parse_file_count, default=5000, metavar="N",
                    help="the most files a run's served site may hold to be kept in its results (default 5000)")
    group.addoption(REVIEW_OPTION, metavar="RESULTS",
                    help="serve the review page on 127.0.0.1 for the runs in RESULTS (a run's or a sweep's "
                         "--tcab-out folder) until interrupted: play each build, decide what its validators left, "
                         "override them with a note, rate its domains; saves go to --tcab-reviews")


@dataclass(frozen=True)
class Twin:
    """An option as its ini twin needs it: the flag, the dest (= the ini key) and how to read a value."""

    flag: str
    dest: str
    default: Any
    kind: Literal["bool", "linelist", "string"]
    """A switch, a repeatable option, or one value."""
    parse: Callable[[str], Any] | None
    is_path: bool


twins: dict[str, Twin] = {}
"""Every option, by dest, as `add_options` registered it."""
_PATH_METAVARS = frozenset({"SUITE", "DIR", "PATH"})
_from_ini_key = pytest.StashKey[frozenset[str]]()


class _TwinnedGroup:
    """Adds each option to pytest's group with argparse's default None (so a value the command
    line left unset can be told from one it gave) and its ini twin beside it."""

    def __init__(self, parser: pytest.Parser, group: Any) -> None:
        self._parser = parser
        self._group = group

    def addoption(self, flag: str, *, default: Any = None, **attrs: Any) -> None:
        dest = flag.removeprefix("--").replace("-", "_")  # `--tcab-x-y` is read as `tcab_x_y`, its ini key too
        action = attrs.get("action")
        kind: Literal["bool", "linelist", "string"] = (
            "bool" if action == "store_true" else "linelist" if action == "append" else "string")
        default = False if kind == "bool" and default is None else default
        twin = Twin(flag, dest, default, kind, attrs.get("type"), attrs.get("metavar") in _PATH_METAVARS)
        twins[dest] = twin
        self._group.addoption(flag, dest=dest, default=None, **attrs)
        shown = "" if default in (None, False) else f" (default {default})"
        self._parser.addini(dest, f"default for {flag}{shown}{' (one per line)' if kind == 'linelist' else ''}",
                            type=kind)


def apply_ini(config: pytest.Config) -> None:
    """Fill every option the command line left unset from its ini key, else its default."""
    from_ini = set()
    for twin in twins.values():
        if getattr(config.option, twin.dest, None) is not None:
            continue
        value = _ini_value(config, twin)
        if value is None:
            value = twin.default
        else:
            from_ini.add(twin.dest)
        setattr(config.option, twin.dest, value)
    config.stash[_from_ini_key] = frozenset(from_ini)


def from_ini(config: pytest.Config, dest: str) -> bool:
    """Whether option `dest` took its value from the ini file (not the command line or a default)."""
    return dest in config.stash.get(_from_ini_key, frozenset())


def _ini_value(config: pytest.Config, twin: Twin) -> Any:
    raw = config.getini(twin.dest)
    if raw in ("", None, [], False):
        return None
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, list):
        return [_parse_ini(config, twin, str(value)) for value in raw]
    return _parse_ini(config, twin, str(raw))


def _parse_ini(config: pytest.Config, twin: Twin, text: str) -> Any:
    text = text.strip()
    if twin.is_path:
        base = config.inipath.parent if config.inipath else config.rootpath
        text = str(base / text)
    if twin.parse is None:
        return text
    try:
        return twin.parse(text)
    except (ValueError, argparse.ArgumentTypeError) as exc:
        raise pytest.UsageError(f"ini option {twin.dest} = {text!r}: {exc}") from None
