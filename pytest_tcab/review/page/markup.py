"""The review page's HTML: the worklist and one run's review form. Every text is escaped (run names,
messages and notes came partly from the produced build); no inline script or style (the page's CSP
allows only its own files), the page's data rides in a JSON block the script reads."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from pytest_tcab.review.grammar import TIERS
from pytest_tcab.review.page.runs import ReviewedRun
from pytest_tcab.review.page.view import Item
from pytest_tcab.review.page.view import Point
from pytest_tcab.review.page.view import RunView
from pytest_tcab.review.page.view import Shown

BUILD_SANDBOX = "allow-scripts"
"""The build's frame may run its scripts and nothing else: no same-origin (its origin is opaque, so
it can reach neither this page's document nor its storage), no top navigation, no popups, no forms."""


def e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _points(weight: float) -> str:
    return f"{weight:g} point{'' if weight == 1 else 's'}"


def _head(title: str, token: str) -> str:
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="tcab-token" content="{e(token)}"><title>{e(title)}</title>'
            '<meta name="referrer" content="no-referrer">'
            '<link rel="stylesheet" href="/page.css"><script src="/page.js" defer></script></head>')


def worklist_page(rows: list[dict[str, Any]], reviewer: str, token: str, problems: list[str]) -> str:
    """The runs, those not yet reviewed by `reviewer` first, then incomplete, then stale."""
    body = "".join(
        f'<tr data-run="{e(row["slug"])}" data-state="{e(row["state"])}"><td><a href="/run/{e(row["slug"])}">'
        f'{e(row["name"])}</a></td><td>{e(row["heading"])}</td><td class="state">{e(row["state"])}</td>'
        f'<td>{e(row["figure"])}</td></tr>'
        for row in rows)
    trouble = "".join(f"<li>{e(problem)}</li>" for problem in problems)
    return (_head("Review: worklist", token) + '<body class="worklist"><header><h1>Runs to review</h1>'
            f'<p>reviewing as <b id="reviewer">{e(reviewer)}</b></p></header><main>'
            + (f'<ul class="problems">{trouble}</ul>' if trouble else "")
            + '<table id="worklist"><thead><tr><th>run</th><th>case</th><th>you</th><th>reviewed score</th></tr>'
            f"</thead><tbody>{body}</tbody></table></main></body></html>\n")


def run_page(view: RunView, *, reviewer: str, token: str, site_url: str | None, fields: dict[str, str],
             figures: dict[str, Any], problems: list[str]) -> str:
    """One run's review: the build, the checklist, the domains, the errata, the body, what is missing."""
    run = view.run
    data = {"run": run.slug, "tiers": list(TIERS),
            "points": [{"id": p.id, "automated": p.automated, "title": p.title, "excluded": bool(p.excluded_by)}
                       for p in view.points],
            "domains": [domain["id"] for domain in view.domains], "fields": fields, "figures": figures}
    parts = [
        _build(run, site_url),
        '<form id="review-form" novalidate>',
        _problems(problems, view.problem),
        _checklist(view, fields),
        _domains(view, fields),
        _errata(view.errata),
        ('<section id="body-part"><h2>Body</h2><p class="hint">What you played and saw, in a few sentences (the '
        'review file\'s prose).</p>'
        f'<textarea name="body" rows="6">{e(fields.get("body", ""))}</textarea></section>'),
        ('<section id="save-part"><h2>Save</h2><div id="missing" aria-live="polite"></div>'
        '<label class="revision">What this revision changes <input name="revision" autocomplete="off" '
        f'placeholder="{"say what changed (kept in the history)" if fields.get("body") else "first review"}">'
        '</label> <button type="submit" id="save">Save the review</button>'
        '<div id="messages" role="alert"></div><div id="figures"></div></section>'),
        "</form>",
    ]
    return (_head(f"Review: {run.name}", token)
            + f'<body class="run-review" data-run="{e(run.slug)}"><header><a href="/">&larr; worklist</a>'
            f'<h1>{e(run.heading)} <small>{e(run.name)}</small></h1><p>reviewing as <b id="reviewer">'
            f'{e(reviewer)}</b></p></header><main>' + "".join(parts)
            + f'</main><script type="application/json" id="tcab-page">{_json(data)}</script></body></html>\n')


def _json(data: object) -> str:
    """JSON inside a script block: `<`, `>` and `&` escaped, so no text of it can close the block."""
    return json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _build(run: ReviewedRun, site_url: str | None) -> str:
    if site_url is None:
        site = run.data.get("site") or {}
        why = site.get("reason") or "the run kept no copy of its served site (its build failed, or it was graded " \
                                    "before sites were kept)"
        return f'<section id="build"><h2>The build</h2><p class="missing">Not playable here: {e(why)}</p></section>'
    return ('<section id="build"><h2>The build</h2><p class="hint">Played from its own origin, in a sandboxed frame: '
            'it cannot reach this page.</p>'
            f'<iframe id="build-frame" sandbox="{BUILD_SANDBOX}" src="{e(site_url)}" title="the build" '
            'referrerpolicy="no-referrer" allow="autoplay; fullscreen"></iframe></section>')


def _problems(problems: list[str], problem: str | None) -> str:
    shown = [*problems, *([problem] if problem else [])]
    if not shown:
        return ""
    return '<ul class="problems">' + "".join(f"<li>{e(text)}</li>" for text in shown) + "</ul>"


def _checklist(view: RunView, fields: dict[str, str]) -> str:
    items = "".join(_item(item, fields) for item in view.items)
    return f'<section id="checklist"><h2>Checklist</h2>{items or "<p>This variant declares no checklist.</p>"}</section>'


def _item(item: Item, fields: dict[str, str]) -> str:
    points = "".join(_point(point, fields) for point in item.points)
    text = f'<p class="text">{e(item.text)}</p>' if item.text else ""
    # An accordion (the spec's reviewer UI for categories): each item's heading folds its points away.
    return (f'<details class="item" data-item="{e(item.id)}" open><summary><h3><span class="number">{item.number}.'
            f'</span> {e(item.title)} <span class="weight">{_points(item.weight)}</span></h3></summary>{text}'
            f'{_evidence(item.reference, item.proof)}{points}</details>')


def _evidence(reference: Shown | None, proof: Shown | None) -> str:
    """The reference beside the proof; one side full width when only one is declared."""
    panes = [pane for pane in (reference, proof) if pane is not None]
    if not panes:
        return ""
    layout = "pair" if len(panes) == 2 else "single"
    return f'<div class="evidence {layout}">' + "".join(_pane(pane) for pane in panes) + "</div>"


def _pane(pane: Shown) -> str:
    caption = f"<figcaption>{e(pane.label)}</figcaption>"
    if pane.url is None:
        return f'<figure class="pane missing">{caption}<p>{e(pane.missing)}</p></figure>'
    if pane.video:
        poster = f' poster="{e(pane.poster)}"' if pane.poster else ""
        return (f'<figure class="pane">{caption}<video controls preload="metadata" src="{e(pane.url)}"{poster}>'
                "</video></figure>")
    return f'<figure class="pane">{caption}<img src="{e(pane.url)}" alt="{e(pane.label)}"></figure>'


def _point(point: Point, fields: dict[str, str]) -> str:
    kind = "auto" if point.automated else "excluded" if point.excluded_by else "pending"
    letter = f'<span class="letter">{e(point.letter)}.</span> ' if point.letter else ""
    badge = {"auto": f'<span class="badge auto">automated: {e(point.automated)}</span>',
             "excluded": '<span class="badge excluded">excluded</span>',
             "pending": '<span class="badge pending">yours to decide</span>'}[kind]
    chosen = fields.get(f"review.{point.id}", "")
    radios = "".join(
        f'<label class="choice {word}"><input type="radio" name="review.{e(point.id)}" value="{word}"'
        f'{" checked" if chosen == word else ""}> {word}</label>' for word in ("pass", "fail"))
    media = "".join(
        f'<div class="evidence pair validation"><h5>{e(name)}</h5>{_pane(expected)}{_pane(observed)}</div>'
        for name, expected, observed in point.media)
    text = f'<p class="text">{e(point.text)}</p>' if point.text else ""
    return (f'<div class="point {kind}" data-point="{e(point.id)}" data-automated="{e(point.automated or "")}">'
            f'<h4>{letter}{e(point.title)} <span class="weight">{_points(point.weight)}</span> {badge}</h4>'
            f'{text}<p class="why">{e(point.why)}</p>{_evidence(point.reference, point.proof)}{media}'
            f'<fieldset class="verdict"><legend>verdict <code>review.{e(point.id)}</code></legend>{radios}'
            f'<label class="note">note <input name="note.{e(point.id)}" value="{e(fields.get("note." + point.id, ""))}"'
            ' autocomplete="off" placeholder="why (needed to override the validator)"></label></fieldset></div>')


def _domains(view: RunView, fields: dict[str, str]) -> str:
    rows = []
    for domain in view.domains:
        chosen = fields.get(f"rating.{domain['id']}", "")
        tiers = "".join(
            f'<label class="tier {tier}"><input type="radio" name="rating.{e(domain["id"])}" value="{tier}"'
            f'{" checked" if chosen == tier else ""}> {tier}</label>' for tier in TIERS)
        rows.append(f'<div class="domain" data-domain="{e(domain["id"])}"><h3>{e(domain["name"])} '
                    f'<code>rating.{e(domain["id"])}</code></h3><p class="text">{e(domain["description"])}</p>'
                    f'<fieldset class="tiers"><legend>rating</legend>{tiers}</fieldset></div>')
    return ('<section id="domains"><h2>Domains</h2><p class="hint">Rate each while playing the build; the run\'s '
            'overall rating is the worst of them.</p>' + "".join(rows)
            + '<p id="overall" aria-live="polite"></p></section>')


def _errata(errata: list[dict[str, Any]]) -> str:
    if not errata:
        return ""
    rows = "".join(
        f'<li data-erratum="{e(erratum.get("id"))}"><b>{e(erratum.get("title"))}</b> '
        f'<span class="badge">{e(erratum.get("severity", ""))}</span>'
        + (f' on <code>{e(erratum["review"])}</code>' if erratum.get("review") else "")
        + (" (affects scoring)" if erratum.get("affects_scoring") else "")
        + f'<p>{e(erratum.get("body", ""))}</p></li>'
        for erratum in errata)
    return f'<section id="errata"><h2>Errata that apply</h2><ul>{rows}</ul></section>'
