"""report.html's two forms: media linked beside the page, or embedded so the page moves alone."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.run.report import html as report
from pytest_tcab.run.report.html import LINKED
from pytest_tcab.run.report.html import SELF_CONTAINED
from pytest_tcab.run.report.html import Media
from pytest_tcab.run.report.html import render
from pytest_tcab.run.report.html import write_report
from tests.html_reports import media_attributes


def medium(out: Path, relative: str, content: bytes) -> str:
    path = out / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return str(path)


def every_kind(out: Path) -> dict[str, Any]:
    """A results.json with a medium of every kind the report shows, each a real file under `out`."""
    m = {name: medium(out, f"run/{name}", name.encode() * 40) for name in (
        "checks/title__expected.png", "checks/title__actual.png", "checks/title__diff.png", "proofs/proof/shot.png",
        "validation/goal__clip.webm", "validation/goal__clip.poster.png", "validation/baseline/goal__clip.webm",
        "validation/baseline/goal__clip.poster.png", "requirements/frame__1.png", "assets/produced/hit.wav",
        "assets/produced/hit.waveform.png", "assets/produced/ship.gltf", "assets/reference/sheet.png",
        "assets/reference/sheet.frame1.png", "replays/final.html", "replays/other.html", "replay__final.webm",
        "replay__final.poster.png")}
    items: list[dict[str, Any]] = [
        {"nodeid": "run::check[title]", "kind": "check", "id": "title", "outcome": "passed", "similarity": 1.0,
         "expected": m["checks/title__expected.png"], "actual": m["checks/title__actual.png"],
         "diff": m["checks/title__diff.png"]},
        {"nodeid": "run::proof[shot]", "kind": "proof", "id": "shot", "outcome": "passed", "present": True,
         "dest": "proof/shot.png", "media_kind": "image", "media": m["proofs/proof/shot.png"]},
        {"nodeid": "run::validate[goal]", "kind": "validate", "id": "goal", "outcome": "passed",
         "media": [{"output": "clip", "kind": "video", "path": m["validation/goal__clip.webm"],
                    "poster": m["validation/goal__clip.poster.png"],
                    "baseline": m["validation/baseline/goal__clip.webm"],
                    "baseline_poster": m["validation/baseline/goal__clip.poster.png"]}]},
        {"nodeid": "run::requirement[frame]", "kind": "requirement", "id": "frame", "outcome": "passed",
         "decided_by": [{"validator": "frame.ts", "verdict": True, "media": m["requirements/frame__1.png"]}]},
        {"nodeid": "run::asset[hit.wav]", "kind": "asset", "id": "hit.wav", "outcome": "passed",
         "previews": {"produced": {"file": m["assets/produced/hit.wav"], "waveform": m["assets/produced/hit.waveform.png"]},
                      "reference": {"file": m["assets/reference/sheet.png"],
                                    "frames": [m["assets/reference/sheet.frame1.png"]]}}},
        {"nodeid": "run::asset[ship.gltf]", "kind": "asset", "id": "ship.gltf", "outcome": "passed",
         "previews": {"produced": {"file": m["assets/produced/ship.gltf"]}}},
        {"nodeid": "run::standings", "kind": "standings", "id": "standings", "outcome": "passed",
         "final_match": "final", "matches": [{"match": "final", "player": m["replays/final.html"]},
                                             {"match": "other", "player": m["replays/other.html"]}]},
        {"nodeid": "run::replay[final]", "kind": "replay", "id": "final", "outcome": "passed", "match": "final",
         "clip": m["replay__final.webm"], "poster": m["replay__final.poster.png"]},
    ]
    run = {"run": "run", "case": "c", "version": "v1", "variant": "base", "engine": "none", "counts": {"passed": 8},
           "items": items, "tournament": {"structure": "round-robin", "standings": []}}
    return {"tool": {"python": "3.11"}, "runs": [run]}


def test_a_self_contained_report_embeds_every_medium_and_links_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    text = write_report(every_kind(out), out, SELF_CONTAINED).read_text(encoding="utf-8")
    found = media_attributes(text)
    kinds = {(tag, attribute) for tag, attribute, _ in found}
    assert kinds == {("img", "src"), ("video", "src"), ("video", "poster"), ("audio", "src"), ("iframe", "src"),
                     ("a", "href")}
    assert [value for _, _, value in found if not value.startswith("data:")] == []  # no relative link is left
    embedded = {base64.b64decode(value.partition(";base64,")[2]) for _, _, value in found}
    files = {path.read_bytes() for path in out.rglob("*") if path.is_file() and path.name != "report.html"}
    assert embedded == files  # every medium, each embedded whole
    assert 'download="ship.gltf"' in text and 'download="other.html"' in text  # files that open as downloads
    assert "self-contained: " in text and "of media embedded" in text


def test_a_linked_report_links_each_medium_and_clips_show_their_poster(tmp_path: Path) -> None:
    out = tmp_path / "out"
    data = every_kind(out)
    text = write_report(data, out, LINKED).read_text(encoding="utf-8")
    found = media_attributes(text)
    assert [value for _, _, value in found if value.startswith(("data:", "/"))] == []
    assert ('<video src="run/validation/goal__clip.webm" poster="run/validation/goal__clip.poster.png"'
            in text)
    assert ('<video src="run/validation/baseline/goal__clip.webm" '
            'poster="run/validation/baseline/goal__clip.poster.png"' in text)
    assert '<video src="run/replay__final.webm" poster="run/replay__final.poster.png"' in text
    assert "self-contained" not in text
    # Linked stays the default: the same results, smaller.
    assert len(text) < len(render(data, Media(out, self_contained=True)))


def test_a_medium_past_the_bound_is_named_in_its_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    data = every_kind(out)
    big = medium(out, "run/checks/title__actual.png", b"x" * 4096)
    monkeypatch.setattr(report, "EMBED_LIMIT", 2048)
    text = write_report(data, out, SELF_CONTAINED).read_text(encoding="utf-8")
    assert ('<div class="missing">not embedded: 4 KiB is above the 2 KiB an embedded medium may take; it is '
            "<code>run/checks/title__actual.png</code> in the results folder</div>") in text
    assert big not in text and "title__actual.png\"" not in text
    assert "; 1 left out (named in place)</p>" in text


def test_media_past_the_whole_reports_budget_are_named_in_their_place(tmp_path: Path) -> None:
    out = tmp_path / "out"
    media = Media(out, self_contained=True, budget=200)  # the first medium (about 1 KiB) is already too much
    text = render(every_kind(out), media)
    assert "is more than is left of the 200 bytes the report&#x27;s embedded media may take together" in text
    assert all(not value.startswith("data:") for _, _, value in media_attributes(text))
    # Every medium but the three posters, which a clip left out does not need.
    assert media.embedded == 0 and len(media.left_out) == 18 - 3
    assert not [path for path in media.left_out if path.endswith(".poster.png")]
