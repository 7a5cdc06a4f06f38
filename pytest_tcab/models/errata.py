"""Mirror of `errata.toml`: known issues with a shipped case version."""

from __future__ import annotations

import datetime
import re
from typing import Annotated
from typing import Literal

from pydantic import AfterValidator
from pydantic import model_validator

from pytest_tcab.models.base import StrictModel
from pytest_tcab.models.fields import Text

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


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

    id: Text
    """Stable slug, unique within the file."""
    title: Text
    body: Text
    """Markdown prose."""
    date: Annotated[str | datetime.date, AfterValidator(_iso_date)] | None = None
    severity: Literal["info", "minor", "major"] = "minor"
    affects_scoring: bool = False
    """An advisory reviewers weigh by hand."""
    resolved_in: str | None = None
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
