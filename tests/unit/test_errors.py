"""Problems are worded as TOML authors read them."""

from __future__ import annotations

from pathlib import Path

from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.errors import format_key_path


def test_key_paths_use_toml_syntax() -> None:
    assert format_key_path(("review", "categories", 2, "items", 0, "validation", "script")) == (
        "review.categories[2].items[0].validation.script"
    )
    assert format_key_path(("packages", "@test-cabinet/x", "path")) == 'packages."@test-cabinet/x".path'


def test_problem_format_has_location_key_message_and_hint() -> None:
    problem = Problem(Path("/s/case/test-case.toml"), 7, ("slug",), "is wrong", "do this")
    assert problem.format(Path("/s")) == "case/test-case.toml:7: `slug`: is wrong\n    Hint: do this"


def test_problems_are_counted_and_ordered_by_file_and_line() -> None:
    a = Problem(Path("b.toml"), 1, (), "second file")
    b = Problem(Path("a.toml"), 9, ("x",), "late")
    c = Problem(Path("a.toml"), None, (), "whole file")
    assert str(ProblemsFound([a, b, c])).splitlines() == [
        "3 problems:",
        "a.toml: whole file",
        "a.toml:9: `x`: late",
        "b.toml:1: second file",
    ]
