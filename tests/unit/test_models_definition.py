"""pytest_tcab.models.definition: the mirrors of the test-suite layout, one model per type."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic import ValidationError

from pytest_tcab.models.adversarial import Match
from pytest_tcab.models.definition import ASSET_TYPES
from pytest_tcab.models.definition import CODE_TYPES
from pytest_tcab.models.definition import DEFINITION_MODELS
from pytest_tcab.models.definition import KEY_OWNERS
from pytest_tcab.models.definition import PENDING_TYPES
from pytest_tcab.models.definition import Asset
from pytest_tcab.models.definition import Specification
from pytest_tcab.models.definition import Toolchain
from pytest_tcab.models.definition import VersionInfo
from pytest_tcab.models.definition import asset_kind_for
from pytest_tcab.models.definition import asset_table

COMMON: dict[str, Any] = {"name": "N", "difficulty": "easy", "prompt": "prompts/p.hbs"}
WASM_BUILD = {"install": "true", "build": "cargo build", "module": "out.wasm"}
TABLES: dict[str, dict[str, Any]] = {
    "end-to-end": {"engines": ["none"], "workspaces": {"none": "w"}, "build": {"install": "npm ci", "build": "b"},
                   "toolchain": {"typecheck": "tsc"}},
    "sprite": {"sprite": {"id": "ball", "sheet": True}},
    "voxel": {"voxel": {"id": "ship", "animated": True}},
    "blender": {"blender": {"id": "lamp"}},
    "particle": {"particle": {"id": "burst"}},
    "music": {"music": {"id": "theme"}},
    "audio-fx": {"audio-fx": {"id": "hit"}},
    "performance": {"build": WASM_BUILD, "contract": {"entry": "run", "input": "i.json", "output": "o.json"},
                    "sandbox": {"fuel_limit": 10, "max_memory_bytes": 65536},
                    "case": [{"input": "a.json", "expected": "a.out"}]},
    "adversarial": {"workspace": "w", "build": WASM_BUILD,
                    "contract": {"entry": "act", "world": "w.json", "action": "a.json"},
                    "sandbox": {"fuel_per_tick": 10, "max_memory_bytes": 65536},
                    "simulation": {"referee": "r.py", "timestep_ms": 16.5, "max_ticks": 10},
                    "match": {"participants": 4, "structure": "bracket", "rounds": 2},
                    "replay": {"renderer": "r.html"}},
}
TABLES["full-stack"] = TABLES["end-to-end"]


def _locs(model: type[BaseModel], data: dict[str, Any]) -> list[tuple[str | int, ...]]:
    with pytest.raises(ValidationError) as excinfo:
        model.model_validate(data)
    return [err["loc"] for err in excinfo.value.errors(include_url=False)]


@pytest.mark.parametrize("case_type", sorted(DEFINITION_MODELS))
def test_every_type_has_a_model_that_takes_its_tables(case_type: str) -> None:
    model = DEFINITION_MODELS[case_type].model_validate({**COMMON, "type": case_type, **TABLES[case_type]})
    assert model.type == case_type
    assert model.max_runtime_hours == 1.0 and model.experimental is False and model.specifications is None


@pytest.mark.parametrize("case_type", sorted(DEFINITION_MODELS))
def test_a_type_rejects_a_key_it_does_not_own(case_type: str) -> None:
    foreign = next(key for key, owners in KEY_OWNERS.items() if case_type not in owners)
    data = {**COMMON, "type": case_type, **TABLES[case_type], foreign: {}}
    assert (foreign,) in _locs(DEFINITION_MODELS[case_type], data)


def test_the_types_are_the_spec_s_and_puzzle_is_pending() -> None:
    assert set(DEFINITION_MODELS) == {*CODE_TYPES, *ASSET_TYPES, "performance", "adversarial"}
    assert PENDING_TYPES == ("puzzle",)
    assert all(KEY_OWNERS[table] == (table,) for table in ASSET_TYPES)


def test_asset_tables_name_the_kind_they_want() -> None:
    def build(case_type: str, table: dict[str, Any] | None = None) -> Any:
        tables = TABLES[case_type] if table is None else {case_type: table}
        return DEFINITION_MODELS[case_type].model_validate({**COMMON, "type": case_type, **tables})

    assert asset_kind_for(build("sprite")) == "sprite-sheet"
    assert asset_kind_for(build("sprite", {"id": "ball"})) == "sprite"
    assert asset_kind_for(build("voxel")) == "voxel"
    assert asset_kind_for(build("end-to-end")) is None
    hit = build("audio-fx")
    assert asset_kind_for(hit) == "audio-fx"
    assert asset_table(hit) is not None and asset_table(hit).id == "hit"  # type: ignore[union-attr]
    assert asset_table(build("performance")) is None


def test_audio_fx_errors_keep_the_toml_key() -> None:
    data = {**COMMON, "type": "audio-fx", "audio-fx": {"name": "x"}}
    assert ("audio-fx", "id") in _locs(DEFINITION_MODELS["audio-fx"], data)


def test_code_types_require_engines_and_their_tables() -> None:
    locs = _locs(DEFINITION_MODELS["end-to-end"], {**COMMON, "type": "end-to-end"})
    assert {("engines",), ("workspaces",), ("build",), ("toolchain",)} <= set(locs)
    assert ("engines",) in _locs(DEFINITION_MODELS["full-stack"], {**COMMON, "type": "full-stack",
                                                                   **TABLES["full-stack"], "engines": []})
    assert ("typecheck",) in _locs(Toolchain, {"lint": "eslint"})


def test_shared_keys_are_checked() -> None:
    model = DEFINITION_MODELS["sprite"]
    base = {**COMMON, "type": "sprite", **TABLES["sprite"]}
    assert ("max_runtime_hours",) in _locs(model, {**base, "max_runtime_hours": -1})
    assert ("init",) in _locs(model, {**base, "init": " "})
    assert ("difficulty",) in _locs(model, {**base, "difficulty": "trivial"})
    assert ("specifications", 0) in _locs(model, {**base, "specifications": ["a.b"]})


def test_adversarial_tables_are_bounded() -> None:
    assert ("participants",) in _locs(Match, {"participants": 1, "structure": "bracket", "rounds": 1})
    assert ("structure",) in _locs(Match, {"participants": 2, "structure": "swiss", "rounds": 1})
    assert ("rounds",) in _locs(Match, {"participants": 2, "structure": "round-robin", "rounds": 0})


def test_specifications_assets_and_version_info() -> None:
    spec = Specification.model_validate({"id": "ball-spin", "name": "Ball Spin", "summary": "S.", "path": "ball/spin.md",
                                         "requirement": [{"id": "decay", "kind": "functional", "text": "It MUST."}]})
    assert spec.requirement[0].validators == []
    assert ("requirement", 0, "kind") in _locs(Specification, {"id": "a", "name": "A", "summary": "S.", "path": "a.md",
                                                               "requirement": [{"id": "r", "kind": "x", "text": "t"}]})
    assert ("files",) in _locs(Asset, {"id": "a", "name": "A", "kind": "sprite", "specification": "s", "files": []})
    assert ("kind",) in _locs(Asset, {"id": "a", "name": "A", "kind": "texture", "specification": "s", "files": ["a"]})
    assert {("tags",), ("changelog",)} <= set(_locs(VersionInfo, {"version": "v1.0.0"}))
