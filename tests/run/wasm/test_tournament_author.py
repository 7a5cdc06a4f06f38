"""Author mode for a catalog manifest of `type = "adversarial"`: every key's rule, located.

The test-suite layout's rules are in tests/plugin/test_definitions.py; both share resolve/adversarial.py.
"""

from __future__ import annotations

import pytest

from tests.tournament_suite import MANIFEST
from tests.tournament_suite import VERSION
from tests.tournament_suite import write_suite

ARGS = ("--tcab-suite=suite", "-p", "no:cacheprovider")


def test_a_clean_adversarial_manifest_resolves(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {}, house=["strong"], renderer=True)
    result = pytester.runpytest(*ARGS, "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*test-case.toml::resolve[[]default[]] PASSED*"])


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("def frame(state):", "def draw(state):",
         f"{MANIFEST}:24: `simulation.referee`: referee echo.py does not define frame"),
        ('house = ["house/strong.wat"]', 'house = ["house/strong.wat", "house/greedy.wasm"]',
         (f"{MANIFEST}:32: `match.house[1]`: house controller 'house/greedy.wasm' does not exist; expected a file under "
         "v1.0.0/")),
        ('house = ["house/strong.wat"]', 'house = ["prompt.hbs"]',
         f"{MANIFEST}:32: `match.house[0]`: house controller 'prompt.hbs' is neither a .wasm module nor .wat text"),
        ('renderer = "replay/index.html"', 'renderer = "replay/play.html"',
         (f"{MANIFEST}:35: `replay.renderer`: replay renderer 'replay/play.html' does not exist; expected a file under "
         "v1.0.0/")),
        ("participants = 2", "participants = 1",
         f"{MANIFEST}:29: `match.participants`: 1 is out of range: should be greater than or equal to 2"),
        ("fuel_per_tick = 10000", "fuel_per_tick = -5",
         f"{MANIFEST}:20: `sandbox.fuel_per_tick`: -5 is out of range: should be greater than 0"),
        ('action = "schemas/action.json"', 'action = "schemas/actions.json"',
         (f"{MANIFEST}:17: `contract.action`: contract action schema 'schemas/actions.json' does not exist; expected a "
         "file under v1.0.0/")),
        ('type = "adversarial"', 'type = "adversarial"\n\n[[review_item]]\nid = "x"\ntitle = "X"\n',
         (f"{MANIFEST}:9: `review_item`: an adversarial case declares no `[[review_item]]`: its standings are the whole "
         "score")),
    ],
    ids=["referee-functions", "house-exists", "house-kind", "renderer-exists", "participants", "fuel-per-tick",
         "action-schema", "no-review"],
)
def test_each_rule_is_located(pytester: pytest.Pytester, old: str, new: str, expected: str) -> None:
    write_suite(pytester.path, {}, house=["strong"], renderer=True)
    path = pytester.path / (VERSION / "referee/echo.py" if old.startswith("def ") else MANIFEST)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    result = pytester.runpytest(*ARGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert expected in result.stdout.lines, "\n".join(result.stdout.lines)
    assert "Traceback" not in result.stdout.str()
