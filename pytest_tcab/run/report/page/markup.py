"""The one escape every part of index.html goes through, and the attributes filters select by.

Everything in a sweep document came partly from produced runs (messages, labels, model names,
item ids), so every text and attribute value is escaped here, bounded first; a media path
becomes a relative link (or a `file:` URI), never another scheme a run could choose.
"""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pytest_tcab.bounded import bound
from pytest_tcab.run.media import page_link

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def e(value: object) -> str:
    """`value` as HTML text or attribute value (quotes escaped too)."""
    return escape(bound(str(value if value is not None else "")), quote=True)


def group_attributes(cell: dict[str, Any]) -> str:
    """The attributes by which the filters show or hide an element of one group (and case)."""
    return (f'data-group="" data-case="{e(cell.get("case") or "")}" data-harness="{e(cell.get("harness") or "")}"'
            f' data-model="{e(cell.get("model") or "")}"')


def media_url(path: object, out_dir: Path | None) -> str | None:
    """A media path as a link from index.html in `out_dir`: relative and percent-encoded, or a
    `file:` URI; None for anything else (a path that names another scheme)."""
    if not isinstance(path, str) or not path:
        return None
    link = page_link(path, out_dir) if out_dir is not None else Path(path).as_posix()
    if link.startswith("file:"):
        return link
    if _SCHEME.match(link):  # a relative path cannot name a scheme: `javascript:` is refused
        return None
    return quote(link)


def json_island(value: Any) -> str:
    """`value` as JSON that is safe inside a `<script type="application/json">` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


# -- tables: sorted by page.js on each cell's data-sort -----------------------------------------


def sortable_table(head: list[str], rows: list[str], table_id: str) -> str:
    heading = "".join(f'<th scope="col">{e(name)}</th>' for name in head)
    return f'<table class="sortable" id="{table_id}"><thead><tr>{heading}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def text_cell(text: object, sort: object = None) -> str:
    return f'<td data-sort="{e(text if sort is None else sort)}">{e(text)}</td>'


def number_cell(value: float | None, digits: int = 0) -> str:
    if value is None:
        return '<td class="num" data-sort="-1">-</td>'
    shown = f"{value:,.{digits}f}" if digits else f"{value:,}" if isinstance(value, int) else f"{value:,.0f}"
    return f'<td class="num" data-sort="{value}">{e(shown)}</td>'
