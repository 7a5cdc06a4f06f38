"""bounded: head and tail kept around an exact count of what was cut, in bytes of UTF-8."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.bounded import LIST_LIMIT
from pytest_tcab.bounded import TEXT_LIMIT
from pytest_tcab.bounded import HeadTail
from pytest_tcab.bounded import append_bounded
from pytest_tcab.bounded import bound
from pytest_tcab.bounded import bound_bytes
from pytest_tcab.bounded import bound_tree

MARKER = re.compile(r"\n\[(\d+) bytes truncated\]\n")


def test_a_short_text_is_itself() -> None:
    text = "é" * (TEXT_LIMIT // 2)  # TEXT_LIMIT bytes exactly
    assert bound(text) is text


def test_a_long_text_keeps_its_headline_and_its_last_words() -> None:
    text = "build failed: `make` exited 2\n" + "noise\n" * 100_000 + "error: the real reason\n"
    cut = bound(text)
    assert cut.startswith("build failed: `make` exited 2\n")
    assert cut.endswith("error: the real reason\n")
    assert len(cut.encode()) <= TEXT_LIMIT


@given(st.text(min_size=0, max_size=400), st.integers(min_value=40, max_value=300))
def test_the_count_is_exact_and_the_cap_holds(text: str, limit: int) -> None:
    cut = bound(text, limit)
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        assert cut == text
        return
    assert len(cut.encode("utf-8", "surrogatepass")) <= limit
    match = MARKER.search(cut)
    assert match is not None
    head, tail = cut[: match.start()], cut[match.end() :]
    assert text.startswith(head) and text.endswith(tail)
    kept = len(head.encode("utf-8", "surrogatepass")) + len(tail.encode("utf-8", "surrogatepass"))
    assert int(match.group(1)) == len(data) - kept


def test_bytes_are_decoded_and_bounded() -> None:
    assert bound_bytes(b"ok \xff") == "ok \ufffd"
    assert MARKER.search(bound_bytes(b"x" * (TEXT_LIMIT + 1)))


def test_a_tree_is_bounded_in_keys_values_and_entries() -> None:
    long = "k" * (TEXT_LIMIT + 1)
    tree = bound_tree({long: [long, {"n": 1, "s": long}], "short": "s"})
    (key,) = [k for k in tree if k != "short"]
    assert MARKER.search(key)
    assert all(len(t.encode()) <= TEXT_LIMIT for t in (tree[key][0], tree[key][1]["s"]))
    assert tree[key][1]["n"] == 1 and tree["short"] == "s"


def test_a_stream_holds_at_most_its_limit() -> None:
    stream = HeadTail(100)
    stream.add(b"HEAD" + b"x" * 10_000)
    for _ in range(1000):
        stream.add(b"y" * 997)
    stream.add(b"TAIL")
    text = stream.text()
    assert text.startswith("HEAD") and text.endswith("TAIL")
    assert MARKER.search(text).group(1) == str(4 + 10_000 + 997_000 + 4 - 100)  # type: ignore[union-attr]


def test_a_short_stream_is_whole_even_across_a_character() -> None:
    stream = HeadTail(8)
    stream.add("ab€".encode()[:3])
    stream.add("ab€".encode()[3:])
    assert stream.text() == "ab€"


def test_a_stream_of_texts_keeps_its_first_entries() -> None:
    texts: list[str] = []
    for i in range(LIST_LIMIT + 50):
        append_bounded(texts, f"error {i}")
    assert len(texts) == LIST_LIMIT + 1
    assert texts[0] == "error 0" and texts[-1] == f"[entries past the first {LIST_LIMIT} dropped]"
