"""Every name a template uses, checked against the shape of its context, taken branch or not.

Rendering finds a misspelt name only on the path one context takes: the `{{else}}` of an
`{{#if}}` that held, the body of an `{{#each}}` over an empty list, never render. The shape of
each context (the names it holds, what its lists hold) is known whatever the values, so every
path of the template is checked against it, and a typo in a rarely taken branch fails at
authoring time, at the template's line.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import TypeAlias

from pytest_tcab.templates import _LINE_HELPER
from pytest_tcab.templates import StrictTemplate
from pytest_tcab.templates import TemplateError
from pytest_tcab.templates import _display


@dataclass(frozen=True)
class ListOf:
    """A list whose every element has the shape `item`."""

    item: Shape


Shape: TypeAlias = "Mapping[str, Shape] | ListOf | None"
"""A table of names, a list, or a plain value (None: it has no fields)."""

_HELPERS = frozenset({"eq", "lookup", "log", _LINE_HELPER})
_EACH_DATA = frozenset({"@index", "@key", "@first", "@last"})
_ANY = ListOf(None)
"""What an `{{#each}}` over a table yields: values whose shape the check does not follow."""


@dataclass(frozen=True)
class _Scope:
    shape: Shape
    each: bool
    """Opened by `{{#each}}`, where `@index`, `@key`, `@first` and `@last` exist."""


def unknown_name(template: StrictTemplate, shape: Shape) -> TemplateError | None:
    """The first name of `template`, on any of its paths, that `shape` does not hold."""
    walker = _Walker(template.name)
    try:
        walker.nodes(template.tree, [_Scope(shape, each=False)])
    except TemplateError as error:
        return error
    return None


class _Walker:
    def __init__(self, name: str) -> None:
        self.name = name
        self.line: int | None = None

    def nodes(self, tree: list[Any], scopes: list[_Scope]) -> None:
        for node in tree[1:]:
            kind = node[0]
            if kind in ("expand", "escapedexpand"):
                _, (_, segments), args = node
                if segments[:1] == [_LINE_HELPER]:
                    self.line = args[0][1]
                elif args or segments[0] in _HELPERS:
                    self.params(args, scopes)
                else:
                    self.path(segments, scopes)
            elif kind in ("block", "invertedblock"):
                self.block(node, scopes)

    def block(self, node: tuple[Any, ...], scopes: list[_Scope]) -> None:
        _, symbol, args, body, otherwise = node[:5]
        self.params(args, scopes)
        inner = scopes
        if symbol in ("each", "with") and args and args[0][0] == "path":
            found = self.path(args[0][1], scopes)
            if symbol == "with":
                inner = scopes + [_Scope(found, each=False)]
            elif isinstance(found, ListOf):
                inner = scopes + [_Scope(found.item, each=True)]
            else:
                inner = scopes + [_Scope(_ANY, each=True)]
        elif symbol not in _HELPERS and symbol not in ("if", "unless", "each", "with") and not args:
            found = self.path([symbol], scopes)  # a section: {{#name}}…{{/name}}
            inner = scopes + [_Scope(found.item if isinstance(found, ListOf) else found, each=False)]
        if node[0] == "invertedblock":
            inner = scopes  # {{^name}} renders when the value is empty: the scope is unchanged
        self.nodes(body, inner)
        if otherwise:
            self.nodes(otherwise, scopes)

    def params(self, args: list[Any], scopes: list[_Scope]) -> None:
        for arg in args:
            if arg[0] == "path":
                self.path(arg[1], scopes)
            elif arg[0] == "subexpr":
                self.params(arg[2], scopes)
            elif arg[0] == "kwparam":
                self.params([arg[2]], scopes)

    def path(self, segments: list[str], scopes: list[_Scope]) -> Shape:
        depth = len(scopes) - 1
        current = scopes[depth].shape
        for index, segment in enumerate(segments):
            if segment in ("", "this"):
                continue
            if segment == "@root":
                depth, current = 0, scopes[0].shape
            elif segment in ("@_parent", "@@_parent"):
                depth = max(depth - 1, 0)
                current = scopes[depth].shape
            elif segment in _EACH_DATA:
                if not scopes[depth].each:
                    raise self._error(segments, index, current, "@index, @key, @first and @last exist only "
                                      "inside {{#each}}")
                return None
            elif current is _ANY:
                return _ANY
            elif isinstance(current, Mapping) and segment in current:
                current = current[segment]
            elif isinstance(current, ListOf) and (segment == "length" or segment.isdigit()):
                current = None if segment == "length" else current.item
            else:
                raise self._error(segments, index, current, None)
        return current

    def _error(self, segments: list[str], index: int, holder: Shape, hint: str | None) -> TemplateError:
        path = _display(tuple(segments))
        done = _display(tuple(segments[:index]))
        fields = sorted(holder) if isinstance(holder, Mapping) else (["length"] if isinstance(holder, ListOf) else [])
        subject = f"'{done}'" if done else "the current item"
        if fields:
            known = f"{f'resolved up to {done!r}; ' if done else ''}available: {', '.join(fields)}"
        else:
            known = f"{subject} is a value with no fields"
        if hint is None:
            close = difflib.get_close_matches(segments[index], fields, n=1)
            hint = f"did you mean '{_display(tuple(segments[:index]) + (close[0],))}'?" if close else None
        return TemplateError(self.name, self.line, f"unknown variable '{path}' in a branch this context does not "
                             f"render ({known})", hint)
