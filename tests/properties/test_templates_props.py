"""Whatever the template and context: text, or a TemplateError at a line of the template."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from pytest_tcab.templates import StrictTemplate
from pytest_tcab.templates import TemplateError

NAMES = ["workspace", "engine", "slug", "specs", "id", "log", "each"]
"""A small pool, so tags often hit the context and sometimes miss it; two shadow helper names."""

paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map(".".join)
literals = st.text(alphabet="ab \n.-<&>\"'", max_size=8)


def _tags(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(
            lambda p, a, b: "{{#if " + p + "}}" + a + "{{else}}" + b + "{{/if}}",
            paths,
            children,
            children,
        ),
        st.builds(lambda p, a: "{{#each " + p + "}}\n" + a + "\n{{/each}}\n", paths, children),
        st.builds(lambda p, a: "{{#with " + p + "}}" + a + "{{/with}}", paths, children),
        st.builds(lambda p, a: "{{#if (eq " + p + ' "a")}}' + a + "{{/if}}", paths, children),
        st.builds(lambda a, b: a + b, children, children),
    )


leaves = st.one_of(
    literals,
    paths.map(lambda p: "{{" + p + "}}"),
    paths.map(lambda p: "{{this." + p + "}}"),
    paths.map(lambda p: "{{{" + p + "}}}"),
    st.sampled_from(
        ["{{@index}}", "{{this}}", "{{../workspace}}", "{{@root.engine}}", "{{specs.length}}"]
    ),
)
templates = st.recursive(leaves, _tags, max_leaves=8)

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)
    ),
    max_leaves=6,
)
contexts = st.dictionaries(st.sampled_from(NAMES), values, max_size=5)


def _assert_located(exc: TemplateError, source: str) -> int:
    assert exc.line is not None
    assert 1 <= exc.line <= source.count("\n") + 1
    return exc.line


@settings(max_examples=60, deadline=None)
@given(source=templates, context=contexts)
def test_render_returns_text_or_a_located_template_error(
    source: str, context: dict[str, object]
) -> None:
    template = StrictTemplate(source, "prop.hbs")
    try:
        first = template.render(context)
    except TemplateError as exc:
        line = _assert_located(exc, source)
        # Generated tags fail only on unknown names; the reported line is where the name is written.
        unknown = exc.message.split("'")[1]
        assert unknown.rsplit(".", 1)[-1] in source.split("\n")[line - 1]
    else:
        assert template.render(context) == first


@settings(max_examples=60, deadline=None)
@given(source=st.text(alphabet="{}#/^!~&>()[]\"'=. \nabx", max_size=24), context=contexts)
def test_arbitrary_text_compiles_or_fails_as_a_located_template_error(
    source: str, context: dict[str, object]
) -> None:
    try:
        StrictTemplate(source, "fuzz.hbs").render(context)
    except TemplateError as exc:
        _assert_located(exc, source)
