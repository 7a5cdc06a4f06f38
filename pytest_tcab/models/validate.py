"""Validate a TOML document against its mirror, speaking TOML to the author.

pydantic collects every shape error at once; this module turns each into a `Problem` at
the line of the offending key, in TOML words ("table", "array", "unknown key"), with a
hint of what would be right (the closest known key, the allowed values).
"""

from __future__ import annotations

import copy
import datetime
import difflib
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import Generic
from typing import Literal
from typing import Optional
from typing import TypeVar

from pydantic import BaseModel
from pydantic import ValidationError
from pydantic import create_model
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


@dataclass(frozen=True)
class Partial(Generic[M]):
    """A document validated as far as it goes: the model without what failed, and what failed."""

    model: M | None
    """Built from the document less each failing entry; None when a required key failed (and the
    caller did not ask for `lenient` keys)."""
    problems: list[Problem]
    dropped: frozenset[str]
    """The ids (`id`, `view`, `slug`) of the array entries left out, so cross-reference rules can tell
    a link to a broken entry (already reported) from a link to nothing."""
    missing: frozenset[str] = frozenset()
    """Required top-level keys that failed and are None in `model` (`lenient` validation only):
    the rules that read them do not run, and nothing is built that needs them."""


_PRUNE_ROUNDS = 8
"""Dropping an entry can empty an array that must not be empty; each round drops one level more."""


def validate_partial(model: type[M], doc: TomlDocument, *, root_keys: frozenset[str] = frozenset(),
                     lenient: bool = False) -> Partial[M]:
    """Like `validate`, but a shape problem in one table does not cost the rules of the others.

    Every problem is reported; the model is then built from the document less what failed: an
    unknown key is ignored, an optional key that failed falls back to its default, and an array
    entry that failed is left out. With `lenient`, a required top-level key that failed (a
    missing `name`, a `[build]` without `install`) is None in the model and named in `missing`.
    Rules whose inputs validated still run on that model.
    """
    found, problems = validate(model, doc, root_keys=root_keys)
    if found is not None:
        return Partial(found, problems, frozenset())
    data = copy.deepcopy(doc.data)
    dropped: set[str] = set()
    missing: set[str] = set()
    target: type[M] = model
    for _ in range(_PRUNE_ROUNDS):
        try:
            return Partial(target.model_validate(data), problems, frozenset(dropped), frozenset(missing))
        except ValidationError as exc:
            cuts: set[KeyPath] = set()
            for error in exc.errors(include_url=False):
                cut = _cut(target, error)
                top = error["loc"][0] if error["loc"] else None
                if cut is None and lenient and isinstance(top, str) and top in model.model_fields:
                    missing.add(top)
                    cut = (top,)
                if cut is None:
                    return Partial(None, problems, frozenset(dropped))  # only the whole document holds it
                cuts.add(cut)
            for cut in sorted(cuts, key=_deepest_last):
                _remove(data, cut, dropped)
            if missing:
                target = _with_optional(model, frozenset(missing))
    return Partial(None, problems, frozenset(dropped))


@functools.lru_cache(maxsize=64)
def _with_optional(model: type[M], names: frozenset[str]) -> type[M]:
    """`model` with the required fields `names` made optional (None): a model to run rules on."""
    fields: dict[str, Any] = {name: (Optional[model.model_fields[name].annotation], None)  # noqa: UP045
                              for name in names}
    return create_model(model.__name__, __base__=model, **fields)


def _cut(model: type[BaseModel], error: ErrorDetails) -> KeyPath | None:
    """The deepest entry to leave out so that `error` goes away: the key itself when it is unknown
    or optional, else the array entry holding it; None when only the whole document holds it."""
    loc = error["loc"]
    if error["type"] == "extra_forbidden":
        return _toml_key(model, loc)[0]
    for end in range(len(loc), 0, -1):
        key, owner = _toml_key(model, loc[:end])
        if not key:
            continue
        last = key[-1]
        if isinstance(last, int):
            return key
        field = owner.model_fields.get(last) if owner is not None else None
        if field is not None and not field.is_required() and not (error["type"] == "missing" and end == len(loc)):
            return key
    return None


def _deepest_last(key: KeyPath) -> tuple[int, ...]:
    """Remove deeper keys, then later array entries, first: the indices still to use stay valid."""
    return (-len(key), *(-part if isinstance(part, int) else 0 for part in key))


def _remove(data: Any, key: KeyPath, dropped: set[str]) -> None:
    holder = data
    for part in key[:-1]:
        try:
            holder = holder[part]
        except (KeyError, IndexError, TypeError):
            return  # already gone with an enclosing entry
    last = key[-1]
    try:
        removed = holder[last]
        del holder[last]
    except (KeyError, IndexError, TypeError):
        return
    if isinstance(removed, Mapping):
        dropped.update(str(removed[name]) for name in ("id", "view", "slug") if isinstance(removed.get(name), str))


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
    problem = _shape_problem(model, doc, error, root_keys)
    category = _category_of(doc, problem.key)
    if category is None or problem.message.startswith("category "):
        return problem
    if error["type"] == "too_short" and problem.key[-1:] == ("items",):
        message = f"category {category!r} holds no items; a category must hold at least one"
    else:
        message = f"category {category!r}: {problem.message}"
    return Problem(problem.path, problem.line, problem.key, message, problem.hint)


def _category_of(doc: TomlDocument, key: KeyPath) -> str | None:
    """The id of the `[[review.categories]]` entry a problem is about (not about one of its items)."""
    for at in range(len(key) - 1):
        if key[at] != "categories" or not isinstance(key[at + 1], int):
            continue
        rest = key[at + 2 :]
        if len(rest) >= 2 and rest[0] == "items" and isinstance(rest[1], int):
            return None  # about one of its items, which the key path names
        holder: Any = doc.data
        for part in key[: at + 2]:
            try:
                holder = holder[part]
            except (KeyError, IndexError, TypeError):
                return None
        found = holder.get("id") if isinstance(holder, Mapping) else None
        return found if isinstance(found, str) else None
    return None


def _shape_problem(
    model: type[BaseModel], doc: TomlDocument, error: ErrorDetails, root_keys: frozenset[str]
) -> Problem:
    key, owner = _toml_key(model, error["loc"])
    kind = error["type"]
    value = error.get("input")
    if kind == "missing":
        parent, name = key[:-1], key[-1]
        return doc.problem(parent, f"missing required key `{name}`", _missing_hint(owner, parent, str(name)))
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

_UPSTREAM_ONLY: dict[str, frozenset[str]] = {
    "Manifest": frozenset({"engines", "engine", "toolchain", "asset_kind", "tool", "canvas", "voxel", "model"}),
    "PerformanceManifest": frozenset({"engines", "engine", "toolchain"}),
    "CategoryItem": frozenset({"domains", "failure_cap"}),
    "Validation": frozenset({"kind"}),
}
"""Keys the public Test Cabinet has and pytest-tcab does not support yet (DESIGN "Real catalogs")."""


def _unknown_key(
    doc: TomlDocument, key: KeyPath, owner: type[BaseModel] | None, root_keys: frozenset[str]
) -> Problem:
    name = str(key[-1])
    table = key[:-1]
    owner_name = owner.__name__ if owner is not None else ""
    if (owner_name, name) in _EXPLAINED:
        message, hint = _EXPLAINED[owner_name, name]
        return doc.problem(key, message, hint)
    if name in _UPSTREAM_ONLY.get(owner_name, frozenset()):
        return doc.problem(key, f"unknown key `{name}`",
                           f"`{name}` is a key of the public Test Cabinet that pytest-tcab does not support yet; "
                           "remove it to resolve the case here")
    if owner_name == "Category":
        category = _category_of(doc, key)
        return doc.problem(
            key,
            f"category {category or '?'!r} carries only `id`, `title` and its `items`; `{name}` is not allowed here",
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


def _missing_hint(owner: type[BaseModel] | None, table: KeyPath, name: str) -> str | None:
    """What to write, and where: `add changelog = "..." above the first table header`."""
    if owner is None or name not in owner.model_fields:
        return None
    annotation = owner.model_fields[name].annotation
    where = _where_to_add(table)
    models = _models_in(annotation)
    if models and _container(annotation) is None:
        header = format_key_path(tuple(p for p in table if isinstance(p, str)) + (name,))
        keys = [key for key, info in models[0].model_fields.items() if info.is_required()]
        return f"add a [{header}] table" + (f" with {', '.join(keys)}" if keys else "")
    container = _container(annotation)
    if container is not None and container[0] is list:
        example = "[...]"
    elif container is not None:
        example = "{ ... }"
    elif (choices := _literals(annotation)):
        shown = [f'"{c}"' if isinstance(c, str) else str(c) for c in choices]
        return f"add `{name} = {shown[0]}` {where}" + (f" (one of {', '.join(shown)})" if len(shown) > 1 else "")
    else:
        example = _EXAMPLES.get(_scalar(annotation) or object, "...")
    return f"add `{name} = {example}` {where}"


def _literals(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) is Literal:
        return typing.get_args(annotation)
    for arg in typing.get_args(annotation):
        if (found := _literals(arg)):
            return found
    return ()


_EXAMPLES: dict[type, str] = {str: '"..."', bool: "true", int: "1", float: "1"}


def _scalar(annotation: Any) -> type | None:
    """The scalar type under `Annotated[...]` and `| None`."""
    if isinstance(annotation, type):
        return annotation
    for arg in typing.get_args(annotation):
        found = _scalar(arg)
        if found is not None:
            return found
    return None


def _where_to_add(table: KeyPath) -> str:
    if not table:
        return "at the top of the file, above the first table header"
    if isinstance(table[-1], int):
        header = format_key_path(tuple(p for p in table if isinstance(p, str)))
        return f"to this [[{header}]] entry"
    return f"under [{format_key_path(table)}]"


def _toml_type(value: object) -> str:
    for kind, words in _TOML_TYPES.items():
        if type(value) is kind:
            return words
    return type(value).__name__


def _show(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
