"""`template[...]` items: every prompt and `.hbs` spec of both layouts rendered strictly with its DESIGN context."""

from __future__ import annotations

from pathlib import Path

import pytest
from definition_suite import GAME
from definition_suite import VERSION
from definition_suite import write_definition_suite
from rules import Edit

PROMPT = VERSION / "prompts/p.hbs"
CAROM = Path("example-suite/test-cases/end-to-end/medium/carom/v2.0.0")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "-rf", *args)


def test_unknown_variable_fails_at_the_template_line(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    Edit(PROMPT, "Done.", "Done on {{engine.slgu}}.").apply(pytester.path)
    result = _run(pytester, "--tcab-suite=.")
    # Every definition shares the prompt: game's two engines, hero, perf and duel. Seed items in
    # author mode check the plan only, so the template error fails the template items alone.
    result.assert_outcomes(passed=17, failed=5)
    result.stdout.fnmatch_lines([f"FAILED {GAME}::template[[]prompts/p.hbs:none[]]*",
                                 f"FAILED {GAME}::template[[]prompts/p.hbs:simple-2d[]]*"])
    assert (f"{PROMPT}:5: unknown variable 'engine.slgu' (resolved up to 'engine'; available: docs, name, slug)"
            in result.stdout.lines)
    assert "    Hint: did you mean 'engine.slug'?" in result.stdout.lines
    assert "Traceback" not in result.stdout.str()


def test_template_item_lives_at_the_key_naming_its_template(pytester: pytest.Pytester) -> None:
    """Its location is the definition's `prompt = ...` line (the file its id names, which IDEs
    open); its failure names the template's own line."""
    write_definition_suite(pytester.path)
    Edit(PROMPT, "Done.", "{{#each specifications}}{{this.title}}{{/each}}").apply(pytester.path)
    result = _run(pytester, "--tcab-suite=.", "-k", "game and template and none", "--junitxml=junit.xml",
                  "-o", "junit_family=xunit1")
    result.assert_outcomes(failed=1, deselected=21)
    assert (f"{PROMPT}:5: unknown variable 'this.title' (resolved up to 'this'; available: id, name, path, summary)"
            in result.stdout.lines)
    prompt_line = (pytester.path / GAME).read_text().splitlines().index('prompt = "prompts/p.hbs"')
    junit = (pytester.path / "junit.xml").read_text()
    assert f'file="{GAME}" line="{prompt_line}"' in junit  # 0-based, as pytest's reportinfo


def test_definition_context_is_exactly_the_design_names(pytester: pytest.Pytester) -> None:
    write_definition_suite(pytester.path)
    result = _run(pytester, "--tcab-suite=.", "-k", "game and template", "-rP")
    result.assert_outcomes(passed=2, deselected=20)
    result.stdout.fnmatch_lines([
        "*Captured rendered call*",
        "Work in /workspace on none (No engine).",
        "- core Core: The core. /workspace/specs/core.md",
        "Done.",
        "*Captured rendered call*",
        "Work in /workspace on simple-2d (Simple 2D/workspace/.tcab/engines/simple-2d).",
        "- core Core: The core. /workspace/specs/core.md",
        "Done.",
    ])


@pytest.mark.parametrize("name", ["version", "variant", "specs", "time_limit_hours", "engine.docs.path"])
def test_definition_prompt_knows_no_other_name(pytester: pytest.Pytester, name: str) -> None:
    write_definition_suite(pytester.path)
    Edit(PROMPT, "Done.", "{{" + name + "}}").apply(pytester.path)
    result = _run(pytester, "--tcab-suite=.", "-k", "hero and template")
    result.assert_outcomes(failed=1, deselected=21)
    result.stdout.fnmatch_lines([f"{PROMPT}:5: unknown variable '{name}'*"])


def test_catalog_templates_render_per_variant(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = _run(pytester, "--tcab-suite=example-suite", "-k", "carom and v2.0.0 and template", "-v")
    result.assert_outcomes(passed=4, deselected=result.parseoutcomes()["deselected"])
    result.stdout.fnmatch_lines([
        f"{CAROM}/test-case.toml::template[[]prompt.hbs#base[]] PASSED*",
        f"{CAROM}/test-case.toml::template[[]prompt.hbs#frenzy[]] PASSED*",
        f"{CAROM}/test-case.toml::template[[]specs/mode.md.hbs#base[]] PASSED*",
        f"{CAROM}/test-case.toml::template[[]specs/mode.md.hbs#frenzy[]] PASSED*",
    ])


def test_catalog_prompt_context(pytester: pytest.Pytester, example_suite: Path) -> None:
    (pytester.path / CAROM / "prompt.hbs").write_text(
        "{{workspace}} {{time_limit_hours}} {{variant.slug}}|{{variant.name}}|{{variant.description}}\n"
        "{{#each specs}}\n{{this.path}} {{this.dest}} {{this.name}}\n{{/each}}\nend\n")
    result = _run(pytester, "--tcab-suite=example-suite", "-k", "carom and v2.0.0 and template and prompt and frenzy", "-rP")
    result.assert_outcomes(passed=1, deselected=result.parseoutcomes()["deselected"])
    result.stdout.fnmatch_lines([
        "/workspace 0.5 frenzy|Frenzy|Every hit speeds the ball up, with no cap.",
        "/workspace/specs/overview.md specs/overview.md Overview",
        "/workspace/specs/mode.md specs/mode.md Mode",
        "/workspace/specs/modes/frenzy.md specs/modes/frenzy.md Frenzy",
        "end",
    ])


def test_catalog_spec_template_fails_with_its_line(pytester: pytest.Pytester, example_suite: Path) -> None:
    spec = pytester.path / CAROM / "specs/mode.md.hbs"
    spec.write_text(spec.read_text().replace("Carom {{version}}", "Carom {{version}} for {{workspace}}"))
    result = _run(pytester, "--tcab-suite=example-suite", "-k", "carom and v2.0.0 and template")
    result.stdout.fnmatch_lines([f"FAILED {CAROM}/test-case.toml::template[[]specs/mode.md.hbs#base[]]*",
                                 f"FAILED {CAROM}/test-case.toml::template[[]specs/mode.md.hbs#frenzy[]]*"])
    assert (f"{CAROM}/specs/mode.md.hbs:8: unknown variable 'workspace' (available: variant, version)"
            in result.stdout.lines)


def test_rendering_is_byte_identical_across_runs(pytester: pytest.Pytester, example_suite: Path) -> None:
    renders = []
    for _ in range(2):
        result = _run(pytester, "--tcab-suite=example-suite", "-k", "template", "-rP")
        assert result.ret == pytest.ExitCode.OK
        renders.append([line for line in result.stdout.lines if not line.startswith(("=", "platform", "rootdir"))
                        and " passed" not in line])
    assert renders[0] == renders[1]
    assert any(line.startswith("Build the game the specifications describe") for line in renders[0])
