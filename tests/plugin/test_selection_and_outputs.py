"""How users select and read tcab items: ini twins of the options, markers and case keywords for
`-m` and `-k`, one xdist worker per run, plain JUnit properties with the score, partial runs in
results.json, skips at the TOML line, one line per failure in the short summary."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from suites import LEGACY
from suites import write_minimal_suite
from test_definition_runs import FAILING_LINT
from test_definition_runs import FAILING_TYPECHECK
from test_definition_runs import game_definition
from test_definition_runs import project
from test_ids import outcomes

from pytest_tcab import options

RUN_ARGS = ("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=run", "--tcab-out=out")


def definition_run(root: Path) -> None:
    project(root, 'case = "game"\n', game=game_definition(FAILING_TYPECHECK, extra=f'lint = "{FAILING_LINT}"\n'))


def test_every_option_has_an_ini_twin(pytestconfig: pytest.Config) -> None:
    """(The docs' option table is generated from the same registration: tests/unit/test_docs.py.)"""
    group = pytestconfig._parser.getgroup("tcab")  # what `pytest --help` lists
    flags = {name for argument in group.options for name in argument.names()}
    assert flags == {twin.flag for twin in options.twins.values()}, "an option added without its ini twin"
    for twin in options.twins.values():
        assert twin.dest == twin.flag.removeprefix("--").replace("-", "_")
        assert pytestconfig.getini(twin.dest) is not None  # registered: no "Unknown config option"


def test_ini_twins_set_options_and_the_command_line_wins(pytester: pytest.Pytester) -> None:
    definition_run(pytester.path)
    pytester.makeini("[pytest]\ntcab_suite = suite\ntcab_run = run\ntcab_out = from-ini\n"
                     "tcab_max_diff = 0.01\ntcab_build_timeout = 30\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-W", "error::pytest.PytestConfigWarning")
    # A definition run: build, the requirement (no validators: left for the reviewer), the toolchain.
    assert result.parseoutcomes() == {"passed": 1, "failed": 1, "skipped": 1, "recorded": 1}
    assert (pytester.path / "from-ini/results.json").is_file()
    pytester.runpytest("-p", "no:cacheprovider", "--tcab-out=given")
    assert (pytester.path / "given/results.json").is_file()
    bad = pytester.runpytest("-p", "no:cacheprovider", "-o", "tcab_max_diff=2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*ini option tcab_max_diff = '2': '2' is not a ratio between 0 and 1*"])


def test_an_ini_suite_keeps_the_project_testpaths(pytester: pytest.Pytester) -> None:
    (pytester.path / "suite").mkdir()
    write_minimal_suite(pytester.path / "suite")
    pytester.makepyfile(**{"tests/test_own": "def test_own():\n    pass\n"})
    pytester.makeini("[pytest]\ntcab_suite = suite\ntestpaths = tests\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.stdout.fnmatch_lines(["tests/test_own.py::test_own PASSED*", "suite/*::slug PASSED*"])


def test_markers_and_case_keywords_select_items(pytester: pytest.Pytester) -> None:
    root = write_minimal_suite(pytester.path)
    manifest = root / LEGACY / "test-case.toml"
    manifest.write_text(manifest.read_text().replace("tags = []", 'tags = ["arcade"]'))
    args = ("-p", "no:cacheprovider", "--tcab-suite=.", "--strict-markers", "--collect-only", "-q")

    def ids(*more: str) -> list[str]:
        return [line for line in pytester.runpytest(*args, *more).outlines if "::" in line]

    def selected(*more: str) -> list[str]:
        return [nodeid.rpartition("::")[2] for nodeid in ids(*more)]

    assert selected("-m", "arcade and tcab_resolve") == ["resolve[a]", "resolve[b]"]
    assert selected("-k", "arcade and slug") == ["slug"]
    assert selected("-k", "demo and easy and end-to-end and seed") == ["seed[a]", "seed[b]"]
    others = ids("-m", "not arcade")
    assert others and not [nodeid for nodeid in others if "/demo/" in nodeid]


def test_run_items_are_marked_grouped_and_report_plain_junit_properties(pytester: pytest.Pytester) -> None:
    definition_run(pytester.path)
    result = pytester.runpytest(*RUN_ARGS, "-v", "-m", "tcab_toolchain", "--junitxml=junit.xml")
    assert outcomes(result) == {"run/.tcab/run.toml::toolchain[typecheck]": "FAILED",
                                "run/.tcab/run.toml::toolchain[lint]": "RECORDED"}
    tree = ET.parse(pytester.path / "junit.xml")
    cases = {case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
             for case in tree.iter("testcase")}
    typecheck = cases["toolchain[typecheck]"]
    assert {key: typecheck[key] for key in ("tcab.run", "tcab.case", "tcab.kind", "tcab.id", "tcab.returncode")} == {
        "tcab.run": "run", "tcab.case": "game", "tcab.kind": "toolchain", "tcab.id": "typecheck",
        "tcab.returncode": "2"}
    assert all(not value.startswith("{") for props in cases.values() for value in props.values())
    # A partial run: the build was deselected by -m, and results.json says so.
    (run,) = json.loads((pytester.path / "out/results.json").read_text())["runs"]
    assert run["partial"] is True
    assert [item["nodeid"] for item in run["deselected"]] == ["run/.tcab/run.toml::build",
                                                              "run/.tcab/run.toml::requirement[works]"]


FINISHED_PROBE = """\
import os


def pytest_tcab_run_finished(config, run):
    with open(os.environ["TCAB_FINISHED_LOG"], "a") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {run.label}\\n")
"""
"""A plugin that notes each `pytest_tcab_run_finished` call: where it ran, and for which run."""


@pytest.mark.parametrize("dist", ["load", "loadgroup", "worksteal"])
def test_one_build_per_run_under_xdist(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, dist: str) -> None:
    """`-n 2` under each mode that would split a run keeps each run on one worker: one build per run,
    the run's end known once, where its items ran, and the same outcomes as one process."""
    stamp = 'build = "mkdir -p dist && cp index.html dist/ && date +%s%N > dist/stamp"'
    game = game_definition("cat dist/stamp", extra='lint = "cat dist/stamp"\nformat = "cat dist/stamp"\n')
    project(pytester.path, 'case = "game"\n', game=game.replace('build = "mkdir -p dist && cp index.html dist/"', stamp))
    shutil.copytree(pytester.path / "run", pytester.path / "runs/a")
    shutil.move(pytester.path / "run", pytester.path / "runs/b")
    pytester.makepyfile(finished_probe=FINISHED_PROBE)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    log = pytester.path / "finished.log"
    monkeypatch.setenv("TCAB_FINISHED_LOG", str(log))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test's own worker, if any
    args = ("-p", "no:cacheprovider", "-p", "finished_probe", "--tcab-suite=suite", "--tcab-run=runs", "--tcab-out=out")
    pytester.runpytest_subprocess(*args, "-n", "2", "--dist", dist).assert_outcomes(passed=8, skipped=2)
    parallel = json.loads((pytester.path / "out/sweep.json").read_text())
    for name in ("a", "b"):
        run = json.loads((pytester.path / f"out/{name}/results.json").read_text())["runs"][0]
        stamps = {item["output"] for item in run["items"] if item["kind"] == "toolchain"}
        assert len(stamps) == 1, f"run {name} was built more than once: {stamps}"
    finished = log.read_text().splitlines()
    assert sorted(line.split()[1] for line in finished) == ["a", "b"], finished
    assert all(line.startswith("gw") for line in finished), finished
    log.unlink()
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=8, skipped=2)
    alone = json.loads((pytester.path / "out/sweep.json").read_text())
    assert sorted(log.read_text().splitlines()) == ["main a", "main b"]

    def comparable(sweep: dict[str, Any]) -> list[tuple[str, str, object]]:
        return [(row["run"], row["status"], row["counts"]) for row in sweep["runs"]]

    assert comparable(parallel) == comparable(alone)
    for name in ("a", "b"):
        run = json.loads((pytester.path / f"out/{name}/results.json").read_text())["runs"][0]
        assert all("@" not in item["nodeid"] and not item.get("message", "").startswith("[gw")
                   for item in run["items"])


def test_skips_point_at_the_toml_line_and_failures_have_a_one_line_summary(pytester: pytest.Pytester) -> None:
    definition_run(pytester.path)
    result = pytester.runpytest(*RUN_ARGS, "-rfs")
    result.stdout.fnmatch_lines([
        "FAILED run/.tcab/run.toml::toolchain[[]typecheck] - typecheck failed: `echo *",
    ])
    assert "outcomes.py" not in result.stdout.str()
    (pytester.path / "authored").mkdir()
    root = write_minimal_suite(pytester.path / "authored")
    manifest = root / LEGACY / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('prompt = "prompt.hbs"', 'prompt = "gone.hbs"'))
    lines = pytester.runpytest("-p", "no:cacheprovider", f"--tcab-suite={root}", "--tb=line").outlines
    located = [line for line in lines if line.startswith(f"authored/{LEGACY.as_posix()}/test-case.toml:")]
    assert located and all("gone.hbs" in line for line in located)
