"""The strict pydantic base every TOML mirror derives from."""

from __future__ import annotations

from pydantic import BaseModel
from pydantic import ConfigDict


class StrictModel(BaseModel):
    """A TOML table: unknown keys are errors, values keep their TOML types, nothing mutates."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        use_attribute_docstrings=True,
        populate_by_name=True,
    )
