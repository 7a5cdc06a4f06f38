"""The editor schemas and the models agree: a document built from a model's own fields, with values
on both sides of each rule (and now and then a stray key, a key left out, a value of another type),
is accepted by the model exactly when its JSON Schema accepts it.

The documents are what TOML can hold, less the known gaps a JSON Schema cannot state:
- no null (TOML has none, and the schemas drop it);
- no infinite or NaN floats (JSON has none; the plugin refuses them where a positive number is asked);
- no whole-valued float for an integer key (`ms = 3.0`: an integer to JSON Schema, a float to the plugin);
- no impossible calendar day in an erratum's `date` (`2026-02-30` matches the pattern; the plugin refuses it).
"""

from __future__ import annotations

import datetime
import types
import typing
from typing import Annotated
from typing import Any
from typing import Literal
from typing import Union

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import TypeAdapter
from pydantic import ValidationError

from pytest_tcab.schemas.generate import FILE_KINDS
from pytest_tcab.schemas.generate import schemas

STRINGS = (
    "carom-classic", "a", "ok_id", "x1", "9lives", "A", "a-", "-a", "a--b", "Bad Slug", "", "  ", "a.b", "é",
    "v1.0.0", "1.0.0", "specs/x.md", "specs/x.md.hbs", "reference/gameplay.html", "reference/menu.HTM",
    "media/intro.mp4", "proof/title.png", "proof/clip.webm", "shot.JPEG", "x.gif", ".png", "a/.png",
    "clip.mov", "/abs/path", "C:/x", "c:x", "\\\\srv\\x", "alloc", "memory", "entry", "__carom", "$x",
    "window.x", "2026-07-17", "2026-13-01", "2026-07-17T00:00:00Z", "smoke", "stress", "easy", "image",
    "video", "functional", "spec", "script", "Space", "npm ci", "cases/large.json", "@test-cabinet/x",
)
TEXT = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126) | st.sampled_from("\t\né"),
               max_size=12)
ODD_VALUES = st.sampled_from([1, "x", True, 1.5, [], {}, ["x"], {"x": 1}])
"""A value of another type than the key asks for."""
_STRAY = st.sampled_from(["dificulty", "nmae", "x"])


def values(annotation: Any, depth: int, slip: int) -> st.SearchStrategy[Any]:
    """Values of a field's type: ones the field takes, and one in `slip` any of its type's (never, for
    a `slip` of 0); the model and the schema decide which is which."""
    base = annotation
    while typing.get_origin(base) is Annotated:
        base = typing.get_args(base)[0]
    origin = typing.get_origin(base)
    if origin in (Union, types.UnionType):
        branches = [arg for arg in typing.get_args(base) if arg is not type(None)]
        return st.one_of([values(arg, depth, slip) for arg in branches])
    if origin is Literal:
        return _slipping(list(typing.get_args(base)), st.sampled_from([*typing.get_args(base), "bogus"]), slip)
    if origin is list:
        (item,) = typing.get_args(base) or (Any,)
        return st.lists(values(item, depth + 1, slip), max_size=2 if depth < 2 else 0)
    if origin is dict:
        key, value = typing.get_args(base)
        return st.dictionaries(values(key, depth + 1, slip), values(value, depth + 1, slip), max_size=2)
    if isinstance(base, type) and issubclass(base, BaseModel):
        return documents(base, depth + 1, slip)
    if base is bool:
        return st.booleans()
    if base is datetime.date:
        return st.dates().map(str)  # taplo hands a TOML date to the schema as its text
    if base is Any:
        return st.sampled_from([1, "x", True, 0.5, [1], {"a": 1}])
    pools = {str: (STRINGS, TEXT), int: (INTS, st.integers()),
             float: (FLOATS, st.floats(allow_nan=False, allow_infinity=False))}
    if base not in pools:
        raise AssertionError(f"no strategy for {annotation!r}")  # a new field type: teach the property
    pool, anything = pools[base]
    return _slipping(_taken(annotation, pool), st.sampled_from(pool) | anything, slip)


def _slipping(taken: list[Any], anything: st.SearchStrategy[Any], slip: int) -> st.SearchStrategy[Any]:
    if not taken:
        return anything
    if not slip:
        return st.sampled_from(taken)
    return st.integers(0, slip - 1).flatmap(lambda n: st.sampled_from(taken) if n else anything)


INTS = (-1, 0, 1, 2, 3, 60, 600_000, 600_001, 2**32, 2**32 + 1, 2**63 - 1, 2**63)
FLOATS = (0, 1, 2, -1.0, 0.0, 0.5, 1.0, 2.5, 1e6, 1e6 + 1)


def _taken(annotation: Any, pool: tuple[Any, ...]) -> list[Any]:
    """The values of `pool` a field of `annotation` takes, by the model's own rules."""
    adapter = TypeAdapter(annotation, config=ConfigDict(strict=True))
    taken = []
    for value in pool:
        try:
            adapter.validate_python(value)
        except ValidationError:
            continue
        taken.append(value)
    return taken


def documents(model: type[BaseModel], depth: int, slip: int) -> st.SearchStrategy[dict[str, Any]]:
    """A table of `model`'s keys, each present (a required one always, for a `slip` of 0), and one in
    `slip` a stray key or a value of another type."""

    def chance(draw: st.DrawFn) -> bool:
        return bool(slip) and draw(st.integers(0, slip - 1)) == 0

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        table: dict[str, Any] = {}
        for name, field in model.model_fields.items():
            if chance(draw) if field.is_required() else draw(st.booleans()):
                continue
            annotation = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
            table[name] = draw(ODD_VALUES if chance(draw) else values(annotation, depth, slip))
        if chance(draw):
            table[draw(_STRAY)] = draw(ODD_VALUES)
        return table

    return build()


def any_document(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    """A document of `model`: valid-shaped throughout, or with a mistake in one of 40 or 8 places."""
    return st.sampled_from([0, 40, 8]).flatmap(lambda slip: documents(model, 0, slip))


CASES = [(kind.filename, model) for kind in FILE_KINDS for model in dict.fromkeys(kind.models.values())]


def _model_schema(filename: str, model: type[BaseModel]) -> dict[str, Any]:
    """The schema of `model` as its file kind's schema holds it (the root table, or an entry of `$defs`)."""
    document = schemas()[filename]
    if model.__name__ in document["$defs"]:
        return {"$defs": document["$defs"], "$ref": f"#/$defs/{model.__name__}"}
    return document


def _ecma(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """`pattern` read as ECMA-262 reads it (and taplo): `$` ends the string, not a final line break."""
    import re

    if isinstance(instance, str) and not re.search(pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern,
                                                   instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _ecma})
VALIDATORS = {(filename, model): Validator(_model_schema(filename, model)) for filename, model in CASES}


@pytest.mark.parametrize(("filename", "model"), CASES, ids=lambda case: getattr(case, "__name__", case))
@given(data=st.data())
def test_schema_and_model_agree_on_accept_or_reject(filename: str, model: type[BaseModel],
                                                     data: st.DataObject) -> None:
    document = data.draw(any_document(model))
    try:
        model.model_validate(document)
        accepted = True
    except ValidationError as exc:
        accepted, why = False, exc
    errors = [error.message for error in VALIDATORS[filename, model].iter_errors(document)]
    if accepted:
        assert not errors, f"the model accepts it, the schema refuses it: {errors}"
    else:
        assert errors, f"the schema accepts it, the model refuses it: {why}"
