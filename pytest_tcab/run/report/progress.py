"""How far a sweep has come: `run 12/40 carom-base-m-a: graded, 6 passed 1 failed (14 s); about 6 min left`.

Written to the terminal as each run ends, and handed to index.html in the sweep document's
`progress`. What is left is guessed from the session's own pace (its wall clock over the runs
it finished, so xdist's workers are counted in), the runs a resumed sweep carried counted done.
"""

from __future__ import annotations

import time
from typing import Any

_FIRST = ("passed", "failed")


class Progress:
    """The runs of a sweep finished so far, of how many."""

    def __init__(self, carried: int = 0) -> None:
        self.carried = carried
        """Runs an earlier session graded (`--tcab-resume`): done before this one began."""
        self.to_grade: int | None = None
        """Runs this session grades, once collection has said."""
        self.finished = 0
        self.started = time.monotonic()
        self.last: str | None = None

    @property
    def total(self) -> int | None:
        return None if self.to_grade is None else self.carried + self.to_grade

    def run_finished(self, row: dict[str, Any]) -> str:
        """Count the run of `row` finished; its progress line."""
        self.finished += 1
        done = self.carried + self.finished
        total = self.total if self.total is not None and self.total >= done else None
        found = row.get("counts", {})
        words = sorted(found, key=lambda word: (_FIRST.index(word) if word in _FIRST else len(_FIRST), word))
        counts = " ".join(f"{found[word]} {word}" for word in words if found[word])
        line = (f"run {done}/{total if total is not None else '?'} {row['run']}: {row['status']}, "
                f"{counts or 'no items'} ({duration_text(float(row.get('duration_s') or 0.0))})")
        left = self.left_s()
        if left is not None and total is not None and done < total:
            line += f"; about {duration_text(left)} left"
        self.last = line
        return line

    def left_s(self) -> float | None:
        """The time the runs not finished yet will take at this session's pace."""
        if self.to_grade is None or not self.finished:
            return None
        return (time.monotonic() - self.started) / self.finished * max(self.to_grade - self.finished, 0)

    def document(self, done: bool = False) -> dict[str, Any]:
        """sweep.json's `progress`: what index.html says of a sweep still being written."""
        left = None if done else self.left_s()
        return {
            "finished": self.carried + self.finished,
            "total": self.total,
            "resumed": self.carried,
            "done": done,
            "left_s": None if left is None else round(left, 1),
            "line": self.last,
        }


def duration_text(seconds: float) -> str:
    """`0.4 s`, `14 s`, `6 min`, `2.5 h`: a duration as a person reads it in a progress line."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
