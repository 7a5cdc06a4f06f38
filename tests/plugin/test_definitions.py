"""Every rule of spec/definitions.md, broken one at a time in a minimal suite, run as users run it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from definition_suite import ASSET
from definition_suite import CLEAN_ITEMS
from definition_suite import DUEL
from definition_suite import GAME
from definition_suite import HERO
from definition_suite import INFO
from definition_suite import PERF
from definition_suite import SPEC
from definition_suite import VERSION
from definition_suite import write_definition_suite
from rules import NESTINGS
from rules import Edit
from rules import nested

PROSE = VERSION / "specifications/core/specification.md"
SECOND_SPEC = VERSION / "specifications/other/specification.toml"

# rule -> (edits, the item that fails, the exact line that says why)
RULES: dict[str, tuple[list[Edit], Path | str, str]] = {
    # -- shape ---------------------------------------------------------------------------------
    "toml-syntax": ([Edit(GAME, 'name = "Game"', 'name = "Game')], GAME,
                    f"{GAME}:1: game.toml is not valid TOML: at line 1, column 13, the parser expected the string to close before the end of the line"),
    "unknown-key": ([Edit(GAME, 'difficulty = "easy"', 'dificulty = "easy"')], GAME,
                    f"{GAME}:3: `dificulty`: unknown key `dificulty`"),
    "name-required": ([Edit(GAME, 'name = "Game"\n', "")], GAME, f"{GAME}: missing required key `name`"),
    "type-required": ([Edit(GAME, 'type = "end-to-end"\n', "")], GAME, f"{GAME}: missing required key `type`"),
    "type-unknown": ([Edit(GAME, 'type = "end-to-end"', 'type = "end2end"')], GAME,
                     f"{GAME}:2: `type`: unknown type 'end2end'"),
    "type-puzzle-tbd": ([Edit(HERO, 'type = "sprite"', 'type = "puzzle"')], HERO,
                        f"{HERO}:2: `type`: type 'puzzle' has no test-suite form yet: spec/definitions.md leaves it TBD"),
    "difficulty-required": ([Edit(GAME, 'difficulty = "easy"\n', "")], GAME,
                            f"{GAME}: missing required key `difficulty`"),
    "difficulty-enum": ([Edit(GAME, 'difficulty = "easy"', 'difficulty = "trivial"')], GAME,
                        f"{GAME}:3: `difficulty`: 'trivial' is not allowed"),
    "prompt-required": ([Edit(HERO, 'prompt = "prompts/p.hbs"\n', "")], HERO, f"{HERO}: missing required key `prompt`"),
    "prompt-exists": ([Edit(HERO, "prompts/p.hbs", "prompts/missing.hbs")], HERO,
                      (f"{HERO}:4: `prompt`: prompt template 'prompts/missing.hbs' does not exist; expected a file "
                      "under v1.0.0/")),
    "prompt-contained": ([Edit(HERO, "prompts/p.hbs", "../v1.0.0/prompts/p.hbs")], HERO,
                         f"{HERO}:4: `prompt`: prompt template '../v1.0.0/prompts/p.hbs' climbs out with '..'"),
    "max-runtime-positive": ([Edit(HERO, 'prompt = "prompts/p.hbs"', 'prompt = "prompts/p.hbs"\nmax_runtime_hours = 0')],
                             HERO, f"{HERO}:5: `max_runtime_hours`: must be a positive number, not 0.0"),
    "experimental-bool": ([Edit(HERO, 'prompt = "prompts/p.hbs"', 'prompt = "prompts/p.hbs"\nexperimental = "yes"')],
                          HERO, f"{HERO}:5: `experimental`: must be a boolean (true or false), not a string ('yes')"),
    "init-not-blank": ([Edit(HERO, 'prompt = "prompts/p.hbs"', 'prompt = "prompts/p.hbs"\ninit = "  "')], HERO,
                       f"{HERO}:5: `init`: must not be empty or blank"),
    # -- code-producing types ------------------------------------------------------------------
    "engines-required": ([Edit(GAME, 'engines = ["none", "simple-2d"]\n', "")], GAME,
                         f"{GAME}: missing required key `engines`"),
    "engines-not-empty": ([Edit(GAME, 'engines = ["none", "simple-2d"]', "engines = []")], GAME,
                          f"{GAME}:4: `engines`: this array must not be empty"),
    "engine-known": ([Edit(GAME, '"simple-2d"]', '"simple-2d", "unreal"]'),
                      Edit(GAME, 'simple-2d = "workspaces/s2d"', 'simple-2d = "workspaces/s2d"\nunreal = "workspaces/s2d"')],
                     GAME, f"{GAME}:4: `engines[2]`: engine 'unreal' is not known"),
    "engine-twice": ([Edit(GAME, '["none", "simple-2d"]', '["none", "simple-2d", "none"]')], GAME,
                     f"{GAME}:4: `engines[2]`: engine 'none' is listed twice"),
    "workspaces-required": ([Edit(GAME, '[workspaces]\nnone = "workspaces/none"\nsimple-2d = "workspaces/s2d"\n', "")],
                            GAME, f"{GAME}: missing required key `workspaces`"),
    "workspaces-entry-per-engine": ([Edit(GAME, 'simple-2d = "workspaces/s2d"\n', "")], GAME,
                                    f"{GAME}:8: `workspaces`: has no entry for engine 'simple-2d'"),
    "workspaces-no-extra": ([Edit(GAME, 'simple-2d = "workspaces/s2d"', 'simple-2d = "workspaces/s2d"\nother = "workspaces/s2d"')],
                            GAME, f"{GAME}:11: `workspaces.other`: engine 'other' is not one of the definition's `engines`"),
    "workspace-is-dir": ([Edit(GAME, '"workspaces/s2d"', '"workspaces/s2d/package.json"')], GAME,
                         (f"{GAME}:10: `workspaces.simple-2d`: workspace 'workspaces/s2d/package.json' is a file; "
                         "expected a directory under v1.0.0/")),
    "build-required": ([Edit(GAME, '[build]\ninstall = "npm ci"\nbuild = "npm run build"\n', "")], GAME,
                       f"{GAME}: missing required key `build`"),
    "build-command-required": ([Edit(GAME, 'build = "npm run build"\n', "")], GAME,
                               f"{GAME}:12: `build`: missing required key `build`"),
    "toolchain-required": ([Edit(GAME, '[toolchain]\ntypecheck = "npm run typecheck"\n', "")], GAME,
                           f"{GAME}: missing required key `toolchain`"),
    "typecheck-required": ([Edit(GAME, 'typecheck = "npm run typecheck"', 'lint = "npm run lint"')], GAME,
                           f"{GAME}:16: `toolchain`: missing required key `typecheck`"),
    "engines-only-code-types": ([Edit(HERO, 'prompt = "prompts/p.hbs"', 'prompt = "prompts/p.hbs"\nengines = ["none"]')],
                                HERO, (f"{HERO}:5: `engines`: `engines` is declared by end-to-end and full-stack "
                                "definitions only, not by a sprite definition")),
    "toolchain-only-code-types": ([Edit(HERO, None, '\n[toolchain]\ntypecheck = "tsc"\n')], HERO,
                                  (f"{HERO}:9: `toolchain`: `[toolchain]` is declared by end-to-end and full-stack "
                                  "definitions only, not by a sprite definition")),
    "code-type-no-workspace-key": ([Edit(GAME, 'prompt = "prompts/p.hbs"', 'prompt = "prompts/p.hbs"\nworkspace = "workspaces/none"')],
                                   GAME, (f"{GAME}:7: `workspace`: `workspace` is declared by performance and "
                                   "adversarial definitions only, not by an end-to-end definition")),
    # -- type tables ---------------------------------------------------------------------------
    "type-table-required": ([Edit(HERO, '\n[sprite]\nid = "hero"\n', "")], HERO, f"{HERO}: missing required key `sprite`"),
    "type-table-alone": ([Edit(HERO, None, '\n[voxel]\nid = "hero"\n')], HERO,
                         (f"{HERO}:9: `voxel`: `[voxel]` is the table of voxel definitions; a sprite definition carries "
                         "`[sprite]`")),
    "code-type-no-type-table": ([Edit(GAME, None, '\n[sprite]\nid = "hero"\n')], GAME,
                                (f"{GAME}:19: `sprite`: `[sprite]` is the table of sprite definitions; an end-to-end "
                                "definition carries no type table")),
    "type-table-id-required": ([Edit(HERO, 'id = "hero"', "sheet = false")], HERO,
                               f"{HERO}:6: `sprite`: missing required key `id`"),
    "type-table-id-names-asset": ([Edit(HERO, 'id = "hero"', 'id = "villain"')], HERO,
                                  f"{HERO}:7: `sprite.id`: asset 'villain' is not declared under assets/"),
    "type-table-kind-fits": ([Edit(HERO, 'id = "hero"', 'id = "hero"\nsheet = true')], HERO,
                             (f"{HERO}:7: `sprite.id`: asset 'hero' is a sprite, but a sprite definition "
                             "(sheet = true) produces a sprite-sheet")),
    "type-table-kind-fits-voxel": ([Edit(HERO, 'type = "sprite"', 'type = "voxel"'), Edit(HERO, "[sprite]", "[voxel]")],
                                   HERO, (f"{HERO}:7: `voxel.id`: asset 'hero' is a sprite, but a voxel definition "
                                   "produces a voxel")),
    "type-table-unknown-key": ([Edit(HERO, 'id = "hero"', 'id = "hero"\nanimated = true')], HERO,
                               f"{HERO}:8: `sprite.animated`: unknown key `animated`"),
    # -- specifications ------------------------------------------------------------------------
    "specifications-resolve": ([Edit(GAME, '["core"]', '["core", "physics"]')], GAME,
                               (f"{GAME}:5: `specifications[1]`: specification 'physics' is not declared in this suite "
                               "version")),
    "specifications-twice": ([Edit(GAME, '["core"]', '["core", "core"]')], GAME,
                             f"{GAME}:5: `specifications[1]`: specification 'core' is listed twice"),
    "requirement-rfc2119": ([Edit(SPEC, "It MUST work.", "It must work.")], SPEC,
                            (f"{SPEC}:9: `requirement[0].text`: requirement text carries no RFC 2119 keyword in capitals "
                            "(MUST, SHALL, SHOULD, MAY, REQUIRED, RECOMMENDED, OPTIONAL)")),
    # The definition that seeds a broken specification says so once; the problem itself is its file's.
    "requirement-rfc2119-inherited": ([Edit(SPEC, "It MUST work.", "It works.")], GAME,
                                      (f"{GAME}:5: `specifications[0]`: specification 'core' does not resolve: "
                                      "specifications/core/specification.toml has 1 problem")),
    "requirement-kind": ([Edit(SPEC, 'kind = "functional"', 'kind = "visual"')], SPEC,
                         f"{SPEC}:8: `requirement[0].kind`: 'visual' is not allowed"),
    "requirement-validator-exists": ([Edit(SPEC, "It MUST work.\"", 'It MUST work."\nvalidators = ["core/works.ts"]')],
                                     SPEC, (f"{SPEC}:10: `requirement[0].validators[0]`: validator 'core/works.ts' does not "
                                     "exist; expected a file under validators/")),
    "specification-id-unique": ([Edit(SECOND_SPEC, None, 'id = "core"\nname = "Other"\nsummary = "S."\npath = "other.md"\n'),
                                 Edit(SECOND_SPEC.parent / "specification.md", None, "Other.\n")], SECOND_SPEC,
                                (f"{SECOND_SPEC}:1: `id`: specification id 'core' is already declared by `id` "
                                "(specifications/core/specification.toml:1)")),
    "requirement-id-unique": ([Edit(SECOND_SPEC, None, 'id = "other"\nname = "Other"\nsummary = "S."\npath = "other.md"\n\n'
                                    '[[requirement]]\nid = "works"\nkind = "functional"\ntext = "It MAY work."\n'),
                               Edit(SECOND_SPEC.parent / "specification.md", None, "Other.\n")], SECOND_SPEC,
                              (f"{SECOND_SPEC}:7: `requirement[0].id`: requirement id 'works' is already declared by "
                              "`requirement[0].id` (specifications/core/specification.toml:7)")),
    "specification-prose-exists": ([Edit(PROSE, None, None)], SPEC, f"{SPEC}: has no specification.md beside it"),
    "specification-path-contained": ([Edit(SPEC, 'path = "core.md"', 'path = "../core.md"')], SPEC,
                                     f"{SPEC}:4: `path`: '../core.md' climbs out with '..'"),
    "specification-summary-required": ([Edit(SPEC, 'summary = "The core."\n', "")], SPEC,
                                       f"{SPEC}: missing required key `summary`"),
    # -- assets --------------------------------------------------------------------------------
    "asset-id-is-folder": ([Edit(ASSET, 'id = "hero"', 'id = "heroine"')], ASSET,
                           f"{ASSET}:1: `id`: id 'heroine' differs from its folder assets/hero/"),
    "asset-kind-enum": ([Edit(ASSET, 'kind = "sprite"', 'kind = "texture"')], ASSET,
                        f"{ASSET}:3: `kind`: 'texture' is not allowed"),
    "asset-specification-resolves": ([Edit(ASSET, 'specification = "core"', 'specification = "art"')], ASSET,
                                     (f"{ASSET}:4: `specification`: specification 'art' is not declared in this suite "
                                     "version")),
    "asset-file-exists": ([Edit(ASSET, '["hero.png"]', '["hero.png", "hero@2x.png"]')], ASSET,
                          f"{ASSET}:5: `files[1]`: asset file 'hero@2x.png' does not exist; expected a file under hero/"),
    "asset-files-not-empty": ([Edit(ASSET, '["hero.png"]', "[]")], ASSET, f"{ASSET}:5: `files`: this array must not be empty"),
    # -- version.toml --------------------------------------------------------------------------
    "version-toml-exists": ([Edit(INFO, None, None)], GAME,
                            f"{GAME}: the suite version v1.0.0 has no version.toml"),
    "version-matches-folder": ([Edit(INFO, 'version = "v1.0.0"', 'version = "v1.0.1"')], INFO,
                               f"{INFO}:1: `version`: version 'v1.0.1' differs from its folder 'v1.0.0'"),
    "version-changelog-exists": ([Edit(VERSION / "changelog.md", None, None)], INFO,
                                 (f"{INFO}:3: `changelog`: changelog 'changelog.md' does not exist; expected a file under "
                                 "v1.0.0/")),
    "version-tags-required": ([Edit(INFO, "tags = []\n", "")], INFO, f"{INFO}: missing required key `tags`"),
    "version-description-exists": ([Edit(INFO, None, 'description = "about.md"\n')], INFO,
                                   (f"{INFO}:4: `description`: description 'about.md' does not exist; expected a file under "
                                   "v1.0.0/")),
    # -- performance and adversarial -----------------------------------------------------------
    "perf-module-required": ([Edit(PERF, 'module = "out.wasm"\n', "")], PERF,
                             f"{PERF}:7: `build`: missing required key `module`"),
    "perf-case-exists": ([Edit(PERF, "cases/a.out", "cases/b.out")], PERF,
                         (f"{PERF}:23: `case[0].expected`: expected output 'cases/b.out' does not exist; expected a file "
                         "under v1.0.0/")),
    "perf-case-held-out": ([Edit(PERF, "cases/a.json", "perf/in.json")], PERF,
                           (f"{PERF}:22: `case[0].input`: case input 'perf/in.json' is seeded into every run (as part of "
                           "perf/in.json), so the model would see a held-out case")),
    "perf-contract-schema-exists": ([Edit(PERF, "perf/out.json", "perf/answer.json")], PERF,
                                    (f"{PERF}:15: `contract.output`: contract output schema 'perf/answer.json' does not "
                                    "exist; expected a file under v1.0.0/")),
    "perf-no-engines": ([Edit(PERF, 'workspace = "workspaces/crate"', 'engines = ["none"]')], PERF,
                        (f"{PERF}:5: `engines`: `engines` is declared by end-to-end and full-stack definitions only, not "
                        "by a performance definition")),
    "perf-workspace-dir": ([Edit(PERF, '"workspaces/crate"', '"workspaces/rust"')], PERF,
                           (f"{PERF}:5: `workspace`: workspace 'workspaces/rust' does not exist; expected a directory "
                           "under v1.0.0/")),
    "perf-no-toolchain": ([Edit(PERF, None, '\n[toolchain]\ntypecheck = "tsc"\n')], PERF,
                          (f"{PERF}:25: `toolchain`: `[toolchain]` is declared by end-to-end and full-stack definitions "
                          "only, not by a performance definition")),
    "adversarial-structure": ([Edit(DUEL, '"round-robin"', '"swiss"')], DUEL,
                              f"{DUEL}:28: `match.structure`: 'swiss' is not allowed"),
    "adversarial-participants": ([Edit(DUEL, "participants = 2", "participants = 1")], DUEL,
                                 (f"{DUEL}:27: `match.participants`: 1 is out of range: should be greater than or equal "
                                 "to 2")),
    "adversarial-world-exists": ([Edit(DUEL, "duel/world.json", "duel/state.json")], DUEL,
                                 (f"{DUEL}:14: `contract.world`: contract world schema 'duel/state.json' does not exist; "
                                 "expected a file under v1.0.0/")),
    "adversarial-renderer-exists": ([Edit(DUEL, "duel/replay.html", "duel/replay.js")], DUEL,
                                    (f"{DUEL}:32: `replay.renderer`: replay renderer 'duel/replay.js' does not exist; "
                                    "expected a file under v1.0.0/")),
    "adversarial-simulation-required": ([Edit(DUEL, "[simulation]\ntimestep_ms = 50\nmax_ticks = 100\nreferee = \"duel/referee.py\"\n", "")], DUEL,
                                        f"{DUEL}: missing required key `simulation`"),
    "adversarial-no-case": ([Edit(DUEL, None, '\n[[case]]\ninput = "cases/a.json"\nexpected = "cases/a.out"\n')], DUEL,
                            (f"{DUEL}:34: `case`: `[[case]]` is declared by performance definitions only, not by an "
                            "adversarial definition")),
    "adversarial-referee-functions": ([Edit(VERSION / "duel/referee.py", "def step(state):\n    return None\n", "")],
                                      DUEL, (f"{DUEL}:24: `simulation.referee`: referee referee.py does not define "
                                      "step")),
    "adversarial-referee-arity": ([Edit(VERSION / "duel/referee.py", "def apply(state, player, action)",
                                        "def apply(state, action)")], DUEL,
                                  (f"{DUEL}:24: `simulation.referee`: referee referee.py:9: apply() cannot be called "
                                   "with 3 positional arguments")),
    "adversarial-referee-parses": ([Edit(VERSION / "duel/referee.py", "return {}\n", "return {\n")], DUEL,
                                   f"{DUEL}:24: `simulation.referee`: referee referee.py does not parse: line 2: '{{' "
                                   "was never closed"),
    "adversarial-referee-python": ([Edit(DUEL, '"duel/referee.py"', '"duel/replay.html"')], DUEL,
                                   (f"{DUEL}:24: `simulation.referee`: referee 'replay.html' is not a Python module "
                                    "(.py)")),
    "adversarial-referee-held-out": ([Edit(VERSION / "workspaces/crate/referee.py", None, "x = 1\n"),
                                      Edit(DUEL, '"duel/referee.py"', '"workspaces/crate/referee.py"')], DUEL,
                                     (f"{DUEL}:24: `simulation.referee`: the referee lies inside workspaces/crate, which "
                                      "is seeded into every run, so the model would see it")),
    "adversarial-house-exists": ([Edit(DUEL, "rounds = 1\n", 'rounds = 1\nhouse = ["house/greedy.wasm"]\n')], DUEL,
                                 (f"{DUEL}:30: `match.house[0]`: house controller 'house/greedy.wasm' does not exist; "
                                  "expected a file under v1.0.0/")),
    "adversarial-action-schema": ([Edit(VERSION / "duel/action.json", "{}", '{"type": 12}')], DUEL,
                                  (f"{DUEL}:15: `contract.action`: action.json is not a valid JSON Schema: at type, 12 "
                                   "is not valid under any of the given schemas")),
    "adversarial-fuel-positive": ([Edit(DUEL, "fuel_per_tick = 1000", "fuel_per_tick = 0")], DUEL,
                                  (f"{DUEL}:18: `sandbox.fuel_per_tick`: 0 is out of range: should be greater than 0")),
    # -- slugs and seeding ---------------------------------------------------------------------
    "slug-kebab": ([Edit(VERSION / "test-cases/Hero_Two.toml", None, 'name = "H"\ntype = "sprite"\ndifficulty = "easy"\n'
                         'prompt = "prompts/p.hbs"\n\n[sprite]\nid = "hero"\n')], VERSION / "test-cases/Hero_Two.toml::slug",
                   f"{VERSION}/test-cases/Hero_Two.toml: the file name makes slug 'Hero_Two', which is not a kebab-case token"),
    "slug-unique-across-layouts": ([Edit(Path("test-cases/sprite/easy/hero/v1.0.0/test-case.toml"), None, 'slug = "hero"\n')],
                                   f"{HERO}::slug", (f"{HERO}: slug 'hero' is also declared by "
                                   "test-cases/sprite/easy/hero/v1.0.0/test-case.toml")),
    "seed-destinations-distinct": ([Edit(VERSION / "workspaces/none/specs/core.md", None, "stale\n")],
                                   f"{GAME}::seed[[]none[]]", (f"{SPEC}:4: `path`: seeds 'specs/core.md', which collides "
                                   "with what `workspaces.none` (test-cases/game.toml:9) seeds")),
}


def _failed_item(item: Path | str) -> str:
    text = str(item)
    return f"FAILED {text}*" if "::" in text else f"FAILED {text}::*"


@pytest.mark.parametrize("under", NESTINGS.values(), ids=NESTINGS.keys())
@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_is_enforced_with_its_exact_message(pytester: pytest.Pytester, rule: str, under: Path) -> None:
    write_definition_suite(pytester.path, under)
    edits, item, expected = RULES[rule]
    for edit in edits:
        edit.apply(pytester.path / under)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "-rf")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([_failed_item(nested(str(item), under))])
    assert nested(expected, under) in result.stdout.lines, "\n".join(result.stdout.lines)
    # A suite author's mistake is a message, never a Python traceback.
    assert "Traceback" not in result.stdout.str()
    assert "site-packages" not in result.stdout.str()


def test_minimal_definition_suite_is_clean(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=CLEAN_ITEMS)


def test_every_type_of_the_example_suite_passes(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = pytester.runpytest("--tcab-suite=example-suite", "-p", "no:cacheprovider", "-v", "-k", "versions")
    assert result.ret == pytest.ExitCode.OK
    types = {"end-to-end": "end-to-end", "full-stack": "full-stack", "paddle-sheet": "sprite", "ship": "voxel",
             "lamp": "blender", "spark-burst": "particle", "theme": "music", "hit": "audio-fx", "duel": "adversarial",
             "bounce-perf": "performance"}
    for slug, case_type in types.items():
        definition = example_suite / "versions/v1.0.0/test-cases" / f"{slug}.toml"
        assert f'type = "{case_type}"' in definition.read_text()
        result.stdout.fnmatch_lines([f"*versions/v1.0.0/test-cases/{slug}.toml::resolve PASSED*"])


def test_node_ids_are_stable_and_readable(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "--collect-only", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([
        "tcab.toml::config",
        "versions/v1.0.0/assets/hero/asset.toml::resolve",
        "versions/v1.0.0/specifications/core/specification.toml::resolve",
        "versions/v1.0.0/test-cases/duel.toml::resolve",
        "versions/v1.0.0/test-cases/duel.toml::slug",
        "versions/v1.0.0/test-cases/duel.toml::template[[]prompts/p.hbs[]]",
        "versions/v1.0.0/test-cases/duel.toml::seed",
        "versions/v1.0.0/test-cases/game.toml::resolve",
        "versions/v1.0.0/test-cases/game.toml::slug",
        "versions/v1.0.0/test-cases/game.toml::template[[]prompts/p.hbs:none[]]",
        "versions/v1.0.0/test-cases/game.toml::template[[]prompts/p.hbs:simple-2d[]]",
        "versions/v1.0.0/test-cases/game.toml::seed[[]none[]]",
        "versions/v1.0.0/test-cases/game.toml::seed[[]simple-2d[]]",
        "versions/v1.0.0/test-cases/hero.toml::resolve",
        "*",
        "versions/v1.0.0/version.toml::resolve",
    ])


def test_definition_given_directly_finds_its_suite(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    result = pytester.runpytest(str(HERO), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_all_problems_are_reported_together_at_their_lines(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    Edit(GAME, '"prompts/p.hbs"', '"prompts/q.hbs"').apply(pytester.path)
    Edit(GAME, '"workspaces/s2d"', '"workspaces/nowhere"').apply(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", "--junitxml=junit.xml",
                                "-o", "junit_family=xunit1")
    result.stdout.fnmatch_lines(["*_ game@v1.0.0 resolve _*", "2 problems:",
                                 f"{GAME}:6: `prompt`: prompt template 'prompts/q.hbs' does not exist*",
                                 f"{GAME}:10: `workspaces.simple-2d`: workspace 'workspaces/nowhere' does not exist*"])
    assert 'line="5"' in (pytester.path / "junit.xml").read_text()  # 0-based, as pytest's reportinfo


@pytest.mark.parametrize(("flag", "deselected"), [((), 4), (("--tcab-experimental",), 0)])
def test_experimental_definitions_are_hidden_unless_opted_in(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, flag: tuple[str, ...], deselected: int
) -> None:
    monkeypatch.delenv("TCAB_BACKEND_ALLOW_EXPERIMENTAL", raising=False)
    write_definition_suite(pytester.path)
    Edit(HERO, 'prompt = "prompts/p.hbs"', 'prompt = "prompts/p.hbs"\nexperimental = true').apply(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider", *flag)
    result.assert_outcomes(passed=CLEAN_ITEMS - deselected, deselected=deselected)


def test_version_folder_must_be_a_version(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    shutil.move(pytester.path / VERSION, pytester.path / "versions/latest")
    Edit(Path("versions/latest/version.toml"), 'version = "v1.0.0"', 'version = "latest"').apply(pytester.path)
    result = pytester.runpytest("--tcab-suite=.", "-p", "no:cacheprovider")
    assert "versions/latest/version.toml: lives in version folder 'latest', which is not vMAJOR.MINOR.PATCH" \
        in result.stdout.lines
