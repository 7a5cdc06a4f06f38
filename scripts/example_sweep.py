"""The example sweep's runs, written where a sweep grades them: the example suite's own builds
as if two models had produced them through two harnesses, several attempts each, so the sweep's
charts, intervals and verdict map have something to say (scripts/example grades them all; the
sweep page's test and benchmark a few).

Each run is a produced tree as it came (a copy of one of the example's runs, or the Rust
workspace as handed over) with a run.toml saying who produced it. They are written, not kept
in the suite: twenty-four copies of four trees would be the same files twenty-four times.

A few of its pong runs have reviews, the operator's files kept apart from the runs in
`example-suite/reviews/<run name>/<reviewer>.md` (`REVIEWS`; scripts/example passes them with
`--tcab-reviews`): two reviewers on some runs, so their agreement shows, one overriding a
validator with a note, and one pong run left awaiting review.

    python3 scripts/example_sweep.py DEST [NAME ...]
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

SUITE = Path(__file__).resolve().parent.parent / "example-suite"
REVIEWS = SUITE / "reviews"


@dataclass(frozen=True)
class Build:
    """A tree a run of the sweep is a copy of, what it is, and the run.toml lines that say its case."""

    tree: str
    what: str
    case: str


HONEST = Build("runs/carom-e2e", "an honest build", 'case = "end-to-end"\nengine = "none"\n')
FLAWED = Build("runs/carom-e2e-flawed", "the flawed build (its spin never decays)", HONEST.case)
CAROM = Build("runs/carom-base", "the Carom build with its one flaw (spin.stationary fails)",
              'case = "pong"\nversion = "v2.0.0"\nvariant = "base"\nengine = "none"\n')
SOLUTION = Build("runs/bounce", "the Rust solution", 'case = "bounce"\nversion = "v1.0.0"\n')
WORKSPACE = Build("versions/v1.0.0/workspaces/bounce-rs",
                  "the workspace as handed over (simulate still a TODO: every answer is wrong)", SOLUTION.case)

MODELS = {"atlas": "atlas-2026-10", "birch": "birch-2026-11"}
HARNESSES = ("plain-loop", "planner")
ATTEMPTS: dict[str, dict[tuple[str, str], tuple[Build, ...]]] = {
    "pong": {(harness, model): (CAROM,) for harness in HARNESSES for model in MODELS},
    "e2e": {
        ("plain-loop", "atlas"): (HONEST, HONEST, FLAWED),
        ("plain-loop", "birch"): (HONEST, FLAWED, FLAWED),
        ("planner", "atlas"): (HONEST, HONEST, HONEST),
        ("planner", "birch"): (FLAWED, HONEST, FLAWED),
    },
    "bounce": {
        ("plain-loop", "atlas"): (SOLUTION, SOLUTION),
        ("plain-loop", "birch"): (SOLUTION, WORKSPACE),
        ("planner", "atlas"): (SOLUTION, SOLUTION),
        ("planner", "birch"): (WORKSPACE, SOLUTION),
    },
}
"""Per case, per (harness, model), the build of each attempt: the groups differ, and not by chance."""


def runs() -> dict[str, tuple[Build, str, str, int]]:
    """Every run of the sweep by name (`e2e-planner-birch-2`): its build, harness, model and attempt."""
    return {f"{case}-{harness}-{model}-{attempt}": (build, harness, MODELS[model], attempt)
            for case, groups in ATTEMPTS.items() for (harness, model), builds in groups.items()
            for attempt, build in enumerate(builds, start=1)}


def write_runs(dest: Path, names: list[str] | None = None) -> list[Path]:
    """Write the runs named (every one when None) as folders of `dest`; returns them, in name order."""
    every = runs()
    unknown = sorted(set(names or ()) - set(every))
    if unknown:
        raise SystemExit(f"not a run of the example sweep: {', '.join(unknown)} (it has {', '.join(sorted(every))})")
    written = []
    for name in sorted(names or every):
        build, harness, model, attempt = every[name]
        folder = dest / name
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(SUITE / build.tree, folder, ignore=shutil.ignore_patterns(".tcab", "target"))
        (folder / ".tcab").mkdir()
        (folder / ".tcab/run.toml").write_text(
            f"# One run of the example sweep (scripts/example_sweep.py): {build.what}, as if {model} produced it\n"
            f"# through the {harness} harness (attempt {attempt}).\n"
            f'{build.case}model = "{model}"\nharness = "{harness}"\n\n[labels]\nattempt = "{attempt}"\n',
            encoding="utf-8")
        written.append(folder)
    return written


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for folder in write_runs(Path(sys.argv[1]), sys.argv[2:] or None):
        print(folder)
