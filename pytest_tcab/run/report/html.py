"""report.html: results.json laid out for a person, one section per run.

The page is one file with its CSS inline and no script. Its media are reached one of two ways
(`--tcab-report`): linked (the default), by their paths relative to the output folder, where
they already sit beside the page, so copying the folder keeps the page whole and the page stays
small; or self-contained, embedded as data: URIs, so the one file can be moved anywhere. An
embedded medium is bounded (`media.EMBED_LIMIT`, and `EMBED_BUDGET` for all of them), since what
a build wrote has no size of its own; one left out is named in its place, with why.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pytest_tcab.bounded import bound
from pytest_tcab.run.media import EMBED_LIMIT
from pytest_tcab.run.media import base64_text
from pytest_tcab.run.media import embeddable
from pytest_tcab.run.media import is_video
from pytest_tcab.run.media import mime_type
from pytest_tcab.run.media import page_link
from pytest_tcab.run.media import size_text

REPORT_FILE = "report.html"
LINKED, SELF_CONTAINED = "linked", "self-contained"
"""The forms of report.html (`--tcab-report`)."""
EMBED_BUDGET = 64 * 2**20
"""What the embedded media of one self-contained report may take together."""

OUTCOME_ORDER = ("failed", "over-ceiling", "passed", "recorded", "excluded", "skipped")
"""How counts are listed: what needs attention first."""

_CSS = """
:root { --ink: #1d2330; --muted: #647084; --line: #dfe3ea; --card: #fff; --page: #f3f5f8;
  --passed: #1f8a4c; --failed: #c62f3a; --skipped: #8a6d00; --over-ceiling: #c46a00;
  --excluded: #6b4fb3; --recorded: #4f6b8a; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--ink); background: var(--page); }
header.top { background: #141a26; color: #e8ecf3; padding: 18px 32px; }
header.top h1 { margin: 0; font-size: 20px; font-weight: 600; }
header.top p { margin: 4px 0 0; color: #9aa6ba; font-size: 13px; }
main { max-width: 1320px; margin: 0 auto; padding: 24px 32px 48px; }
section.run { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  margin-bottom: 28px; overflow: hidden; }
.run-head { padding: 18px 22px; border-bottom: 1px solid var(--line);
  border-left: 6px solid var(--passed); }
.run-head.bad { border-left-color: var(--failed); }
.run-head h2 { margin: 0 0 2px; font-size: 22px; }
.run-head .meta { color: var(--muted); font-size: 13px; }
.run-head .meta b { color: var(--ink); font-weight: 600; }
.counts { margin-top: 10px; display: flex; gap: 8px; flex-wrap: wrap; }
.count { border-radius: 999px; padding: 2px 12px; font-weight: 600; font-size: 13px; color: #fff; }
.part { padding: 16px 22px; border-bottom: 1px solid var(--line); }
.part:last-child { border-bottom: 0; }
.part > h3 { margin: 0 0 12px; font-size: 13px; text-transform: uppercase; letter-spacing: .06em;
  color: var(--muted); }
.badge { display: inline-block; border-radius: 4px; padding: 0 7px; font-size: 12px;
  font-weight: 700; color: #fff; text-transform: uppercase; letter-spacing: .03em;
  vertical-align: 2px; }
.passed { background: var(--passed); } .failed { background: var(--failed); }
.skipped { background: var(--skipped); } .over-ceiling { background: var(--over-ceiling); }
.excluded { background: var(--excluded); } .recorded { background: var(--recorded); } .other { background: var(--muted); }
.item { margin-bottom: 18px; } .item:last-child { margin-bottom: 0; }
.item-head { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap;
  margin-bottom: 8px; }
.item-head .name { font-weight: 600; font-size: 16px; }
.figure { color: var(--muted); font-size: 13px; } .figure b { color: var(--ink); }
.message { white-space: pre-wrap; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace;
  background: #fdf1f2; border: 1px solid #f3c9cd; color: #7a1c24; border-radius: 6px;
  padding: 8px 10px; margin: 0 0 10px; }
.message.note { background: #fbf7e8; border-color: #eadfae; color: #5c4a00; }
.trio { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; }
.replays { display: grid; grid-template-columns: repeat(auto-fill, minmax(440px, 1fr)); gap: 12px;
  margin-top: 12px; }
.gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 12px; }
figure { margin: 0; } figcaption { font-size: 12px; color: var(--muted); margin-bottom: 4px; }
figure img, figure video { width: 100%; display: block; border: 1px solid var(--line);
  border-radius: 6px; background: #0d0f14; }
.missing { border: 1px dashed var(--line); border-radius: 6px; padding: 24px; text-align: center;
  color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { height: 10px; background: #e6e9ef; border-radius: 5px; overflow: hidden;
  margin: 6px 0 12px; max-width: 520px; }
.bar > span { display: block; height: 100%; background: var(--passed); }
details { margin-top: 8px; } summary { cursor: pointer; color: var(--muted); font-size: 13px; }
pre.log { background: #141a26; color: #d5dbe6; padding: 10px 12px; border-radius: 6px;
  overflow: auto; max-height: 420px; font-size: 12px; margin: 6px 0 12px; }
.figure + table { margin-top: 10px; }
.pair { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; margin-top: 10px; }
.pair img.pixels { image-rendering: pixelated; background: repeating-conic-gradient(#d8dce4 0 25%, #fff 0 50%)
  0 0 / 16px 16px; max-height: 320px; object-fit: contain; }
.frames { display: flex; gap: 6px; flex-wrap: wrap; margin-top: 6px; }
.frames img { width: 64px; }
audio { width: 100%; margin-bottom: 6px; }
.trust { margin-bottom: 16px; }
.trust .alarm { background: var(--failed); color: #fff; font-weight: 600; padding: 8px 12px; border-radius: 6px; }
code { font: 13px ui-monospace, Menlo, Consolas, monospace; }
"""


def write_report(data: dict[str, Any], out_dir: Path, form: str = LINKED) -> Path:
    """Write `out_dir/report.html` from the results.json `data` and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / REPORT_FILE
    path.write_text(render(data, Media(out_dir, form == SELF_CONTAINED)), encoding="utf-8")
    return path


def render(data: dict[str, Any], media: Media) -> str:
    """The whole page; its media are reached as `media` says (linked, or embedded)."""
    tools = ", ".join(f"{name} {version}" for name, version in data.get("tool", {}).items())
    runs = data.get("runs", [])
    title = _e(_title(runs))
    body = "".join(_run(run, media) for run in runs)
    if not body:
        body = '<p class="missing">No run items were recorded.</p>'
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f'<header class="top"><h1>{title}</h1><p>{_e(tools)}</p>{media.summary()}</header>\n'
        f"<main>\n{_trust(data)}{body}</main>\n</body>\n</html>\n"
    )


class Media:
    """How the page reaches the media results.json names: linked by their paths relative to the
    page, or embedded as data: URIs (each at most `EMBED_LIMIT`, all together `EMBED_BUDGET`)."""

    def __init__(self, out_dir: Path, self_contained: bool = False, budget: int = EMBED_BUDGET) -> None:
        self.out_dir = out_dir
        self.self_contained = self_contained
        self.budget = budget
        self.embedded = 0
        """Bytes embedded so far."""
        self._urls: dict[str, str | None] = {}
        self.left_out: dict[str, str] = {}
        """Each medium a self-contained page leaves out, with why."""

    def url(self, path: str) -> str | None:
        """`path` as the page's escaped URL; None when a self-contained page leaves it out (`missing`)."""
        if not self.self_contained:
            return _href(path, self.out_dir)
        if path not in self._urls:
            self._urls[path] = self._embed(path)
        return self._urls[path]

    def _embed(self, path: str) -> str | None:
        content = embeddable(path, EMBED_LIMIT)
        if isinstance(content, bytes) and self.embedded + len(content) > self.budget:
            content = (f"{size_text(len(content))} is more than is left of the {size_text(self.budget)} "
                       "the report's embedded media may take together")
        if isinstance(content, str):
            self.left_out[path] = content
            return None
        self.embedded += len(content)
        return f"data:{mime_type(path)};base64,{base64_text(content)}"

    def missing(self, path: str) -> str:
        """What stands in place of a medium the page left out: why, and where the medium is."""
        where = page_link(path, self.out_dir)
        return (f'<div class="missing">not embedded: {_e(self.left_out.get(path, "?"))}; it is '
                f"<code>{_e(where)}</code> in the results folder</div>")

    def summary(self) -> str:
        """One header line of a self-contained page: what it embeds and what it leaves out."""
        if not self.self_contained:
            return ""
        left = f"; {len(self.left_out)} left out (named in place)" if self.left_out else ""
        return f"<p>self-contained: {size_text(self.embedded)} of media embedded{left}</p>"


def _trust(data: dict[str, Any]) -> str:
    """What the graded code was confined by, first on the page: a warning when it was not."""
    from pytest_tcab.run.sandbox.sandbox import summary_line
    from pytest_tcab.run.sandbox.snapshot import SUITE_CHANGED

    lines: list[tuple[bool, str]] = []
    sandbox = data.get("sandbox")
    if sandbox:
        lines.append((not sandbox["sandboxed"], summary_line(sandbox)))
    changed = data.get("suite_changed")
    if changed:
        lines.append((True, f"FAILED: {SUITE_CHANGED}: {'; '.join(changed)}"))
    if not lines:
        return ""
    rows = "".join(f'<p class="{"alarm" if alarm else "figure"}">{_e(text)}</p>' for alarm, text in lines)
    return f'<section class="trust">{rows}</section>\n'


def _title(runs: list[dict[str, Any]]) -> str:
    if len(runs) != 1:
        return f"Test Cabinet report: {len(runs)} runs"
    run = runs[0]
    return f"Test Cabinet report: {run.get('case')} {run.get('version')} #{run.get('variant')}"


def _e(value: object) -> str:
    return escape(bound(str(value)), quote=True)


def _get(item: dict[str, Any], key: str) -> str:
    """An item's text field, escaped; empty when absent."""
    return _e(item.get(key) or "")


# -- one run ---------------------------------------------------------------------------------


def _run(run: dict[str, Any], media: Media) -> str:
    counts = run.get("counts", {})
    bad = any(counts.get(word) for word in ("failed", "over-ceiling"))
    words = sorted(counts, key=lambda w: OUTCOME_ORDER.index(w) if w in OUTCOME_ORDER else 99)
    badges = "".join(f'<span class="count {_css(w)}">{counts[w]} {_e(w)}</span>' for w in words)
    head = (
        f'<div class="run-head{" bad" if bad else ""}">'
        f"<h2>{_get(run, 'case')} <small>{_get(run, 'version')}</small></h2>"
        f'<div class="meta">variant <b>{_get(run, "variant")}</b> · engine'
        f" <b>{_get(run, 'engine')}</b> · run <b>{_get(run, 'run')}</b> ·"
        f" <code>{_get(run, 'source')}</code></div>"
        f'<div class="counts">{badges}</div></div>'
    )
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for item in run.get("items", []):
        by_kind.setdefault(item.get("kind", "other"), []).append(item)

    def each(kind: str, render_one: Callable[[dict[str, Any]], str]) -> str:
        return "".join(render_one(item) + _debugging(item, media) for item in by_kind.pop(kind, []))

    parts = [
        _part("Score", _score(run["score"])) if "score" in run else "",
        _part("Review", _review(run["review"])) if "review" in run else "",
        _part("Domains", _domains(run["domains"], run.get("review"))) if "domains" in run else "",
        _part("Performance", _performance(run["performance"], by_kind))
        if "performance" in run else "",
        _part("Tournament", _tournament(run["tournament"], by_kind, media))
        if "tournament" in run else "",
        _part("Build", each("build", _build)),
        _part("Checks", each("check", lambda item: _check(item, media))),
        _part("Validation verdicts", each("validate", lambda item: _verdict(item, media))),
        _part("Requirements", _requirements(run.get("requirements"))
              + each("requirement", lambda item: _requirement(item, media))),
        _part("Proofs", _gallery(each("proof", lambda item: _proof(item, media)))),
        _part("Assets", each("asset", lambda item: _asset(item, media))),
        _part("Errata", _errata(run.get("errata", []))),
    ]
    others = [item for group in by_kind.values() for item in group]
    parts.append(_part("Other items", "".join(_item(item, "") for item in others)))
    return f'<section class="run">{head}{"".join(parts)}</section>\n'


def _part(title: str, content: str) -> str:
    return f'<div class="part"><h3>{_e(title)}</h3>{content}</div>' if content else ""


def _css(outcome: str) -> str:
    return outcome if outcome in OUTCOME_ORDER else "other"


def _badge(outcome: str) -> str:
    return f'<span class="badge {_css(outcome)}">{_e(outcome)}</span>'


def _item(item: dict[str, Any], figures: str, *content: str) -> str:
    """One item: its outcome, its name (the node id's last part), figures, why, then `content`."""
    name = str(item.get("nodeid", "")).rpartition("::")[2]
    name = name or f"{item.get('kind')}[{item.get('id')}]"
    head = (
        f'<div class="item-head">{_badge(item.get("outcome", "?"))}'
        f'<span class="name">{_e(name)}</span>{figures}</div>'
    )
    return f'<div class="item">{head}{_message(item)}{"".join(content)}</div>'


def _message(item: dict[str, Any]) -> str:
    text = item.get("message")
    if not text or item.get("outcome") == "passed":
        return ""
    note = " note" if item.get("outcome") in ("skipped", "excluded", "recorded") else ""
    return f'<pre class="message{note}">{_e(text)}</pre>'


def _table(headers: Iterable[str], rows: Iterable[Iterable[str]],
           numeric: Iterable[int] = ()) -> str:
    """A table of already-escaped cells; `numeric` columns are right-aligned."""
    right = set(numeric)

    def cell(tag: str, index: int, text: str) -> str:
        return f'<{tag} class="num">{text}</{tag}>' if index in right else f"<{tag}>{text}</{tag}>"

    head = "".join(cell("th", i, _e(h)) for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(cell("td", i, text) for i, text in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


# -- media -----------------------------------------------------------------------------------


def _href(path: str, out_dir: Path) -> str:
    """`path` as the report's escaped URL."""
    link = page_link(path, out_dir)
    return _e(link if link.startswith("file:") else quote(link))


def _media(path: str | None, label: str, media: Media, kind: str | None = None, poster: str | None = None) -> str:
    """A still or clip under `label` (markup, already escaped); a placeholder when not recorded.

    A clip shows its `poster` frame until it is played.
    """
    if not path:
        missing = '<div class="missing">not recorded</div>'
        return f"<figure><figcaption>{label}</figcaption>{missing}</figure>"
    src = media.url(path)
    if src is None:
        element = media.missing(path)
    elif kind == "video" or is_video(path):
        poster_url = media.url(poster) if poster else None
        shown = f' poster="{poster_url}"' if poster_url else ""
        element = f'<video src="{src}"{shown} controls muted loop preload="metadata"></video>'
    else:
        element = _opens(f'<img src="{src}" alt="" loading="lazy">', src, media)
    return f"<figure><figcaption>{label}</figcaption>{element}</figure>"


def _opens(image: str, src: str, media: Media) -> str:
    """A linked image opens its file when clicked; an embedded one is already all there is."""
    return image if media.self_contained else f'<a href="{src}">{image}</a>'


def _image(path: str, attributes: str, media: Media) -> str:
    """An `<img>` of `path` with `attributes` (already escaped), or why it was left out."""
    src = media.url(path)
    return media.missing(path) if src is None else f'<img src="{src}" {attributes}>'


def _link(path: str, text: str, media: Media) -> str:
    """A link to a file (`text` already escaped); an embedded one downloads under its name."""
    src = media.url(path)
    if src is None:
        return media.missing(path)
    download = f' download="{_e(Path(path).name)}"' if media.self_contained else ""
    return f'<a href="{src}"{download}>{text}</a>'


def _debugging(item: dict[str, Any], media: Media) -> str:
    """What a browser item kept for debugging it: the page when it failed, its Playwright trace."""
    shot = _media(item["failure_screenshot"], "the page when it failed", media) if item.get("failure_screenshot") else ""
    trace = (f'<p class="figure">trace: {_link(item["trace"], _get(item, "trace"), media)} '
             "(<code>playwright show-trace</code>)</p>") if item.get("trace") else ""
    return f'<div class="item debug">{trace}{_gallery(shot)}</div>' if shot or trace else ""


def _gallery(figures: str) -> str:
    return f'<div class="gallery">{figures}</div>' if figures else ""


# -- item kinds ------------------------------------------------------------------------------


def _check(item: dict[str, Any], media: Media) -> str:
    figures = ""
    if "similarity" in item:
        figures = (
            f'<span class="figure">similarity <b>{item["similarity"]:.2%}</b> ·'
            f" {item.get('differing_pixels', 0):,} pixels differ · baseline"
            f" <code>{_get(item, 'baseline')}</code> · {_get(item, 'viewport')}</span>"
        )
    note = ""
    if item.get("size_note"):
        note = f'<pre class="message note">{_get(item, "size_note")}</pre>'
    trio = ""
    if any(item.get(key) for key in ("expected", "actual", "diff")):
        trio = (
            '<div class="trio">'
            + _media(item.get("expected"), "expected", media)
            + _media(item.get("actual"), "actual", media)
            + _media(item.get("diff"), "diff (differing pixels in red)", media)
            + "</div>"
        )
    return _item(item, figures, note, trio)


def _proof(item: dict[str, Any], media: Media) -> str:
    badge = _badge(item.get("outcome", "?"))
    label = f"{badge} {_get(item, 'id')} · <code>{_get(item, 'dest')}</code>"
    if not item.get("present"):
        why = _e(item.get("message") or "not written")
        return f'<figure><figcaption>{label}</figcaption><div class="missing">{why}</div></figure>'
    return _media(item.get("media"), label, media, item.get("media_kind"))


def _verdict(item: dict[str, Any], media: Media) -> str:
    figures = f'<span class="figure">driver <code>{_get(item, "script")}</code></span>'
    lines = []
    if item.get("excluded_by"):
        lines.append(f"excluded from the score by erratum <b>{_get(item, 'excluded_by')}</b>")
    if item.get("notes") and item["notes"] not in str(item.get("message", "")):
        lines.append(f"notes: {_get(item, 'notes')}")
    lines.extend(f"the page threw: {_e(error)}" for error in item.get("page_errors", []))
    rows = []
    for shown in item.get("media", []):
        output, kind = _get(shown, "output"), shown.get("kind")
        pair = _media(shown.get("path"), f"{output} ({_e(kind)}): observed", media, kind, shown.get("poster"))
        if shown.get("baseline"):  # expected | observed, as the reviewer sees them
            pair = _media(shown["baseline"], f"{output}: expected (committed baseline)", media, kind,
                          shown.get("baseline_poster")) + pair
        rows.append(f'<div class="trio">{pair}</div>')
    text = "".join(f'<p class="figure">{line}</p>' for line in lines)
    return _item(item, figures if item.get("script") else "", text, *rows)


def _requirements(summary: dict[str, Any] | None) -> str:
    """The score line: passed over decided, with a bar."""
    if not summary:
        return ""
    decided, passed = summary.get("decided", 0), len(summary.get("passed", []))
    share = passed / decided if decided else 0.0
    score = f"score <b>{share:.0%}</b>" if decided else "<b>no score</b>: nothing was decided automatically"
    return (f'<div class="figure">{score} · {passed} passed of {decided} decided · '
            f'{len(summary.get("pending", []))} left for the reviewer</div>'
            f'<div class="bar"><span style="width:{share:.1%}"></span></div>')


def _requirement(item: dict[str, Any], media: Media) -> str:
    """A requirement's text and kind, each validator's verdict, and the page it left."""
    figures = (f'<span class="figure">{_get(item, "requirement_kind")} · specification '
               f'<code>{_get(item, "specification")}</code></span>')
    text = f'<p>{_get(item, "text")}</p>' if item.get("text") else ""
    rows = []
    stills = []
    for run in item.get("decided_by", []):
        verdict = {True: "pass", False: "fail", None: "left open"}.get(run.get("verdict"), "?")
        if run.get("error"):
            verdict = "could not decide"
        rows.append((f"<code>{_get(run, 'validator')}</code>", _e(verdict), _get(run, "notes") or "-"))
        stills.append(_media(run.get("media"), f"page after <code>{_get(run, 'validator')}</code>", media))
    table = _table(("validator", "verdict", "notes"), rows) if rows else ""
    return _item(item, figures, text, table, _gallery("".join(stills)))


def _asset(item: dict[str, Any], media: Media) -> str:
    """Shapes side by side (figure | reference | produced), then each side's previews."""
    figures = (f'<span class="figure">{_get(item, "asset_kind")} <code>{_get(item, "asset")}</code>'
               f' read as {_get(item, "format")}</span>')
    reference, produced = item.get("reference") or {}, item.get("produced") or {}
    rows = [(_e(_figure_name(name)), _e(_shown(reference.get(name))), _e(_shown(produced.get(name))))
            for name in dict.fromkeys([*reference, *produced])]
    table = _table(("figure", "reference", "produced"), rows) if rows else ""
    previews = item.get("previews") or {}
    played = item.get("played")
    sides = "".join(
        _asset_side(previews.get(side), f"{label} <code>{_get(item, path)}</code>", media,
                    played if side == "produced" else None)
        for side, label, path in (("reference", "reference", "reference_path"),
                                  ("produced", "produced", "produced_path")))
    return _item(item, figures, table, f'<div class="pair">{sides}</div>' if previews else "")


def _figure_name(key: str) -> str:
    """`duration_s` -> `duration (s)`, `peak_dbfs` -> `peak (dBFS)`, `visible_share` -> `visible share`."""
    for suffix, unit in (("_dbfs", "dBFS"), ("_s", "s")):
        if key.endswith(suffix):
            return f"{key.removesuffix(suffix).replace('_', ' ')} ({unit})"
    return key.replace("_", " ")


def _shown(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return " x ".join(str(v) for v in value) if all(isinstance(v, int) for v in value) else str(value)
    return str(value)


def _asset_side(shown: dict[str, Any] | None, label: str, media: Media, played: dict[str, Any] | None) -> str:
    """One side of an asset: the file as a page shows it (image, audio player), and its pictures."""
    if not shown:
        return f'<figure><figcaption>{label}</figcaption><div class="missing">not produced</div></figure>'
    file = str(shown["file"])
    src = media.url(file)
    suffix = Path(file).suffix.lower()
    parts = []
    if src is None:
        parts.append(media.missing(file))
    elif suffix in (".png", ".webp", ".gif", ".jpg", ".jpeg"):
        parts.append(_opens(f'<img class="pixels" src="{src}" alt="">', src, media))
    elif suffix in (".wav", ".flac", ".ogg"):
        parts.append(f'<audio controls preload="none" src="{src}"></audio>')
    else:
        parts.append(f'<p class="figure">{_link(file, _e(Path(file).name), media)}</p>')
    if shown.get("waveform"):
        parts.append(_image(shown["waveform"], 'alt="waveform"', media))
    if shown.get("front"):
        parts.append(_image(shown["front"], 'class="pixels" alt="front view"', media))
    if shown.get("frames"):
        frames = "".join(_image(frame, f'class="pixels" alt="frame {n + 1}"', media)
                         for n, frame in enumerate(shown["frames"]))
        parts.append(f'<div class="frames">{frames}</div>')
    if played and played.get("picture"):
        parts.append(f'<p class="figure">played once: peak <b>{played.get("peak")}</b> particles at '
                     f'{float(played.get("peak_s") or 0):.2f} s; ended '
                     f'{_e(_ended(played.get("ended_s")))}</p>'
                     + _image(played["picture"], 'alt="busiest frame"', media))
    if shown.get("note"):
        parts.append(f'<p class="figure">{_get(shown, "note")}</p>')
    return f'<figure><figcaption>{label}</figcaption>{"".join(parts)}</figure>'


def _ended(seconds: object) -> str:
    return f"at {float(seconds):.2f} s" if isinstance(seconds, (int, float)) else "not within the bound"


def _build(item: dict[str, Any]) -> str:
    steps = []
    for step in item.get("steps", []):
        state = "timed out" if step.get("timed_out") else f"exit {step.get('returncode')}"
        steps.append(
            f'<div class="figure"><code>$ {_get(step, "command")}</code> · {_e(state)}'
            f" · {step.get('duration_s', 0):.2f} s{_e(_confinement(step))}</div>"
            f'<pre class="log">{_get(step, "output") or "(no output)"}</pre>'
        )
    log = ""
    if steps:
        count = f"{len(steps)} step{'' if len(steps) == 1 else 's'}"
        # A failed build's log is the first thing to read: it starts open.
        opened = "" if item.get("outcome") == "passed" else " open"
        log = f"<details{opened}><summary>build log ({count})</summary>{''.join(steps)}</details>"
    passed = item.get("outcome") == "passed" and item.get("message")
    figures = f'<span class="figure">{_get(item, "message")}</span>' if passed else ""
    return _item(item, figures, log)


def _confinement(step: dict[str, Any]) -> str:
    """What a build step ran in, as its results.json entry says (nothing for older results)."""
    if "sandbox" not in step:
        return ""
    if step["sandbox"] == "none":
        return " · NOT SANDBOXED"
    return f" · {step['sandbox']}, {'network' if step.get('network') else 'no network'}"


# -- run-level blocks ------------------------------------------------------------------------


def _score(score: dict[str, Any]) -> str:
    """The automated score (earned over the points a validator decided) beside every declared point."""
    earned, available = float(score.get("earned", 0)), float(score.get("available", 0))
    declared = float(score.get("declared", available))
    parts = [f"<b>{earned:g}</b> of <b>{available:g}</b> automated points earned",
             f"{float(score.get('failed_weight', 0)):g} failed automatically",
             f"<b>{declared:g}</b> declared",
             f"{float(score.get('pending_weight', 0)):g} left for the reviewer"]
    share = earned / available if available else 0.0
    failed = score.get("failed", [])
    failed_line = (f'<p class="figure">failed automatically: <b>{_e(", ".join(failed))}</b></p>'
                   if failed else "")
    rows = [
        (_get(row, "id"), f"{float(row.get('earned', 0)):g}", f"{float(row.get('available', 0)):g}",
         f"{float(row.get('declared', row.get('available', 0))):g}",
         _e(", ".join(row.get("pending", [])) or "-"),
         _e(", ".join(row.get("excluded", [])) or "-"))
        for row in score.get("items", [])
    ]
    headers = ("item", "earned", "decided automatically", "declared", "left for the reviewer", "excluded")
    table = _table(headers, rows, numeric=(1, 2, 3))
    return (
        f'<div class="figure">{" · ".join(parts)}</div>'
        f'<div class="bar"><span style="width:{share:.1%}"></span></div>{failed_line}{table}'
    )


def _review(review: dict[str, Any]) -> str:
    """The reviewed figures (the review wing's `review` key): the run's score and rating, each review."""
    score = review.get("score")
    counted = int(review.get("reviewed", 0))
    if score is not None:
        value = float(score.get("value", 0))
        head = (f'<div class="figure">reviewed score <b>{float(score.get("earned", 0)):g}</b> of'
                f' <b>{float(score.get("available", 0)):g}</b> points ({value:.0%}) · rating'
                f' <b>{_get(review, "rating")}</b> · the {"mean and worst" if counted > 1 else "score and rating"}'
                f" of {counted} complete, current review{'s' if counted != 1 else ''}</div>"
                f'<div class="bar"><span style="width:{value:.1%}"></span></div>')
    else:
        head = ('<div class="figure"><b>not reviewed yet</b>: no complete review of the build graded now'
                f' ({int(review.get("reviews_total", 0))} found in <code>{_get(review, "folder")}</code>)</div>')
    rows = []
    for entry in review.get("reviews", []):
        if entry.get("stale"):
            state = "stale: the build changed since (counts nowhere)"
        elif entry.get("complete"):
            state = "complete" + ("" if entry.get("pinned") else " (unpinned)")
        else:
            missing = entry.get("missing", {})
            gaps = [*missing.get("verdicts", []), *(f"rating.{d}" for d in missing.get("domains", []))]
            state = "incomplete: misses " + (", ".join(gaps) or "problems fixed")
        overrides = "<br>".join(f"{_e(o.get('id'))}: {_e(o.get('automated'))} &rarr; {_e(o.get('reviewed'))}"
                                f" ({_e(o.get('note') or 'no note')})" for o in entry.get("overrides", []))
        ratings = "<br>".join(f"{_e(domain)}: {_e(tier)}" for domain, tier in entry.get("ratings", {}).items())
        entry_score = entry.get("score") or {}
        rows.append((f"<b>{_get(entry, 'reviewer')}</b><br><small>{_get(entry, 'file')} · {_get(entry, 'when')}</small>",
                     _e(state), f"{float(entry_score.get('earned', 0)):g} of {float(entry_score.get('available', 0)):g}",
                     _e(entry.get("overall") or "-"), ratings or "-", overrides or "-"))
    table = _table(("reviewer", "state", "score", "overall", "ratings", "overrides"), rows) if rows else ""
    notes = "".join(f'<p class="figure">{_e(line)}</p>'
                    for line in [*review.get("problems", []), *review.get("ignored", [])])
    return head + table + notes


def _domains(domains: dict[str, Any], review: dict[str, Any] | None = None) -> str:
    """The effective domain set: each domain's items with their automated outcomes, and the rating
    the reviewer gives on the scale (the overall rating is the worst of them): the worst of the
    complete, current reviews' when there are some, each reviewer's beside it."""
    scale = " &gt; ".join(_e(word) for word in domains.get("scale", []))
    tiers = list(domains.get("scale", []))
    counted = [entry for entry in (review or {}).get("reviews", []) if entry.get("complete") and not entry.get("stale")]
    rows = []
    for domain in domains.get("set", []):
        outcomes = [f"{_e(unit)} {_badge(outcome)}" for item in domain.get("items", [])
                    for unit, outcome in item.get("outcomes", {}).items()]
        scope = "common" if domain.get("common") else "this variant"
        heading = (f"<b>{_get(domain, 'name')}</b> <small>{_get(domain, 'id')} · {scope}</small>"
                   f"<br>{_get(domain, 'description')}")
        given = {entry.get("reviewer"): entry.get("ratings", {}).get(domain.get("id")) for entry in counted}
        given = {who: tier for who, tier in given.items() if tier in tiers}
        rating = _e(domain.get("rating") or "left for the reviewer")
        if given:
            worst = max(given.values(), key=tiers.index)
            each = ", ".join(f"{_e(who)}: {_e(tier)}" for who, tier in given.items())
            rating = f"<b>{_e(worst)}</b> <small>({each})</small>"
        rows.append((heading, "<br>".join(outcomes) or "-", rating))
    table = _table(("domain", "items (automated outcome)", "rating"), rows)
    overall = (review or {}).get("rating") or domains.get("overall") or "left for the reviewer"
    return (f'<div class="figure">rated by the reviewer on {scale}; the overall rating is the worst domain rating'
            f' ({_e(overall)})</div>{table}')


def _performance(perf: dict[str, Any], by_kind: dict[str, list[dict[str, Any]]]) -> str:
    total = perf.get("total_fuel")
    verdict = (f"total stress fuel <b>{total:,}</b>" if total is not None
               else "<b>no comparable fuel</b>: the run is not correct on every case")
    sha = str(perf.get("module_sha256") or "")[:16]
    meta = f" · wasmtime {_e(perf.get('wasmtime') or '?')} · module sha256 <code>{_e(sha)}</code>"
    cases = by_kind.pop("correctness", []) + by_kind.pop("fuel", [])
    rows = [
        (_badge(case.get("outcome", "?")), f"{_get(case, 'kind')}[{_get(case, 'id')}]",
         _fuel(case.get("fuel")), "" if case.get("outcome") == "passed" else _get(case, "message"))
        for case in cases
    ]
    table = _table(("outcome", "case", "fuel", "why"), rows, numeric=(2,)) if rows else ""
    return f'<div class="figure">{verdict}{meta}</div>{table}'


def _tournament(tournament: dict[str, Any], by_kind: dict[str, list[dict[str, Any]]], media: Media) -> str:
    """The standings, the final match played by the renderer (and its clip), and every match."""
    standings = next(iter(by_kind.pop("standings", [])), {})
    replays = by_kind.pop("replay", [])
    by_kind.pop("match", None)  # listed from the standings item, which played them all
    champion = tournament.get("champion")
    head = (f'<div class="figure">{_e(tournament.get("structure") or "")}'
            f'{f" · champion <b>{_e(champion)}</b>" if champion else ""}'
            f' · wasmtime {_e(tournament.get("wasmtime") or "?")}</div>')
    rows = [
        (str(rank), _e(line["name"]) + (" <small>(house)</small>" if line.get("house") else ""),
         str(line["wins"]), str(line["draws"]), str(line["losses"]), str(line["forfeits"]),
         f"<b>{line['points']}</b>", _fuel(line.get("fuel")), _fuel(line.get("fuel_per_tick")))
        for rank, line in enumerate(tournament.get("standings", []), start=1)
    ]
    table = _table(("#", "controller", "W", "D", "L", "forfeits", "points", "fuel", "fuel per tick"), rows,
                   numeric=(0, 2, 3, 4, 5, 6, 7, 8))
    note = _message(standings) if standings.get("outcome") not in (None, "passed") else ""
    final = standings.get("final_match")
    matches = standings.get("matches", [])
    player = next((m.get("player") for m in matches if m.get("match") == final and m.get("player")), None)
    stage = ""
    if player:
        src = media.url(player)
        frame = media.missing(player) if src is None else (
            f'<iframe src="{src}" style="width:100%;height:420px;border:1px solid #dfe3ea;'
            'border-radius:6px" title="replay"></iframe>')
        stage = f'<figure><figcaption>final match {_e(final)}: the renderer playing its replay</figcaption>{frame}</figure>'
    clips = "".join(_media(item.get("clip"), f"clip of {_get(item, 'match')}", media, "video", item.get("poster"))
                    for item in replays if item.get("clip")) or "".join(_item(item, "") for item in replays)
    match_rows = [
        (_e(m["match"]), _e(m.get("summary") or ""),
         _e(", ".join(f"{name} {fuel:,}" for name, fuel in m.get("fuel", {}).items())),
         _link(m["player"], "replay", media) if m.get("player") else "-")
        for m in matches
    ]
    match_table = (f"<details><summary>{len(matches)} matches</summary>"
                   f"{_table(('match', 'result', 'fuel', 'replay'), match_rows)}</details>") if matches else ""
    shown = f'<div class="replays">{stage}{clips}</div>' if stage or clips else ""
    return f"{head}{note}{table}{shown}{match_table}"


def _fuel(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "-"


def _errata(errata: list[dict[str, Any]]) -> str:
    rows = [
        (f"<code>{_get(e, 'id')}</code>", _get(e, "title"), _get(e, "severity"),
         _e(e.get("review") or "-"), _erratum_scoring(e))
        for e in errata
    ]
    return _table(("erratum", "title", "severity", "point", "scoring"), rows) if rows else ""


def _erratum_scoring(erratum: dict[str, Any]) -> str:
    if erratum.get("exclude_from_score"):
        return "excluded from the score"
    if erratum.get("affects_scoring"):
        return "affects scoring: the reviewer weighs it"
    return "no effect on the score"
