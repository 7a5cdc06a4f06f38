"""Constrained value types shared by the TOML mirrors, each failing with words an author can act on."""

from __future__ import annotations

import math
import re
from typing import Annotated
from typing import Any

from pydantic import AfterValidator
from pydantic import Field

_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_VERSION = re.compile(r"v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


def is_kebab(value: str) -> bool:
    return _KEBAB.fullmatch(value) is not None


def _kebab(value: str) -> str:
    if not is_kebab(value):
        raise ValueError(
            f"{value!r} is not a kebab-case token: use lowercase letters and digits, "
            "with single hyphens between them (e.g. 'carom-classic')"
        )
    return value


def _id(value: str) -> str:
    if not _ID.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a valid id: use letters, digits, '-' and '_', starting with a "
            "letter or digit (no dots: dots join composite verdict ids such as 'item.sub')"
        )
    return value


def _identifier(value: str) -> str:
    if not _IDENTIFIER.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a plain JavaScript identifier (letters, digits, '_' and '$', "
            "not starting with a digit; no 'window.' prefix, no dots)"
        )
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or blank")
    return value


def _finite_positive(value: float) -> float:
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"must be a positive number, not {value!r}")
    return value


def is_version(value: str) -> bool:
    return _VERSION.fullmatch(value) is not None


def shown(**keywords: Any) -> Any:
    """The JSON Schema keywords of a rule a validator enforces: the editor schemas are generated
    from these models (pytest_tcab/schemas), and a validator is invisible to them.

    Patterns are ECMA-262 (what taplo and every JSON Schema tool read), so none uses `\\d` or lookaround.
    """
    return Field(json_schema_extra=keywords)


NOT_BLANK = r"\S"
"""A pattern a string matches when it holds something other than whitespace."""


KebabSlug = Annotated[str, AfterValidator(_kebab), shown(pattern="^[a-z0-9]+(-[a-z0-9]+)*$")]
"""A stable kebab-case identity: lowercase letters, digits, single hyphens."""

Id = Annotated[str, AfterValidator(_id), shown(pattern="^[A-Za-z0-9][A-Za-z0-9_-]*$")]
"""A stable id recorded with verdicts and results; never contains a dot."""

Identifier = Annotated[str, AfterValidator(_identifier), shown(pattern="^[A-Za-z_$][A-Za-z0-9_$]*$")]
"""A plain JavaScript identifier, such as a window property name."""

Text = Annotated[str, AfterValidator(_not_blank), shown(pattern=NOT_BLANK)]
"""Prose or a command that must say something."""

RelPath = Annotated[str, AfterValidator(_not_blank), shown(pattern=NOT_BLANK)]
"""A path relative to the version folder; containment and existence are resolution rules."""

PositiveNumber = Annotated[float, AfterValidator(_finite_positive), shown(exclusiveMinimum=0)]
"""A finite number above zero (an integer is accepted)."""

Weight = Annotated[float, AfterValidator(_finite_positive), Field(le=1_000_000), shown(exclusiveMinimum=0)]
"""Points an item is worth: above zero."""
