"""Reading TOML with positions: parse errors and key paths become file lines.

Parsed TOML values carry no line numbers, so beside `tomli` this module scans the source
and records where every key, table and array element starts. Failures can then point at the
exact line an author has to edit. The scan costs several times the parse, so it runs only
when a problem asks for a line; and within a `reading_once` scope each file is parsed once.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from dataclasses import field
from functools import cached_property
from itertools import accumulate
from pathlib import Path
from typing import Any

import tomli

from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem


@dataclass(frozen=True)
class TomlDocument:
    """A parsed TOML file and, scanned on first use, the line of every key path in it."""

    path: Path
    data: dict[str, Any]
    source: str = field(repr=False)

    @cached_property
    def lines(self) -> dict[KeyPath, int]:
        return key_lines(self.source)

    @cached_property
    def _root_lines(self) -> dict[KeyPath, int]:
        return key_lines(self.source, root_only=True)

    def line_of(self, key: KeyPath) -> int | None:
        """The 1-based line of `key`, or of its nearest declared ancestor."""
        if "lines" not in self.__dict__ and (line := self._root_lines.get(tuple(key))) is not None:
            return line  # declared above the first table header: the whole scan would find it there first
        for end in range(len(key), 0, -1):
            line = self.lines.get(tuple(key[:end]))
            if line is not None:
                return line
        return None

    def problem(self, key: KeyPath, message: str, hint: str | None = None) -> Problem:
        return Problem(self.path, self.line_of(key), tuple(key), message, hint)


Loaded = TomlDocument | Problem
_documents: ContextVar[dict[Path, Loaded] | None] = ContextVar("tcab_documents", default=None)


@contextmanager
def reading_once(documents: dict[Path, Loaded]) -> Iterator[None]:
    """Within this scope `load` answers from (and fills) `documents`: a suite keeps one such
    dict per session, so each file its rules read is read and parsed once, however many
    rules (resolution, the slug index, seeding) look at it."""
    token = _documents.set(documents)
    try:
        yield
    finally:
        _documents.reset(token)


def load(path: Path) -> TomlDocument | Problem:
    """Parse `path`; a file that cannot be read or parsed is a located `Problem`."""
    documents = _documents.get()
    if documents is None:
        return _load(path)
    found = documents.get(path)
    if found is None:
        found = documents[path] = _load(path)
    return found


def _load(path: Path) -> TomlDocument | Problem:
    try:
        source = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return Problem(path, None, (), f"is not UTF-8 text ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        return Problem(path, None, (), f"cannot be read: {exc.strerror or exc}")
    return parse(path, source)


def line_in(path: Path, key: KeyPath) -> int | None:
    """The line of `key` in the TOML file at `path`, or None: where a run item points an IDE."""
    loaded = load(path)
    return loaded.line_of(key) if isinstance(loaded, TomlDocument) else None


def parse(path: Path, source: str) -> TomlDocument | Problem:
    try:
        data = tomli.loads(source)
    except tomli.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        column = getattr(exc, "colno", None)
        where = f" at line {line}, column {column}," if line is not None and column is not None else ""
        return Problem(
            path,
            line,
            (),
            f"{path.name} is not valid TOML:{where} {_expected(exc.msg if hasattr(exc, 'msg') else str(exc))}",
            "see https://toml.io/en/v1.0.0 for the syntax",
        )
    return TomlDocument(path, data, source)


_PARSER_WORDS = {
    "Unclosed array": "the parser expected ']' to close the array",
    "Unclosed inline table": "the parser expected '}' to close the inline table",
    "Invalid value": "the parser expected a value: a string, number, boolean, date, array or inline table",
    "Invalid statement": "the parser expected `key = value`, a [table] header or a comment",
    "Invalid initial character for a key part": "the parser expected a key: letters, digits, '-', '_' or a quoted string",
    "Illegal character '\\n'": "the parser expected the string to close before the end of the line",
    "Cannot overwrite a value": "the parser found a key that is already set",
}


def _expected(message: str) -> str:
    """tomli's message as what the parser expected, so the error reads as one sentence."""
    if message in _PARSER_WORDS:
        return _PARSER_WORDS[message]
    if message.startswith("Expected "):
        return "the parser expected " + message.removeprefix("Expected ")
    declared = re.fullmatch(r"Cannot declare \((.*)\) twice", message)
    if declared:
        names = ".".join(part.strip().strip("'\"") for part in declared.group(1).split(",") if part.strip())
        return f"the parser found the table [{names}] declared twice"
    return f"the parser stopped: {message[:1].lower()}{message[1:]}"


def key_lines(source: str, root_only: bool = False) -> dict[KeyPath, int]:
    """Map every key path declared in valid TOML `source` to its 1-based line; with `root_only`,
    only those declared above the first table header (a manifest's identity keys live there)."""
    return _Scanner(source).scan(root_only)


class _Scanner:
    """Walks TOML source like a parser, recording positions instead of values.

    It only runs on source `tomli` accepted, so it can be lenient: on anything it does not
    understand it stops and keeps what it has recorded.
    """

    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.line_starts = list(accumulate((len(line) + 1 for line in source.split("\n")[:-1]), initial=0))
        self.lines: dict[KeyPath, int] = {}
        # Array-of-tables element counts, keyed by the concrete path of the array.
        self.aot_len: dict[KeyPath, int] = {}

    def scan(self, root_only: bool = False) -> dict[KeyPath, int]:
        table: KeyPath = ()
        try:
            while self._skip_blank_lines():
                if root_only and self.src[self.pos] == "[":
                    break
                if self.src.startswith("[[", self.pos):
                    table = self._header(array=True)
                elif self.src[self.pos] == "[":
                    table = self._header(array=False)
                else:
                    self._keyval(table)
                self._skip_to_line_end()
        except (IndexError, ValueError):
            pass
        return self.lines

    # -- positions ---------------------------------------------------------------------
    def _line(self) -> int:
        return bisect.bisect_right(self.line_starts, self.pos)

    def _record(self, key: KeyPath, line: int) -> None:
        self.lines.setdefault(key, line)

    # -- structure ---------------------------------------------------------------------
    def _header(self, array: bool) -> KeyPath:
        line = self._line()
        self.pos += 2 if array else 1
        names = self._key()
        self._ws()
        self.pos += 2 if array else 1
        concrete = self._concrete(names[:-1]) + (names[-1],)
        for end in range(1, len(concrete)):
            self._record(concrete[:end], line)  # implicitly declared parent tables
        if array:
            index = self.aot_len.get(concrete, 0)
            self.aot_len[concrete] = index + 1
            self._record(concrete, line)
            concrete = concrete + (index,)
        self._record(concrete, line)
        return concrete

    def _concrete(self, names: tuple[str, ...]) -> KeyPath:
        """Resolve header names to a concrete path: arrays of tables mean their last element."""
        path: KeyPath = ()
        for name in names:
            path = path + (name,)
            count = self.aot_len.get(path)
            if count:
                path = path + (count - 1,)
        return path

    def _keyval(self, table: KeyPath) -> None:
        line = self._line()
        names = self._key()
        key = table + names
        for end in range(len(table) + 1, len(key) + 1):
            self._record(key[:end], line)
        self._ws()
        if self.src[self.pos] != "=":
            raise ValueError("expected '='")
        self.pos += 1
        self._ws()
        self._value(key)

    def _key(self) -> tuple[str, ...]:
        names = []
        while True:
            self._ws()
            names.append(self._simple_key())
            self._ws()
            if self.pos < len(self.src) and self.src[self.pos] == ".":
                self.pos += 1
                continue
            return tuple(names)

    def _simple_key(self) -> str:
        ch = self.src[self.pos]
        if ch in "\"'":
            return self._string()
        start = self.pos
        while self.pos < len(self.src) and (self.src[self.pos].isalnum() or self.src[self.pos] in "-_"):
            self.pos += 1
        if start == self.pos:
            raise ValueError("expected a key")
        return self.src[start : self.pos]

    def _value(self, key: KeyPath) -> None:
        ch = self.src[self.pos]
        if ch == "[":
            self._array(key)
        elif ch == "{":
            self._inline_table(key)
        elif ch in "\"'":
            self._string()
        else:
            while self.pos < len(self.src) and self.src[self.pos] not in ",]}#\n":
                self.pos += 1

    def _array(self, key: KeyPath) -> None:
        self.pos += 1
        index = 0
        while True:
            self._ws(newlines=True)
            if self.src[self.pos] == "]":
                self.pos += 1
                return
            self._record(key + (index,), self._line())
            self._value(key + (index,))
            index += 1
            self._ws(newlines=True)
            if self.src[self.pos] == ",":
                self.pos += 1

    def _inline_table(self, key: KeyPath) -> None:
        self.pos += 1
        while True:
            self._ws()
            if self.src[self.pos] == "}":
                self.pos += 1
                return
            self._keyval(key)
            self._ws()
            if self.src[self.pos] == ",":
                self.pos += 1

    def _string(self) -> str:
        quote = self.src[self.pos]
        if self.src.startswith(quote * 3, self.pos):
            end = self.src.index(quote * 3, self.pos + 3)
            # A multi-line string may end with up to two extra quotes of its own.
            while self.src.startswith(quote, end + 3):
                end += 1
            self.pos = end + 3
            return ""
        self.pos += 1
        start = self.pos
        while self.src[self.pos] != quote:
            if quote == '"' and self.src[self.pos] == "\\":
                self.pos += 1
            self.pos += 1
        raw = self.src[start : self.pos]
        self.pos += 1
        if quote == '"' and "\\" in raw:  # escapes: let tomli decode them as it did the value
            return str(tomli.loads(f'k = "{raw}"')["k"])
        return raw

    # -- whitespace and comments -------------------------------------------------------
    def _ws(self, newlines: bool = False) -> None:
        while self.pos < len(self.src):
            ch = self.src[self.pos]
            if ch in " \t\r" or (newlines and ch == "\n"):
                self.pos += 1
            elif ch == "#":
                self._skip_comment()
            else:
                return

    def _skip_comment(self) -> None:
        end = self.src.find("\n", self.pos)
        self.pos = len(self.src) if end < 0 else end

    def _skip_to_line_end(self) -> None:
        self._ws()

    def _skip_blank_lines(self) -> bool:
        self._ws(newlines=True)
        return self.pos < len(self.src)
