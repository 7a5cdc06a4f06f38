"""The editor schemas: current with the models, readable on hover, and agreeing with the plugin on
single-mistake files, as the real taplo CLI reads them (tests/schemas/)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_tcab.errors import format_problems
from pytest_tcab.models.validate import validate
from pytest_tcab.schemas import editors
from pytest_tcab.schemas.generate import FILE_KINDS
from pytest_tcab.schemas.generate import SCHEMA_DIR
from pytest_tcab.schemas.generate import FileKind
from pytest_tcab.schemas.generate import dumps
from pytest_tcab.schemas.generate import refs
from pytest_tcab.schemas.generate import schemas
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import load

FIXTURES = Path(__file__).resolve().parent.parent / "schemas"
KINDS = {kind.name: kind for kind in FILE_KINDS}
LAYOUT_PLACES = {
    "test-case": "test-cases/end-to-end/easy/{name}/v1.0.0/test-case.toml",
    "variant": "test-cases/end-to-end/easy/{name}/v1.0.0/variants/frenzy.toml",
    "wasm-variant": "test-cases/performance/easy/{name}/v1.0.0/variants/large.toml",
    "errata": "test-cases/end-to-end/easy/{name}/v1.0.0/errata.toml",
    "tcab": "{name}/tcab.toml",
    "version": "{name}/versions/v1.0.0/version.toml",
    "definition": "versions/v1.0.0/test-cases/{name}.toml",
    "specification": "versions/v1.0.0/specifications/{name}/specification.toml",
    "asset": "versions/v1.0.0/assets/{name}/asset.toml",
    "run": "runs/{name}/.tcab/run.toml",
}
"""Where the layouts put a file of each kind, so taplo picks its schema by the written `.taplo.toml`."""
MISTAKES = sorted(FIXTURES.glob("mistakes/*/*.toml"))
_NAMED = re.compile(r"`([^`]+)`")


def test_the_shipped_schemas_are_generated_from_the_models() -> None:
    # A model edit must regenerate them: python -m pytest_tcab.schemas.generate
    shipped = {path.name: path.read_text(encoding="utf-8") for path in SCHEMA_DIR.glob("*.schema.json")}
    assert shipped == {name: dumps(document) for name, document in schemas().items()}


@pytest.mark.parametrize("kind", FILE_KINDS, ids=lambda kind: kind.name)
def test_each_schema_is_draft_2020_12_and_its_references_resolve(kind: FileKind) -> None:
    document = schemas()[kind.filename]
    jsonschema.Draft202012Validator.check_schema(document)
    for ref in refs(document):
        assert ref.removeprefix("#/$defs/") in document["$defs"], ref
    assert "Rules that span files stay the plugin's" in document["description"]


def _tables(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "(root)", document
    yield from document["$defs"].items()


@pytest.mark.parametrize("kind", FILE_KINDS, ids=lambda kind: kind.name)
def test_every_key_says_what_it_does_and_every_table_refuses_unknown_keys(kind: FileKind) -> None:
    document = schemas()[kind.filename]
    for name, table in _tables(document):
        if "properties" not in table or "allOf" in table:
            continue  # a `type` dispatch: its branches are the tables
        assert table.get("additionalProperties") is False, name
        for key, node in table["properties"].items():
            assert len(node.get("description", "")) > 10, f"{name}.{key} has no description"
            assert key not in node["description"].split()[0], f"{name}.{key}: say what it does, not its name"


def test_enums_and_defaults_reach_the_hover() -> None:
    manifest = schemas()["test-case.schema.json"]["$defs"]["Manifest"]["properties"]
    assert manifest["difficulty"]["enum"] == ["easy", "medium", "hard"]
    assert manifest["max_runtime_hours"]["default"] == 1.0
    assert manifest["max_runtime_hours"]["exclusiveMinimum"] == 0
    assert "null" not in json.dumps(manifest)  # TOML has no null: an optional key is left out


def test_the_definition_schema_is_chosen_by_type_across_the_ten_types() -> None:
    document = schemas()["definition.schema.json"]
    assert document["required"] == ["type"]
    assert document["properties"]["type"]["enum"] == [
        "end-to-end", "full-stack", "sprite", "voxel", "blender", "particle", "music", "audio-fx",
        "performance", "adversarial"]
    assert len(document["allOf"]) == 10


def test_the_example_suite_validates_against_the_schemas() -> None:
    example = Path(__file__).resolve().parents[2] / "example-suite"
    checked = 0
    for kind in FILE_KINDS:
        validator = jsonschema.Draft202012Validator(schemas()[kind.filename])
        for glob in kind.globs:
            for path in example.glob(glob):
                if kind.name == "variant" and "/performance/" in path.as_posix():
                    continue  # the wasm-variant rule comes after it in .taplo.toml, and wins
                doc = load(path)
                assert isinstance(doc, TomlDocument)
                errors = [error.message for error in validator.iter_errors(_json(doc.data))]
                assert not errors, (path, errors)
                checked += 1
    assert checked > 40


def _json(data: Any) -> Any:
    """A TOML value as taplo hands it to the schema: dates and times as their text."""
    return json.loads(json.dumps(data, default=str))


def _named_key(path: Path) -> str:
    match = _NAMED.search(path.read_text(encoding="utf-8").splitlines()[0])
    assert match is not None, f"{path}: its first line names the key in backticks"
    return match[1]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("valid/*.toml")), ids=lambda path: path.stem)
def test_the_valid_fixtures_pass_the_plugin(path: Path) -> None:
    doc = load(path)
    assert isinstance(doc, TomlDocument)
    model = KINDS[path.stem].model_for(doc.data)
    assert model is not None
    found, problems = validate(model, doc)
    assert found is not None, format_problems(problems)


def test_every_file_kind_has_its_four_single_mistakes() -> None:
    assert {(path.parent.name, path.stem) for path in MISTAKES} == {
        (kind.name, mistake) for kind in FILE_KINDS
        for mistake in ("unknown-key", "wrong-type", "bad-value", "missing-key")}


@pytest.mark.parametrize("path", MISTAKES, ids=lambda path: f"{path.parent.name}-{path.stem}")
def test_the_plugin_rejects_each_mistake_naming_the_key(path: Path) -> None:
    doc = load(path)
    assert isinstance(doc, TomlDocument)
    model = KINDS[path.parent.name].model_for(doc.data)
    assert model is not None
    found, problems = validate(model, doc)
    assert found is None
    assert f"`{_named_key(path)}" in format_problems(problems) or _named_key(path) in format_problems(problems)


@pytest.fixture(scope="module")
def taplo_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """taplo's report of every mistake file, placed where its layout puts it in one suite, checked in one run."""
    taplo = shutil.which("taplo")
    if taplo is None:
        pytest.skip("the taplo CLI is not installed (pip install taplo: the test extra carries it)")
    root = tmp_path_factory.mktemp("suite")
    placed: dict[str, str] = {}
    for path in MISTAKES:
        relative = LAYOUT_PLACES[path.parent.name].format(name=path.stem)
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, root / relative)
        placed[(root / relative).as_posix()] = f"{path.parent.name}/{path.stem}"
    editors.write(root)
    result = subprocess.run([taplo, "check", "--colors", "never"], cwd=root, capture_output=True, text=True,
                            timeout=120, check=False)
    reports = dict.fromkeys(placed.values(), "")
    for block in re.split(r"\n(?=error: )", result.stdout + "\n" + result.stderr):
        where = re.search(r"┌─ (\S+?):\d+:\d+", block)
        if block.startswith("error: ") and where is not None and where[1] in placed:
            reports[placed[where[1]]] += block + "\n"
    return reports


@pytest.mark.parametrize("path", MISTAKES, ids=lambda path: f"{path.parent.name}-{path.stem}")
def test_taplo_rejects_each_mistake_naming_the_key(path: Path, taplo_reports: dict[str, str]) -> None:
    report = taplo_reports[f"{path.parent.name}/{path.stem}"]
    assert report, f"taplo accepted {path.parent.name}/{path.name}"
    # taplo names the key in its message (an unknown or missing key) or underlines its line (a bad value).
    assert _named_key(path) in report, report
