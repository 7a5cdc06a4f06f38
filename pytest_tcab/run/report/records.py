"""One run's slice of results.json, as the recorder gathers it and scoring reads it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from typing import Any


@dataclass
class RunRecord:
    """One run's slice of results.json."""

    identity: dict[str, Any]
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    deselected: dict[str, dict[str, str]] = field(default_factory=dict)
    """Items of the run that `-k`, `-m`, `--lf` or a node id left out: a partial run."""
    not_graded: str | None = None
    """Why some of its items never ran though the session meant to run them (it was interrupted)."""
    graded_by: dict[str, str] = field(default_factory=dict)
    """The versions of the tools that graded it (`run.versions`)."""
    graded_with: dict[str, Any] = field(default_factory=dict)
    """The options that graded it, those that can change a verdict or a figure (`run.versions`)."""

    def counts(self) -> Counter[str]:
        return Counter(item["outcome"] for item in self.items.values())
