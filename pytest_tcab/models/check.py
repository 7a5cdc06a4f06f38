"""`[[check]]` tables and their action grammar (DESIGN "[[check]] actions")."""

from __future__ import annotations

from typing import Annotated
from typing import Any
from typing import Literal

from pydantic import Field

from pytest_tcab.models.base import StrictModel

NonNegativeMs = Annotated[int, Field(ge=0, le=600_000)]


class Wait(StrictModel):
    """Pause for `ms` milliseconds."""

    type: Literal["wait"]
    """`wait`: pause for `ms` milliseconds."""
    ms: NonNegativeMs
    """Milliseconds to pause (0 to 600000)."""


class Key(StrictModel):
    """Press one key (a Playwright key name such as `Space` or `ArrowUp`)."""

    type: Literal["key"]
    """`key`: press one key."""
    key: Annotated[str, Field(min_length=1)]
    """A Playwright key name, such as `Space` or `ArrowUp`."""


class Hold(StrictModel):
    """Hold a key down for `ms` milliseconds."""

    type: Literal["hold"]
    """`hold`: hold a key down for `ms` milliseconds."""
    key: Annotated[str, Field(min_length=1)]
    """A Playwright key name, such as `Space` or `ArrowUp`."""
    ms: NonNegativeMs
    """Milliseconds to hold it (0 to 600000)."""


class Click(StrictModel):
    """Click at logical pixels of the viewport."""

    type: Literal["click"]
    """`click`: click at logical pixels of the viewport."""
    x: Annotated[float, Field(ge=0)]
    """Logical pixels from the viewport's left edge (0 or more)."""
    y: Annotated[float, Field(ge=0)]
    """Logical pixels from the viewport's top edge (0 or more)."""


class Call(StrictModel):
    """Call a method of the instrumentation handle, e.g. `window.__carom.reset()`."""

    type: Literal["call"]
    """`call`: call a method of the instrumentation handle."""
    op: Annotated[str, Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")]
    """The handle's method to call: a plain identifier (`reset` for `window.__carom.reset()`)."""
    args: list[Any] = []
    """Arguments passed to the method (default none)."""


Action = Annotated[Wait | Key | Hold | Click | Call, Field(discriminator="type")]


class Check(StrictModel):
    """An opt-in visual comparison of the driven build against a reference view."""

    view: Annotated[str, Field(min_length=1)]
    """The view this check records under."""
    name: str | None = None
    """Display name; defaults to the humanized view slug."""
    reference: str | None = None
    """The reference view whose rendered screenshot is the baseline; defaults to `view`."""
    actions: list[Action] = []
    """What drives the build into the view before the capture (empty: on load)."""

    @property
    def baseline_view(self) -> str:
        return self.reference if self.reference is not None else self.view
