"""Per-session state: the suites in play, kept in the config stash (which runs a session has is `run.collect`'s)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_tcab.layout import LayoutFiles

if TYPE_CHECKING:
    from pytest_tcab.suite import Suite

suites_key = pytest.StashKey["dict[Path, Suite]"]()
configured_key = pytest.StashKey["Path | None"]()
configured_layout_key = pytest.StashKey[LayoutFiles]()
"""What the layouts hold under the configured root, walked once when the session is configured."""
TEMPLATE_CACHE = "tcab-templates"
"""The folder under pytest's cache (`.pytest_cache/d/`) that keeps generated template code."""


def configured_root(config: pytest.Config) -> Path | None:
    """The suite root named by `--tcab-suite`, or by the ini option `tcab_suite` (relative to the ini file)."""
    if configured_key not in config.stash:
        config.stash[configured_key] = _configured_root(config)
    return config.stash[configured_key]


def _configured_root(config: pytest.Config) -> Path | None:
    given = config.getoption("tcab_suite")
    return Path(given).resolve() if given else None


def suite_for(config: pytest.Config, path: Path) -> Suite:
    """The suite `path` belongs to: the configured one when it holds `path`, else found upward."""
    from pytest_tcab.suite import Suite
    from pytest_tcab.suite import find_root

    root = configured_root(config)
    if root is None or not _is_under(path, root):
        root = find_root(path)
    suites = config.stash.setdefault(suites_key, {})
    if root not in suites:
        if not suites:
            _keep_templates_in_cache(config)
        layout = config.stash.get(configured_layout_key, None) if root == configured_root(config) else None
        suites[root] = Suite(root, layout)
    return suites[root]


def _keep_templates_in_cache(config: pytest.Config) -> None:
    """The first suite of a session keeps compiled templates in pytest's cache folder (when
    the cacheprovider plugin is active), so later sessions skip pybars' slow compile."""
    from pytest_tcab.templates import use_disk_cache

    cache = getattr(config, "cache", None)
    use_disk_cache(cache.mkdir(TEMPLATE_CACHE) if cache is not None else None)


def end_session(config: pytest.Config) -> None:
    """Forget the session's template cache folder, so no later session in this process writes there."""
    if config.stash.get(suites_key, None):
        from pytest_tcab.templates import use_disk_cache

        use_disk_cache(None)


def _is_under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def experimental_allowed(config: pytest.Config) -> bool:
    flag = os.environ.get("TCAB_BACKEND_ALLOW_EXPERIMENTAL", "").strip().lower()
    return bool(config.getoption("tcab_experimental")) or flag in ("1", "true", "yes", "on")
