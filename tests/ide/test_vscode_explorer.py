"""VS Code's test explorer, driven through its pytest adapter's protocol (`vscode_explorer`): on
the example suite in author and run mode, with the suite set by `pytestArgs` or by the ini key
`tcab_suite`, and on this repository's own tests. Discovery succeeds, every item has one runID of
its own, every item's line is inside the file the tree shows it under, and Run All brings back
every item's outcome.

Each test runs with the rule-based adapter (tests/ide/adapter) and, where the extension's own
`python_files` is given (`TCAB_VSCODE_PYTHON_FILES`), with microsoft/vscode-python's adapter too.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from vscode_explorer import NOT_ON_PYPI
from vscode_explorer import RULE_ADAPTER
from vscode_explorer import Discovery
from vscode_explorer import Explorer
from vscode_explorer import ExplorerTest
from vscode_explorer import messages
from vscode_explorer import real_adapter
from vscode_explorer import run_arguments

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from tests.conftest import REPO
from tests.conftest import copy_example_suite

SUITE = "--tcab-suite=example-suite"
CAROM = "example-suite/test-cases/end-to-end/medium/carom/v2.0.0"
CAROM_RUN = "example-suite/runs/carom-base"

ADAPTERS = [
    pytest.param(RULE_ADAPTER, id="rule"),
    pytest.param(real_adapter(), id="vscode", marks=pytest.mark.skipif(real_adapter() is None, reason=NOT_ON_PYPI)),
]


@pytest.fixture(params=ADAPTERS)
def adapter(request: pytest.FixtureRequest) -> Path:
    path: Path = request.param
    return path


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace folder holding the example suite, as a user opens it in VS Code."""
    folder = tmp_path_factory.mktemp("workspace")
    copy_example_suite(folder)
    return folder


def collected(cwd: Path, *args: str) -> list[str]:
    """The node ids `pytest --collect-only -q` lists, as a user reads them."""
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", *args],
                            cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    return [line for line in result.stdout.splitlines() if "::" in line]


def absolute(cwd: Path, nodeid: str) -> str:
    file, _, tail = nodeid.partition("::")
    return f"{cwd / file}::{tail}"


def assert_explorer_tree(discovery: Discovery, cwd: Path, nodeids: list[str] | None = None) -> list[ExplorerTest]:
    """Discovery succeeded; each test has a runID of its own that names the file the tree shows
    it under (the node id's file, absolute) and a line inside that file."""
    assert discovery.status == "success", discovery.errors
    assert not discovery.errors
    tests = discovery.tests()
    run_ids = [test.run_id for test in tests]
    assert tests and len(set(run_ids)) == len(run_ids), [i for i, n in Counter(run_ids).items() if n > 1]
    if nodeids is not None:
        assert sorted(run_ids) == sorted(absolute(cwd, nodeid) for nodeid in nodeids)
    # The extension's tree keeps one node per id: items sharing one would be fewer tests than pytest collected.
    (count,) = re.findall(r"^=+ (\d+)(?:/\d+)? tests? collected", discovery.session.output, re.MULTILINE)
    assert len(tests) == int(count)
    lengths: dict[Path, int] = {}
    for test in tests:
        assert test.run_id.partition("::")[0] == str(test.path)
        assert test.file == test.path  # under its file in the tree
        if test.path not in lengths:
            lengths[test.path] = len(test.path.read_text(encoding="utf-8").splitlines())
        assert test.lineno is not None and 1 <= test.lineno <= lengths[test.path], (test.run_id, test.lineno)
    return tests


def test_author_mode_discovers_every_item_and_run_all_reports_each(project: Path, adapter: Path) -> None:
    explorer = Explorer(project, [SUITE], adapter)
    tests = assert_explorer_tree(explorer.discover(), project, collected(project, SUITE))
    by_id = {test.run_id.removeprefix(f"{project}/"): test for test in tests}
    # Template items live in the file naming their template, at that key; errata under errata.toml.
    manifest = (project / CAROM / "test-case.toml").read_text().splitlines()
    assert manifest[by_id[f"{CAROM}/test-case.toml::template[prompt.hbs#base]"].lineno - 1] == 'prompt = "prompt.hbs"'
    assert manifest[by_id[f"{CAROM}/test-case.toml::template[specs/mode.md.hbs#frenzy]"].lineno - 1] == \
        'source = "specs/mode.md.hbs"'
    assert f"{CAROM}/errata.toml::errata" in by_id
    asset_prompts = [run_id for run_id in by_id if run_id.endswith("::template[prompts/asset.hbs]")]
    assert len(asset_prompts) == 6  # six definitions share one template: six items, six ids

    ran = explorer.run([test.run_id for test in tests])
    assert ran.outcomes == {test.run_id: "success" for test in tests}, ran.session.output[-3000:]


@pytest.mark.browser
@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
def test_run_mode_lives_in_run_toml_and_run_all_reports_each(project: Path, adapter: Path) -> None:
    args = [SUITE, f"--tcab-run={CAROM_RUN}", "--tcab-out=out"]
    explorer = Explorer(project, args, adapter)
    tests = assert_explorer_tree(explorer.discover(), project, collected(project, *args))
    run_file = project / CAROM_RUN / ".tcab/run.toml"
    assert {(test.path, test.lineno) for test in tests} == {(run_file, 1)}  # `case = "pong"`
    assert len(tests) == 8

    ran = explorer.run([test.run_id for test in tests])
    assert set(ran.outcomes) == {test.run_id for test in tests}, ran.session.output[-3000:]
    outcomes = {run_id.partition("::")[2]: outcome for run_id, outcome in ran.outcomes.items()}
    assert outcomes == {"build": "success", "proof[title]": "success", "proof[gameplay]": "skipped",
                        "check[title]": "success", "check[gameplay]": "success", "validate[spin.stationary]": "failure",
                        "validate[spin.moving]": "success", "validate[scoring.point]": "success"}
    # The failure the explorer shows names the table it is declared by, in the manifest.
    (failed,) = [result for result in ran.results.values() if result["outcome"] == "failure"]
    assert f"(declared at {CAROM}/test-case.toml:67)" in failed["message"]


def test_the_ini_key_sets_the_suite_for_every_ide(tmp_path: Path, adapter: Path) -> None:
    """`tcab_suite` in pyproject.toml: an explorer with no arguments finds and runs the suite."""
    copy_example_suite(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntcab_suite = "example-suite"\n')
    explorer = Explorer(tmp_path, [], adapter)
    tests = assert_explorer_tree(explorer.discover(), tmp_path, collected(tmp_path, SUITE))
    chosen = [test.run_id for test in tests if CAROM in test.run_id]
    ran = explorer.run(chosen)
    assert ran.outcomes == dict.fromkeys(chosen, "success"), ran.session.output[-3000:]


def test_the_two_token_suite_argument_discovers_but_every_run_fails(project: Path, adapter: Path) -> None:
    """VS Code drops what looks like a positional when it runs tests: `"example-suite"` after
    `"--tcab-suite"` goes, and pytest stops at the option without its value (docs/ides.md)."""
    explorer = Explorer(project, ["--tcab-suite", "example-suite"], adapter)
    tests = assert_explorer_tree(explorer.discover(), project)
    ran = explorer.run([tests[0].run_id])
    assert ran.outcomes == {}
    assert "--tcab-suite: expected one argument" in ran.session.output


def test_this_repository_s_tests_in_the_explorer(adapter: Path) -> None:
    """The repository's own tree (its Python tests and the tcab suites its tests keep): every
    item discovered with an id and line of its own; Run on every tcab item (not the Python
    tests: that would be the whole suite) reports each."""
    explorer = Explorer(REPO, [], adapter, timeout=600)
    tests = assert_explorer_tree(explorer.discover(), REPO)
    tcab = [test for test in tests if test.path.suffix == ".toml"]
    assert sum("::template[" in test.run_id for test in tcab) >= 11
    ran = explorer.run([test.run_id for test in tcab])
    assert set(ran.outcomes) == {test.run_id for test in tcab}, ran.session.output[-3000:]


def test_the_harness_drops_positionals_as_vs_code_does(tmp_path: Path) -> None:
    assert run_arguments(["--tcab-suite", "S", "-p", "xdist", "--tcab-run=R", "tests", "--lf"], tmp_path) == [
        "--tcab-suite", "-p", "xdist", "--tcab-run=R", f"--rootdir={tmp_path}"]
    framed = b"".join(f"content-length: {len(body)}\r\ncontent-type: application/json\r\n\r\n{body}".encode()
                      for body in ('{"jsonrpc": "2.0", "params": {"a": 1}}', '{"jsonrpc": "2.0", "params": {"b": 2}}'))
    assert list(messages(framed)) == [{"a": 1}, {"b": 2}]
