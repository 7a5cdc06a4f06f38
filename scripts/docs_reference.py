"""The generated parts of the docs site, read from the code that defines them.

`mkdocs.yml` loads this file as a hook: a hand-written page holds a marker such as
`<!-- tcab:options -->`, and the build puts the generated Markdown in its place, so the
reference cannot drift from the code:

- `options`: every `--tcab-*` option and its ini twin, from a throwaway pytest parser the
  plugin registered its options on (names, metavar, choices, help, the default its ini twin
  falls back to);
- `item-kinds`: every item kind, from the plugin's marker list and the run items' classes;
- `results-json`: every field results.json holds, from the code that writes it (an AST walk
  of the package: the dicts results.json is built from and every run item's `record(...)`).
- `sweep-json`: every field of sweep.json, the same way (from `sweep_document` and its rows).
- `schemas`: every TOML file kind's editor schema and where the layouts put it; `on_files`
  publishes the schemas themselves under the site's `schemas/`.

`python scripts/docs_reference.py` prints every generated section (to read them without a
build); tests/unit/test_docs.py checks the hand-written pages against the same names.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "pytest_tcab"
MARKER = re.compile(r"<!-- tcab:([a-z-]+) -->")

if str(REPO) not in sys.path:  # the checkout's package, as the docs build runs beside it
    sys.path.insert(0, str(REPO))


# -- options ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One registered `--tcab-*` option as `pytest --help` and its ini twin know it."""

    flag: str
    ini: str
    ini_type: str
    metavar: str | None
    choices: tuple[str, ...]
    default: Any
    help: str


@functools.cache
def registered_options() -> tuple[Option, ...]:
    """The tcab group of a throwaway pytest config that loaded the plugin, in `--help` order."""
    from _pytest.config import get_config

    from pytest_tcab import options as tcab_options

    config = get_config()
    if not config.pluginmanager.has_plugin("pytest_tcab.plugin"):
        config.pluginmanager.import_plugin("pytest_tcab.plugin")
    parser = config._parser
    group = parser.getgroup("tcab")
    found = []
    for argument in group.options:
        attrs = argument.attrs()
        dest = attrs["dest"]
        _, ini_type, _ = parser._inidict[dest]
        twin = tcab_options.twins.get(dest)
        found.append(Option(
            flag=argument.names()[0], ini=dest, ini_type=str(ini_type), metavar=attrs.get("metavar"),
            choices=tuple(attrs.get("choices") or ()), default=twin.default if twin else attrs.get("default"),
            help=str(attrs.get("help", "")),
        ))
    return tuple(found)


def option_flags() -> set[str]:
    return {option.flag for option in registered_options()}


def ini_keys() -> set[str]:
    return {option.ini for option in registered_options()}


def _shown_default(option: Option) -> str:
    if option.default is False:
        return "off"
    if option.default is None:  # worked out when the option is read: its help says how
        return "—"
    if isinstance(option.default, float) and option.default.is_integer():
        return f"`{int(option.default)}`"
    if isinstance(option.default, int) and not isinstance(option.default, bool):
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20)):
            if option.default >= size and option.default % size == 0:  # a size in bytes, as people write it
                return f"`{option.default}` ({option.default // size} {unit})"
    return f"`{option.default}`"


def options_section() -> str:
    rows = ["| option | ini key | default | what it does |", "|---|---|---|---|"]
    for option in registered_options():
        value = option.metavar or ("|".join(option.choices) if option.choices else None)
        shown = f"{option.flag}={value}" if value and option.ini_type != "bool" else option.flag
        ini = f"`{option.ini}`" + (" (one per line)" if option.ini_type == "linelist" else "")
        anchor = option.flag.removeprefix("--")
        rows.append(f"| <span id=\"{anchor}\"></span>`{_cell(shown)}` | {ini} | {_shown_default(option)} "
                    f"| {_cell(option.help)} |")
    return "\n".join(rows)


# -- item kinds -------------------------------------------------------------------------------


def item_kinds_section() -> str:
    """Every kind the plugin marks (`tcab_<kind>`), with the class that makes its items."""
    from pytest_tcab.selection import KIND_MARKERS

    made: dict[str, dict[str, str]] = {}
    for module in package_modules().values():
        for cls in module.classes.values():
            if cls.kind and cls.kind != "run":
                made.setdefault(cls.kind, {})[f"{module.name}.{cls.node.name}"] = _first_paragraph(cls.node)
        for kind, cls in _named_items(module):
            made.setdefault(kind, {}).setdefault(f"{cls.module.name}.{cls.node.name}", _first_paragraph(cls.node))
    rows = ["| kind | marker | made by | what it is |", "|---|---|---|---|"]
    for kind in sorted(set(KIND_MARKERS) | set(made)):
        classes = made.get(kind, {})
        where = "<br>".join(f"`{name}`" for name in classes) or "(its node ids: above)"
        what = "<br>".join(_cell(doc) for doc in classes.values() if doc)
        rows.append(f"| `{kind}` | `tcab_{kind}` | {where} | {what} |")
    return "\n".join(rows)


def _named_items(module: Module) -> Iterator[tuple[str, ClassInfo]]:
    """`Item.from_parent(parent, name="kind[...]")` calls: the kinds whose class has no `kind`."""
    for node in ast.walk(module.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "from_parent" and isinstance(node.func.value, ast.Name)):
            continue
        name = next((k.value for k in node.keywords if k.arg == "name"), None)
        head = name.values[0] if isinstance(name, ast.JoinedStr) and name.values else name
        if not (isinstance(head, ast.Constant) and isinstance(head.value, str)):
            continue
        kind = head.value.partition("[")[0]
        if not re.fullmatch(r"[a-z]+", kind):  # `reference-<variant>`: a collector, not a kind
            continue
        found = [c for m in package_modules().values() for n, c in m.classes.items() if n == node.func.value.id]
        if len(found) == 1 and found[0].kind is None and "Item" in found[0].node.name + "".join(
                ast.unparse(b) for b in found[0].node.bases):
            yield kind, found[0]


# -- results.json: dict shapes read from the package's source ---------------------------------


@dataclass
class Shape:
    """What a JSON value built by some code holds: an object's fields, a list's element, a map's value."""

    fields: dict[str, Shape] = field(default_factory=dict)
    element: Shape | None = None
    """A list: the shape of each entry."""
    values: Shape | None = None
    """An object keyed by ids (a dict comprehension): the shape of each value."""
    where: set[str] = field(default_factory=set)
    """The functions that write this field."""
    doc: str = ""
    """An object's: the docstring of the function that builds it."""

    def merge(self, other: Shape) -> Shape:
        for name, sub in other.fields.items():
            self.fields[name] = self.fields[name].merge(sub) if name in self.fields else sub
        if other.element is not None:
            self.element = other.element if self.element is None else self.element.merge(other.element)
        if other.values is not None:
            self.values = other.values if self.values is None else self.values.merge(other.values)
        self.where |= other.where
        self.doc = self.doc or other.doc
        return self

    def names(self) -> Iterator[str]:
        """Every field name at any depth."""
        for name, sub in self.fields.items():
            yield name
            yield from sub.names()
        for inner in (self.element, self.values):
            if inner is not None:
                yield from inner.names()


@dataclass
class ClassInfo:
    node: ast.ClassDef
    module: Module
    methods: dict[str, ast.FunctionDef] = field(default_factory=dict)

    @property
    def kind(self) -> str | None:
        for statement in self.node.body:
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == "kind"
                    and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)):
                return statement.value.value
        return None


@dataclass
class Module:
    name: str
    tree: ast.Module
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)
    """A local name -> the dotted name it stands for (`scoring_report` -> `pytest_tcab.run.scoring_report`)."""


_modules: dict[str, Module] | None = None


def package_modules() -> dict[str, Module]:
    """Every module of pytest_tcab, parsed (wherever a module lives: nothing here names a path)."""
    global _modules
    if _modules is None:
        _modules = {}
        for path in sorted(PACKAGE.rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            module = Module(name, tree)
            for node in tree.body:
                if isinstance(node, ast.FunctionDef):
                    module.functions[node.name] = node
                elif isinstance(node, ast.ClassDef):
                    info = ClassInfo(node, module)
                    info.methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
                    module.classes[node.name] = info
            for found in ast.walk(tree):  # function-level imports count: they bind the same names
                if isinstance(found, ast.ImportFrom) and found.module and found.level == 0:
                    for alias in found.names:
                        module.imports[alias.asname or alias.name] = f"{found.module}.{alias.name}"
            _modules[name] = module
    return _modules


def _class_named(name: str) -> ClassInfo:
    found = [cls for module in package_modules().values() for n, cls in module.classes.items() if n == name]
    if len(found) != 1:
        raise LookupError(f"docs_reference: {len(found)} classes named {name!r} in pytest_tcab")
    return found[0]


def _resolve(module: Module, dotted: str) -> tuple[Module, ast.FunctionDef] | ClassInfo | Module | None:
    """What a name imported into `module` is: a module, a function of one, or a class."""
    modules = package_modules()
    if dotted in modules:
        return modules[dotted]
    owner, _, name = dotted.rpartition(".")
    if owner in modules:
        target = modules[owner]
        if name in target.functions:
            return target, target.functions[name]
        if name in target.classes:
            return target.classes[name]
    return None


class ShapeReader:
    """Reads the JSON shape an expression builds, following the package's own functions."""

    def __init__(self) -> None:
        self._active: set[object] = set()

    def returned(self, module: Module, function: ast.FunctionDef, owner: ClassInfo | None = None) -> Shape:
        """The shape of what `function` returns (every `return`, merged)."""
        if id(function) in self._active:  # recursion: nothing more is learnt
            return Shape()
        self._active.add(id(function))
        try:
            scope = _Scope(self, module, owner, function)
            shape = Shape()
            for node in _own_nodes(function):
                if isinstance(node, ast.Return) and node.value is not None:
                    shape.merge(scope.shape(node.value))
            if shape.fields or shape.element or shape.values:  # a scalar says nothing of its own
                shape.doc = shape.doc or _first_paragraph(function)
                return shape
            return Shape()
        finally:
            self._active.discard(id(function))

    def attribute(self, cls: ClassInfo, name: str) -> Shape:
        """`self.name` of a dataclass: what every `Cls(..., name=...)` call of the package passes."""
        key = (id(cls.node), name)
        if key in self._active:
            return Shape()
        self._active.add(key)
        try:
            shape = Shape()
            for module, function, owner, node in _calls_of(cls.node.name):
                scope = _Scope(self, module, owner, function)
                for keyword in node.keywords:
                    if keyword.arg == name:
                        shape.merge(scope.shape(keyword.value))
            return shape
        finally:
            self._active.discard(key)

    def local(self, module: Module, function: ast.FunctionDef, name: str, owner: ClassInfo | None) -> Shape:
        """The shape a local variable of `function` ends with."""
        return _Scope(self, module, owner, function).variable(name)


_calls: dict[str, list[tuple[Module, ast.FunctionDef, ClassInfo | None, ast.Call]]] | None = None


def _calls_of(name: str) -> list[tuple[Module, ast.FunctionDef, ClassInfo | None, ast.Call]]:
    """Every call `name(...)` in the package, with the function it is made in."""
    global _calls
    if _calls is None:
        _calls = {}
        for module in package_modules().values():
            for function, owner in _functions(module):
                for node in _own_nodes(function):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                        _calls.setdefault(node.func.id, []).append((module, function, owner, node))
    return _calls.get(name, [])


def _qualified(module: Module, function: ast.FunctionDef) -> str:
    """`pytest_tcab.run.sandbox.CommandResult.figures`: where a function is, as a reader finds it."""
    for cls in module.classes.values():
        if cls.methods.get(function.name) is function:
            return f"{module.name}.{cls.node.name}.{function.name}"
    return f"{module.name}.{function.name}"


def _functions(module: Module) -> Iterator[tuple[ast.FunctionDef, ClassInfo | None]]:
    """Every function of a module and every method of its classes, with the class."""
    for function in module.functions.values():
        yield function, None
    for cls in module.classes.values():
        for method in cls.methods.values():
            yield method, cls


def _own_nodes(function: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of `function`'s body, not of the functions and lambdas nested in it."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop(0)
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))


def _first_paragraph(node: ast.AST) -> str:
    doc = ast.get_docstring(node) if isinstance(node, ast.FunctionDef | ast.ClassDef) else None
    return " ".join((doc or "").split("\n\n")[0].split())


class _Scope:
    def __init__(self, reader: ShapeReader, module: Module, owner: ClassInfo | None, function: ast.FunctionDef):
        self.reader = reader
        self.module = module
        self.owner = owner
        self.function = function

    def variable(self, name: str) -> Shape:
        """Every assignment to `name` in the function, its item stores, `.append`s and `.update`s."""
        shape = Shape()
        for node in _own_nodes(self.function):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id == name:
                        shape.merge(self.shape(node.value))
                    elif isinstance(target, ast.Subscript) and _is_name(target.value, name):
                        key = target.slice
                        if isinstance(key, ast.Constant) and isinstance(key.value, str):
                            shape.merge(Shape(fields={key.value: self.field(node.value)}))
                        else:  # `versions[name] = ...`: an object keyed by names
                            shape.merge(Shape(values=self.shape(node.value)))
            elif isinstance(node, ast.NamedExpr) and _is_name(node.target, name):
                shape.merge(self.shape(node.value))  # `if (change := ...)`
            elif isinstance(node, ast.AugAssign) and _is_name(node.target, name):
                shape.merge(self.shape(node.value))  # `entry |= {...}`
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and _is_name(node.func.value, name) and node.args):
                if node.func.attr == "append":
                    shape.merge(Shape(element=self.shape(node.args[0])))
                elif node.func.attr == "update":
                    shape.merge(self.shape(node.args[0]))
        return shape

    def field(self, node: ast.expr) -> Shape:
        """A field's value written here: its shape, and this function as the place that writes it."""
        shape = self.shape(node)
        shape.where = shape.where | {_qualified(self.module, self.function)}
        return shape

    def shape(self, node: ast.expr) -> Shape:
        if isinstance(node, ast.Dict):
            shape = Shape()
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None:
                    shape.merge(self.shape(value))
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    shape.fields[key.value] = self.field(value)
            return shape
        if isinstance(node, ast.DictComp):
            loop = node.generators[0]
            names = [e.value for e in loop.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)] \
                if isinstance(loop.iter, ast.Tuple | ast.List) else []
            if names and isinstance(node.key, ast.Name) and _is_name(loop.target, node.key.id):
                return Shape(fields={name: self.field(node.value) for name in names})  # over named keys
            return Shape(values=self.shape(node.value))
        if isinstance(node, ast.List | ast.Tuple):
            element = Shape()
            for item in node.elts:
                element.merge(self.shape(item.value if isinstance(item, ast.Starred) else item))
            return Shape(element=element)
        if isinstance(node, ast.ListComp):
            return Shape(element=self.shape(node.elt))
        if isinstance(node, ast.IfExp):
            return self.shape(node.body).merge(self.shape(node.orelse))
        if isinstance(node, ast.BoolOp):
            shape = Shape()
            for value in node.values:
                shape.merge(self.shape(value))
            return shape
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.shape(node.left).merge(self.shape(node.right))
        if isinstance(node, ast.Name) and node.id not in ("None", "True", "False"):
            return self.variable(node.id)
        if isinstance(node, ast.Attribute) and _is_name(node.value, "self") and self.owner is not None:
            return self.reader.attribute(self.owner, node.attr)
        if isinstance(node, ast.Call):
            return self.call(node)
        return Shape()

    def call(self, node: ast.Call) -> Shape:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "dict":
            shape = Shape(fields={k.arg: self.field(k.value) for k in node.keywords if k.arg})
            for keyword in node.keywords:
                if keyword.arg is None:
                    shape.merge(self.shape(keyword.value))
            return shape
        if isinstance(func, ast.Name) and func.id in ("list", "sorted") and node.args:
            inner = node.args[0]
            if isinstance(inner, ast.GeneratorExp):
                return Shape(element=self.shape(inner.elt))
            return self.shape(inner)
        if isinstance(func, ast.Attribute) and func.attr == "setdefault" and len(node.args) == 2:
            return self.shape(node.args[1])
        target = self._callee(func, node)
        if target is None:
            return Shape()
        module, function, owner = target
        return self.reader.returned(module, function, owner)

    def _callee(self, func: ast.expr, call: ast.Call) -> tuple[Module, ast.FunctionDef, ClassInfo | None] | None:
        if isinstance(func, ast.Name):
            if func.id in self.module.functions:
                return self.module, self.module.functions[func.id], None
            dotted = self.module.imports.get(func.id)
            found = _resolve(self.module, dotted) if dotted else None
            if isinstance(found, tuple):
                return found[0], found[1], None
            return None
        if not isinstance(func, ast.Attribute):
            return None
        if isinstance(func.value, ast.Name):
            if func.value.id == "self" and self.owner is not None:
                method = _method(self.owner, func.attr)
                if method is not None:
                    return method[0].module, method[1], method[0]
            dotted = self.module.imports.get(func.value.id)
            found = _resolve(self.module, dotted) if dotted else None
            if isinstance(found, Module) and func.attr in found.functions:
                return found, found.functions[func.attr], None
        return _method_building_a_dict(func.attr, len(call.args))


def _method_building_a_dict(name: str, arguments: int) -> tuple[Module, ast.FunctionDef, ClassInfo] | None:
    """`step.figures()` on a value of unknown type: the one method of the package by that name,
    taking that many arguments, that returns a dict literal."""
    candidates = []
    for module in package_modules().values():
        for cls in module.classes.values():
            method = cls.methods.get(name)
            if (method is not None and len(method.args.args) == arguments + 1
                    and any(isinstance(n, ast.Return) and isinstance(n.value, ast.Dict) for n in _own_nodes(method))):
                candidates.append((module, method, cls))
    return candidates[0] if len(candidates) == 1 else None


def _method(cls: ClassInfo, name: str) -> tuple[ClassInfo, ast.FunctionDef] | None:
    if name in cls.methods:
        return cls, cls.methods[name]
    for base in cls.node.bases:
        if isinstance(base, ast.Name):
            found = [c for m in package_modules().values() for n, c in m.classes.items() if n == base.id]
            for parent in found:
                method = _method(parent, name)
                if method is not None:
                    return method
    return None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _record_calls(reader: ShapeReader, cls: ClassInfo) -> Shape:
    """The figures a run item attaches: every `self.record(...)` of its methods and its bases', and
    every `item.record(...)` of a module-level function its methods hand themselves to."""
    shape = Shape()
    seen: set[int] = set()

    def visit(module: Module, function: ast.FunctionDef, owner: ClassInfo | None, receiver: str) -> None:
        if id(function) in seen:
            return
        seen.add(id(function))
        scope = _Scope(reader, module, owner, function)
        for node in _own_nodes(function):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "record" and _is_name(func.value, receiver):
                figures = Shape(fields={k.arg: scope.field(k.value) for k in node.keywords if k.arg})
                for keyword in node.keywords:
                    if keyword.arg is None:
                        figures.merge(scope.shape(keyword.value))
                shape.merge(figures)
            elif any(_is_name(arg, receiver) for arg in node.args):
                callee = scope._callee(func, node)
                if callee is not None and callee[2] is None:
                    params = [a.arg for a in callee[1].args.args]
                    index = next(i for i, arg in enumerate(node.args) if _is_name(arg, receiver))
                    if index < len(params):
                        visit(callee[0], callee[1], None, params[index])

    classes = [cls]
    while classes:
        current = classes.pop()
        for method in current.methods.values():
            visit(current.module, method, cls, "self")
        for base in current.node.bases:
            if isinstance(base, ast.Name):
                classes.extend(c for m in package_modules().values() for n, c in m.classes.items()
                               if n == base.id and c.kind is None)
    return shape


@dataclass
class ResultsReference:
    top: Shape
    run: Shape
    item: Shape
    kinds: dict[str, Shape]

    def names(self) -> set[str]:
        found = {"runs", "items"} | set(self.top.names()) | set(self.run.names()) | set(self.item.names())
        for shape in self.kinds.values():
            found |= set(shape.names())
        return found


@functools.cache
def results_reference() -> ResultsReference:
    """results.json as the package writes it: the file's top, each run, each item, each kind's figures."""
    reader = ShapeReader()
    recorder = _class_named("ResultsRecorder")
    top = reader.returned(recorder.module, recorder.methods["results"], recorder)
    runs = top.fields.get("runs", Shape()).element or Shape()
    context = _class_named("RunContext")
    runs.merge(reader.returned(context.module, context.methods["run_properties"], context))
    item = reader.local(recorder.module, recorder.methods["pytest_runtest_logreport"], "entry", recorder)
    # The review wing adds each run's `review` through the `pytest_tcab_run_results` hook.
    fold = package_modules()["pytest_tcab.review.fold"]
    runs.merge(Shape(fields={"review": reader.local(fold, fold.functions["fold"], "found", None)}))
    item.fields = {"nodeid": Shape(), **item.fields}
    runs.fields.pop("items", None)
    top.fields.pop("runs", None)
    kinds: dict[str, Shape] = {}
    for module in package_modules().values():
        for cls in module.classes.values():
            if cls.kind and cls.kind != "run":
                figures = _record_calls(reader, cls)
                figures.doc = _first_paragraph(cls.node)
                kinds.setdefault(cls.kind, Shape()).merge(figures)
    return ResultsReference(top, runs, item, kinds)


def results_fields() -> set[str]:
    return results_reference().names()


def _shape_rows(shape: Shape, prefix: str, rows: list[str]) -> None:
    for name, sub in shape.fields.items():
        _row(f"{prefix}{name}", sub, rows)


def _row(path: str, shape: Shape, rows: list[str]) -> None:
    """`path` and what lies under it: its fields, a list's entries (`[]`), a map's values (`<id>`)."""
    shown = path + ("[]" if shape.element is not None and not shape.fields else "")
    rows.append(f"| `{shown}` | {_cell(shape.doc)} | {', '.join(f'`{w}`' for w in sorted(shape.where))} |")
    _shape_rows(shape, f"{path}.", rows)
    if shape.element is not None:
        _shape_rows(shape.element, f"{shown if not shape.fields else path + '[]'}.", rows)
    if shape.values is not None:
        _row(f"{path}.<id>", shape.values, rows)


def _table(shape: Shape, prefix: str = "") -> str:
    rows = ["| field | what it holds | written by |", "|---|---|---|"]
    _shape_rows(shape, prefix, rows)
    return "\n".join(rows)


def results_json_section() -> str:
    reference = results_reference()
    parts = [
        "### The file", _table(reference.top),
        "### Each run: `runs[]`", _table(reference.run, "runs[]."),
        "### Each item: `runs[].items[]`",
        "Every item has these fields; its kind adds the figures listed below.",
        _table(reference.item, "items[]."),
        "### Figures by item kind",
    ]
    for kind, shape in sorted(reference.kinds.items()):
        parts.append(f"#### `{kind}`")
        if shape.doc:
            parts.append(shape.doc)
        parts.append(_table(shape, "items[].") if shape.fields else "No figures of its own.")
    return "\n\n".join(parts)


def matrix_fields() -> set[str]:
    """The keys of `--tcab-matrix`'s JSON: every string key of the dicts its module builds."""
    found: set[str] = set()
    for name, module in package_modules().items():
        if name.rsplit(".", 1)[-1] == "matrix":
            for node in ast.walk(module.tree):
                if isinstance(node, ast.Dict):
                    found |= {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                    keys = [node.slice.body, node.slice.orelse] if isinstance(node.slice, ast.IfExp) else [node.slice]
                    found |= {k.value for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return found


# -- sweep.json -------------------------------------------------------------------------------


def _function_named(name: str) -> tuple[Module, ast.FunctionDef] | None:
    """The package's one module-level function called `name`, or None when it has none."""
    found = [(module, module.functions[name]) for module in package_modules().values() if name in module.functions]
    if len(found) > 1:
        raise LookupError(f"docs_reference: {len(found)} functions named {name!r} in pytest_tcab")
    return found[0] if found else None


def _seen_from(module: Module, name: str) -> tuple[Module, ast.FunctionDef] | None:
    """The function `name` as `module` sees it: its own, or the one it imports."""
    if name in module.functions:
        return module, module.functions[name]
    found = _resolve(module, module.imports[name]) if name in module.imports else None
    return found if isinstance(found, tuple) else None


SWEEP_DOCUMENT = "sweep_document"
"""The function that builds sweep.json; its rows come from SWEEP_ROWS, its comparison from SWEEP_COMPARE."""
SWEEP_ROWS = ("sweep_row", "bad_input_row")
SWEEP_COMPARE = "compare"


@functools.cache
def sweep_reference() -> Shape | None:
    """sweep.json as the package writes it, or None when this version writes none."""
    document = _function_named(SWEEP_DOCUMENT)
    if document is None:
        return None
    reader = ShapeReader()
    top = reader.returned(*document)
    rows = Shape()
    for name in SWEEP_ROWS:
        found = _seen_from(document[0], name)
        if found is None:
            raise LookupError(f"docs_reference: sweep.json's rows are built by {name}(), which is gone")
        rows.merge(reader.returned(*found))
    top.fields.setdefault("runs", Shape()).merge(Shape(element=rows))
    compare = _seen_from(document[0], SWEEP_COMPARE)
    if compare is not None:
        top.fields.setdefault("compare", Shape()).merge(reader.returned(*compare))
    return top


def sweep_fields() -> set[str]:
    shape = sweep_reference()
    return set() if shape is None else set(shape.names())


def sweep_json_section() -> str:
    shape = sweep_reference()
    if shape is None:
        return "This version of pytest-tcab writes no sweep.json."
    return _table(shape)


# -- the hook ---------------------------------------------------------------------------------


# -- editor schemas ---------------------------------------------------------------------------

SCHEMAS_URL = "schemas/"
"""Where the site publishes the package's schemas (`<site>/schemas/<kind>.schema.json`): the files the
package ships, copied as they are, so a URL serves what `--tcab-schemas` writes."""


def schemas_section() -> str:
    """The file kinds, where the layouts put them, and each one's schema (a link the site serves)."""
    from pytest_tcab.schemas.generate import FILE_KINDS

    rows = ["| File | Layout | Where (taplo globs) | Schema |", "|---|---|---|---|"]
    for kind in FILE_KINDS:
        globs = "<br>".join(f"`{glob}`" for glob in kind.globs)
        rows.append(f"| `{kind.file}` | {kind.layout} | {globs} | [{kind.filename}](../{SCHEMAS_URL}{kind.filename}) |")
    return "\n".join(rows)


def on_files(files: Any, config: Any) -> Any:
    """mkdocs: publish the schemas the package ships under `schemas/` of the site (pages link them)."""
    from mkdocs.structure.files import File

    for path in sorted((PACKAGE / "schemas").glob("*.schema.json")):
        files.append(File.generated(config, f"{SCHEMAS_URL}{path.name}", content=path.read_bytes()))
    return files


SECTIONS: dict[str, Callable[[], str]] = {
    "options": options_section,
    "item-kinds": item_kinds_section,
    "results-json": results_json_section,
    "sweep-json": sweep_json_section,
    "schemas": schemas_section,
}


def expand(markdown: str, where: str = "a page") -> str:
    """`markdown` with every `<!-- tcab:NAME -->` marker replaced by its generated section."""
    def generated(match: re.Match[str]) -> str:
        name = match[1]
        if name not in SECTIONS:
            raise ValueError(f"{where}: unknown generated section <!-- tcab:{name} --> "
                             f"(known: {', '.join(sorted(SECTIONS))})")
        return SECTIONS[name]()
    return MARKER.sub(generated, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs: fill a page's generated sections."""
    return expand(markdown, page.file.src_uri)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


if __name__ == "__main__":
    for name, section in SECTIONS.items():
        print(f"<!-- tcab:{name} -->\n{section()}\n")
