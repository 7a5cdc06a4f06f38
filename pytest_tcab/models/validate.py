"""Validate a TOML document against its mirror, speaking TOML to the author.

pydantic collects every shape error at once; this module turns each into a `Problem` at
the line of the offending key, in TOML words ("table", "array", "unknown key"), with a
hint of what would be right (the closest known key, the allowed values).
"""

from __future__ import annotations

import datetime
import difflib
import types
import typing
from collections.abc import Mapping
from typing import Any
from typing import TypeVar

from pydantic import BaseModel
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.errors import format_key_path
from pytest_tcab.toml import TomlDocument

M = TypeVar("M", bound=BaseModel)

_TOML_TYPES: dict[type, str] = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    list: "an array",
    dict: "a table",
    datetime.datetime: "a date-time",
    datetime.date: "a date",
    datetime.time: "a time",
}

_EXPECTED: dict[str, str] = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean (true or false)",
    "list_type": "an array",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "dict_type": "a table",
    "date_type": "a date",
}


def validate(
    model: type[M],
    doc: TomlDocument,
    *,
    root_keys: frozenset[str] = frozenset(),
) -> tuple[M | None, list[Problem]]:
    """Build `model` from `doc`; on failure return every shape problem, located.

    `root_keys` names the document's top-level keys, so a root key found inside a table
    (written after a table header) is explained as such rather than as an unknown key.
    """
    try:
        return model.model_validate(doc.data), []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        misspelt = {_misspelling(model, error) for error in errors} - {None}
        return None, [
            _problem(model, doc, error, root_keys)
            for error in errors
            # A misspelt required key is both unknown and missing: the unknown-key problem
            # already names the missing key, so the echo is dropped.
            if not (error["type"] == "missing" and _toml_key(model, error["loc"])[0] in misspelt)
        ]


def _misspelling(model: type[BaseModel], error: ErrorDetails) -> KeyPath | None:
    """For an unknown key close to a known one, the key path it was probably meant to be."""
    if error["type"] != "extra_forbidden":
        return None
    key, owner = _toml_key(model, error["loc"])
    close = _closest(str(key[-1]), owner)
    return key[:-1] + (close,) if close else None


def _closest(name: str, owner: type[BaseModel] | None) -> str | None:
    known = sorted(owner.model_fields) if owner is not None else []
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return close[0] if close else None


def _problem(
    model: type[BaseModel], doc: TomlDocument, error: ErrorDetails, root_keys: frozenset[str]
) -> Problem:
    key, owner = _toml_key(model, error["loc"])
    kind = error["type"]
    value = error.get("input")
    if kind == "missing":
        parent, name = key[:-1], key[-1]
        return doc.problem(
            parent,
            f"missing required key `{name}`",
            _field_doc(owner, str(name)),
        )
    if kind == "extra_forbidden":
        return _unknown_key(doc, key, owner, root_keys)
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tags = error.get("ctx", {}).get("expected_tags", "")
        if kind == "union_tag_not_found":
            return doc.problem(key, "missing `type`", f"one of {tags}")
        return doc.problem(key + ("type",), f"unknown type {value!r}" if not isinstance(value, Mapping) else f"unknown type {value.get('type')!r}", f"one of {tags}")
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        return doc.problem(key, f"{_show(value)} is not allowed", f"use one of {expected}")
    if kind in _EXPECTED:
        return doc.problem(key, f"must be {_EXPECTED[kind]}, not {_toml_type(value)} ({_show(value)})")
    if kind == "value_error":
        message = str(error.get("ctx", {}).get("error", error["msg"]))
        return doc.problem(key, message)
    if kind in ("too_short", "string_too_short"):
        what = "array" if isinstance(value, list) else "value"
        return doc.problem(key, f"this {what} must not be empty")
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return doc.problem(key, f"{_show(value)} is out of range: {error['msg'].lower().replace('input ', '')}")
    return doc.problem(key, f"{error['msg']} (got {_show(value)})")


_EXPLAINED: dict[tuple[str, str], tuple[str, str]] = {
    ("VariantReview", "format"): (
        "a variant file must not repeat `format`",
        "the format is declared once, in test-case.toml; remove it here",
    ),
    ("CategoryItem", "domain"): (
        "the categories grammar attaches no domain to a point",
        "keep [[domain]] for the per-domain ratings and name the category after its mode",
    ),
}
"""Unknown keys that are a known mistake, with what the author should do instead."""


def _unknown_key(
    doc: TomlDocument, key: KeyPath, owner: type[BaseModel] | None, root_keys: frozenset[str]
) -> Problem:
    name = str(key[-1])
    table = key[:-1]
    owner_name = owner.__name__ if owner is not None else ""
    if (owner_name, name) in _EXPLAINED:
        message, hint = _EXPLAINED[owner_name, name]
        return doc.problem(key, message, hint)
    if owner_name == "Category":
        return doc.problem(
            key,
            f"a category carries only `id`, `title` and its `items`; `{name}` is not allowed here",
            f"put `{name}` on the category's items",
        )
    if table and name in root_keys:
        header = format_key_path(tuple(p for p in table if isinstance(p, str)))
        return doc.problem(
            key,
            f"`{name}` is a root key, but it was written after the `[{header}]` header, "
            f"so TOML put it inside that table",
            f"move `{name} = ...` above the first table header of the file",
        )
    close = _closest(name, owner)
    known = sorted(owner.model_fields) if owner is not None else []
    if close:
        return doc.problem(key, f"unknown key `{name}`", f"did you mean `{close}`?")
    return doc.problem(key, f"unknown key `{name}`", f"known keys: {', '.join(known)}" if known else None)


def _toml_key(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[KeyPath, type[BaseModel] | None]:
    """Drop pydantic's union-tag segments from `loc` and find the model that owns the last key."""
    key: list[str | int] = []
    current: Any = model
    owner: type[BaseModel] | None = model
    for part in loc:
        if part == "[key]" and key:  # after a dict key: that key failed validation (at the root, a key so named)
            continue
        container = _container(current)
        if container is not None:
            key.append(part)
            current = container[1]
            continue
        models = _models_in(current)
        named = next((m for m in models if isinstance(part, str) and part in m.model_fields), None)
        if named is None:
            tagged = [m for m in models if _tag_of(m) == part]
            if tagged:  # the discriminator segment pydantic inserts for a tagged union
                current = owner = tagged[0]
                continue
            key.append(part)
            owner = models[0] if models else None
            current = None
            continue
        key.append(part)
        owner = named
        current = named.model_fields[str(part)].annotation
    return tuple(key), owner


def _container(annotation: Any) -> tuple[type, Any] | None:
    """`(list, item type)` or `(dict, value type)` for an (optional, annotated) array or table."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _container(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        found = [c for c in map(_container, typing.get_args(annotation)) if c is not None]
        return found[0] if found else None
    if origin is list:
        return (list, typing.get_args(annotation)[0])
    if origin is dict:
        return (dict, typing.get_args(annotation)[1])
    return None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if _container(annotation) is not None:
        return []
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    return found


def _tag_of(model: type[BaseModel]) -> str | None:
    field = model.model_fields.get("type")
    if field is None:
        return None
    args = typing.get_args(field.annotation)
    return args[0] if args and isinstance(args[0], str) else None


def _field_doc(owner: type[BaseModel] | None, name: str) -> str | None:
    if owner is None or name not in owner.model_fields:
        return None
    return owner.model_fields[name].description


def _toml_type(value: object) -> str:
    for kind, words in _TOML_TYPES.items():
        if type(value) is kind:
            return words
    return type(value).__name__


def _show(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
