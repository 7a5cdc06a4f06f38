"""Performance cases as users meet them: author-mode rules, and the example's Rust run end to end."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_tcab.suite import Suite

FOLDER = Path("test-cases/performance/easy/mini/v1.0.0")
MANIFEST = FOLDER / "test-case.toml"

CLEAN = """\
slug = "mini"
name = "Mini"
difficulty = "easy"
tags = []
changelog = "changelog.md"
prompt = "prompt.hbs"
type = "performance"

[build]
install = "true"
build = "cargo build --release --target wasm32-unknown-unknown"
module = "target/wasm32-unknown-unknown/release/mini.wasm"

[contract]
entry = "simulate"
input = "schemas/input.json"
output = "schemas/output.json"

[sandbox]
fuel_limit = 1_000_000
max_memory_bytes = 1_048_576

[[case]]
input = "smoke/tiny.json"
expected = "smoke/tiny.out"
kind = "smoke"

[[case]]
input = "cases/large.json"
expected = "cases/large.out"
fuel_runway = 2.0
"""

FILES = {
    "changelog.md": "Introduced.\n",
    "prompt.hbs": "Solve it in {{workspace}}.\n",
    "schemas/input.json": "{}\n",
    "schemas/output.json": "{}\n",
    "smoke/tiny.json": "{}\n",
    "smoke/tiny.out": "{}\n",
    "cases/large.json": "{}\n",
    "cases/large.out": "{}\n",
    "specs/problem.md": "# The problem\n",
    "workspaces/starter/Cargo.toml": "[package]\nname = \"mini\"\n",
}


def write_suite(root: Path) -> Path:
    """A suite holding one clean performance case; returns its manifest."""
    folder = root / FOLDER
    for name, text in {"test-case.toml": CLEAN, **FILES}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return root / MANIFEST


@dataclass(frozen=True)
class Rule:
    """One edit of the clean case, and the problem line author mode must print for it."""

    old: str | None
    """Manifest text to replace; None appends `new` to the manifest."""
    new: str
    problem: str
    """fnmatch pattern of the problem's line, after the manifest path."""
    delete: str | None = None
    """A file of the version folder to remove instead of editing the manifest."""


RULES = {
    "build-module-required": Rule('module = "target/wasm32-unknown-unknown/release/mini.wasm"\n', "",
                                  ":9: `build`: missing required key `module`"),
    "sandbox-required": Rule("[sandbox]\nfuel_limit = 1_000_000\nmax_memory_bytes = 1_048_576\n", "",
                             ": missing required key `sandbox`"),
    "contract-schema-exists": Rule(None, "", ":17: `contract.output`: contract output schema 'schemas/output.json' "
                                   "does not exist; expected a file under v1.0.0/", delete="schemas/output.json"),
    "case-input-exists": Rule(None, "", ":29: `case[1].input`: case input 'cases/large.json' does not exist*",
                              delete="cases/large.json"),
    "case-expected-exists": Rule(None, "", ":30: `case[1].expected`: expected output 'cases/large.out' does not "
                                 "exist*", delete="cases/large.out"),
    "case-ids-unique": Rule('kind = "smoke"', 'kind = "smoke"\nid = "large"',
                            ":29: `case[1]`: case id 'large' is used twice"),
    "kind-smoke-or-stress": Rule('kind = "smoke"', 'kind = "warmup"', ":26: `case[0].kind`: 'warmup' is not allowed"),
    "runway-at-least-one": Rule("fuel_runway = 2.0", "fuel_runway = 0.5",
                                ":31: `case[1].fuel_runway`: 0.5 is out of range: *greater than or equal to 1*"),
    "runway-on-stress-only": Rule('kind = "smoke"', 'kind = "smoke"\nfuel_runway = 2.0',
                                  "*`case[0]`: *fuel_runway applies to stress cases only*"),
    "a-stress-case": Rule("fuel_runway = 2.0", 'kind = "smoke"', ":23: `case`: declares no stress case*"),
    "no-domains": Rule(None, '\n[[domain]]\nid = "speed"\ndescription = "How fast."\n',
                       ":33: `domain`: a performance case declares no `[[domain]]`: its answers and its fuel are "
                       "the whole score"),
    "no-review-items": Rule(None, '\n[[review_item]]\nid = "fast"\ntitle = "Fast"\ntext = "It is fast."\nweight = 1\n',
                            ":33: `review_item`: a performance case declares no `[[review_item]]`*"),
    "held-out-from-the-workspace": Rule('type = "performance"', 'type = "performance"\nworkspace = "cases"',
                                        ":30: `case[1].input`: case input 'cases/large.json' is seeded into every run "
                                        "(as part of cases), so the model would see a held-out case"),
    "held-out-from-the-specs": Rule('type = "performance"', 'type = "performance"\n\n[[spec]]\nsource = "smoke/tiny.out"',
                                    "*`case[0].expected`: expected output 'smoke/tiny.out' is seeded into every run "
                                    "(as part of smoke/tiny.out)*"),
}


def test_clean_case_resolves_with_its_tables(pytester: pytest.Pytester) -> None:
    manifest = write_suite(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "-v")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"{MANIFEST}::resolve[[]default] PASSED*"])
    case = Suite(pytester.path).resolve(manifest).case
    assert case is not None and case.performance is not None
    assert case.case_type == "performance"
    assert case.build.build == case.performance.build.build
    assert [(c.case_id, c.kind) for c in case.performance.cases] == [("tiny", "smoke"), ("large", "stress")]
    assert case.performance.sandbox.fuel_limit == 1_000_000
    assert [variant.slug for variant in case.variants] == ["default"]


@pytest.mark.parametrize("name", list(RULES))
def test_rule(pytester: pytest.Pytester, name: str) -> None:
    rule = RULES[name]
    path = write_suite(pytester.path)
    if rule.delete is not None:
        (path.parent / rule.delete).unlink()
    elif rule.old is None:
        path.write_text(path.read_text() + rule.new)
    else:
        assert rule.old in CLEAN
        path.write_text(path.read_text().replace(rule.old, rule.new, 1))
    result = pytester.runpytest("--tcab-suite=.", "-v")
    result.stdout.fnmatch_lines([f"{MANIFEST}::resolve[[]default] FAILED*"])
    result.stdout.fnmatch_lines([f"{MANIFEST}{rule.problem}".replace("[", "[[]")])
    assert "Traceback" not in result.stdout.str()


def test_example_suite_author_mode_is_green(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = pytester.runpytest("--tcab-suite=example-suite", "-v")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*/performance/medium/bounce/v1.0.0/test-case.toml::resolve[[]default] PASSED*"])


DEBIAN_CARGO = Path("/usr/bin/cargo")
WASM_STD = Path("/usr/lib/rustlib/wasm32-unknown-unknown")


needs_rust = pytest.mark.skipif(
    not DEBIAN_CARGO.is_file() or not WASM_STD.is_dir(),
    reason=f"the example run builds Rust to wasm: needs {DEBIAN_CARGO} and the wasm32 std in {WASM_STD} "
           "(Debian: apt-get install cargo libstd-rust-dev-wasm32)")


@pytest.mark.wasm
@needs_rust
def test_example_bounce_run_end_to_end(pytester: pytest.Pytester, example_suite: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # rustup's shims may come first on PATH and lack the wasm target; the build inherits PATH.
    monkeypatch.setenv("PATH", f"{DEBIAN_CARGO.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    # In a subprocess, as a user runs it: an engine created in this process would have its trap
    # handlers replaced by the next in-process session's faulthandler, and a later trap kill it.
    result = pytester.runpytest_subprocess("--tcab-suite=example-suite", "--tcab-run=example-suite/runs/bounce", "-v")
    result.assert_outcomes(passed=5)
    data = json.loads((pytester.path / ".tcab/results/results.json").read_text())
    (run,) = data["runs"]
    perf = run["performance"]
    fuel = {case: figures["fuel"] for case, figures in perf["cases"].items()}
    assert set(fuel) == {"crowd", "long-run"}
    assert all(0 < figure < 400_000_000 for figure in fuel.values())
    assert perf["total_fuel"] == sum(fuel.values())
    result.stdout.fnmatch_lines([f"  performance: {perf['total_fuel']:,} fuel (wasmtime *, module sha256 *)"])


@pytest.mark.wasm
@needs_rust
def test_example_bounce_perf_definition_run_end_to_end(pytester: pytest.Pytester, example_suite: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # The solution in runs/bounce, judged by the test-suite layout's definition instead of the
    # catalog case its run.toml names: --tcab-case overrides it.
    monkeypatch.setenv("PATH", f"{DEBIAN_CARGO.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    result = pytester.runpytest_subprocess("--tcab-suite=example-suite", "--tcab-run=example-suite/runs/bounce",
                                           "--tcab-case=bounce-perf", "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines([
        "*runs/bounce/.tcab/run.toml::correctness[[]three] PASSED*",
        "*runs/bounce/.tcab/run.toml::fuel[[]long-run] PASSED*",
        "bounce-perf@v1.0.0:none (bounce): 5 passed",
    ])
    (run,) = json.loads((pytester.path / ".tcab/results/results.json").read_text())["runs"]
    assert (run["case"], run["layout"]) == ("bounce-perf", "definition")
    perf = run["performance"]
    assert set(perf["cases"]) == {"crowd", "long-run"}
    assert perf["correct"] and perf["within_ceiling"]
    assert perf["total_fuel"] == sum(case["fuel"] for case in perf["cases"].values())
