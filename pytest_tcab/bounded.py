"""Bounded text: whatever a build, a page, a driver or a module wrote is capped before it is kept.

The graded code chooses its own output; a 20 MB note would otherwise be copied into the
terminal, JUnit, results.json and report.html, and held many times over in memory. A capped
text keeps its head and its tail around a `[N bytes truncated]` marker: the head holds the
headline (what failed), the tail the last words of a log (why).
"""

from __future__ import annotations

from typing import Any

TEXT_LIMIT = 64 * 1024
"""The default cap of one text, in UTF-8 bytes, marker included."""

LIST_LIMIT = 100
"""How many entries of a stream of texts (page errors, console lines) are kept."""

_MAX_UTF8 = 4
"""The most bytes one character takes in UTF-8: a text this many times shorter than the cap fits."""


def bound(text: str, limit: int = TEXT_LIMIT) -> str:
    """`text`, or its head and tail around `[N bytes truncated]` when its UTF-8 form is longer than `limit`."""
    if len(text) * _MAX_UTF8 <= limit:
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    return _cut(data, limit)


def bound_bytes(data: bytes, limit: int = TEXT_LIMIT) -> str:
    """Bytes a process or a module wrote, decoded (bad UTF-8 replaced) and bounded like `bound`."""
    if len(data) <= limit:
        return data.decode("utf-8", "replace")
    return _cut(data, limit)


def _cut(data: bytes, limit: int) -> str:
    marker_room = len(f"\n[{len(data)} bytes truncated]\n")
    keep = max(limit - marker_room, 2)
    head = data[: keep - keep // 2].decode("utf-8", "ignore")  # a character cut in two is dropped
    tail = data[len(data) - keep // 2 :].decode("utf-8", "ignore")
    dropped = len(data) - len(head.encode("utf-8", "surrogatepass")) - len(tail.encode("utf-8", "surrogatepass"))
    return f"{head}\n[{dropped} bytes truncated]\n{tail}"


def bound_tree(value: Any, limit: int = TEXT_LIMIT) -> Any:
    """`value` with every string in it (dict keys and values, list entries, nested) bounded."""
    if isinstance(value, str):
        return bound(value, limit)
    if isinstance(value, dict):
        return {bound_tree(key, limit): bound_tree(item, limit) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(bound_tree(item, limit) for item in value)
    return value


def append_bounded(texts: list[str], text: str) -> None:
    """Append `text` bounded to a stream of texts that keeps its first `LIST_LIMIT` entries."""
    if len(texts) < LIST_LIMIT:
        texts.append(bound(text))
    elif len(texts) == LIST_LIMIT:
        texts.append(f"[entries past the first {LIST_LIMIT} dropped]")


class HeadTail:
    """A byte stream kept as its first and last `limit // 2` bytes, counting what fell between.

    Reading a process's output through it holds at most `limit` bytes however much it printed.
    """

    def __init__(self, limit: int = TEXT_LIMIT) -> None:
        self._head_room = limit - limit // 2
        self._tail_room = limit // 2
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0

    def add(self, chunk: bytes) -> None:
        take = min(len(chunk), self._head_room - len(self._head))
        self._head += chunk[:take]
        self._tail += chunk[take:]
        excess = len(self._tail) - self._tail_room
        if excess > 0:
            del self._tail[:excess]
            self._dropped += excess

    def text(self) -> str:
        if not self._dropped:
            return (self._head + self._tail).decode("utf-8", "replace")
        head = self._head.decode("utf-8", "replace")
        tail = self._tail.decode("utf-8", "replace")
        return f"{head}\n[{self._dropped} bytes truncated]\n{tail}"
