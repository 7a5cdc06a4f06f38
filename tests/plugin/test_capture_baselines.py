"""`--tcab-capture-baselines`: drive every validation script against its variant's reference
implementation and commit the media as `validation-baseline/<variant>/<verdict>__<output>.<ext>`."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from tests.conftest import copy_example_suite
from tests.validation import GAUGE_VERSION
from tests.validation import edit
from tests.validation import ffprobe
from tests.validation import gauge_project
from tests.validation import lines

if find_chromium(None) is None:
    pytest.skip(NO_BROWSER_REASON, allow_module_level=True)

pytestmark = pytest.mark.browser

BASELINES = GAUGE_VERSION / "validation-baseline/base"
PASSING = "baseline and (counts or dial)"
"""The gauge units whose drivers pass against the reference: the only ones that write anything."""


def capture(pytester: pytest.Pytester, selection: str = PASSING) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-capture-baselines",
                              "-k", selection)


def test_capture_writes_each_output_and_removes_what_no_driver_declares(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    folder = pytester.path / BASELINES
    folder.mkdir(parents=True)
    (folder / "counts__old-still.png").write_bytes(b"stale")
    result = capture(pytester, "baseline and (counts or dial or doubles or unmet)")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines(lines(
        'not captured (the committed baseline is kept): verdict "doubles" is false against the reference '
        "implementation: 1 + 2 read 3, expected 4",
        "*- tcab baselines -*",
        f"{BASELINES}: 3 new, 1 removed",
        "  new       counts__clip.webm",
        "  new       counts__dial.png",
        "  new       dial.zero__empty.png",
        "  removed   counts__old-still.png",
        "commit these folders: a run's report shows them as the expected side",
    ))
    assert sorted(path.name for path in folder.iterdir()) == [
        "counts__clip.webm", "counts__dial.png", "dial.zero__empty.png"]
    with Image.open(folder / "counts__dial.png") as still:
        assert (still.format, still.size) == ("PNG", (1280, 720))
    probe = ffprobe(folder / "counts__clip.webm")
    assert [s["codec_type"] for s in probe["streams"]] == ["video"]
    assert float(probe["format"]["duration"]) > 0


def test_recapture_compares_stills_by_bytes_and_always_rewrites_clips(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    capture(pytester).assert_outcomes(passed=2)
    empty = (pytester.path / BASELINES / "dial.zero__empty.png").read_bytes()
    # A new bar colour changes the still of a full bar, not the one of an empty bar.
    edit(pytester.path / GAUGE_VERSION / "reference-impl/base/index.html", "background: #ffd54f", "background: #4dd0e1")
    result = capture(pytester)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        f"{BASELINES}: 1 changed, 1 rewritten, 1 unchanged",
        "  changed   counts__dial.png",
        "  rewritten counts__clip.webm",
        "  unchanged dial.zero__empty.png",
    ])
    assert (pytester.path / BASELINES / "dial.zero__empty.png").read_bytes() == empty
    with Image.open(pytester.path / BASELINES / "counts__dial.png") as still:
        assert still.convert("RGB").getpixel((100, 230)) == (0x4D, 0xD0, 0xE1)


def test_nothing_captured_means_no_summary(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    result = capture(pytester, "baseline and throws")
    result.assert_outcomes(failed=1)
    reason = ("not captured (the committed baseline is kept): validation/throws.mjs: the driver threw Error: "
              "the dial reads 5 after a reset")
    result.stdout.fnmatch_lines([reason])
    assert "tcab baselines" not in result.stdout.str()
    assert not (pytester.path / BASELINES).exists()


def test_one_item_per_variant_and_verdict_at_its_validation_table(pytester: pytest.Pytester) -> None:
    copy_example_suite(pytester.path)
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "--tcab-suite=example-suite",
                                        "--tcab-capture-baselines")
    version = Path("example-suite/test-cases/end-to-end/medium/carom/v2.0.0")
    located = {}
    for item in items:
        if item.nodeid.startswith(f"{version}/test-case.toml::baseline["):
            path, line = item.declared_at()
            located[item.nodeid.partition("::")[2]] = (Path(path).relative_to(pytester.path / version).as_posix(), line)
            assert Path(item.reportinfo()[0]) == item.path  # the file the id names, which IDEs open
    assert located == {  # the lines of each `validation` table
        "baseline[base:spin.stationary]": ("test-case.toml", 67),
        "baseline[base:spin.moving]": ("test-case.toml", 74),
        "baseline[base:scoring.point]": ("test-case.toml", 91),
        "baseline[frenzy:spin.stationary]": ("test-case.toml", 67),
        "baseline[frenzy:spin.moving]": ("test-case.toml", 74),
        "baseline[frenzy:scoring.point]": ("test-case.toml", 91),
        "baseline[frenzy:frenzy.escalation]": ("variants/frenzy.toml", 26),
    }
