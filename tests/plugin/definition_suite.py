"""A minimal valid test-suite layout (one definition per kind of table), which tests break one edit at a time."""

from __future__ import annotations

from pathlib import Path

VERSION = Path("versions/v1.0.0")
GAME = VERSION / "test-cases/game.toml"
HERO = VERSION / "test-cases/hero.toml"
PERF = VERSION / "test-cases/perf.toml"
DUEL = VERSION / "test-cases/duel.toml"
SPEC = VERSION / "specifications/core/specification.toml"
ASSET = VERSION / "assets/hero/asset.toml"
INFO = VERSION / "version.toml"

FILES: dict[Path, str] = {
    Path("tcab.toml"): '[engines.simple-2d]\nname = "Simple 2D"\ndocs = "engines/simple-2d"\n',
    Path("engines/simple-2d/README.md"): "Simple 2D docs.\n",
    INFO: 'version = "v1.0.0"\ntags = []\nchangelog = "changelog.md"\n',
    VERSION / "changelog.md": "Introduced.\n",
    VERSION / "prompts/p.hbs": (
        "Work in {{workspace}} on {{engine.slug}} ({{engine.name}}{{engine.docs}}).\n"
        "{{#each specifications}}\n- {{this.id}} {{this.name}}: {{this.summary}} {{this.path}}\n{{/each}}\nDone.\n"
    ),
    SPEC: (
        'id = "core"\nname = "Core"\nsummary = "The core."\npath = "core.md"\n\n'
        '[[requirement]]\nid = "works"\nkind = "functional"\ntext = "It MUST work."\n'
    ),
    VERSION / "specifications/core/specification.md": "# Core\n\nThe core of it.\n",
    ASSET: 'id = "hero"\nname = "Hero"\nkind = "sprite"\nspecification = "core"\nfiles = ["hero.png"]\n',
    VERSION / "assets/hero/hero.png": "not really a png\n",
    VERSION / "workspaces/none/package.json": '{"name": "none"}\n',
    VERSION / "workspaces/s2d/package.json": '{"name": "s2d"}\n',
    VERSION / "workspaces/crate/Cargo.toml": '[package]\nname = "crate"\n',
    VERSION / "perf/in.json": "{}\n",
    VERSION / "perf/out.json": "{}\n",
    VERSION / "cases/a.json": "{}\n",
    VERSION / "cases/a.out": "{}\n",
    VERSION / "duel/world.json": "{}\n",
    VERSION / "duel/action.json": "{}\n",
    VERSION / "duel/replay.html": "<!doctype html>\n",
    VERSION / "duel/referee.py": (
        "def new_match(seed, players):\n    return {}\n\n\ndef observe(state, player):\n    return {}\n\n\n"
        "def apply(state, player, action):\n    pass\n\n\ndef step(state):\n    return None\n\n\n"
        "def frame(state):\n    return {}\n"
    ),
    GAME: """\
name = "Game"
type = "end-to-end"
difficulty = "easy"
engines = ["none", "simple-2d"]
specifications = ["core"]
prompt = "prompts/p.hbs"

[workspaces]
none = "workspaces/none"
simple-2d = "workspaces/s2d"

[build]
install = "npm ci"
build = "npm run build"

[toolchain]
typecheck = "npm run typecheck"
""",
    HERO: """\
name = "Hero"
type = "sprite"
difficulty = "easy"
prompt = "prompts/p.hbs"

[sprite]
id = "hero"
""",
    PERF: """\
name = "Perf"
type = "performance"
difficulty = "medium"
prompt = "prompts/p.hbs"
workspace = "workspaces/crate"

[build]
install = "true"
build = "cargo build"
module = "out.wasm"

[contract]
entry = "run"
input = "perf/in.json"
output = "perf/out.json"

[sandbox]
fuel_limit = 1000
max_memory_bytes = 65536

[[case]]
input = "cases/a.json"
expected = "cases/a.out"
""",
    DUEL: """\
name = "Duel"
type = "adversarial"
difficulty = "hard"
prompt = "prompts/p.hbs"
workspace = "workspaces/crate"

[build]
install = "true"
build = "cargo build"
module = "out.wasm"

[contract]
entry = "act"
world = "duel/world.json"
action = "duel/action.json"

[sandbox]
fuel_per_tick = 1000
max_memory_bytes = 65536

[simulation]
timestep_ms = 50
max_ticks = 100
referee = "duel/referee.py"

[match]
participants = 2
structure = "round-robin"
rounds = 1

[replay]
renderer = "duel/replay.html"
""",
}

CLEAN_ITEMS = 22
"""Items of the clean suite: tcab.toml, version.toml, the specification and the asset (4), then per
definition `resolve`, `slug`, and a `template` and a `seed` per engine (game has two: 6 + 3 * 4)."""


SUITE_FILES = frozenset({Path("tcab.toml"), Path("engines/simple-2d/README.md")})
"""What stays at the suite root when the test suite stands deeper (`write_definition_suite(under=)`)."""


def write_definition_suite(root: Path, under: Path = Path()) -> Path:
    """The minimal suite under `root`: four definitions that pass every rule, their test suite
    (`versions/`) in `root/under`."""
    for relative, text in FILES.items():
        path = root / relative if relative in SUITE_FILES else root / under / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
