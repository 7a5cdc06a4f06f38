"""Writing TOML for property tests: any nested value, as headers or inline (tomli reads both)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st


def string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


key = string


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def dumps(data: dict[str, Any]) -> str:
    """Scalars and inline values first, then `[table]` and `[[array]]` sections."""
    lines = [f"{key(k)} = {value(v)}" for k, v in data.items() if not _sectioned(v)]
    for k, v in data.items():
        if isinstance(v, dict) and _sectioned(v):
            lines.append(f"[{key(k)}]")
            lines.extend(f"{key(ik)} = {value(iv)}" for ik, iv in v.items())
        elif isinstance(v, list) and _sectioned(v):
            for element in v:
                lines.append(f"[[{key(k)}]]")
                lines.extend(f"{key(ik)} = {value(iv)}" for ik, iv in element.items())
    return "\n".join(lines) + "\n"


def _sectioned(v: Any) -> bool:
    return (isinstance(v, dict) and bool(v)) or (isinstance(v, list) and bool(v) and all(isinstance(e, dict) for e in v))


names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
scalars = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats()
    | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=4),
    max_leaves=12,
)
documents = st.dictionaries(names, values, max_size=6)
