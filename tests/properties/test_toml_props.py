"""The position scanner finds every key path of any document tomli accepts."""

from __future__ import annotations

from typing import Any

import tomli
from hypothesis import given

from pytest_tcab.toml import key_lines
from tests.properties.tomlgen import documents
from tests.properties.tomlgen import dumps


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = []
    if isinstance(data, dict):
        for k, v in data.items():
            found.append(prefix + (k,))
            found.extend(paths(v, prefix + (k,)))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found.append(prefix + (i,))
            found.extend(paths(v, prefix + (i,)))
    return found


@given(documents)
def test_every_key_path_has_its_line(data: dict[str, Any]) -> None:
    source = dumps(data)
    parsed = tomli.loads(source)
    lines = key_lines(source)
    source_lines = source.splitlines()
    for path in paths(parsed):
        assert path in lines, path
        assert 1 <= lines[path] <= len(source_lines)
