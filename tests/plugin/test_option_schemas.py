"""`--tcab-schemas`: the editor schemas and a `.taplo.toml` written beside a suite, and nothing run;
the real taplo CLI then checks the example suite with them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_tcab.options import SCHEMAS_OPTION
from pytest_tcab.schemas.editors import SCHEMA_FOLDER
from pytest_tcab.schemas.editors import TAPLO_FILE
from pytest_tcab.schemas.editors import shipped
from pytest_tcab.schemas.generate import FILE_KINDS


def test_the_session_writes_the_schemas_and_the_taplo_configuration_and_runs_nothing(
        pytester: pytest.Pytester, example_suite: Path) -> None:
    result = pytester.runpytest(f"--tcab-suite={example_suite}", SCHEMAS_OPTION)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*- tcab schemas -*", f"10 schemas written to {example_suite / SCHEMA_FOLDER}",
                                 f"taplo configuration written to {example_suite / TAPLO_FILE}", "*no tests ran*"])
    written = {path.name: path.read_text(encoding="utf-8") for path in (example_suite / SCHEMA_FOLDER).iterdir()}
    assert written == shipped()
    config = (example_suite / TAPLO_FILE).read_text(encoding="utf-8")
    for kind in FILE_KINDS:
        assert f'path = "{(example_suite / SCHEMA_FOLDER / kind.filename).as_posix()}"' in config
    # Written again (a newer plugin, a moved checkout): its own file is replaced.
    assert pytester.runpytest(f"--tcab-suite={example_suite}", SCHEMAS_OPTION).ret == pytest.ExitCode.OK


def test_a_taplo_configuration_of_the_authors_own_is_left_alone(pytester: pytest.Pytester,
                                                                 example_suite: Path) -> None:
    own = example_suite / TAPLO_FILE
    own.write_text("[formatting]\nalign_entries = true\n", encoding="utf-8")
    result = pytester.runpytest(f"--tcab-suite={example_suite}", SCHEMAS_OPTION)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{SCHEMAS_OPTION}: {own} exists and was not written by {SCHEMAS_OPTION}*"])
    assert own.read_text(encoding="utf-8") == "[formatting]\nalign_entries = true\n"


def test_the_option_needs_a_suite(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(SCHEMAS_OPTION)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{SCHEMAS_OPTION} needs --tcab-suite=SUITE*"])


def test_taplo_checks_every_toml_file_of_the_example_suite_with_the_written_configuration(
        pytester: pytest.Pytester, example_suite: Path) -> None:
    taplo = shutil.which("taplo")
    if taplo is None:
        pytest.skip("the taplo CLI is not installed (pip install taplo: the test extra carries it)")
    assert pytester.runpytest(f"--tcab-suite={example_suite}", SCHEMAS_OPTION).ret == pytest.ExitCode.OK
    clean = subprocess.run([taplo, "check", "--colors", "never"], cwd=example_suite, capture_output=True,
                           text=True, timeout=120, check=False)
    assert clean.returncode == 0, clean.stderr
    assert "found files total=" in clean.stderr
    run = example_suite / "runs/hit/.tcab/run.toml"  # a layout far from the root: its rule still applies
    run.write_text(run.read_text(encoding="utf-8").replace("case =", "cas ="), encoding="utf-8")
    flagged = subprocess.run([taplo, "check", "--colors", "never"], cwd=example_suite, capture_output=True,
                             text=True, timeout=120, check=False)
    assert flagged.returncode == 1
    assert "'cas' was unexpected" in flagged.stdout + flagged.stderr
