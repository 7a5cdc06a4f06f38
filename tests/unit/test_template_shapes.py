"""Every path of a template is checked against its context's shape, rendered or not."""

from __future__ import annotations

import pytest

from pytest_tcab.prompts import CATALOG_PROMPT_SHAPE
from pytest_tcab.prompts import CATALOG_SPEC_SHAPE
from pytest_tcab.prompts import DEFINITION_PROMPT_SHAPE
from pytest_tcab.template_shapes import unknown_name
from pytest_tcab.templates import compile_template

UNRENDERED = "in a branch this context does not render"


@pytest.mark.parametrize(("source", "shape", "expected"), [
    ('# {{version}}\n{{#if (eq variant.slug "gyre")}}\n{{variant.descriptoin}}\n{{else}}\nStraight.\n{{/if}}\n',
     CATALOG_SPEC_SHAPE,
     f"t.hbs:3: unknown variable 'variant.descriptoin' {UNRENDERED} (resolved up to 'variant'; available: "
     "description, name, slug)\n    Hint: did you mean 'variant.description'?"),
    ("Work.\n{{#each specs}}\n- {{this.pth}}\n{{/each}}\n", CATALOG_PROMPT_SHAPE,
     f"t.hbs:3: unknown variable 'this.pth' {UNRENDERED} (resolved up to 'this'; available: dest, name, path)"
     "\n    Hint: did you mean 'this.path'?"),
    ("{{#each specs}}{{../wrkspace}}{{/each}}", CATALOG_PROMPT_SHAPE,
     f"t.hbs:1: unknown variable '../wrkspace' {UNRENDERED} (resolved up to '../'; available: specs, "
     "time_limit_hours, variant, workspace)\n    Hint: did you mean '../workspace'?"),
    ("{{@index}}", CATALOG_PROMPT_SHAPE,
     f"t.hbs:1: unknown variable '@index' {UNRENDERED} (available: specs, time_limit_hours, variant, workspace)"
     "\n    Hint: @index, @key, @first and @last exist only inside {{#each}}"),
    ("{{#with engine}}\n{{slug}} {{nmae}}\n{{/with}}", DEFINITION_PROMPT_SHAPE,
     f"t.hbs:2: unknown variable 'nmae' {UNRENDERED} (available: docs, name, slug)\n    Hint: did you mean 'name'?"),
    ("{{#each specifications}}{{id}}{{else}}{{nothing}}{{/each}}", DEFINITION_PROMPT_SHAPE,
     f"t.hbs:1: unknown variable 'nothing' {UNRENDERED} (available: engine, specifications, workspace)"),
    ("{{#if workspace}}{{workspace.x}}{{/if}}", DEFINITION_PROMPT_SHAPE,
     f"t.hbs:1: unknown variable 'workspace.x' {UNRENDERED} ('workspace' is a value with no fields)"),
])
def test_a_name_the_shape_lacks_fails_at_its_line(source: str, shape: object, expected: str) -> None:
    error = unknown_name(compile_template(source, "t.hbs"), shape)  # type: ignore[arg-type]
    assert error is not None
    assert str(error) == expected


def test_every_name_the_shape_holds_passes() -> None:
    source = ('{{#unless (eq engine.slug "none")}}{{engine.docs}}{{/unless}}{{specifications.length}}'
              '{{#each specifications}}{{@index}} {{this.id}} {{@root.workspace}} {{../engine.name}}{{/each}}'
              '{{log workspace}}{{lookup engine "slug"}}')
    assert unknown_name(compile_template(source, "t.hbs"), DEFINITION_PROMPT_SHAPE) is None
