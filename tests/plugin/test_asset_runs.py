"""Asset runs end to end: the example suite's produced assets, one of each kind, and a flawed one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and numpy and Playwright
# cannot be imported afresh in one process: the format libraries are loaded here and kept.
import jsonschema  # noqa: F401
import mido  # noqa: F401
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pygltflib  # noqa: F401
import pytest
import soundfile  # noqa: F401

from tests.conftest import EXAMPLE_SUITE

RUNS = EXAMPLE_SUITE / "runs"
KINDS = {  # run -> (asset file, the report's preview of it)
    "paddle-sheet": ("paddle-sheet.png", "paddle-sheet.frame-4.png"),
    "ship": ("ship.json", "ship.front.png"),
    "lamp": ("lamp.gltf", "lamp.gltf"),
    "spark-burst": ("system.json", "played.png"),
    "theme": ("theme.mid", "theme.mid"),
    "hit": ("hit.wav", "hit.waveform.png"),
}


def run(pytester: pytest.Pytester, run_dir: Path, *extra: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", f"--tcab-suite={EXAMPLE_SUITE}", f"--tcab-run={run_dir}",
                              "--tcab-out=out", *extra)


def items(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    data = json.loads((pytester.path / "out" / "results.json").read_text())
    return [item for r in data["runs"] for item in r["items"]]


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_example_asset_run_fits_its_reference(pytester: pytest.Pytester, name: str) -> None:
    file, picture = KINDS[name]
    result = run(pytester, RUNS / name)
    if name == "spark-burst" and "no Chromium found" in result.stdout.str():
        pytest.skip("the particle system is played in Chromium")
    result.assert_outcomes(passed=1)
    [item] = items(pytester)
    assert item["kind"] == "asset" and item["id"] == file and item["mismatches"] == []
    assert item["produced"] and item["reference"]
    report = (pytester.path / "out" / "report.html").read_text()
    assert f"asset[{file}]" in report and picture in report
    assert (pytester.path / "out" / name / "assets" / file / "produced" / file).is_file()


def test_the_flawed_hit_names_each_figure_with_both_values(pytester: pytest.Pytester) -> None:
    result = run(pytester, RUNS / "hit-flawed")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "assets/hit/hit.wav does not fit the reference assets/hit/hit.wav:",
        "  sample rate: produced 44100, reference 8000 (must be equal)",
        "  channels: produced 2, reference 1 (must be equal)",
        "  duration: produced 0.6 s, reference 0.1 s (must be within ±50% of the reference)",
        "  clipped samples: produced 2208, reference 0 (clipped: runs of 3+ samples at 99% of full scale)",
    ])
    assert "Traceback" not in result.stdout.str()
    [item] = items(pytester)
    assert item["outcome"] == "failed" and len(item["mismatches"]) == 4
    report = (pytester.path / "out" / "report.html").read_text()
    assert report.count("<audio controls") == 2 and report.count("hit.waveform.png") == 2


def test_a_missing_produced_file_fails_naming_what_the_run_holds(pytester: pytest.Pytester) -> None:
    run_dir = pytester.path / "run"
    shutil.copytree(RUNS / "theme", run_dir)
    (run_dir / "assets/theme/theme.mid").rename(run_dir / "assets/theme/song.mid")
    result = run(pytester, run_dir)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["the run holds no assets/theme/theme.mid (it holds song.mid); produce the "
                                 "asset's files under the names of the reference's asset.toml `files`"])


def test_a_file_that_does_not_decode_fails_with_the_library_reason(pytester: pytest.Pytester) -> None:
    run_dir = pytester.path / "run"
    shutil.copytree(RUNS / "paddle-sheet", run_dir)
    (run_dir / "assets/paddle-sheet/paddle-sheet.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    result = run(pytester, run_dir)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*assets/paddle-sheet/paddle-sheet.png does not fit the reference*",
                                 "  assets/paddle-sheet/paddle-sheet.png: paddle-sheet.png is not a readable image "
                                 "file: *"])
    assert "Traceback" not in result.stdout.str()


def test_a_symlink_out_of_the_run_is_refused(pytester: pytest.Pytester) -> None:
    run_dir = pytester.path / "run"
    shutil.copytree(RUNS / "theme", run_dir)
    (run_dir / "assets/theme/theme.mid").unlink()
    (run_dir / "assets/theme/theme.mid").symlink_to(EXAMPLE_SUITE / "versions/v1.0.0/assets/theme/theme.mid")
    result = run(pytester, run_dir)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["assets/theme/theme.mid follows a symlink that leads outside"])
