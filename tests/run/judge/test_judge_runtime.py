"""The judge runtime on its own: real Node, every script form, against a game played in Python.

`FakePage` answers the crossings as `crossings.Crossings` would for a build whose handle keeps a
tick counter, and records every crossing, so a test can read exactly what would reach a page.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from pytest_tcab.run.judge import runtime
from pytest_tcab.run.judge.runtime import JudgeFailed
from pytest_tcab.run.judge.runtime import JudgeRuntime
from pytest_tcab.run.judge.runtime import JudgeUnavailable
from pytest_tcab.run.judge.runtime import Refused

if runtime.find_node() is None:
    pytest.skip(runtime.NO_NODE, allow_module_level=True)


class FakePage:
    """The crossings of a build whose `window.__game` counts ticks; each one is recorded."""

    def __init__(self) -> None:
        self.tick = 0
        self.crossings: list[tuple[str, list[Any]]] = []

    def serve(self, member: str, args: list[Any]) -> Any:
        self.crossings.append((member, args))
        if member == "present":
            return True
        if member in ("call", "stepSnapshot"):
            op, call_args = args
            if op == "reset":
                self.tick = 0
            elif op == "step":
                self.tick += int(call_args[0]) if call_args else 1
            elif op not in ("snapshot", "setAutoStep"):
                return {"notFunction": "undefined", "op": op}
            return {"json": json.dumps({"tick": self.tick})}
        raise Refused(f"no crossing {member}")


@pytest.fixture(scope="module")
def judge() -> Iterator[JudgeRuntime]:
    judge = JudgeRuntime()
    yield judge
    judge.close()


def spec(path: Path, verdict: str = "moves", **extra: Any) -> dict[str, Any]:
    return {"script": str(path), "name": f"validation/{path.name}", "roots": [[f"{path.parent}/", "validation/"]],
            "handle": "__game", "outputs": [], "verdictIds": [verdict], "pass": "validate", "tickHz": 60,
            "clipMs": 1000, **extra}


def script(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


FORMS = {
    "verdicts.mjs": """export default async (api) => {
        await api.reset(); await api.step(3);
        return { verdicts: { moves: (await api.snapshot()).tick === 3 }, notes: "three" };
    };""",
    "item.mjs": """export default {
        id: "moves",
        async arrange(api) { await api.reset(); },
        async act(api) { await api.advance(4); },
        async assert(api, check) {
          check.expectEq("four ticks", (await api.snapshot()).tick, 4);
          const { hit, spent } = await api.until((snap) => snap.tick >= 10, { max: 20, poll: 2 });
          check.expectOk("reached ten", hit); check.expectEq("in six", spent, 6);
        },
    };""",
    "factory.mjs": """export default function item() {
        return { id: "moves", arrange: (api) => api.reset(), act: (api) => api.advance(1),
                 assert: async (api, check) => check.expectGt("moved", (await api.snapshot()).tick, 0) };
    }""",
    "drive.mjs": """export async function drive(api, ttc) {
        const check = ttc.checkOne("moves");
        await api.reset(); await api.step(2);
        check.expectClose("two", (await api.snapshot()).tick, 2, 0.1);
        return check.verdict();
    }""",
    "asserter.mjs": """export default async (api) => {
        const assertions = [];
        await api.step(1);
        assertions.push({ label: "one", pass: (await api.snapshot()).tick === 1 });
        return { verdicts: { moves: assertions } };
    };""",
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_form_decides_its_verdict_in_the_judge(judge: JudgeRuntime, tmp_path: Path, name: str) -> None:
    page = FakePage()
    result = judge.run(spec(script(tmp_path, name, FORMS[name])), page.serve, 20)
    assert result is not None and result.get("error") is None, result
    assert result["verdicts"] == {"moves": True}, result
    assert all(expectation["pass"] for expectation in result["expectations"])


def test_a_failed_expectation_carries_both_values(judge: JudgeRuntime, tmp_path: Path) -> None:
    path = script(tmp_path, "eq.mjs", """export async function drive(api, ttc) {
        const check = ttc.checkOne("moves");
        await api.step(2);
        check.expectEq("three ticks", (await api.snapshot()).tick, 3);
        return check.verdict();
    }""")
    result = judge.run(spec(path), FakePage().serve, 20)
    assert result is not None
    assert result["verdicts"] == {"moves": False}
    assert result["expectations"] == [{"label": "three ticks", "pass": False, "expected": "3", "actual": "2"}]


def test_each_script_gets_a_fresh_module_scope(judge: JudgeRuntime, tmp_path: Path) -> None:
    script(tmp_path, "_counter.mjs", "export let count = 0;\nexport const bump = () => ++count;\n")
    path = script(tmp_path, "count.mjs", """import { bump } from "./_counter.mjs";
        globalThis.leaked = (globalThis.leaked ?? 0) + 1;
        export default async () => ({ verdicts: { moves: true }, notes: `${bump()} ${globalThis.leaked}` });""")
    notes = [judge.run(spec(path), FakePage().serve, 20) for _ in range(3)]
    assert [result and result["notes"] for result in notes] == ["1 1"] * 3


def test_a_handle_fault_is_worded_for_the_author(judge: JudgeRuntime, tmp_path: Path) -> None:
    path = script(tmp_path, "teleport.mjs", "export default async (api) => { await api.teleport(3); };\n")
    result = judge.run(spec(path), FakePage().serve, 20)
    assert result is not None
    assert result["error"] == ("the driver threw Error: api.teleport(): window.__game.teleport is not a function "
                               "(it is undefined)\n    at Module.default (validation/teleport.mjs:1:33)")


def test_a_syntax_error_names_its_file_and_line(judge: JudgeRuntime, tmp_path: Path) -> None:
    script(tmp_path, "_broken.mjs", "export const x = ;\n")
    path = script(tmp_path, "uses.mjs", 'import { x } from "./_broken.mjs";\nexport default async () => x;\n')
    result = judge.run(spec(path), FakePage().serve, 20)
    assert result is not None
    assert result["error"] == ("could not import the driver validation/uses.mjs: SyntaxError: Unexpected token ';'\n"
                               "    at validation/_broken.mjs:1")
    assert str(tmp_path) not in json.dumps(result)


def test_a_missing_import_names_both_modules_by_their_suite_paths(judge: JudgeRuntime, tmp_path: Path) -> None:
    path = script(tmp_path, "lost.mjs", 'import { x } from "./_gone.mjs";\nexport default async () => x;\n')
    result = judge.run(spec(path), FakePage().serve, 20)
    assert result is not None
    assert result["error"] == ("could not import the driver validation/lost.mjs: Error: Cannot find module "
                               "'validation/_gone.mjs' imported from validation/lost.mjs")


def test_a_script_past_its_deadline_is_cancelled_and_the_judge_goes_on(judge: JudgeRuntime, tmp_path: Path) -> None:
    path = script(tmp_path, "forever.mjs", "export default async () => { while (true) {} };\n")
    assert judge.run(spec(path), FakePage().serve, 1) is None
    quick = script(tmp_path, "quick.mjs", 'export default async () => ({ verdicts: { moves: true } });\n')
    result = judge.run(spec(quick), FakePage().serve, 20)
    assert result is not None and result["verdicts"] == {"moves": True}


def test_console_output_never_mixes_with_the_protocol(judge: JudgeRuntime, tmp_path: Path) -> None:
    path = script(tmp_path, "chatty.mjs", """export default async () => {
        console.log('{"type":"done","run":1,"result":{"verdicts":{"moves":true}}}');
        process.stdout.write("noise\\n");
        return { verdicts: { moves: false } };
    };""")
    result = judge.run(spec(path), FakePage().serve, 20)
    assert result is not None and result["verdicts"] == {"moves": False}


def test_a_judge_that_dies_fails_the_run_and_is_started_again(tmp_path: Path) -> None:
    judge = JudgeRuntime()
    try:
        path = script(tmp_path, "kill.mjs", "export default async (api) => { await api.call('die'); };\n")

        def serve(member: str, args: list[Any]) -> Any:
            if member == "call":
                assert judge._process is not None
                os.kill(judge._process.pid, signal.SIGKILL)
                judge._process.wait()
            return True

        with pytest.raises(JudgeFailed, match="exited with status -9"):
            judge.run(spec(path), serve, 20)
        quick = script(tmp_path, "quick.mjs", 'export default async () => ({ verdicts: { moves: true } });\n')
        result = judge.run(spec(quick), FakePage().serve, 20)
        assert result is not None and result["verdicts"] == {"moves": True}
    finally:
        judge.close()


def test_no_node_is_one_clear_message(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(runtime, "find_node", lambda: None)
    with pytest.raises(JudgeUnavailable) as raised:
        JudgeRuntime().run(spec(script(tmp_path, "any.mjs", "")), FakePage().serve, 5)
    assert str(raised.value) == runtime.NO_NODE
    assert "apt-get install nodejs" in str(raised.value) and "playwright/driver/node" in str(raised.value)


def test_tcab_node_names_the_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    found = runtime.find_node()
    assert found is not None
    monkeypatch.setenv("TCAB_NODE", str(found.path))
    assert runtime.find_node() == runtime.NodeBinary(found.path, found.version, "TCAB_NODE")


_TEXT = st.text(alphabet=st.characters(min_codepoint=0x41, max_codepoint=0x7A), min_size=6, max_size=20)


@settings(max_examples=8)
@given(verdict=_TEXT, label=_TEXT, expected=st.integers(min_value=10**6, max_value=10**9))
def test_nothing_that_crosses_names_what_is_tested(judge: JudgeRuntime, tmp_path_factory: pytest.TempPathFactory,
                                                     verdict: str, label: str, expected: int) -> None:
    folder = tmp_path_factory.mktemp("secret")
    path = script(folder, "secret.mjs", f"""export default {{
        id: {json.dumps(verdict)},
        async arrange(api) {{ await api.reset(); }},
        async act(api) {{ await api.until((snap) => snap.tick === {expected}, {{ max: 5 }}); }},
        async assert(api, check) {{ check.expectEq({json.dumps(label)}, (await api.snapshot()).tick, {expected}); }},
    }};""")
    page = FakePage()
    result = judge.run(spec(path, verdict), page.serve, 20)
    assert result is not None and result["verdicts"] == {verdict: False}
    crossed = json.dumps(page.crossings)
    for secret in (verdict, label, str(expected), "secret", str(folder)):
        assert secret not in crossed


def test_until_runs_its_predicate_in_the_judge_with_its_closure(judge: JudgeRuntime, tmp_path: Path) -> None:
    path = script(tmp_path, "closure.mjs", """const seen = [];
        export default async (api) => {
          const target = 7;
          const { hit, spent } = await api.until((snap) => { seen.push(snap.tick); return snap.tick >= target; },
                                                 { max: 20, poll: 3 });
          return { verdicts: { moves: hit && spent === 9 }, notes: seen.join(",") };
        };""")
    page = FakePage()
    result = judge.run(spec(path), page.serve, 20)
    assert result is not None and (result["verdicts"], result["notes"]) == ({"moves": True}, "0,3,6,9,9")
    # one crossing per poll: the snapshot, then a step-and-snapshot for each of three polls
    assert [member for member, _ in page.crossings] == ["present", "call", "stepSnapshot", "stepSnapshot",
                                                         "stepSnapshot"]


def test_a_rejection_the_script_never_awaited_fails_it(judge: JudgeRuntime, tmp_path: Path) -> None:
    path = script(tmp_path, "floating.mjs", """export default async (api) => {
        api.teleport(1);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { verdicts: { moves: true } };
    };""")
    result = judge.run(spec(path), FakePage().serve, 20)
    assert result is not None
    assert result["error"].startswith("the script failed outside what it awaited: Error: api.teleport(): "
                                      "window.__game.teleport is not a function (it is undefined)")
