"""A suite's conftest.py adds a family of run items through the `pytest_tcab_run_items` hook."""

from __future__ import annotations

import json

import pytest
from definition_suite import write_definition_suite

CONFTEST = '''
import pytest

from pytest_tcab.run.item import RunItem


class LicenseItem(RunItem):
    """`license`: every produced implementation ships a LICENSE file."""

    kind = "license"

    def runtest(self):
        path = self.run.source / "LICENSE"
        self.record(present=path.is_file())
        if not path.is_file():
            pytest.fail(f"{self.run.label} ships no LICENSE", pytrace=False)


@pytest.hookimpl
def pytest_tcab_run_items(run, parent):
    if run.case.layout == "definition":
        return [LicenseItem.from_parent(parent, name="license", run=run, key="license")]
    return None
'''


@pytest.mark.parametrize("licensed", [True, False], ids=["licensed", "unlicensed"])
def test_a_conftest_adds_a_family_after_the_plugins_own(pytester: pytest.Pytester, licensed: bool) -> None:
    write_definition_suite(pytester.path / "suite")
    pytester.makeconftest(CONFTEST)
    run = pytester.path / "run"
    (run / ".tcab").mkdir(parents=True)
    (run / ".tcab/run.toml").write_text('case = "perf"\n', encoding="utf-8")
    if licensed:
        (run / "LICENSE").write_text("MIT\n", encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=run", "--tcab-out=out",
                                "--collect-only", "-q")
    assert result.stdout.lines[-4:-2] == ["run/.tcab/run.toml::fuel[a]", "run/.tcab/run.toml::license"]  # after every family of the plugin
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=run", "--tcab-out=out",
                                "-k", "license")
    if licensed:
        result.assert_outcomes(passed=1, deselected=result.parseoutcomes()["deselected"])
    else:
        result.assert_outcomes(failed=1, deselected=result.parseoutcomes()["deselected"])
        result.stdout.fnmatch_lines(["*run ships no LICENSE*"])
    items = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]["items"]
    assert [(item["kind"], item["present"]) for item in items] == [("license", licensed)]
