"""Run mode: a produced implementation built in a sandbox, served on loopback and judged.

The run itself lives here: `spec` (run.toml and the case it names), `context` (the run as its
items see it), `item` (the items' base), `families` (the families of items, each a plugin
answering `pytest_tcab_run_items`, declared in `hookspec`), `collect` (how a session finds its
runs) and `media` (poster frames and embedding, shared by the wings). The wings judge with one
machinery each: `build/` (sandboxed steps), `browser/` (Chromium), `judge/` (validation
scripts), `wasm/` (wasmtime), `assets/` (format measurements), `report/` (what is written
after). A wing imports the run and other wings' machinery, never `report/`.
"""
