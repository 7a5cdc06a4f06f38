"""The public Test Cabinet's structures (DESIGN "Real catalogs"), on the fixture suite `tests/catalogs/suite`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[1] / "catalogs" / "suite"
VOLLEY = Path("test-cases/end-to-end/medium/volley/v2.0.0")
GRID = Path("test-cases/performance/hard/grid/v1.0.0")
VERSION = Path("versions/v1.0.0")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Path:
    shutil.copytree(SUITE, pytester.path, dirs_exist_ok=True)
    return pytester.path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", *args)


def test_every_structure_resolves_and_drafts_are_not_collected(pytester: pytest.Pytester, suite: Path) -> None:
    listed = run(pytester, "--collect-only", "-q")
    assert not [line for line in listed.stdout.lines if "drafts" in line]
    assert f"{GRID}/test-case.toml::resolve[base]" in listed.stdout.lines
    result = run(pytester)
    result.assert_outcomes(passed=26)


def test_engines_named_by_definitions_get_a_humanised_name(pytester: pytest.Pytester, suite: Path) -> None:
    result = run(pytester, "-rP", "-k", "game.hbs and simple")
    result.assert_outcomes(passed=1)
    assert "Work in /workspace on Simple 2d (simple-2d)." in result.stdout.lines


def test_with_a_tcab_toml_an_unknown_engine_is_an_error(pytester: pytest.Pytester, suite: Path) -> None:
    (suite / "tcab.toml").write_text("")
    result = run(pytester, "-k", "game.toml and resolve")
    result.assert_outcomes(failed=1)
    assert (f"{VERSION}/test-cases/game.toml:4: `engines[1]`: engine 'simple-2d' is not known"
            in result.stdout.lines)


def test_version_names_its_folder_with_or_without_v(pytester: pytest.Pytester, suite: Path) -> None:
    edit(suite / VERSION / "version.toml", 'version = "1.0.0"', 'version = "1.0.1"')
    result = run(pytester, "-k", "version.toml")
    result.assert_outcomes(failed=1)
    assert (f"{VERSION}/version.toml:1: `version`: version '1.0.1' differs from its folder 'v1.0.0'"
            in result.stdout.lines)


def test_blender_output_stays_inside_the_run(pytester: pytest.Pytester, suite: Path) -> None:
    edit(suite / VERSION / "test-cases/turret.toml", 'actions = "build.py"', 'actions = "../build.py"')
    result = run(pytester, "-k", "turret.toml and resolve")
    result.assert_outcomes(failed=1)
    assert (f"{VERSION}/test-cases/turret.toml:11: `output.actions`: '../build.py' climbs out with '..'"
            in result.stdout.lines)


def test_output_belongs_to_blender_definitions(pytester: pytest.Pytester, suite: Path) -> None:
    (suite / VERSION / "test-cases/game.toml").write_text(
        (suite / VERSION / "test-cases/game.toml").read_text() + '\n[output]\nactions = "build.py"\n')
    result = run(pytester, "-k", "game.toml and resolve")
    result.assert_outcomes(failed=1)
    assert (f"{VERSION}/test-cases/game.toml:20: `output`: `[output]` is declared by blender definitions only, "
            "not by an end-to-end definition" in result.stdout.lines)


def test_performance_variant_specs_are_checked(pytester: pytest.Pytester, suite: Path) -> None:
    (suite / GRID / "specs/rules.md").unlink()
    result = run(pytester, "-k", "grid and resolve")
    result.assert_outcomes(failed=1)
    assert (f"{GRID}/variants/base.toml:4: `spec[0].source`: spec source 'specs/rules.md' does not exist; "
            "expected a file under v1.0.0/" in result.stdout.lines)


def test_performance_variant_is_selected_as_for_games(pytester: pytest.Pytester, suite: Path) -> None:
    run_dir = suite / "runs/grid"
    (run_dir / ".tcab").mkdir(parents=True)
    (run_dir / ".tcab/run.toml").write_text('case = "grid"\nvariant = "turbo"\n')
    result = run(pytester, "--tcab-run=runs/grid")
    assert "case 'grid' v1.0.0 has no variant 'turbo'; known variants: base" in result.stdout.str()


def test_an_experimental_case_refuses_to_run_unless_the_deployment_opts_in(
        pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TCAB_BACKEND_ALLOW_EXPERIMENTAL", raising=False)
    edit(suite / GRID / "test-case.toml", 'slug = "grid"', 'slug = "grid"\nexperimental = true')
    run_dir = suite / "runs/grid"
    (run_dir / ".tcab").mkdir(parents=True)
    (run_dir / ".tcab/run.toml").write_text('case = "grid"\n')
    refused = run(pytester, "--tcab-run=runs/grid")
    assert refused.ret == pytest.ExitCode.INTERRUPTED
    assert ("case 'grid' (v1.0.0) is experimental, and this deployment has not opted in to experimental cases, so "
            "it refuses to resolve and is not run; pass --tcab-experimental or set TCAB_BACKEND_ALLOW_EXPERIMENTAL=1 "
            "to run it") in refused.stdout.str()
    assert "build" not in refused.stdout.str().split("refuses to resolve")[0].split("\n")[-1]
    allowed = run(pytester, "--tcab-run=runs/grid", "--tcab-experimental", "--collect-only", "-q")
    assert any(line.endswith("::build") for line in allowed.stdout.lines)


def test_a_typo_in_a_branch_a_variant_does_not_take_fails_for_that_variant_too(
        pytester: pytest.Pytester, suite: Path) -> None:
    edit(suite / VOLLEY / "specs/mode.md.hbs", "{{variant.description}}", "{{variant.descriptoin}}")
    result = run(pytester, "-k", "mode.md.hbs")
    result.assert_outcomes(failed=2)
    # base never renders the gyre branch: the shape check finds the typo at authoring time anyway.
    result.stdout.fnmatch_lines(["*_ volley@v2.0.0 template[[]specs/mode.md.hbs#base[]] _*"])
    assert (f"{VOLLEY}/specs/mode.md.hbs:4: unknown variable 'variant.descriptoin' in a branch this context does "
            "not render (resolved up to 'variant'; available: description, name, slug)") in result.stdout.lines
    assert (f"{VOLLEY}/specs/mode.md.hbs:4: unknown variable 'variant.descriptoin' (resolved up to 'variant'; "
            "available: description, name, slug)") in result.stdout.lines


def test_an_experimental_case_has_no_reference_run_unless_the_deployment_opts_in(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TCAB_BACKEND_ALLOW_EXPERIMENTAL", raising=False)
    shutil.copytree(Path(__file__).resolve().parents[1] / "gauge" / "suite", pytester.path, dirs_exist_ok=True)
    edit(pytester.path / "test-cases/end-to-end/easy/gauge/v1.0.0/test-case.toml", 'slug = "gauge"',
         'slug = "gauge"\nexperimental = true')
    hidden = run(pytester, "--tcab-reference", "--collect-only", "-q").stdout.str()
    assert "reference-base" not in hidden
    shown = run(pytester, "--tcab-reference", "--tcab-experimental", "--collect-only", "-q").stdout.str()
    assert "reference-base" in shown
