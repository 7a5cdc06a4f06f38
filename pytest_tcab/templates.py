"""Handlebars templates rendered strictly and unescaped, with errors that name the template line."""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib.metadata
import importlib.util
import marshal
import re
import threading
from bisect import bisect_right
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

from pytest_tcab.caches import write_atomically
from pytest_tcab.errors import TcabError

_LINE_HELPER = "__tcab_line__"
"""Helper planted before every tag: it records the tag's line as rendering reaches the tag."""

_BLOCK_HELPERS = frozenset({"each", "if", "unless", "with"})
_INLINE_ARITY = {"eq": 2, "lookup": 2, "log": 1}
_HELPERS = sorted(_BLOCK_HELPERS | _INLINE_ARITY.keys())
_USAGE = {
    "each": "{{#each list}}…{{else}}…{{/each}}",
    "if": "{{#if value}}…{{else}}…{{/if}}",
    "unless": "{{#unless value}}…{{/unless}}",
    "with": "{{#with value}}…{{/with}}",
    "eq": '{{#if (eq a "b")}}…{{/if}}',
    "lookup": "{{lookup object key}}",
    "log": "{{log value}}",
}

_TEXT_NODES = frozenset({"literal", "newline", "whitespace"})
_END = "\ue000"
"""A private-use character closing every compiled source (see `_compile`)."""
_TAG_OF_NODE = {
    "expand": "expr",
    "escapedexpand": "expr",
    "block": "open",
    "invertedblock": "open",
    "rawblock": "raw",
    "comment": "comment",
}
_NAME = re.compile(r"\s*\[?([\w@-]+)\]?")
_CLOSE = re.compile(r"/\[?([\w@-]+)\]?")

_TREE = "_tcab_tree"
"""The generated code's global holding the marked parse tree (see `_generate`)."""

_COMPILE_LOCK = threading.Lock()
"""pybars' Compiler shares one code builder between all its instances, so compiles take turns."""

_MISSING = object()


class TemplateError(TcabError):
    """A template that cannot compile or render, at its 1-based line, with what would be right."""

    def __init__(self, name: str, line: int | None, message: str, hint: str | None = None) -> None:
        self.name = name
        self.line = line
        self.message = message
        self.hint = hint
        where = name if line is None else f"{name}:{line}"
        text = f"{where}: {message}"
        if hint:
            text += f"\n    Hint: {hint}"
        super().__init__(text)


class StrictTemplate:
    """Compiled once; each render fails on a name the context lacks instead of blanking it."""

    def __init__(self, source: str, name: str) -> None:
        self.name = name
        tags = _scan(source, name)
        _check_blocks(tags, name)
        code = _disk_cache.read(source)
        if code is None:
            with _COMPILE_LOCK:
                generated = _generate(source, name, tags)
            code = compile(generated, "<tcab template>", "exec", dont_inherit=True)
            _disk_cache.write(source, code)
        self._render, self.tree = _load(code)
        """`tree`: pybars' parse tree with a line marker before each tag, what `template_shapes`
        checks every path of; kept in the generated code, so a cached template is never parsed."""

    def render(self, context: Mapping[str, object]) -> str:
        # The line lives in this call's own helper, so concurrent renders never share it.
        cursor = [1]

        def at_line(this: object, line: int) -> None:
            cursor[0] = line

        helpers = {"eq": _eq, _LINE_HELPER: at_line}
        try:
            return self._render(context, helpers=helpers).removesuffix(_END)
        except _Unresolved as exc:
            raise self._unresolved(exc, cursor[0]) from None

    def _unresolved(self, exc: _Unresolved, line: int) -> TemplateError:
        path = _display(exc.segments)
        done = _display(exc.segments[: exc.index])
        value = exc.holder
        while isinstance(value, exc.scope_type):
            value = value.context
        fields = _fields(value)
        subject = f"'{done}'" if done else "the current item"
        if fields:
            reached = f"resolved up to '{done}'; " if done else ""
            known = f"{reached}available: {', '.join(fields)}"
        elif value is None:
            known = f"{subject} is null"
        elif isinstance(value, Mapping):
            known = f"{subject} is empty"
        else:
            known = f"{subject} is a {type(value).__name__}, which has no fields"
        message = f"unknown variable '{path}' ({known})"
        return TemplateError(self.name, line, message, _variable_hint(exc, fields))


class CodeCache:
    """Compiled template code on disk, keyed by the template's content.

    pybars compiles slowly (a parse with its grammar, then code generation) and renders fast,
    and a catalog's templates rarely change between sessions; so the compiled code object of the
    generated Python (marshalled, as a `.pyc` holds it) is kept in pytest's cache folder, keyed by
    the source, pybars' version, this module's own text (which decides how the code is checked
    and marked) and the interpreter's bytecode version. Reading checks the entry's digest, so a
    damaged file is regenerated, never loaded.
    """

    MAGIC = b"# tcab-template-code-3"
    """Leads every entry, followed by the digest of the marshalled code after it."""

    def __init__(self) -> None:
        self.folder: Path | None = None

    def read(self, source: str) -> CodeType | None:
        path = self._path(source)
        if path is None:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        header, _, body = data.partition(b"\n")
        if header != self.MAGIC + b" " + hashlib.sha256(body).hexdigest().encode():
            return None
        code = marshal.loads(body)
        return code if isinstance(code, CodeType) else None

    def write(self, source: str, code: CodeType) -> None:
        """The marshalled code behind a magic and its digest, so a damaged entry is recognised when read."""
        path = self._path(source)
        if path is None:
            return
        body = marshal.dumps(code)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, self.MAGIC + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        except OSError:
            return  # a cache that cannot be written only costs the next session a compile

    def _path(self, source: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / f"{_digest(source + chr(0) + _generator_version())}.code"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def _generator_version() -> str:
    """What the generated code depends on besides the template: pybars and this module."""
    return (f"{importlib.metadata.version('pybars3')}:{_digest(Path(__file__).read_text(encoding='utf-8'))}:"
            f"{importlib.util.MAGIC_NUMBER.hex()}")


_disk_cache = CodeCache()


def use_disk_cache(folder: Path | None) -> None:
    """Keep generated code in `folder` from now on; None keeps it in memory only."""
    _disk_cache.folder = folder


@functools.lru_cache(maxsize=256)
def compile_template(source: str, name: str) -> StrictTemplate:
    """The compiled template for source and name: pybars compiles are slow, renders cheap."""
    return StrictTemplate(source, name)


# --- scanning: the tags and their lines, which pybars' parse tree does not keep -------------------


@dataclass(frozen=True)
class _Tag:
    kind: str
    """``open``, ``close``, ``else``, ``comment``, ``raw`` or ``expr``."""
    start: int
    line: int
    text: str
    block: str = ""
    """The block name of an ``open``, ``close`` or ``raw`` tag."""


def _scan(source: str, name: str) -> list[_Tag]:
    """Every ``{{…}}`` tag in document order, cut the way pybars' grammar cuts them."""
    tags: list[_Tag] = []
    line, counted, pos = 1, 0, 0
    while (start := source.find("{{", pos)) >= 0:
        line += source.count("\n", counted, start)
        counted = start
        if source.startswith("{{{{", start):
            tag, pos = _scan_raw(source, start, line, name)
        else:
            pos = _tag_end(source, start)
            if pos < 0:
                first = source[start:].split("\n", 1)[0]
                raise TemplateError(
                    name, line, f"tag '{_clip(first)}' is never closed", "close it with }}"
                )
            tag = _classify(source[start:pos], start, line, name)
        tags.append(tag)
    return tags


def _tag_end(source: str, start: int) -> int:
    """Index just past the tag's closing braces, skipping strings and ``[segments]``; -1 if none."""
    body = start + 2
    if source.startswith("!", body) or source.startswith("~!", body):
        close = source.find("}}", body)
        return close + 2 if close >= 0 else -1
    closer = ""
    i = body
    while i < len(source):
        ch = source[i]
        if closer:
            if ch == "\\" and source.startswith(closer, i + 1):
                i += 1
            elif ch == closer:
                closer = ""
        elif ch in "\"'[" and not (source[i - 1].isalnum() or source[i - 1] == "_"):
            closer = "]" if ch == "[" else ch
        elif source.startswith("}}", i):
            triple = source[body : body + 2].lstrip("~").startswith("{")
            return i + 3 if triple and source.startswith("}", i + 2) else i + 2
        i += 1
    return -1


def _classify(text: str, start: int, line: int, name: str) -> _Tag:
    body = text[2:-2]
    body = body.removeprefix("~").removesuffix("~")
    words = body.split()

    def fail(message: str, hint: str | None = None) -> TemplateError:
        return TemplateError(name, line, message, hint)

    if body.startswith("!"):
        return _Tag("comment", start, line, text)
    if body.strip() in ("else", "^"):
        return _Tag("else", start, line, text)
    stripped = body.lstrip()
    if stripped != body and stripped[:1] in ("#", "^", "/", "!", ">"):
        # pybars would read the tag as a variable and blame a later, innocent tag.
        raise fail(
            f"space before '{stripped[0]}' in '{_clip(text)}'",
            f"write it as {{{{{_clip(stripped)}}}}}",
        )
    if body.startswith("{") and not body.endswith("}"):
        raise fail(
            f"'{_clip(text)}' opens with {{{{{{ but does not close with }}}}}}", "close it with }}}"
        )
    if body.startswith(("#", "^")):
        match = _NAME.match(body, 1)
        if match is None:
            raise fail(f"block tag '{_clip(text)}' has no name", "open a block like {{#each list}}")
        return _Tag("open", start, line, text, match.group(1))
    if body.startswith("/"):
        match = _CLOSE.fullmatch(body)
        if match is None:
            named = _NAME.match(body, 1)
            hint = (
                f"write it as {{{{/{named.group(1)}}}}}"
                if named
                else "close a block like {{/each}}"
            )
            raise fail(f"malformed closing tag '{_clip(text)}'", hint)
        return _Tag("close", start, line, text, match.group(1))
    if body.startswith(">"):
        raise fail(
            f"partials are not supported: '{_clip(text)}'", "write the text into the template"
        )
    if words[:1] == ["else"]:
        raise fail(f"'{_clip(text)}' is not supported", "nest {{#if …}}…{{/if}} inside {{else}}")
    return _Tag("expr", start, line, text)


def _scan_raw(source: str, start: int, line: int, name: str) -> tuple[_Tag, int]:
    """A ``{{{{name}}}}…{{{{/name}}}}`` raw block, whose content is never parsed."""
    open_end = source.find("}}}}", start)
    match = _NAME.match(source, start + 4, max(open_end, start))
    if match is None:
        first = source[start:].split("\n", 1)[0]
        raise TemplateError(
            name,
            line,
            f"malformed raw block '{_clip(first)}'",
            "write it as {{{{raw}}}}…{{{{/raw}}}}",
        )
    closer = f"{{{{{{{{/{match.group(1)}}}}}}}}}"
    close = source.find(closer, open_end + 4)
    text = source[start : open_end + 4]
    if close < 0:
        raise TemplateError(
            name, line, f"unclosed raw block '{_clip(text)}'", f"close it with {closer}"
        )
    return _Tag("raw", start, line, text, match.group(1)), close + len(closer)


@dataclass
class _Open:
    tag: _Tag
    has_else: bool = False


def _check_blocks(tags: list[_Tag], name: str) -> None:
    """Pair block tags: pybars silently drops everything after an unclosed ``{{#each}}``."""
    stack: list[_Open] = []
    for tag in tags:
        if tag.kind == "open":
            stack.append(_Open(tag))
        elif tag.kind == "else":
            if not stack:
                raise TemplateError(
                    name,
                    tag.line,
                    f"'{tag.text}' outside a block",
                    "use it inside {{#if …}}…{{/if}} or {{#each …}}…{{/each}}",
                )
            if stack[-1].has_else:
                opener = stack[-1].tag
                raise TemplateError(
                    name,
                    tag.line,
                    f"second '{tag.text}' in '{_clip(opener.text)}' (line {opener.line})",
                    "a block has at most one {{else}}",
                )
            stack[-1].has_else = True
        elif tag.kind == "close":
            if not stack:
                raise TemplateError(
                    name,
                    tag.line,
                    f"'{tag.text}' closes no open block",
                    "remove it, or open the block before it",
                )
            opener = stack.pop().tag
            if opener.block != tag.block:
                message = f"'{tag.text}' does not close '{_clip(opener.text)}' (line {opener.line})"
                raise TemplateError(
                    name, tag.line, message, f"close it with {{{{/{opener.block}}}}} first"
                )
    if stack:
        opener = stack[-1].tag
        raise TemplateError(
            name,
            opener.line,
            f"unclosed block '{_clip(opener.text)}'",
            f"close it with {{{{/{opener.block}}}}}",
        )


def _clip(text: str, width: int = 60) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


# --- compiling: pybars' parse tree, checked and marked with lines, then its generated code -------


def _generate(source: str, name: str, tags: list[_Tag]) -> str:
    """pybars' Python code for the template, checked and marked with the tags' lines."""
    from pybars._compiler import Compiler

    compiler = Compiler()
    tree = _marked_tree(compiler, source, name, tags)
    literal = repr(tree)  # strings, numbers, lists and tuples: a Python literal, read back by `_load`
    compiler._compiler.globals["builder"]._reset()
    code: str = compiler._compiler(tree).apply("compile")[0].full_code
    return f"{code}\n{_TREE} = {literal}\n"


def _marked_tree(compiler: Any, source: str, name: str, tags: list[_Tag]) -> list[Any]:
    """pybars' parse tree, its helper calls checked, a line marker planted before each tag."""
    from pybars._compiler import _pybars_

    # pybars eats the newline before a standalone closing tag on the last line (Handlebars.js
    # keeps it); a trailing sentinel makes that line an ordinary one. `render` drops it again.
    processed = compiler.whitespace_control(source + _END)
    tree, (position, _) = compiler._handlebars(processed).apply("template")
    if position < len(processed):
        raise _syntax_error(source, name, tags, _scan(processed, name), position)
    node_tags = iter([tag for tag in tags if tag.kind in ("open", "comment", "raw", "expr")])
    names = frozenset(_pybars_["helpers"]) | {"eq", _LINE_HELPER}
    marked: list[Any] = _Marker(name, node_tags, names).template(tree)
    return marked


def _load(code: CodeType) -> tuple[Callable[..., str], list[Any]]:
    """Run generated code with a strict ``resolve`` and an unescaping ``prepare`` in its own globals:
    its render function, and the marked parse tree it was generated from."""
    from pybars._compiler import Scope

    # A fresh namespace rather than Compiler.compile, which registers a module per call.
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # noqa: S102
    # The namespace is render's __globals__: patching it leaves other pybars users alone.
    namespace["resolve"] = functools.partial(_strict_resolve, Scope)
    namespace["prepare"] = _prepare
    render: Callable[..., str] = namespace["render"]
    tree: list[Any] = namespace[_TREE]
    return render, tree


def _syntax_error(
    source: str, name: str, tags: list[_Tag], processed: list[_Tag], position: int
) -> TemplateError:
    """pybars reports the last line; its position (in trimmed source) is inside the bad tag."""
    index = bisect_right([tag.start for tag in processed], position) - 1
    tag = tags[min(max(index, 0), len(tags) - 1)]
    return TemplateError(
        name,
        tag.line,
        f"cannot parse '{_clip(tag.text)}'",
        'tags look like {{name.field}}, {{#each list}}…{{/each}} or {{#if (eq a "b")}}…{{/if}}',
    )


class _Marker:
    """Walks pybars' parse tree beside the scanned tags: checks helper use, plants line markers."""

    def __init__(self, name: str, tags: Iterator[_Tag], helper_names: frozenset[str]) -> None:
        self.name = name
        self.tags = tags
        self.helper_names = helper_names

    def template(self, tree: list[Any]) -> list[Any]:
        out = [tree[0]]
        for node in tree[1:]:
            kind = node[0]
            if kind in _TEXT_NODES:
                out.append(node)
                continue
            tag = next(self.tags, None)
            if tag is None or tag.kind != _TAG_OF_NODE.get(kind):
                raise RuntimeError(f"{self.name}: tag scan out of step with pybars at {node!r}")
            if kind != "comment":
                out.append(("expand", ("path", [_LINE_HELPER]), [("literalparam", tag.line)]))
                out.append(self._node(node, tag))
        return out

    def _node(self, node: tuple[Any, ...], tag: _Tag) -> tuple[Any, ...]:
        kind = node[0]
        if kind in ("expand", "escapedexpand"):
            _, (_, segments), args = node
            simple = segments[0] if len(segments) == 1 else None
            if args:
                self._call(simple or _tree_path(segments), args, tag, block=False)
            elif simple in self.helper_names:
                # A bare {{log}} would call the helper without its argument: read the key.
                return (kind, ("path", [simple, ""]), args)
            return node
        symbol, args = node[1], node[2]
        if symbol in self.helper_names or args:
            self._call(symbol, args, tag, block=True)
        if kind == "rawblock":
            return node
        return (
            kind,
            symbol,
            args,
            self.template(node[3]),
            self.template(node[4]) if node[4] else node[4],
        )

    def _call(self, helper: str, args: list[Any], tag: _Tag, block: bool) -> None:
        def fail(message: str, hint: str | None) -> TemplateError:
            return TemplateError(self.name, tag.line, f"{message} in '{_clip(tag.text)}'", hint)

        if helper not in _USAGE and not (block and helper in self.helper_names):
            close = difflib.get_close_matches(helper, _HELPERS, n=1)
            hint = (
                f"did you mean '{close[0]}'?" if close else f"the helpers are {', '.join(_HELPERS)}"
            )
            raise fail(f"unknown helper '{helper}'", hint)
        if block and helper not in _BLOCK_HELPERS:
            hint = f"to open the context key as a block, write {{{{#with {helper}}}}}…{{{{/with}}}}"
            raise fail(
                f"'{helper}' is not a block helper",
                f"use it as {_USAGE[helper]}" if helper in _USAGE and args else hint,
            )
        if not block and helper in _BLOCK_HELPERS:
            raise fail(f"'{helper}' is a block helper", f"use it as {_USAGE[helper]}")
        named = [arg[1] for arg in args if arg[0] == "kwparam"]
        if named:
            raise fail(
                f"'{helper}' takes no named argument '{named[0]}='", f"use it as {_USAGE[helper]}"
            )
        wanted = 1 if block else _INLINE_ARITY[helper]
        if len(args) != wanted:
            plural = "s" if wanted > 1 else ""
            raise fail(
                f"'{helper}' takes {wanted} argument{plural}, got {len(args)}",
                f"use it as {_USAGE[helper]}",
            )
        for arg in args:
            if arg[0] == "subexpr":
                _, (_, segments), sub_args = arg
                self._call(
                    segments[0] if len(segments) == 1 else _tree_path(segments),
                    sub_args,
                    tag,
                    block=False,
                )


def _tree_path(segments: list[str]) -> str:
    return ".".join(segment for segment in segments if segment)


# --- rendering: strict lookups, Handlebars.js value text ------------------------------------------


class _Unresolved(Exception):
    """Raised from inside generated code; turned into a TemplateError once the line is known."""

    def __init__(
        self, segments: tuple[str, ...], index: int, holder: object, scope_type: type[Any]
    ) -> None:
        self.segments = segments
        self.index = index
        self.holder = holder
        self.scope_type = scope_type


def _strict_resolve(scope_type: type[Any], context: object, *segments: str) -> object:
    """pybars' ``resolve``, except that a name the data lacks raises instead of yielding None."""
    if segments == ("",) and isinstance(context, scope_type):
        return context.get("this")
    current = context
    data_next = False
    for index, segment in enumerate(segments):
        if data_next:  # @../index arrives as "@@_parent", "index"
            segment, data_next = f"@{segment}", False
        if segment.startswith("@@"):
            segment, data_next = segment[1:], True
        if not segment:
            continue
        found = _step(current, segment, scope_type)
        if found is _MISSING:
            raise _Unresolved(segments, index, current, scope_type)
        current = found
    return current


def _step(holder: object, segment: str, scope_type: type[Any]) -> object:
    if isinstance(holder, scope_type):
        if segment.startswith("@"):
            value = holder.get(segment)
            return _MISSING if value is None and segment not in ("@root", "@_parent") else value
        return _step(holder.context, segment, scope_type)
    if isinstance(holder, Mapping):
        return holder.get(segment, _MISSING)
    if isinstance(holder, Sequence):
        if segment == "length":
            return len(holder)
        if segment.isascii() and segment.isdigit() and int(segment) < len(holder):
            return holder[int(segment)]
        return _MISSING
    if holder is None or segment.startswith("_") or isinstance(holder, (int, float)):
        return _MISSING
    value = getattr(holder, segment, _MISSING)
    return _MISSING if callable(value) else value


def _fields(value: object) -> list[str]:
    """What a lookup on ``value`` could have named, for the error message and its hint."""
    if isinstance(value, Mapping):
        return sorted(str(key) for key in value)
    if isinstance(value, Sequence):
        return (
            ["length"]
            if isinstance(value, str) or not value
            else ["length", f"0..{len(value) - 1}"]
        )
    if value is None or isinstance(value, (int, float)):
        return []
    public = getattr(value, "__dict__", {})
    return sorted(
        key for key, item in public.items() if not key.startswith("_") and not callable(item)
    )


def _variable_hint(exc: _Unresolved, fields: list[str]) -> str | None:
    segment = exc.segments[exc.index]
    if segment.startswith("@"):
        return "@index, @key, @first and @last exist only inside {{#each}}"
    holder = exc.holder
    if (
        isinstance(holder, exc.scope_type)
        and holder.context is not holder.root
        and not any(exc.segments[: exc.index])
        and _step(holder.root, segment, exc.scope_type) is not _MISSING
    ):
        root_path = _display(exc.segments)
        return f"inside a block names refer to the current item; did you mean '@root.{root_path}'?"
    close = difflib.get_close_matches(segment, fields, n=1)
    return f"did you mean '{_display(exc.segments[: exc.index] + (close[0],))}'?" if close else None


def _display(segments: tuple[str, ...]) -> str:
    """A compiled path written back the way the author wrote it: ``this.id``, ``../name``."""
    text = "this" if segments[:1] == ("",) else ""
    for segment in segments:
        if segment in ("@_parent", "@@_parent"):
            text += "@../" if segment.startswith("@@") else "../"
        elif segment:
            text += f"{'.' if text and not text.endswith('/') else ''}{segment}"
    return text


def _prepare(value: object, should_escape: bool) -> str:
    """pybars' ``prepare`` without HTML escaping, writing values as Handlebars.js would."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def _eq(this: object, left: object, right: object) -> bool:
    """``(eq a b)``: equal values of the same kind, so ``1`` never equals ``true``."""
    return left == right and isinstance(left, bool) == isinstance(right, bool)
