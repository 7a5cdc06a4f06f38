"""Mirror of `errata.toml`: known issues with a shipped case version."""

from __future__ import annotations

import datetime
import re
from typing import Annotated
from typing import Literal

from pydantic import AfterValidator
from pydantic import ConfigDict
from pydantic import WithJsonSchema
from pydantic import model_validator

from pytest_tcab.models.base import StrictModel
from pytest_tcab.models.fields import Text

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# taplo hands a TOML date to the schema as its YYYY-MM-DD text, so one pattern reads both spellings.
_DATE_SCHEMA = {"type": "string", "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"}


def _iso_date(value: str | datetime.date) -> str | datetime.date:
    if isinstance(value, datetime.datetime):
        # pydantic reports a ValueError as the author's mistake; a TypeError would be ours.
        raise ValueError("must be a date (YYYY-MM-DD), not a date-time")  # noqa: TRY004
    if isinstance(value, str):
        try:
            if not _DATE.fullmatch(value):
                raise ValueError
            datetime.date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a date in the form YYYY-MM-DD") from None
    return value


class Erratum(StrictModel):
    """A known issue, acknowledged without cutting a new version."""

    model_config = ConfigDict(json_schema_extra={
        "if": {"properties": {"exclude_from_score": {"const": True}}, "required": ["exclude_from_score"]},
        "then": {"required": ["review"]},
    })

    id: Text
    """Stable slug, unique within the file."""
    title: Text
    """Required: the issue's heading."""
    body: Text
    """Markdown prose."""
    date: Annotated[str | datetime.date, AfterValidator(_iso_date), WithJsonSchema(_DATE_SCHEMA)] | None = None
    """Optional date shown on the site, YYYY-MM-DD (a TOML date or a string; not a date-time)."""
    severity: Literal["info", "minor", "major"] = "minor"
    """A badge only (no effect on the score): `info`, `minor` or `major`; default `minor`."""
    affects_scoring: bool = False
    """An advisory reviewers weigh by hand."""
    resolved_in: str | None = None
    """Optional: the version the issue is (or will be) fixed in; it need not exist yet."""
    variant: str | None = None
    """Scopes the erratum to one declared variant."""
    review: str | None = None
    """A verdict id of the checklist: `item`, `item.sub` or `category.item`."""
    exclude_from_score: bool = False
    """Removes the linked `review` point from scoring."""

    @model_validator(mode="after")
    def _exclusion_needs_a_point(self) -> Erratum:
        if self.exclude_from_score and self.review is None:
            raise ValueError(
                "`exclude_from_score = true` needs a `review` link naming the point to exclude"
            )
        return self


class ErrataFile(StrictModel):
    """`errata.toml` beside a manifest, auto-discovered."""

    erratum: list[Erratum] = []
    """Known issues with this shipped version, each an `[[erratum]]` table."""
