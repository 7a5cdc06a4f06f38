"""The documentation names only what exists: options, ini keys and results fields from the code,
the workflow CI runs, and generated reference sections the build can fill.

The reference tables themselves are generated from the code (scripts/docs_reference.py, run by
`mkdocs build`); these tests hold the hand-written prose to the same names.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
_OPTION = re.compile(r"--tcab-[a-z0-9-]*[a-z0-9]")
_INI_KEY = re.compile(r"\btcab_[a-z0-9_]*[a-z0-9]\b")
_CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_JSON_BLOCK = re.compile(r"^```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_JSON_KEY = re.compile(r'"([a-z_][a-z0-9_]*)"\s*:')
_QUOTED_NAME = re.compile(r'"([a-z_][a-z0-9_]*)"')


def _load_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference", REPO / "scripts/docs_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docs_reference", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


def hand_written() -> dict[str, str]:
    """Every page a person wrote (the generated sections are markers there), and the README."""
    pages = {str(path.relative_to(REPO)): path.read_text(encoding="utf-8") for path in sorted((REPO / "docs").rglob("*.md"))}
    pages["README.md"] = (REPO / "README.md").read_text(encoding="utf-8")
    return pages


def named_fields(markdown: str) -> set[str]:
    """The JSON field names a page names: `"field"` and `"field": value` code spans, and the keys of
    ```json blocks (a value in quotes, such as `"over-ceiling"`, is not a name)."""
    names = set()
    for span in _CODE_SPAN.findall(markdown):
        names |= set(_JSON_KEY.findall(span))
        whole = _QUOTED_NAME.fullmatch(span.strip())
        if whole:
            names.add(whole[1])
    for block in _JSON_BLOCK.findall(markdown):
        names |= set(_JSON_KEY.findall(block))
    return names


@pytest.fixture(scope="module")
def known() -> dict[str, set[str]]:
    from pytest_tcab.selection import KIND_MARKERS

    results = reference.results_fields()
    kinds = set(KIND_MARKERS) | set(reference.results_reference().kinds)
    return {
        "options": reference.option_flags(),
        "ini keys": reference.ini_keys() | {f"tcab_{kind}" for kind in kinds},  # markers share the prefix
        "fields": results | reference.sweep_fields() | reference.matrix_fields(),
    }


def unknown_names(markdown: str, known: dict[str, set[str]]) -> dict[str, set[str]]:
    found = {
        "options": set(_OPTION.findall(markdown)) - known["options"],
        "ini keys": set(_INI_KEY.findall(markdown)) - known["ini keys"],
        "fields": named_fields(markdown) - known["fields"],
    }
    return {what: names for what, names in found.items() if names}


def test_pages_name_only_options_ini_keys_and_fields_that_exist(known: dict[str, set[str]]) -> None:
    wrong = {page: found for page, text in hand_written().items() if (found := unknown_names(text, known))}
    assert wrong == {}, "pages name what the code does not define (see scripts/docs_reference.py)"


def test_a_name_that_does_not_exist_is_caught(known: dict[str, set[str]]) -> None:
    page = ('Pass `--tcab-sweeep` (ini `tcab_sweeep`); results.json has `"similarty": 1.0`, '
            '`"fuel"` and `"over-ceiling"`, and\n```json\n{"runs": [{"scroe": 1}]}\n```\n')
    assert unknown_names(page, known) == {"options": {"--tcab-sweeep"}, "ini keys": {"tcab_sweeep"},
                                          "fields": {"similarty", "scroe"}}


def test_the_fields_found_are_the_ones_results_json_holds() -> None:
    """A spot check of the AST walk against fields every reader of results.json relies on."""
    found = reference.results_reference()
    assert {"tool", "sandbox", "suite_changed"} <= set(found.top.fields)
    assert {"run", "case", "version", "variant", "engine", "counts", "partial", "deselected", "score",
            "domains", "errata", "performance", "tournament", "requirements", "toolchain"} <= set(found.run.fields)
    assert {"nodeid", "kind", "id", "outcome", "duration_s", "message"} <= set(found.item.fields)
    assert {"similarity", "baseline_cache"} <= set(found.kinds["check"].fields)
    assert {"fuel", "fuel_limit", "fuel_runway"} <= set(found.kinds["fuel"].fields)
    assert {"steps"} <= set(found.kinds["build"].fields)
    assert {"command", "returncode", "sandbox", "network"} <= set(found.kinds["build"].fields["steps"].element.fields)
    assert {"verdict", "notes", "media", "expectations"} <= set(found.kinds["validate"].fields)


def test_sweep_json_is_read_from_the_code_that_writes_it_when_there_is_some() -> None:
    shape = reference.sweep_reference()
    if shape is None:  # this version writes no sweep.json: nothing may claim it does
        assert reference.sweep_json_section() == "This version of pytest-tcab writes no sweep.json."
        return
    assert {"runs", "leaderboard"} <= set(shape.fields)
    assert {"run", "status", "score", "model", "harness"} <= set(shape.fields["runs"].element.fields)


def test_the_options_reference_is_what_pytest_help_lists() -> None:
    shown = subprocess.run([sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"], cwd=REPO,
                           capture_output=True, text=True, check=True,
                           env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}).stdout
    listed = set(re.findall(r"^\s+(--tcab-[a-z-]+)", shown, re.MULTILINE))
    table = reference.options_section()
    assert listed == reference.option_flags()
    assert all(f"`{flag}" in table for flag in listed)
    assert all(f"`{key}`" in table for key in reference.ini_keys())


def test_every_generated_section_a_page_asks_for_exists() -> None:
    for page, text in hand_written().items():
        for name in reference.MARKER.findall(text):
            assert name in reference.SECTIONS, f"{page}: <!-- tcab:{name} --> is not a generated section"
    with pytest.raises(ValueError, match="unknown generated section"):
        reference.expand("<!-- tcab:nothing -->")


def test_the_documented_workflow_is_the_one_ci_runs() -> None:
    doc = (REPO / "docs/github-actions.md").read_text(encoding="utf-8")
    shown = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert shown == (REPO / ".github/workflows/ci.yml").read_text(encoding="utf-8")
