"""`--tcab-run` end to end: builds that fail or hang, proofs, run resolution, results.json."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

# pytester's in-process runs drop the modules first imported inside them, and Playwright (its
# wrappers map classes by identity) cannot be imported afresh: loading it here keeps it.
import playwright.sync_api  # noqa: F401
import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

GAMES = Path(__file__).resolve().parent.parent / "run" / "browser" / "games"
MANIFEST = Path("suite/test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml")
BUILD = 'build = "mkdir -p dist && cp index.html dist/"'

needs_browser = pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """The fixture suite and the good game, copied where the test may change them."""
    shutil.copytree(GAMES / "suite", pytester.path / "suite")
    shutil.copytree(GAMES / "good", pytester.path / "good")
    return pytester.path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=good", "--tcab-out=out", *args
    )


def lines(*patterns: str) -> list[str]:
    """fnmatch patterns where `[` is literal (node ids are full of them); `*` stays a wildcard."""
    return [pattern.replace("[", "[[]") for pattern in patterns]


@pytest.mark.browser
@needs_browser
def test_a_failing_build_fails_every_item_that_needs_it(
    pytester: pytest.Pytester, project: Path
) -> None:
    edit(project / MANIFEST, BUILD, 'build = "echo compiling; echo error: it broke >&2; exit 3"')
    result = run(pytester)
    # The proof is about the produced tree, not the build: it is judged all the same.
    result.assert_outcomes(failed=3, skipped=1)
    result.stdout.fnmatch_lines(
        lines(
            "*_ tcab: build _*",
            "build failed: `echo compiling; echo error: it broke >&2; exit 3` exited 3",
            "compiling",
            "error: it broke",
            "*_ tcab: check[title] _*",
            "not run: build failed (build failed: `echo compiling; echo error: it broke >&2;"
            " exit 3` exited 3)",
            "*_ tcab: check[play] _*",
            "not run: build failed (build failed: *exited 3)",
        )
    )
    assert "Traceback" not in result.stdout.str()
    data = json.loads((project / "out/results.json").read_text(encoding="utf-8"))
    (only,) = data["runs"]
    assert {key: only[key] for key in ("run", "case", "version", "variant", "engine")} == {
        "run": "good",
        "case": "demo",
        "version": "v1.0.0",
        "variant": "base",
        "engine": "none",
    }
    assert only["counts"] == {"failed": 3, "skipped": 1}
    items = {item["nodeid"]: item for item in only["items"]}
    build = items["good/.tcab/run.toml::build"]
    assert build["outcome"] == "failed"
    assert [(s["command"], s["returncode"], s["output"]) for s in build["steps"]] == [
        ("true", 0, ""),
        ("echo compiling; echo error: it broke >&2; exit 3", 3, "compiling\nerror: it broke"),
    ]
    assert items["good/.tcab/run.toml::check[play]"]["message"].startswith("not run: build failed")
    assert items["good/.tcab/run.toml::proof[shot]"] | {"duration_s": 0} == {
        "nodeid": "good/.tcab/run.toml::proof[shot]",
        "kind": "proof",
        "id": "shot",
        "outcome": "skipped",
        "duration_s": 0,
        "message": "proof 'shot' missing: the build wrote no proof/shot.png",
        "present": False,
        "dest": "proof/shot.png",
        "media_kind": "image",
    }
    # The run variant's effective domains, each with its items' automated outcomes; the ratings
    # are the reviewer's, on the scale the spec rates with.
    assert only["domains"] == {
        "scale": ["flawless", "great", "passable", "scuffed", "broken"],
        "overall": None,
        "overall_rule": "the worst rating across the effective domain set",
        "rated_by": "reviewer",
        "set": [{"id": "play", "name": "Play", "description": "Playing it.", "common": True, "rating": None,
                 "items": [{"id": "moves", "title": "Moves", "outcomes": {"moves": "pending"}}]}],
    }
    report = (project / "out/report.html").read_text(encoding="utf-8")
    assert "<summary>build log (2 steps)</summary>" in report
    assert "rated by the reviewer on flawless &gt; great &gt; passable &gt; scuffed &gt; broken" in report


def test_a_hanging_build_is_killed_in_time(pytester: pytest.Pytester, project: Path) -> None:
    # A build that forks a grandchild and waits: the whole process group must go at the timeout.
    nap = random.randint(70_000, 79_999)  # a sleep length no other process on the host is using
    edit(project / MANIFEST, BUILD, f'build = "sleep {nap} & sleep {nap}"')
    started = time.monotonic()
    result = run(pytester, "--tcab-build-timeout=1", "-k", "build")
    elapsed = time.monotonic() - started
    result.assert_outcomes(failed=1, deselected=3)
    result.stdout.fnmatch_lines(
        [f"build timed out after 1 s: `sleep {nap} & sleep {nap}` (process group killed)"]
    )
    assert elapsed < 10, f"the run took {elapsed:.1f} s with a 1 s build timeout"
    assert not _running(f"sleep {nap}")


def _running(command: str) -> list[int]:
    """Pids whose command line is `command`, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:  # it ended while we looked
                continue
            if cmdline.replace(b"\0", b" ").strip() == command.encode():
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_a_missing_proof_is_skipped_and_strict_fails_it(
    pytester: pytest.Pytester, project: Path, strict: bool
) -> None:
    result = run(pytester, "-k", "proof", "-rs", *(["--tcab-strict"] if strict else []))
    if strict:
        result.assert_outcomes(failed=1, deselected=4)  # and the run's review gate, which strict adds
        result.stdout.fnmatch_lines(
            ["proof 'shot' missing: the build wrote no proof/shot.png (--tcab-strict)"]
        )
    else:
        result.assert_outcomes(skipped=1, deselected=3)
        result.stdout.fnmatch_lines(
            lines("SKIPPED [1] *: proof 'shot' missing: the build wrote no proof/shot.png")
        )


def test_a_written_proof_is_copied_to_the_output(pytester: pytest.Pytester, project: Path) -> None:
    (project / "good/proof").mkdir()
    (project / "good/proof/shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    result = run(pytester, "-k", "proof")
    result.assert_outcomes(passed=1, deselected=3)
    assert (project / "out/good/proofs/proof/shot.png").read_bytes() == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("run_toml", "option", "message"),
    [
        ('case = "nope"\n', None, "no case with slug 'nope' in */suite; known slugs: demo"),
        (
            'case = "demo"\nversion = "v9.9.9"\n',
            None,
            "case 'demo' has no version 'v9.9.9'; known versions: v1.0.0",
        ),
        (
            'case = "demo"\nvariant = "frenzy"\n',
            None,
            "case 'demo' v1.0.0 has no variant 'frenzy'; known variants: base",
        ),
        (
            'case = "demo"\n',
            "--tcab-case=demo#frenzy",
            "case 'demo' v1.0.0 has no variant 'frenzy'; known variants: base",
        ),
        (
            'case = "demo"\n',
            "--tcab-case=demo@v0.1.0",
            "case 'demo' has no version 'v0.1.0'; known versions: v1.0.0",
        ),
        (
            None,
            None,
            ("*/good/.tcab/run.toml does not exist, so the run names no case; write one"
            ' (case = "<slug>") or pass --tcab-case=SLUG[@VERSION][#VARIANT][:ENGINE]'),
        ),
    ],
    ids=["case", "version", "variant", "option-variant", "option-version", "no-run-toml"],
)
def test_a_run_naming_what_the_suite_lacks_is_a_collection_error(
    pytester: pytest.Pytester, project: Path, run_toml: str | None, option: str | None, message: str
) -> None:
    if run_toml is None:
        (project / "good/.tcab/run.toml").unlink()
    else:
        (project / "good/.tcab/run.toml").write_text(run_toml, encoding="utf-8")
    result = run(pytester, *([option] if option else []))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(lines("*_ ERROR collecting good _*", message))
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "--tcab-viewport=1280",
            "*argument --tcab-viewport: '1280' is not WIDTHxHEIGHT, e.g. 1280x720",
        ),
        (
            "--tcab-max-diff=5%",
            "*argument --tcab-max-diff: '5%' is not a ratio between 0 and 1, e.g. 0.05",
        ),
        (
            "--tcab-max-diff=1.5",
            "*argument --tcab-max-diff: '1.5' is not a ratio between 0 and 1, e.g. 0.05",
        ),
    ],
)
def test_check_options_reject_malformed_values(
    pytester: pytest.Pytester, project: Path, option: str, message: str
) -> None:
    result = run(pytester, option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
