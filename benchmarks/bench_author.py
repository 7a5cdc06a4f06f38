"""Author-mode costs, measured side by side in one run: what resolution adds to parsing.

    python benchmarks/bench_author.py

Prints, per step, the median of repeated runs and its ratio to plain `tomli.loads`, so a
change that makes resolution slower shows up as a ratio, whatever the machine.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import tomli

from pytest_tcab.models.manifest import ROOT_KEYS
from pytest_tcab.models.manifest import Manifest
from pytest_tcab.models.validate import validate
from pytest_tcab.suite import Suite
from pytest_tcab.templates import StrictTemplate
from pytest_tcab.templates import compile_template
from pytest_tcab.toml import key_lines
from pytest_tcab.toml import parse

SUITE = Path(__file__).resolve().parent.parent / "example-suite"
MANIFEST = SUITE / "test-cases/end-to-end/medium/carom/v2.0.0/test-case.toml"
PROMPT = MANIFEST.parent / "prompt.hbs"


def median_ms(step: Callable[[], object], repeat: int = 30) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    source = MANIFEST.read_text()
    template = PROMPT.read_text()
    doc = parse(MANIFEST, source)
    context = {"workspace": "/w", "time_limit_hours": 0.5,
               "variant": {"slug": "base", "name": "Classic", "description": ""},
               "specs": [{"path": "/w/specs/overview.md", "dest": "specs/overview.md", "name": "Overview"}]}
    compiled = compile_template(template, "prompt.hbs")
    steps: list[tuple[str, Callable[[], object]]] = [
        ("tomli.loads (baseline)", lambda: tomli.loads(source)),
        ("key_lines (positions)", lambda: key_lines(source)),
        ("validate Manifest (pydantic)", lambda: validate(Manifest, doc, root_keys=ROOT_KEYS)),  # type: ignore[arg-type]
        ("resolve v2.0.0, both variants", lambda: Suite(SUITE).resolve(MANIFEST)),
        ("template compile (uncached)", lambda: StrictTemplate(template, "prompt.hbs")),
        ("template render (compiled)", lambda: compiled.render(context)),
    ]
    base = None
    print(f"{'step':34} {'median ms':>10} {'x tomli':>8}")
    for name, step in steps:
        ms = median_ms(step, repeat=10 if "compile" in name else 30)
        base = base or ms
        print(f"{name:34} {ms:10.3f} {ms / base:8.1f}")


if __name__ == "__main__":
    main()
