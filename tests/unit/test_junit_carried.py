"""junit: a kept run's items become `<testcase>`s as recorded, whatever text the graded code put in them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from _pytest.junitxml import LogXML

from pytest_tcab.run.report.junit import CARRIED_PROPERTY
from pytest_tcab.run.report.junit import carried_reports

FORGED = 'it printed </failure></testcase><testcase name="forged"/> and \x1b[31m\x00 bytes'
"""A build's output quoted in a failure message: closing tags and control characters."""


def _written(tmp_path: Path, *entries: dict[str, object]) -> ET.Element:
    path = tmp_path / "junit.xml"
    xml = LogXML(str(path), None)
    xml.pytest_sessionstart()
    for entry in entries:
        for report in carried_reports(entry):
            xml.pytest_runtest_logreport(report)
    xml.pytest_sessionfinish()
    return ET.parse(path).getroot()


def test_each_recorded_outcome_is_its_junit_element_marked_carried(tmp_path: Path) -> None:
    root = _written(tmp_path,
                    {"nodeid": "runs/a/.tcab/run.toml::build", "outcome": "passed", "duration_s": 1.5},
                    {"nodeid": "runs/a/.tcab/run.toml::check[x]", "outcome": "failed", "message": "no score"},
                    {"nodeid": "runs/a/.tcab/run.toml::perf", "outcome": "over-ceiling", "message": "slow"},
                    {"nodeid": "runs/a/.tcab/run.toml::shot", "outcome": "recorded", "message": "baseline"})
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert sorted(cases) == ["build", "check[x]", "perf", "shot"]
    assert cases["build"].find("failure") is None and float(cases["build"].get("time", 0)) == 1.5
    assert cases["check[x]"].find("failure").get("message") == "no score"  # type: ignore[union-attr]
    assert cases["perf"].find("failure") is not None and cases["shot"].find("skipped") is not None
    for case in cases.values():
        properties = {prop.get("name"): prop.get("value") for prop in case.iter("property")}
        assert CARRIED_PROPERTY in properties and properties["tcab.status"] in (
            "passed", "failed", "over-ceiling", "recorded")


def test_a_message_with_closing_tags_stays_text_and_adds_no_testcase(tmp_path: Path) -> None:
    root = _written(tmp_path, {"nodeid": "runs/a/.tcab/run.toml::build", "outcome": "failed", "message": FORGED})
    cases = list(root.iter("testcase"))
    assert [case.get("name") for case in cases] == ["build"]
    message = cases[0].find("failure").get("message")  # type: ignore[union-attr]
    assert "</testcase>" in message and "\x00" not in message  # type: ignore[operator]
