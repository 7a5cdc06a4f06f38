"""TOML positions: every key path of a document maps to the line that declares it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tcab.errors import Problem
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import key_lines
from pytest_tcab.toml import load
from pytest_tcab.toml import parse
from pytest_tcab.toml import reading_once

SOURCE = '''\
slug = "pong" # a comment with = and [brackets]
variants = [
  "variants/base.toml",
  'variants/frenzy.toml',
]
"quoted key" = 1
a.b.c = true
text = """
[not-a-table]
"""

[build]
install = "npm ci"

[[review.categories]]
id = "spin"

[[review.categories.items]]
id = "a"
validation = { script = "v.mjs", outputs = [{ id = "o", kind = "video" }] }

[[review.categories]]
id = "scoring"
sub_items = [
  { id = "s", title = "t" },
  { id = "m", title = "m" },
]

[packages."@test-cabinet/x"]
path = "p"
'''


def test_lines_of_keys_tables_and_array_elements() -> None:
    lines = key_lines(SOURCE)
    assert lines[("slug",)] == 1
    assert lines[("variants", 1)] == 4
    assert lines[("quoted key",)] == 6
    assert lines[("a", "b", "c")] == 7
    assert lines[("build", "install")] == 13
    assert lines[("review",)] == 15  # implicitly declared by the array-of-tables header
    assert lines[("review", "categories", 0, "items", 0, "validation", "outputs", 0, "kind")] == 20
    assert lines[("review", "categories", 1, "id")] == 23
    assert lines[("review", "categories", 1, "sub_items", 1, "title")] == 26
    assert lines[("packages", "@test-cabinet/x", "path")] == 30
    assert ("not-a-table",) not in lines  # inside a multi-line string


def test_line_of_falls_back_to_the_nearest_ancestor() -> None:
    doc = parse(Path("x.toml"), SOURCE)
    assert not isinstance(doc, Problem)
    assert doc.line_of(("build", "nope")) == 12
    assert doc.line_of(("review", "categories", 0, "items", 0, "title")) == 18
    assert doc.line_of(("missing",)) is None


def test_decode_errors_are_located_problems() -> None:
    problem = parse(Path("x.toml"), 'a = 1\nb = "open\n')
    assert isinstance(problem, Problem)
    assert problem.line == 2
    assert problem.message.startswith(f"{problem.path.name} is not valid TOML: at line {problem.line}, column ")
    assert problem.format() == f"x.toml:2: {problem.message}\n    Hint: {problem.hint}"


def test_lines_are_scanned_only_when_a_line_is_asked_for() -> None:
    doc = parse(Path("x.toml"), SOURCE)
    assert not isinstance(doc, Problem)
    assert "lines" not in vars(doc) and "_root_lines" not in vars(doc)
    assert doc.problem(("slug",), "m").line == 1
    assert "lines" not in vars(doc)  # a root key: only the keys above the first table header were scanned
    assert doc.problem(("build", "install"), "m").line == 13
    assert "lines" in vars(doc)


def test_root_keys_scanned_alone_are_where_the_whole_scan_puts_them() -> None:
    doc = parse(Path("x.toml"), SOURCE)
    assert not isinstance(doc, Problem)
    root = {key: doc.line_of(key) for key in [("slug",), ("variants",), ("variants", 1), ("a", "b", "c"), ("text",)]}
    assert "lines" not in vars(doc)
    assert root == {key: key_lines(SOURCE)[key] for key in root}
    assert doc.line_of(("review",)) == 15  # not above the header: the whole file is scanned


def test_each_file_is_parsed_once_within_a_reading_scope(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text("a = 1\n")
    documents: dict[Path, TomlDocument | Problem] = {}
    with reading_once(documents):
        first = load(path)
        path.write_text("a = 2\n")
        assert load(path) is first
    assert isinstance(first, TomlDocument) and first.data == {"a": 1}
    outside = load(path)
    assert isinstance(outside, TomlDocument) and outside.data == {"a": 2}
    assert documents == {path: first}


@pytest.mark.parametrize(("source", "line", "expected"), [
    ('a = 1\nb = "open\n', 2, "at line 2, column 10, the parser expected the string to close before the end of the line"),
    ("a = [1, 2\n", 2, "at line 2, column 1, the parser expected ']' to close the array"),
    ("a b = 1\n", 1, "at line 1, column 3, the parser expected '=' after a key in a key/value pair"),
    ("a = \n", 1, "at line 1, column 5, the parser expected a value: a string, number, boolean, date, array or "
     "inline table"),
    ("[build]\n[build]\n", 2, "at line 2, column 7, the parser found the table [build] declared twice"),
    ("a = 1\na = 2\n", 2, "at line 2, column 6, the parser found a key that is already set"),
])
def test_decode_errors_read_as_a_sentence(source: str, line: int, expected: str) -> None:
    problem = parse(Path("suite/test-case.toml"), source)
    assert isinstance(problem, Problem)
    assert problem.line == line
    assert problem.message == f"test-case.toml is not valid TOML: {expected}"
