"""Node ids that match their own saved form, on every supported pytest.

pytest >= 9.2 keys `--lf`, `--ff` and xdist reports on structured ids (`_pytest.nodeid.NodeId`)
parsed from the saved strings, where a `[...]` suffix becomes the parameters. An item built
from a name like `check[title]` gets one opaque name instead, so the id `--lf` reads back never
equals the live one. Our items take the parsed form of their own id, as a parametrized test's
id is built, so `str(id)` is unchanged and the comparison holds. Only a leaf may carry
brackets: pytest splits a command-line id at its first `[`, so a collector named with one
could never be selected by id.
"""

from __future__ import annotations

from typing import Any

import pytest

try:
    from _pytest.nodeid import NodeId  # pytest >= 9.2
except ImportError:  # pragma: no cover - pytest < 9.2 compares plain strings
    NodeId = None


def match_saved_form(item: pytest.Item) -> None:
    """Give `item` the id pytest parses from its saved string (a no-op before pytest 9.2)."""
    if NodeId is not None:
        node: Any = item
        node._id = NodeId.parse(item.nodeid)
