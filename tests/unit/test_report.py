"""report.html from a synthetic results.json: every block shows, every text is escaped."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from pytest_tcab.run.report.html import REPORT_FILE
from pytest_tcab.run.report.html import write_report

HOSTILE = "<script>alert('x')</script>"


def game_run(out: Path) -> dict[str, Any]:
    """A game run with one item of every kind, failures included, media under `out`."""
    media = out / "run"
    return {
        "run": "run-a",
        "case": "pong",
        "version": "v2.0.0",
        "variant": "base",
        "engine": "none",
        "source": "/runs/run-a",
        "counts": {"failed": 2, "passed": 3, "skipped": 1},
        "items": [
            {
                "nodeid": "run-a::build",
                "kind": "build",
                "id": "build",
                "outcome": "passed",
                "message": "built: serving dist/",
                "steps": [
                    {
                        "command": "npm ci",
                        "returncode": 0,
                        "timed_out": False,
                        "duration_s": 0.5,
                        "output": f"installed {HOSTILE}",
                    }
                ],
            },
            {
                "nodeid": "run-a::check[title]",
                "kind": "check",
                "id": "title",
                "outcome": "passed",
                "similarity": 0.9931,
                "diff_ratio": 0.0069,
                "differing_pixels": 6359,
                "baseline": "reference/menu.html",
                "viewport": "1280x720",
                "size_note": None,
                "expected": str(media / "checks/title__expected.png"),
                "actual": str(media / "checks/title__actual.png"),
                "diff": str(media / "checks/title__diff.png"),
            },
            {
                "nodeid": "run-a::check[gameplay]",
                "kind": "check",
                "id": "gameplay",
                "outcome": "failed",
                "message": f"check 'gameplay': the page threw while loading: Error: {HOSTILE}",
            },
            {
                "nodeid": "run-a::proof[title]",
                "kind": "proof",
                "id": "title",
                "outcome": "passed",
                "present": True,
                "dest": "proof/title.png",
                "media_kind": "image",
                "media": str(media / "proofs/proof/title.png"),
            },
            {
                "nodeid": "run-a::proof[clip]",
                "kind": "proof",
                "id": "clip",
                "outcome": "skipped",
                "present": False,
                "dest": "proof/clip.webm",
                "media_kind": "video",
                "message": "proof 'clip' missing: the build wrote no proof/clip.webm",
            },
            {
                "nodeid": "run-a::validate[spin.moving]",
                "kind": "validate",
                "id": "spin.moving",
                "outcome": "failed",
                "notes": "curve was 0.0 px",
                "message": "verdict false",
                "script": "validation/spin/moving.mjs",
                "verdict": False,
                "page_errors": ["TypeError: x (/game.js:1:2)"],
                "media": [
                    {
                        "output": "curve",
                        "kind": "image",
                        "path": "run/validation/spin.moving__curve.png",
                        "baseline": "/suite/validation-baseline/base/spin.moving__curve.png",
                    },
                    {
                        "output": "clip",
                        "kind": "video",
                        "path": str(media / "validation/spin.moving__clip.webm"),
                    },
                ],
            },
        ],
        "domains": {
            "scale": ["flawless", "great", "passable", "scuffed", "broken"],
            "overall": None,
            "set": [{"id": "single-player", "name": "Single Player", "description": f"Solo play {HOSTILE}",
                     "common": True, "rating": None,
                     "items": [{"id": "spin", "title": "Spin", "outcomes": {"spin.moving": "failed"}}]}],
        },
        "score": {
            "earned": 2.0,
            "available": 3.0,
            "declared": 6.0,
            "decided_weight": 3.0,
            "failed_weight": 1.0,
            "automated": ["spin.moving"],
            "failed": ["spin.moving"],
            "pending": ["spin.decay"],
            "pending_weight": 3.0,
            "items": [
                {
                    "id": "spin",
                    "earned": 2.0,
                    "available": 3.0,
                    "declared": 4.0,
                    "pending": ["spin.decay"],
                    "excluded": [],
                }
            ],
        },
        "errata": [
            {
                "id": "decay-timing",
                "title": "Loosely worded",
                "severity": "minor",
                "affects_scoring": True,
                "exclude_from_score": False,
                "review": "spin.decay",
            }
        ],
    }


def perf_run() -> dict[str, Any]:
    return {
        "run": "bounce",
        "case": "bounce",
        "version": "v1.0.0",
        "variant": "default",
        "engine": "none",
        "source": "/runs/bounce",
        "counts": {"over-ceiling": 1, "passed": 2},
        "items": [
            {
                "nodeid": "bounce::build",
                "kind": "build",
                "id": "build",
                "outcome": "passed",
                "steps": [],
            },
            {
                "nodeid": "bounce::correctness[one]",
                "kind": "correctness",
                "id": "one",
                "outcome": "passed",
            },
            {
                "nodeid": "bounce::fuel[large]",
                "kind": "fuel",
                "id": "large",
                "outcome": "over-ceiling",
                "fuel": 52_000_123,
                "message": "over-ceiling: 52,000,123 fuel",
            },
        ],
        "performance": {
            "correct": False,
            "total_fuel": None,
            "wasmtime": "50.0.1",
            "module_sha256": "ab" * 32,
            "cases": {},
        },
    }


class _Collector(HTMLParser):
    """Every tag with its attributes, and every script element (there must be none)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def rendered(tmp_path: Path) -> tuple[Path, str, _Collector]:
    out = tmp_path / "out"
    path = write_report({"tool": {"python": "3.11"}, "runs": [game_run(out), perf_run()]}, out)
    text = path.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(text)
    return path, text, parser


def test_report_is_written_beside_the_results(tmp_path: Path) -> None:
    path, text, _ = rendered(tmp_path)
    assert path == tmp_path / "out" / REPORT_FILE
    assert text.startswith("<!doctype html>")
    assert "<style>" in text and "<link" not in text


def test_every_text_is_escaped(tmp_path: Path) -> None:
    _, text, parser = rendered(tmp_path)
    assert HOSTILE not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in text
    assert not [tag for tag, _ in parser.tags if tag == "script"]


def test_run_header_has_identity_and_coloured_counts(tmp_path: Path) -> None:
    _, text, _ = rendered(tmp_path)
    assert "pong <small>v2.0.0</small>" in text
    assert "variant <b>base</b> · engine <b>none</b>" in text
    # Failures are listed first.
    counts = re.findall(r'<span class="count (\S+)">(\d+) ([\w-]+)</span>', text)
    assert counts[:3] == [
        ("failed", "2", "failed"),
        ("passed", "3", "passed"),
        ("skipped", "1", "skipped"),
    ]
    assert ("over-ceiling", "1", "over-ceiling") in counts
    assert '<div class="run-head bad">' in text


def test_check_shows_expected_actual_diff_relative_to_the_report(tmp_path: Path) -> None:
    _, text, parser = rendered(tmp_path)
    images = [attrs["src"] for tag, attrs in parser.tags if tag == "img"]
    assert images[:3] == [
        "run/checks/title__expected.png",
        "run/checks/title__actual.png",
        "run/checks/title__diff.png",
    ]
    assert "similarity <b>99.31%</b> · 6,359 pixels differ" in text
    assert "check &#x27;gameplay&#x27;: the page threw while loading" in text


def test_proofs_show_media_or_why_missing(tmp_path: Path) -> None:
    _, text, parser = rendered(tmp_path)
    assert (
        "img",
        {"src": "run/proofs/proof/title.png", "alt": "", "loading": "lazy"},
    ) in parser.tags
    assert "proof &#x27;clip&#x27; missing: the build wrote no proof/clip.webm" in text


def test_verdict_media_sit_beside_the_committed_baseline(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _, text, parser = rendered(tmp_path)
    images = [attrs["src"] for tag, attrs in parser.tags if tag == "img"]
    baseline = Path("/suite/validation-baseline/base/spin.moving__curve.png")
    assert "run/validation/spin.moving__curve.png" in images
    assert Path(os.path.relpath(baseline, out)).as_posix() in images
    videos = [attrs["src"] for tag, attrs in parser.tags if tag == "video"]
    assert videos == ["run/validation/spin.moving__clip.webm"]
    assert "notes: curve was 0.0 px" in text
    assert "driver <code>validation/spin/moving.mjs</code>" in text
    assert "the page threw: TypeError: x (/game.js:1:2)" in text
    assert "curve: expected (committed baseline)" in text
    assert text.index("curve: expected") < text.index("curve (image): observed")  # expected | observed


def test_build_log_is_collapsible(tmp_path: Path) -> None:
    _, text, _ = rendered(tmp_path)
    assert "<details><summary>build log (1 step)</summary>" in text
    assert "<code>$ npm ci</code> · exit 0 · 0.50 s" in text


def test_score_performance_and_errata(tmp_path: Path) -> None:
    _, text, _ = rendered(tmp_path)
    assert (
        "<b>2</b> of <b>3</b> automated points earned · 1 failed automatically · <b>6</b> declared"
        " · 3 left for the reviewer"
    ) in text
    assert "failed automatically: <b>spin.moving</b>" in text
    assert "<b>no comparable fuel</b>" in text
    assert "module sha256 <code>abababababababab</code>" in text
    assert '<td class="num">52,000,123</td>' in text
    assert "fuel[large]" in text and "correctness[one]" in text
    assert "<code>decay-timing</code>" in text


def test_an_empty_session_still_writes_a_page(tmp_path: Path) -> None:
    text = write_report({"tool": {}, "runs": []}, tmp_path).read_text(encoding="utf-8")
    assert "No run items were recorded." in text


def test_what_confined_the_build_is_said_first_and_per_step(tmp_path: Path) -> None:
    run = game_run(tmp_path)
    build = next(item for item in run["items"] if item["kind"] == "build")
    build["steps"] = [dict(build["steps"][0], sandbox="bwrap", network=True),
                      dict(build["steps"][0], command="npm run build", sandbox="bwrap", network=False)]
    sandbox = {"sandbox": "bwrap", "sandboxed": True, "network": "install"}
    text = write_report({"tool": {}, "sandbox": sandbox, "suite_changed": [], "runs": [run]}, tmp_path).read_text()
    assert '<p class="figure">sandbox: bwrap for every build step (network: install steps only)</p>' in text
    assert "<code>$ npm ci</code> · exit 0 · 0.50 s · bwrap, network</div>" in text
    assert "<code>$ npm run build</code> · exit 0 · 0.50 s · bwrap, no network</div>" in text
    assert "alarm" not in text.split("<main>")[1]

    unsandboxed = {"sandbox": "none", "sandboxed": False, "reason": "--tcab-no-sandbox: builds ran unconfined"}
    changed = ["changed: /suite/validation/a.mjs"]
    text = write_report({"tool": {}, "sandbox": unsandboxed, "suite_changed": changed, "runs": []}, tmp_path).read_text()
    assert '<p class="alarm">NOT SANDBOXED: --tcab-no-sandbox: builds ran unconfined</p>' in text
    assert ('<p class="alarm">FAILED: the suite changed during the run: changed: /suite/validation/a.mjs</p>'
            in text)


def test_domains_show_items_outcomes_and_the_rating_left_for_the_reviewer(tmp_path: Path) -> None:
    _, text, _ = rendered(tmp_path)
    assert ("rated by the reviewer on flawless &gt; great &gt; passable &gt; scuffed &gt; broken; the overall "
            "rating is the worst domain rating (left for the reviewer)") in text
    assert "<b>Single Player</b> <small>single-player · common</small>" in text
    assert 'spin.moving <span class="badge failed">failed</span>' in text
    assert "<td>left for the reviewer</td>" in text
