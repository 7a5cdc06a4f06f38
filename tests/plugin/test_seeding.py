"""`--tcab-seed=SPEC --tcab-out=DIR`: exactly what a run receives, and never anything reporter-side."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from definition_suite import GAME
from definition_suite import VERSION
from definition_suite import write_definition_suite
from rules import Edit

from pytest_tcab.run.browser import discovery as browser
from pytest_tcab.run.browser.discovery import find_chromium

DEFINITIONS = Path("example-suite/versions/v1.0.0")
CAROM = Path("example-suite/test-cases/end-to-end/medium/carom/v2.0.0")

END_TO_END_SIMPLE_2D = [
    ".gitignore",
    ".tcab/engines/simple-2d/README.md",
    ".tcab/prompt.md",
    "assets/ball/ball.png",
    "assets/paddle-sheet/paddle-sheet.png",
    "build.mjs",
    "index.html",
    "package.json",
    "specs/art/sprites.md",
    "specs/ball-physics.md",
    "specs/ui/hud.md",
    "src/main.ts",
    "tsconfig.json",
]
"""The golden listing of `end-to-end:simple-2d`: workspace, specs, assets, engine docs, prompt."""

PONG_FRENZY = [
    ".tcab/prompt.md",
    "README.md",
    "build.mjs",
    "package-lock.json",
    "package.json",
    "reference/gameplay.png",
    "reference/title.png",
    "specs/mode.md",
    "specs/modes/frenzy.md",
    "specs/overview.md",
]
"""The golden listing of Carom v2.0.0's frenzy variant (slug `pong`), mockups rendered."""

REPORTER_SIDE = [
    "test-cases/**/test-case.toml", "test-cases/**/variants/*.toml", "test-cases/**/errata.toml",
    "test-cases/**/changelog.md", "test-cases/**/description.md", "test-cases/**/validation/**/*.mjs",
    "test-cases/**/reference-impl/**/*", "test-cases/**/validation-baseline/**/*", "test-cases/**/reference/*.html",
    "test-cases/performance/**/cases/*", "test-cases/performance/**/smoke/*", "test-cases/performance/**/tools/*",
    "versions/*/version.toml", "versions/*/changelog.md", "versions/*/description.md", "versions/*/test-cases/*.toml",
    "versions/*/specifications/**/specification.toml", "versions/*/assets/*/asset.toml", "versions/*/validators/**/*",
    "versions/*/perf/cases/*", "versions/*/perf/smoke/*", "versions/*/duel/replay.html",
    "versions/*/duel/referee.py", "versions/*/duel/house/*",
]
"""What stays with the reporter: review items, validation scripts, baselines, reference
implementations, descriptions, changelogs, errata, performance cases, requirement validators."""

EVERY_TARGET = ["pong@v1.0.0#base", "pong#base", "pong#frenzy", "sparks", "bounce", "end-to-end", "end-to-end:simple-2d",
                "full-stack:none", "full-stack:simple-2d", "paddle-sheet", "ship", "lamp", "spark-burst", "theme", "hit",
                "duel", "bounce-perf"]


def _seed(pytester: pytest.Pytester, target: str, out: str = "out", *args: str) -> pytest.RunResult:
    return pytester.runpytest("--tcab-suite=example-suite", f"--tcab-seed={target}", f"--tcab-out={out}",
                              "-p", "no:cacheprovider", "-rs", *args)


def _listing(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host without Chromium, for the in-process runs of pytester."""
    monkeypatch.setattr(browser, "find_chromium", lambda explicit: None)


def test_definition_seeds_the_golden_tree(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = _seed(pytester, "end-to-end:simple-2d", "out", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"{DEFINITIONS}/test-cases/end-to-end.toml::seed[[]simple-2d[]] PASSED*",
                                 f"seeded 13 files into {pytester.path / 'out'}; the prompt is *out/.tcab/prompt.md"])
    assert _listing(pytester.path / "out") == END_TO_END_SIMPLE_2D
    spec = (pytester.path / "out/specs/ui/hud.md").read_text()
    assert spec == ("# Heads-up display\n\nBoth scores are shown at the top of the screen, the left player's on the "
                    "left.\n\n## Requirements\n\n- **scores-visible** (functional): Both scores MUST stay visible at "
                    "the top of the screen throughout play.\n")


def test_hidden_entries_stay_behind_except_gitignore_and_cargo(pytester: pytest.Pytester, example_suite: Path) -> None:
    assert (pytester.path / DEFINITIONS / "workspaces/none/.editorconfig").is_file()
    _seed(pytester, "end-to-end", "none").assert_outcomes(passed=1)
    assert _listing(pytester.path / "none") == [p for p in END_TO_END_SIMPLE_2D if "engines" not in p]
    _seed(pytester, "duel", "duel").assert_outcomes(passed=1)
    assert _listing(pytester.path / "duel") == [".cargo/config.toml", ".gitignore", ".tcab/prompt.md", "Cargo.lock",
                                                "Cargo.toml", "duel/schemas/action.json", "duel/schemas/world.json",
                                                "specs/duel.md", "src/lib.rs"]


@pytest.mark.skipif(find_chromium(None) is None, reason="rendering references needs a Chromium")
def test_catalog_variant_seeds_the_golden_tree_with_rendered_references(
    pytester: pytest.Pytester, example_suite: Path
) -> None:
    _seed(pytester, "pong#frenzy").assert_outcomes(passed=1)
    out = pytester.path / "out"
    assert _listing(out) == PONG_FRENZY
    assert (out / "reference/title.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "Every paddle hit MUST multiply" in (out / "specs/mode.md").read_text()


def test_without_a_browser_the_rest_is_seeded_and_the_item_says_so(
    pytester: pytest.Pytester, example_suite: Path, no_browser: None
) -> None:
    result = _seed(pytester, "pong#frenzy")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines([("SKIPPED *seeded 8 files into *out, but not the rendered references "
                                 "reference/gameplay.png, reference/title.png: no Chromium found*")])
    assert _listing(pytester.path / "out") == [p for p in PONG_FRENZY if not p.startswith("reference/")]
    strict = _seed(pytester, "pong#frenzy", "strict", "--tcab-strict")
    strict.assert_outcomes(failed=1)
    strict.stdout.fnmatch_lines(["*not the rendered references*(--tcab-strict)"])


@pytest.mark.parametrize("target", EVERY_TARGET)
def test_nothing_reporter_side_is_ever_seeded(
    pytester: pytest.Pytester, example_suite: Path, no_browser: None, target: str
) -> None:
    result = _seed(pytester, target)
    assert result.ret == pytest.ExitCode.OK or result.parseoutcomes().get("skipped") == 1, result.stdout.str()
    out = pytester.path / "out"
    seeded = {path.relative_to(out).as_posix(): _digest(path) for path in out.rglob("*") if path.is_file()}
    assert ".tcab/prompt.md" in seeded
    reporter = {path for pattern in REPORTER_SIDE for path in example_suite.glob(pattern) if path.is_file()}
    assert len(reporter) > 40
    # Bytes that also live in seedable material (a lockfile shared by a workspace and a reference
    # implementation) prove nothing; every other reporter-side file must be absent by name and by bytes.
    shared = {_digest(path) for path in example_suite.rglob("*") if path.is_file() and path not in reporter}
    for path in reporter:
        assert _in_version(path) not in seeded, f"{path} was seeded"
        digest = _digest(path)
        assert digest in shared or digest not in seeded.values(), f"{path} was seeded under another name"


def _in_version(path: Path) -> str:
    """`path` relative to its version folder (`v1.0.0/`), where seeding would have put it verbatim."""
    version = next(parent for parent in path.parents if re.fullmatch(r"v\d+\.\d+\.\d+", parent.name))
    return path.relative_to(version).as_posix()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_seeding_is_byte_identical_across_runs(pytester: pytest.Pytester, example_suite: Path) -> None:
    for out in ("first", "second"):
        _seed(pytester, "end-to-end:simple-2d", out).assert_outcomes(passed=1)
    first, second = pytester.path / "first", pytester.path / "second"
    assert _listing(first) == _listing(second)
    for name in _listing(first):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_destinations_that_collide_are_a_resolution_problem(pytester: pytest.Pytester, example_suite: Path) -> None:
    Edit(CAROM / "workspaces/base/specs/overview.md", None, "stale\n").apply(pytester.path)
    result = pytester.runpytest("--tcab-suite=example-suite", "-p", "no:cacheprovider", "-k", "carom and v2.0.0 and seed")
    result.assert_outcomes(failed=2, deselected=result.parseoutcomes()["deselected"])
    assert (f"{CAROM}/test-case.toml:28: `spec[0].source`: seeds 'specs/overview.md', which collides with what "
            "`workspace` (test-case.toml:12) seeds") in result.stdout.lines
    failed = _seed(pytester, "pong#base")
    failed.assert_outcomes(failed=1)
    assert not (pytester.path / "out").exists()


def test_a_template_error_seeds_nothing(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    Edit(VERSION / "prompts/p.hbs", "Done.", "{{engine.slgu}}").apply(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "--tcab-seed=game", "--tcab-out=out", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    assert f"{VERSION}/prompts/p.hbs:5: unknown variable 'engine.slgu' (resolved up to 'engine'; available: docs, " \
        "name, slug)" in result.stdout.lines
    assert not (pytester.path / "out").exists()


def test_a_symlink_out_of_the_workspace_is_refused(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    (pytester.path / VERSION / "workspaces/none/secret").symlink_to(pytester.path / "tcab.toml")
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "-k", "game and seed")
    result.assert_outcomes(passed=1, failed=1, deselected=20)
    assert f"{GAME}:9: `workspaces.none`: 'secret' in workspaces/none/ is a symlink that leads outside it" \
        in result.stdout.lines


def test_out_must_be_empty(pytester: pytest.Pytester, example_suite: Path) -> None:
    Edit(Path("out/keep.txt"), None, "mine\n").apply(pytester.path)
    result = _seed(pytester, "hit")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*out is not an empty folder; seed into a new or empty one"])
    assert _listing(pytester.path / "out") == ["keep.txt"]


@pytest.mark.parametrize(("target", "message"), [
    ("nope", "*--tcab-seed=nope: no case with slug 'nope' in *; known slugs: bounce, bounce-perf, duel, end-to-end,*"),
    ("end-to-end:unreal", "*definition 'end-to-end' does not declare engine 'unreal'; its engines: none, simple-2d*"),
    ("end-to-end@v9.0.0", "*definition 'end-to-end' has no version 'v9.0.0'; known versions: v1.0.0*"),
    ("pong#turbo", "*case 'pong' v2.0.0 has no variant 'turbo'; known variants: base, frenzy*"),
    ("pong:simple-2d", "*case 'pong' is a catalog case, which selects no engine (got 'simple-2d')*"),
    ("hit#loud", "*definition 'hit' has no variants (got #loud)*"),
])
def test_what_cannot_be_found_is_a_usage_error(pytester: pytest.Pytester, example_suite: Path, target: str,
                                               message: str) -> None:
    result = _seed(pytester, target)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_seeding_needs_an_out_folder(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = pytester.runpytest("--tcab-suite=example-suite", "--tcab-seed=hit", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tcab-seed needs --tcab-out=DIR: the empty folder to seed into*"])


def test_experimental_cases_need_the_opt_in(pytester: pytest.Pytester, example_suite: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TCAB_BACKEND_ALLOW_EXPERIMENTAL", raising=False)
    Edit(DEFINITIONS / "test-cases/hit.toml", 'difficulty = "easy"', 'difficulty = "easy"\nexperimental = true'
         ).apply(pytester.path)
    result = _seed(pytester, "hit")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the case is experimental; pass --tcab-experimental*"])
    _seed(pytester, "hit", "out", "--tcab-experimental").assert_outcomes(passed=1)
