"""Run mode: a produced implementation built in a sandbox, served on loopback and judged.

`context` resolves the run and holds what its items share; each family of items (performance,
toolchain, checks, drivers, ...) is a plugin of its own that answers `pytest_tcab_run_items`
(`hookspec`), so a new family, the plugin's or a suite's `conftest.py`, is added without
touching the others.
"""
