"""pytest-tcab: Test Cabinet suites as collected pytest items."""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    # Resolved lazily so importing the plugin never pays for package metadata.
    if name == "__version__":
        from importlib.metadata import version

        return version("pytest-tcab")
    raise AttributeError(name)
