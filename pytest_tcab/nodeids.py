"""Node ids that match their own saved form, on every supported pytest.

pytest >= 9.2 keys `--lf`, `--ff` and xdist reports on structured ids (`_pytest.nodeid.NodeId`)
parsed from the saved strings, where a `[...]` suffix becomes the parameters. An item built
from a name like `check[title]` gets one opaque name instead, so the id `--lf` reads back never
equals the live one. Our items take the parsed form of their own id, as a parametrized test's
id is built, so `str(id)` is unchanged and the comparison holds. Only a leaf may carry
brackets: pytest splits a command-line id at its first `[`, so a collector named with one
could never be selected by id.

Ids are unique in a session: an IDE explorer keys its tree on them, and two items sharing one
would run together and report once. A name a collector already gave an item (two variant files
declaring one slug) is ranked: `resolve[base~2]`, `slug[2]` (a kind stays its name's head). Collection order is stable, so the rank is too,
and the id selects that item again.
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from typing import Self

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


_names_key = pytest.StashKey["Counter[str]"]()


def own_name(parent: pytest.Collector, name: str) -> str:
    """`name`, ranked when an item of `parent` already has it (`check[title~2]`, `slug[2]`)."""
    taken = parent.stash.setdefault(_names_key, Counter())
    taken[name] += 1
    rank = taken[name]
    if rank == 1:
        return name
    return f"{name[:-1]}~{rank}]" if name.endswith("]") else f"{name}[{rank}]"


class OwnName:
    """A tcab item's `from_parent`: its name made its own among its parent's (`own_name`)."""

    @classmethod
    def from_parent(cls, parent: pytest.Collector, **kwargs: Any) -> Self:
        kwargs["name"] = own_name(parent, kwargs["name"])
        made: Self = super().from_parent(parent, **kwargs)  # type: ignore[misc]
        return made
