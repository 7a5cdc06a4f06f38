"""`--tcab-schemas`: the package's schemas written beside a suite, with the `.taplo.toml` that maps
the suite's layouts to them, so Taplo (Even Better TOML, the taplo language server, `taplo check`)
flags a mistake while the author types.

The session writes and ends, like `--tcab-merge`: nothing is collected or run. The schema paths in
`.taplo.toml` are absolute, because taplo resolves a relative schema path against its working
directory (an editor's workspace, a shell's cwd), not against the file that names it.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.options import SCHEMAS_OPTION
from pytest_tcab.writing import WritingSession

SCHEMA_FOLDER = ".tcab-schemas"
"""Where the schemas go under the suite root: a dot-folder, so no layout walks into it."""
TAPLO_FILE = ".taplo.toml"
_MARK = "# Written by `pytest --tcab-suite=SUITE --tcab-schemas`"
"""The first line of a `.taplo.toml` this command wrote, and so may write again."""
# Build output and dependencies hold TOML no author wrote.
_EXCLUDE = ("**/node_modules/**", "**/target/**", "**/dist/**", f"{SCHEMA_FOLDER}/**")


def shipped() -> dict[str, str]:
    """Every schema the package ships, by file name."""
    folder = resources.files("pytest_tcab.schemas")
    return {entry.name: entry.read_text(encoding="utf-8") for entry in folder.iterdir()
            if entry.name.endswith(".schema.json")}


def taplo_config(folder: Path) -> str:
    """A `.taplo.toml` mapping each file kind's layout globs to its schema under `folder`.

    taplo applies the last rule that matches a file, so the general variant rule precedes the
    performance and adversarial one (the kinds are listed in that order).
    """
    from pytest_tcab.schemas.generate import FILE_KINDS

    lines = [_MARK, "# Each rule maps a layout's files to the JSON Schema of their kind (docs: Editors).",
             'include = ["**/*.toml"]', f"exclude = {_toml_list(_EXCLUDE)}", ""]
    for kind in FILE_KINDS:
        lines += ["[[rule]]", f'name = "tcab-{kind.name}"', f"include = {_toml_list(kind.globs)}",
                  "[rule.schema]", f"path = {_toml_string((folder / kind.filename).as_posix())}", ""]
    return "\n".join(lines)


def write(root: Path) -> list[Path]:
    """Write the schemas into `root/.tcab-schemas/` and `root/.taplo.toml`; the paths written.

    A `.taplo.toml` this command did not write is the author's own (formatting options, other
    schemas), so it is left alone: a usage error says what to do instead.
    """
    config = root / TAPLO_FILE
    if config.exists() and not config.read_text(encoding="utf-8").startswith(_MARK):
        raise pytest.UsageError(
            f"{SCHEMAS_OPTION}: {config} exists and was not written by {SCHEMAS_OPTION}; move it aside and "
            "run again (then merge your own settings back in: the written file is plain taplo configuration)")
    folder = (root / SCHEMA_FOLDER).resolve()
    if folder.exists():
        shutil.rmtree(folder)  # a schema a newer plugin no longer ships must not linger
    folder.mkdir(parents=True)
    written = []
    for name, text in sorted(shipped().items()):
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    config.write_text(taplo_config(folder), encoding="utf-8")
    return [*written, config]


class SchemaWriter(WritingSession):
    """Registered by plugin.py when `--tcab-schemas` is given: the session writes the schemas and
    the taplo configuration instead of collecting."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def write(self) -> list[Path]:
        return write(self.root)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.written:
            return
        terminalreporter.section("tcab schemas", sep="-")
        schemas = [path for path in self.written if path.suffix == ".json"]
        terminalreporter.write_line(f"{len(schemas)} schemas written to {schemas[0].parent}")
        terminalreporter.write_line(f"taplo configuration written to {self.written[-1]}")
        terminalreporter.write_line("Hint: Even Better TOML and the taplo language server read it from the suite "
                                    f"root; `taplo check` run there checks every file ({SCHEMAS_OPTION} again "
                                    "after moving the suite or upgrading the plugin).")


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(_toml_string(item) for item in items) + "]"
