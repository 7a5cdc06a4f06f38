"""Strict, unescaped Handlebars rendering and errors that name the right line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_tcab import templates
from pytest_tcab.templates import StrictTemplate
from pytest_tcab.templates import TemplateError
from pytest_tcab.templates import compile_template
from pytest_tcab.templates import use_disk_cache

PROMPT_CONTEXT: dict[str, object] = {
    "workspace": "/run/workspace",
    "engine": {"slug": "simple-2d", "name": "Simple 2D", "docs": "/run/docs"},
    "specifications": [
        {
            "id": "core",
            "name": "Core",
            "summary": "The loop",
            "path": "/run/workspace/specs/core.md",
        },
        {"id": "ui", "name": "UI", "summary": "The HUD", "path": "/run/workspace/specs/ui.md"},
    ],
}


def render(source: str, context: Mapping[str, object] = PROMPT_CONTEXT) -> str:
    return compile_template(source, "prompt.hbs").render(context)


def error(source: str, context: Mapping[str, object] = PROMPT_CONTEXT) -> TemplateError:
    with pytest.raises(TemplateError) as info:
        render(source, context)
    return info.value


def test_renders_the_test_suite_prompt_context() -> None:
    source = (
        "Build in {{workspace}} with {{engine.name}} ({{engine.slug}}), docs at {{engine.docs}}.\n"
        "{{#each specifications}}\n"
        "{{@index}}. {{this.id}} {{name}}: {{this.summary}} -> {{this.path}} in {{../workspace}}\n"
        "{{/each}}\n"
        "{{specifications.length}} specs, engine {{@root.engine.slug}}\n"
    )
    assert render(source) == (
        "Build in /run/workspace with Simple 2D (simple-2d), docs at /run/docs.\n"
        "0. core Core: The loop -> /run/workspace/specs/core.md in /run/workspace\n"
        "1. ui UI: The HUD -> /run/workspace/specs/ui.md in /run/workspace\n"
        "2 specs, engine simple-2d\n"
    )


def test_unknown_simple_variable_names_its_line_and_the_keys() -> None:
    exc = error("line one\nline two\n{{worksapce}}\n")
    assert exc.line == 3
    assert (
        exc.message == "unknown variable 'worksapce' (available: engine, specifications, workspace)"
    )
    assert exc.hint == "did you mean 'workspace'?"


def test_unknown_dotted_variable_says_how_far_it_resolved() -> None:
    exc = error("{{workspace}}\n\nUse {{engine.slgu}}.\n")
    assert exc.line == 3
    assert (
        exc.message
        == "unknown variable 'engine.slgu' (resolved up to 'engine'; available: docs, name, slug)"
    )
    assert exc.hint == "did you mean 'engine.slug'?"
    assert str(exc) == f"prompt.hbs:3: {exc.message}\n    Hint: did you mean 'engine.slug'?"


def test_unknown_this_field_inside_each_is_located_at_the_failing_tag() -> None:
    # The same path renders fine on line 2 for complete items; only line 5 meets the incomplete one.
    source = (
        "{{#each specifications}}\n- {{this.path}}\n{{/each}}\n"
        "{{#each others}}\n- {{this.path}}\n{{/each}}\n"
    )
    context = {**PROMPT_CONTEXT, "others": [{"path": "/a"}, {"pth": "/b"}]}
    exc = error(source, context)
    assert exc.line == 5
    assert exc.message == "unknown variable 'this.path' (resolved up to 'this'; available: pth)"
    assert exc.hint == "did you mean 'this.pth'?"


@pytest.mark.parametrize(
    ("source", "line", "path"),
    [
        ("intro\n{{#if draft}}\nx\n{{/if}}\n", 2, "draft"),
        ("intro\n\n{{#each specs}}\n{{this.id}}\n{{/each}}\n", 3, "specs"),
        (
            "{{#unless engine.slug}}{{/unless}}\n{{#with engine.version}}{{/with}}",
            2,
            "engine.version",
        ),
        ('{{#if (eq variant.slug "multi")}}\nyes\n{{/if}}', 1, "variant.slug"),
        ("{{#engine}}{{slug}}{{/engine}}\n{{#variant}}{{/variant}}", 2, "variant"),
    ],
)
def test_missing_name_in_a_block_parameter_is_an_error(source: str, line: int, path: str) -> None:
    exc = error(source)
    assert (exc.line, exc.message.split(" (")[0]) == (line, f"unknown variable '{path}'")


def test_root_name_used_inside_a_block_hints_at_root() -> None:
    exc = error("{{#each specifications}}\n{{workspace}}\n{{/each}}")
    assert exc.line == 2
    assert exc.message == "unknown variable 'workspace' (available: id, name, path, summary)"
    assert (
        exc.hint
        == "inside a block names refer to the current item; did you mean '@root.workspace'?"
    )


def test_null_renders_empty_but_cannot_be_looked_into() -> None:
    assert render("[{{docs}}]", {"docs": None}) == "[]"
    exc = error("ok\n{{docs.path}}", {"docs": None})
    assert (exc.line, exc.message) == (2, "unknown variable 'docs.path' ('docs' is null)")


def test_data_variable_outside_each_is_an_error() -> None:
    exc = error("{{@index}}")
    assert exc.hint == "@index, @key, @first and @last exist only inside {{#each}}"


def test_attributes_of_objects_resolve_like_keys() -> None:
    @dataclass
    class Engine:
        slug: str
        name: str

    assert (
        render("{{engine.slug}}/{{engine.name}}", {"engine": Engine("none", "None")}) == "none/None"
    )
    exc = error("{{engine.docs}}", {"engine": Engine("none", "None")})
    assert (
        exc.message
        == "unknown variable 'engine.docs' (resolved up to 'engine'; available: name, slug)"
    )


def test_nothing_is_html_escaped() -> None:
    text = "<b>&amp;</b> \"q\" 'a' `t`"
    assert render("{{x}}|{{{x}}}|{{&x}}", {"x": text}) == f"{text}|{text}|{text}"


def test_plain_pybars_still_escapes_after_a_strict_render() -> None:
    from pybars import Compiler

    assert render("{{x}}", {"x": "<&>"}) == "<&>"
    assert Compiler().compile("{{x}} {{y}}")({"x": "<&>"}) == "&lt;&amp;&gt; "


def test_compiling_registers_no_pybars_module() -> None:
    before = {name for name in sys.modules if name.startswith("pybars._templates.")}
    StrictTemplate("{{x}}", "fresh.hbs")
    assert {name for name in sys.modules if name.startswith("pybars._templates.")} == before


def test_eq_helper_in_a_subexpression_and_inline() -> None:
    source = (
        '{{#if (eq variant.slug "multi")}}multi{{else}}single{{/if}} {{eq variant.slug "solo"}}'
    )
    assert render(source, {"variant": {"slug": "multi"}}) == "multi false"
    assert render(source, {"variant": {"slug": "solo"}}) == "single true"
    assert render("{{eq one true}} {{eq one 1}}", {"one": 1}) == "false true"


def test_index_first_last_key_and_length() -> None:
    source = (
        "{{#each xs}}{{@index}}{{#if @first}}F{{/if}}{{#if @last}}L{{/if}},{{/each}}"
        "{{xs.length}} {{xs.1}}"
    )
    assert render(source, {"xs": ["a", "b", "c"]}) == "0F,1,2L,3 b"
    assert render("{{#each m}}{{@key}}={{this}};{{/each}}", {"m": {"k": 1, "j": 2}}) == "k=1;j=2;"
    assert render("{{#each xs}}x{{else}}none{{/each}}", {"xs": []}) == "none"


def test_values_are_written_like_handlebars_js() -> None:
    context = {"yes": True, "no": False, "none": None, "hours": 2.0, "half": 1.5, "n": 3}
    assert (
        render("{{yes}} {{no}} [{{none}}] {{hours}} {{half}} {{n}}", context)
        == "true false [] 2 1.5 3"
    )


def test_unclosed_block_names_the_opener() -> None:
    exc = error("intro\n{{#if engine.slug}}\n{{#each specifications}}\n- {{this.id}}\n{{/if}}")
    assert (exc.line, exc.message) == (
        5,
        "'{{/if}}' does not close '{{#each specifications}}' (line 3)",
    )
    assert exc.hint == "close it with {{/each}} first"
    exc = error("hello\n{{#each specifications}}a\nb\n")
    assert (exc.line, exc.message, exc.hint) == (
        2,
        "unclosed block '{{#each specifications}}'",
        "close it with {{/each}}",
    )


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        ("a\n{{/each}}", 2, "'{{/each}}' closes no open block"),
        ("a\n{{else}}", 2, "'{{else}}' outside a block"),
        ("{{#if a}}\n{{else}}\n{{else}}\n{{/if}}", 3, "second '{{else}}' in '{{#if a}}' (line 1)"),
        ("{{#if a}}\n{{else if b}}\n{{/if}}", 2, "'{{else if b}}' is not supported"),
        ("a\nb {{#each xs}}{{/each }}", 2, "malformed closing tag '{{/each }}'"),
        ("a\n{{ #if a}}{{/if}}", 2, "space before '#' in '{{ #if a}}'"),
        ("a\nb {{x}\nc\nd\n", 2, "tag '{{x}' is never closed"),
        ("a\n{{{x}}\nc", 2, "'{{{x}}' opens with {{{ but does not close with }}}"),
        ("a\n{{{{raw}}}}\n{{x}}", 2, "unclosed raw block '{{{{raw}}}}'"),
        ("a\n{{> header}}", 2, "partials are not supported: '{{> header}}'"),
    ],
)
def test_malformed_structure_is_located(source: str, line: int, message: str) -> None:
    with pytest.raises(TemplateError) as info:
        StrictTemplate(source, "t.hbs")
    assert (info.value.line, info.value.message) == (line, message)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("l1\nl2 {{x!}}\nl3\n", 2),  # pybars says "line 4"
        ("l1\n  {{~#if a~}}\n{{foo bar=}}\n{{~/if~}}\nl5\n", 3),
        ("{{#each xs}}\n{{/each}}\n{{it's}}\n{{x}}\n", 3),
    ],
)
def test_syntax_error_names_the_tag_line_not_the_last_line(source: str, line: int) -> None:
    with pytest.raises(TemplateError) as info:
        StrictTemplate(source, "t.hbs")
    assert info.value.line == line
    assert info.value.message.startswith("cannot parse '{{")


def test_context_keys_named_like_helpers_read_the_context() -> None:
    context = {
        name: name.upper() for name in ("log", "lookup", "each", "if", "with", "unless", "eq")
    }
    source = "{{log}} {{lookup}} {{each}} {{if}} {{with}} {{unless}} {{eq}}"
    assert render(source, context) == "LOG LOOKUP EACH IF WITH UNLESS EQ"
    assert render("{{#with each}}{{this.0}}{{/with}}", {"each": [7]}) == "7"
    exc = error("a\n{{log}}", {})
    assert (exc.line, exc.message) == (2, "unknown variable 'log' (the current item is empty)")


@pytest.mark.parametrize(
    ("source", "message", "hint"),
    [
        (
            "{{#each}}x{{/each}}",
            "'each' takes 1 argument, got 0 in '{{#each}}'",
            "use it as {{#each list}}…{{else}}…{{/each}}",
        ),
        (
            "{{#log}}x{{/log}}",
            "'log' is not a block helper in '{{#log}}'",
            "to open the context key as a block, write {{#with log}}…{{/with}}",
        ),
        (
            '{{#eq a "b"}}x{{/eq}}',
            "'eq' is not a block helper in '{{#eq a \"b\"}}'",
            'use it as {{#if (eq a "b")}}…{{/if}}',
        ),
        (
            "{{if a}}",
            "'if' is a block helper in '{{if a}}'",
            "use it as {{#if value}}…{{else}}…{{/if}}",
        ),
        (
            "{{#if (eq a)}}x{{/if}}",
            "'eq' takes 2 arguments, got 1 in '{{#if (eq a)}}'",
            'use it as {{#if (eq a "b")}}…{{/if}}',
        ),
        (
            "{{#if (each a)}}x{{/if}}",
            "'each' is a block helper in '{{#if (each a)}}'",
            "use it as {{#each list}}…{{else}}…{{/each}}",
        ),
        (
            "{{#each xs sep=1}}x{{/each}}",
            "'each' takes no named argument 'sep=' in '{{#each xs sep=1}}'",
            "use it as {{#each list}}…{{else}}…{{/each}}",
        ),
        (
            "{{upper name}}",
            "unknown helper 'upper' in '{{upper name}}'",
            "the helpers are each, eq, if, log, lookup, unless, with",
        ),
        ("{{#iff a}}x{{/iff}}", "unknown helper 'iff' in '{{#iff a}}'", "did you mean 'if'?"),
    ],
)
def test_helper_misuse_is_a_compile_error(source: str, message: str, hint: str) -> None:
    with pytest.raises(TemplateError) as info:
        StrictTemplate(f"intro\n{source}", "t.hbs")
    assert (info.value.line, info.value.message, info.value.hint) == (2, message, hint)


def test_comments_raw_blocks_and_whitespace_control() -> None:
    source = "{{! note }}a\n{{#if yes}}\n  b\n{{/if}}\n{{{{raw}}}}{{kept}}{{{{/raw}}}}\n{{~x~}} ."
    assert render(source, {"yes": True, "x": "X"}) == "a\n  b\n{{kept}}X."


def test_rendering_is_deterministic() -> None:
    source = "{{#each m}}{{@key}}:{{#each this}}{{this}},{{/each}};{{/each}}{{workspace}}"
    context = {"m": {"b": [1, 2], "a": [True, None]}, "workspace": "/w"}
    first = render(source, context)
    assert first == "b:1,2,;a:true,,;/w"
    assert render(source, context) == first
    assert StrictTemplate(source, "other.hbs").render(context) == first


def test_compile_template_is_cached_per_source_and_name() -> None:
    source = "{{workspace}} cached"
    assert compile_template(source, "a.hbs") is compile_template(source, "a.hbs")
    assert compile_template(source, "b.hbs") is not compile_template(source, "a.hbs")


def test_concurrent_compiles_take_turns() -> None:
    sources = [f"{{{{#each xs}}}}{i}:{{{{this}}}}{{{{/each}}}}" for i in range(6)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        outputs = list(
            pool.map(lambda s: StrictTemplate(s, "t.hbs").render({"xs": ["a"]}), sources)
        )
    assert outputs == [f"{i}:a" for i in range(6)]


def test_a_closing_block_on_the_last_line_keeps_each_items_newline() -> None:
    # pybars alone renders "- A- B\n" here; Handlebars.js renders what is asserted.
    template = compile_template("Read:\n{{#each specs}}\n- {{this}}\n{{/each}}\n", "last-line.hbs")
    assert template.render({"specs": ["A", "B"]}) == "Read:\n- A\n- B\n"


@pytest.fixture
def disk_cache(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "templates"
    use_disk_cache(folder)
    yield folder
    use_disk_cache(None)


def test_generated_code_is_kept_on_disk_and_reused(disk_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = "Hello {{variant.name}} in {{workspace}}\n"
    context = {"variant": {"name": "Frenzy"}, "workspace": "/w"}
    first = StrictTemplate(source, "prompt.hbs").render(context)
    assert len(list(disk_cache.glob("*.code"))) == 1

    def no_compile(*args: object) -> str:
        raise AssertionError("compiled again despite the cached code")

    monkeypatch.setattr(templates, "_generate", no_compile)
    again = StrictTemplate(source, "other.hbs")
    assert again.render(context) == first == "Hello Frenzy in /w\n"
    with pytest.raises(TemplateError, match=r"other.hbs:1: unknown variable 'variant.name'"):
        again.render({"variant": {}, "workspace": "/w"})


def test_a_damaged_cache_entry_is_regenerated(disk_cache: Path) -> None:
    source = "{{#each specs}}- {{this.name}}\n{{/each}}"
    StrictTemplate(source, "p.hbs")
    (entry,) = disk_cache.glob("*.code")
    damaged = entry.read_bytes().replace(b"render", b"broken", 1)
    entry.write_bytes(damaged)
    assert StrictTemplate(source, "p.hbs").render({"specs": [{"name": "A"}]}) == "- A\n"
    assert entry.read_bytes() != damaged
