"""Mirrors of the suite's own configuration (`tcab.toml`) and of a run's `run.toml`."""

from __future__ import annotations

from pytest_tcab.models.base import StrictModel
from pytest_tcab.models.fields import KebabSlug
from pytest_tcab.models.fields import RelPath
from pytest_tcab.models.fields import Text


class Engine(StrictModel):
    """An engine a test-suite definition may select; its docs are seeded into the run."""

    name: Text
    """The engine's display name (`{{engine.name}}` in prompts)."""
    docs: RelPath | None = None
    """Documentation folder, relative to the suite root."""


class Package(StrictModel):
    """A shippable `@test-cabinet/*` package of the host package store."""

    path: RelPath
    """The package folder, relative to the suite root; vendored into `.tcab/packages/`."""
    description: Text
    """UI-only text shown on the case's Inputs tab."""


class SuiteConfig(StrictModel):
    """`tcab.toml` at the suite root: engines and the package store."""

    engines: dict[KebabSlug, Engine] = {}
    """Engines definitions may select, each `[engines.<slug>]` (kebab-case slug; `none` is always known)."""
    packages: dict[str, Package] = {}
    """The package store: each `[packages."@test-cabinet/<name>"]` a case may list in `packages`."""


class RunFile(StrictModel):
    """`DIR/.tcab/run.toml`: which case, version, variant and engine DIR was produced for, and who
    produced it (what a sweep's leaderboard groups runs by)."""

    case: KebabSlug
    """The slug of the case DIR was produced for (required)."""
    version: str | None = None
    """The case version (`v1.0.0`); default: the newest."""
    variant: KebabSlug | None = None
    """The variant slug; default: the case's first (default) variant."""
    engine: KebabSlug | None = None
    """The engine slug of a test-suite definition's run; default: its first engine."""
    model: Text | None = None
    """The model that produced the run, free text (`some-model-2026-11`)."""
    harness: Text | None = None
    """The harness (agent loop, tools) the model ran in; harnesses are never merged on a leaderboard."""
    labels: dict[str, str] = {}
    """Free labels (`temperature = "0.2"`), strings only: keywords and markers of every item."""
