"""The documentation shows what the project runs: docs/github-actions.md's workflow is ci.yml."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_documented_workflow_is_the_one_ci_runs() -> None:
    doc = (REPO / "docs/github-actions.md").read_text(encoding="utf-8")
    shown = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert shown == (REPO / ".github/workflows/ci.yml").read_text(encoding="utf-8")
