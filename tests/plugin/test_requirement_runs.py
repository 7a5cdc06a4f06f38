"""Game definitions decided by their requirements' validators, in Chromium, end to end.

The suite is the minimal test-suite layout (definition_suite.py) with a specification whose
requirements cover every outcome: a `.mjs` validator that passes, a `.ts` one (types stripped by
esbuild, a sibling import bundled) that fails, one that leaves its verdict open, and one with no
validators. The build copies a page whose debug API is `window.__game`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and Playwright (its
# wrappers map classes by identity) cannot be imported afresh: loading it here keeps it.
import playwright.sync_api  # noqa: F401
import pytest
from definition_suite import GAME
from definition_suite import SPEC
from definition_suite import VERSION
from definition_suite import write_definition_suite

from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.sandbox.typescript import esbuild

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(find_chromium(None) is None, reason="needs Chromium"),
    pytest.mark.skipif(esbuild() is None, reason="needs esbuild (scripts/bootstrap installs it)"),
]

ARGS = ("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=run", "--tcab-out=out", "-v")
PAGE = "<!doctype html><title>game</title><script>window.__game = { answer() { return 42; } };</script>\n"
SPECIFICATION = """\
id = "core"
name = "Core"
summary = "The core."
path = "core.md"

[[requirement]]
id = "answers"
kind = "functional"
text = "The game MUST answer 42."
validators = ["answers.mjs"]

[[requirement]]
id = "fast"
kind = "non-functional"
text = "The game SHOULD answer 43."
validators = ["checks/fast.ts"]

[[requirement]]
id = "pretty"
kind = "non-functional"
text = "The game SHOULD look nice."

[[requirement]]
id = "unsure"
kind = "functional"
text = "The game MUST be fun."
validators = ["unsure.mjs"]
"""
VALIDATORS = {
    "answers.mjs": "export default async (api) => ({ verdicts: { answers: (await api.answer()) === 42 }, "
                   "notes: `answered ${await api.answer()}` });\n",
    "checks/_expect.ts": "export const expected: number = 43;\n",
    "checks/fast.ts": (
        'import { expected } from "./_expect";\n'
        "interface Game { answer(): Promise<number> }\n"
        "export default async (api: Game): Promise<{ verdicts: Record<string, boolean>; notes: string }> => {\n"
        "  const got: number = await api.answer();\n"
        "  return { verdicts: { fast: got === expected }, notes: `answered ${got}, wanted ${expected}` };\n"
        "};\n"
    ),
    "unsure.mjs": "export default async () => ({ verdicts: { unsure: null }, notes: 'nobody can tell' });\n",
}


def game(instrumented: bool) -> str:
    handle = '[instrumentation]\nhandle = "__game"\n\n' if instrumented else ""
    return f"""\
name = "Game"
type = "end-to-end"
difficulty = "easy"
engines = ["none"]
prompt = "prompts/p.hbs"

{handle}[workspaces]
none = "workspaces/none"

[build]
install = "true"
build = "mkdir -p dist && cp index.html dist/"

[toolchain]
typecheck = "true"
"""


def project(root: Path, instrumented: bool = True, validators: dict[str, str] = VALIDATORS) -> None:
    write_definition_suite(root / "suite")
    files = {GAME: game(instrumented), SPEC: SPECIFICATION,
             **{VERSION / "validators" / name: text for name, text in validators.items()}}
    for relative, text in files.items():
        (root / "suite" / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / "suite" / relative).write_text(text, encoding="utf-8")
    (root / "run/.tcab").mkdir(parents=True)
    (root / "run/.tcab/run.toml").write_text('case = "game"\n', encoding="utf-8")
    (root / "run/index.html").write_text(PAGE, encoding="utf-8")


def the_run(root: Path) -> dict[str, Any]:
    (only,) = json.loads((root / "out/results.json").read_text(encoding="utf-8"))["runs"]
    return only  # type: ignore[no-any-return]


def test_requirements_pass_fail_and_are_left_for_the_reviewer(pytester: pytest.Pytester) -> None:
    project(pytester.path)
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(passed=3, failed=1, skipped=2)
    result.stdout.fnmatch_lines([
        "run/.tcab/run.toml::requirement[[]answers] PASSED*",
        "run/.tcab/run.toml::requirement[[]fast] FAILED*",
        "run/.tcab/run.toml::requirement[[]pretty] SKIPPED (left for the revi*",
        "run/.tcab/run.toml::requirement[[]unsure] SKIPPED (left for the revi*",
        '*requirement "fast" (non-functional) is not met: The game SHOULD answer 43.',
        "  checks/fast.ts: false: answered 42, wanted 43",
        "  requirements: 1 passed of 2 decided = 50%; 2 left for the reviewer",
    ])
    assert "Traceback" not in result.stdout.str()
    run = the_run(pytester.path)
    assert run["requirements"] == {"passed": ["answers"], "failed": ["fast"], "pending": ["pretty", "unsure"],
                                   "decided": 2, "score": 0.5}
    items = {item["id"]: item for item in run["items"] if item["kind"] == "requirement"}
    assert items["pretty"]["message"] == "left for the reviewer: no validator decides this requirement"
    assert items["unsure"]["message"] == "left for the reviewer: unsure.mjs: nobody can tell"
    assert items["fast"]["text"] == "The game SHOULD answer 43." and items["fast"]["requirement_kind"] == "non-functional"
    assert items["fast"]["verdict"] is False and items["answers"]["verdict"] is True
    [decided] = items["answers"]["decided_by"]
    assert decided["notes"] == "answered 42" and Path(decided["media"]).is_file()
    report = (pytester.path / "out/report.html").read_text(encoding="utf-8")
    assert "The game MUST answer 42." in report and "score <b>50%</b>" in report
    assert "requirements/answers__1.png" in report


def test_strict_turns_a_requirement_left_open_into_a_failure(pytester: pytest.Pytester) -> None:
    project(pytester.path)
    result = pytester.runpytest(*ARGS, "--tcab-strict", "-k", "pretty")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(["*left for the reviewer: no validator decides this requirement (--tcab-strict)"])


def test_without_a_handle_the_api_has_page_level_members_only(pytester: pytest.Pytester) -> None:
    probe = ("export default async (api) => ({ verdicts: { answers: api.answer === undefined && "
             "typeof api.screenshot === 'function' }, notes: typeof api.answer });\n")
    project(pytester.path, instrumented=False, validators={**VALIDATORS, "answers.mjs": probe})
    result = pytester.runpytest(*ARGS, "-k", "answers")
    result.assert_outcomes(passed=1, deselected=5)


def test_a_typescript_validator_esbuild_refuses_fails_with_its_message(pytester: pytest.Pytester) -> None:
    project(pytester.path, validators={**VALIDATORS, "checks/fast.ts": "export default async (api: Game => {\n"})
    result = pytester.runpytest(*ARGS, "-k", "fast")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(["  checks/fast.ts: esbuild * could not strip the types of fast.ts:", "*fast.ts:1:*"])


EXAMPLE_RUNS = Path(__file__).resolve().parents[2] / "example-suite" / "runs"


@pytest.mark.skipif(shutil.which("tsc") is None or shutil.which("npm") is None,
                    reason="the example game builds with npm and tsc (scripts/bootstrap installs them)")
@pytest.mark.parametrize(("name", "outcomes"), [
    ("carom-e2e", {"passed": 5, "skipped": 4}),
    ("carom-e2e-flawed", {"passed": 4, "failed": 1, "skipped": 4}),
], ids=["sound", "flawed"])
def test_the_example_game_runs_give_the_readme_outcomes(pytester: pytest.Pytester, name: str,
                                                         outcomes: dict[str, int]) -> None:
    suite = EXAMPLE_RUNS.parent
    result = pytester.runpytest("-p", "no:cacheprovider", f"--tcab-suite={suite}", f"--tcab-run={EXAMPLE_RUNS / name}",
                                "--tcab-out=out")
    result.assert_outcomes(**outcomes)
    run = the_run(pytester.path)
    verdicts = {item["id"]: item["outcome"] for item in run["items"] if item["kind"] == "requirement"}
    assert verdicts["wall-bounce"] == "passed"
    assert verdicts["spin-decay"] == ("failed" if "flawed" in name else "passed")
    assert verdicts["frame-rate"] == "skipped"
    if "flawed" in name:
        result.stdout.fnmatch_lines(["  ball/spin-decay.ts: false: |spin| 4 -> 4.000 after 1 s -> 4.0000 after 4 s"])


def test_a_false_validator_lists_its_failed_expectations_and_a_ts_throw_names_its_line(
        pytester: pytest.Pytester) -> None:
    kit = ("export async function drive(api, ttc) {\n"
           "  const check = ttc.checkOne('answers');\n"
           "  check.expectEq('the answer', await api.answer(), 41);\n"
           "  check.expectGt('above forty', await api.answer(), 40);\n"
           "  return check.verdict();\n"
           "}\n")
    throws = ('import { expected } from "./_expect";\n'
              "export default async (api: { answer(): Promise<number> }) => {\n"
              "  const got: number = await api.answer();\n"
              "  if (got !== expected) throw new Error(`answered ${got}`);\n"
              "  return { verdicts: { fast: true } };\n"
              "};\n")
    project(pytester.path, validators={**VALIDATORS, "answers.mjs": kit, "checks/fast.ts": throws})
    result = pytester.runpytest(*ARGS, "-k", "answers or fast")
    result.assert_outcomes(failed=2, deselected=4)
    result.stdout.fnmatch_lines([
        "  answers.mjs: false: 1 of 2 expectations failed:",
        "    the answer: expected 41, actual 42",
        "  checks/fast.ts: the driver threw Error: answered 42",
        "    at Module.fast_default (validators/checks/fast.ts:4:*)",
    ])
