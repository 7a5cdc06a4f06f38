"""How a catalog outgrows one machine: `--tcab-matrix` shards it into a GitHub Actions matrix
whose entries together run every item once, and `--tcab-merge` joins the shards' results.json
into one (scores recomputed, partial runs kept partial, every broken shard a clear error)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from suites import LEGACY
from suites import write_minimal_suite
from test_definition_runs import FAILING_LINT
from test_definition_runs import FAILING_TYPECHECK
from test_definition_runs import game_definition
from test_definition_runs import project
from test_ids import collected_ids

BASE = ("-p", "no:cacheprovider")


def printed_matrix(result: pytest.RunResult) -> dict[str, Any]:
    (line,) = [line for line in result.outlines if line.startswith('{"include":')]
    return json.loads(line)  # type: ignore[no-any-return]


def test_the_matrix_shards_the_suite_into_entries_that_run_every_item_once(pytester: pytest.Pytester) -> None:
    write_minimal_suite(pytester.path)
    result = pytester.runpytest(*BASE, "--tcab-suite=.", "--tcab-matrix")
    assert result.ret == pytest.ExitCode.OK
    assert "passed" not in result.stdout.str(), "--tcab-matrix ran tests"
    entries = printed_matrix(result)["include"]
    assert [entry["name"] for entry in entries] == ["suite", "cats@v1.0.0#a", "cats@v1.0.0#b",
                                                   "demo@v1.0.0#a", "demo@v1.0.0#b"]
    demo_a = entries[3]
    assert {key: demo_a[key] for key in ("id", "case", "version", "variant")} == {
        "id": "demo-v1.0.0-a", "case": "demo", "version": "v1.0.0", "variant": "a"}
    manifest = f"{LEGACY.as_posix()}/test-case.toml"
    assert shlex.split(demo_a["args"]) == [f"{manifest}::resolve[a]", f"{manifest}::slug",
                                           f"{manifest}::template[prompt.hbs#a]", f"{manifest}::seed[a]"]
    everything = collected_ids(pytester, *BASE, "--tcab-suite=.")
    sharded = [nodeid for entry in entries
               for nodeid in collected_ids(pytester, *BASE, "--tcab-suite=.", *shlex.split(entry["args"]))]
    assert sorted(sharded) == sorted(everything)


def test_the_matrix_goes_to_github_output_and_leaves_experimental_cases_out(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_minimal_suite(pytester.path)
    manifest = pytester.path / LEGACY / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('prompt = "prompt.hbs"', 'prompt = "prompt.hbs"\nexperimental = true'))
    output = pytester.path / "github-output"
    output.write_text("earlier=1\n")
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    pytester.makeini("[pytest]\ntcab_matrix = true\n")  # the ini twin
    result = pytester.runpytest(*BASE, "--tcab-suite=.")
    matrix = printed_matrix(result)
    assert [entry["name"] for entry in matrix["include"]] == ["suite", "cats@v1.0.0#a", "cats@v1.0.0#b"]
    assert output.read_text() == f"earlier=1\nmatrix={json.dumps(matrix, separators=(',', ':'))}\n"
    opted_in = printed_matrix(pytester.runpytest(*BASE, "--tcab-suite=.", "--tcab-experimental"))
    assert "demo@v1.0.0#a" in [entry["name"] for entry in opted_in["include"]]


def test_a_run_is_one_entry_naming_its_engine(pytester: pytest.Pytester) -> None:
    definition_run(pytester.path)
    result = pytester.runpytest(*BASE, *RUN_ARGS, "--tcab-matrix", "-n", "2")
    (entry,) = printed_matrix(result)["include"]
    assert {key: entry[key] for key in ("name", "id", "engine")} == {
        "name": "game@v1.0.0:none", "id": "game-v1.0.0-none", "engine": "none"}
    assert shlex.split(entry["args"]) == ["run/.tcab/run.toml::build", "run/.tcab/run.toml::toolchain[typecheck]",
                                          "run/.tcab/run.toml::toolchain[lint]",
                                          "run/.tcab/run.toml::requirement[works]"]
    assert not (pytester.path / "out").exists()


# -- merge -------------------------------------------------------------------------------------

RUN_ARGS = ("--tcab-suite=suite", "--tcab-run=run")


def definition_run(root: Path) -> None:
    project(root, 'case = "game"\n', game=game_definition(FAILING_TYPECHECK, extra=f'lint = "{FAILING_LINT}"\n'))


def shard(pytester: pytest.Pytester, name: str, *args: str) -> Path:
    pytester.runpytest(*BASE, *RUN_ARGS, f"--tcab-out={name}", *args)
    return pytester.path / name


def results(path: Path) -> dict[str, Any]:
    return json.loads((path / "results.json").read_text())  # type: ignore[no-any-return]


def test_two_shards_merge_into_one_whole_run(pytester: pytest.Pytester) -> None:
    definition_run(pytester.path)
    first = shard(pytester, "shard-a", "-k", "build or toolchain")
    second = shard(pytester, "shard-b", "-k", "requirement")
    assert results(first)["runs"][0]["partial"] and results(second)["runs"][0]["partial"]
    merged = pytester.runpytest(*BASE, "--tcab-suite=suite", f"--tcab-merge={first}", f"--tcab-merge={second}",
                                "--tcab-out=merged")
    assert merged.ret == pytest.ExitCode.OK
    merged.stdout.fnmatch_lines(["game@v1.0.0:none (run): 1 failed, 1 passed, 1 recorded, 1 skipped",
                                 "wrote */merged/results.json", "wrote */merged/report.html"])
    (run,) = results(pytester.path / "merged")["runs"]
    shard(pytester, "alone")
    (alone,) = results(pytester.path / "alone")["runs"]
    assert run["partial"] is False and "deselected" not in run
    assert [(i["nodeid"], i["outcome"]) for i in run["items"]] == [(i["nodeid"], i["outcome"]) for i in alone["items"]]
    assert run["counts"] == alone["counts"]
    assert (run["requirements"], run["toolchain"]["broken"]) == (alone["requirements"], True)
    assert (pytester.path / "merged/report.html").is_file()


def test_a_partial_shard_stays_partial(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    definition_run(pytester.path)
    first = shard(pytester, "shard-a", "-k", "toolchain")
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest(*BASE, "--tcab-suite=suite", f"--tcab-merge={first}", "--tcab-out=merged").assert_outcomes()
    (run,) = results(pytester.path / "merged")["runs"]
    assert run["partial"] is True
    assert [item["nodeid"] for item in run["deselected"]] == ["run/.tcab/run.toml::build",
                                                              "run/.tcab/run.toml::requirement[works]"]
    # The merge job's step summary shows the merged run.
    assert summary.read_text().startswith("### tcab: game@v1.0.0:none (run)\n\n| failed | recorded |\n")
    assert "Partial run: 2 items deselected (not run, not scored)." in summary.read_text()


def game_shard(folder: Path, source: Path, outcome: str, media: Path | None = None) -> Path:
    """A results.json as a shard of a demo run writes it: one verdict, maybe with a clip."""
    item = {"nodeid": "r/.tcab/run.toml::validate[moves]", "kind": "validate", "id": "moves", "outcome": outcome}
    if media is not None:
        item["clip"] = str(media)
    run = {"run": "r", "case": "demo", "version": "v1.0.0", "variant": "a", "engine": "none",
           "source": str(source), "layout": "catalog", "items": [item],
           "score": {"earned": 0.0, "available": 0.0}}  # the shard's own; the merge recomputes it
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps({"tool": {}, "sandbox": {"sandboxed": True, "sandbox": "bwrap",
                                                                             "network": "install"}, "runs": [run]}))
    return folder


def test_a_game_score_is_recomputed_and_media_follow(pytester: pytest.Pytester) -> None:
    (pytester.path / "suite").mkdir()
    write_minimal_suite(pytester.path / "suite")
    (pytester.path / "shard/r").mkdir(parents=True)
    (pytester.path / "shard/r/moves__clip.webm").write_bytes(b"webm")
    folder = game_shard(pytester.path / "shard", pytester.path / "r", "passed",
                        media=Path("/runner/work/out/r/moves__clip.webm"))
    result = pytester.runpytest(*BASE, "--tcab-suite=suite", f"--tcab-merge={folder}", "--tcab-out=merged")
    assert result.ret == pytest.ExitCode.OK
    (run,) = results(pytester.path / "merged")["runs"]
    assert (run["score"]["earned"], run["score"]["automated"]) == (1.0, ["moves"])
    assert run["items"][0]["clip"] == str(pytester.path / "merged/r/moves__clip.webm")
    assert (pytester.path / "merged/r/moves__clip.webm").read_bytes() == b"webm"
    # The suite is what weighs a checklist: without it the score cannot be recomputed.
    lost = pytester.runpytest(*BASE, f"--tcab-merge={folder}", "--tcab-out=again")
    assert lost.ret == pytest.ExitCode.USAGE_ERROR
    lost.stderr.fnmatch_lines([("ERROR: --tcab-merge: the score of run 'r' (demo@v1.0.0) cannot be recomputed "
                               "without its case: give --tcab-suite=SUITE, the suite the shards ran")])


@pytest.mark.parametrize(("setup", "message"), [
    (lambda root: root / "nowhere",
     "ERROR: --tcab-merge: */nowhere does not exist; expected a shard's --tcab-out folder (or its results.json)"),
    (lambda root: (root / "empty").mkdir() or root / "empty",
     "ERROR: --tcab-merge: */empty holds no results.json; expected a shard's --tcab-out folder (or its results.json)"),
    (lambda root: (root / "bad.json").write_text('{"runs": [\n  {,}\n]}') and root / "bad.json",
     "ERROR: --tcab-merge: */bad.json:2: not valid JSON: Expecting property name enclosed in double quotes"),
    (lambda root: (root / "shape.json").write_text('{"runs": [{"run": "r", "case": "c", "version": "v",'
                                                   ' "variant": "a", "items": [{"nodeid": "x"}]}]}') and root / "shape.json",
     "ERROR: --tcab-merge: */shape.json: `runs[[]0[]].items[[]0[]]` has no `kind` text; expected the results.json a run writes"),
    (lambda root: (root / "rec.json").write_text('{"shard": {"index": "2", "count": 4}, "runs": []}')
     and root / "rec.json",
     "ERROR: --tcab-merge: */rec.json: `shard` is not a shard record (`index` from 0 to `count`-1, `count`, `plan`); "
     "expected the results.json a run writes"),
    (lambda root: (root / "box.json").write_text('{"sandbox": {"sandboxed": true}, "runs": []}') and root / "box.json",
     "ERROR: --tcab-merge: */box.json: `sandbox` is not the sandbox a session records (`sandboxed`, `network`, its "
     "caps); expected the results.json a run writes"),
])
def test_a_broken_shard_is_a_clear_error(pytester: pytest.Pytester, setup: Any, message: str) -> None:
    result = pytester.runpytest(*BASE, f"--tcab-merge={setup(pytester.path)}", "--tcab-out=merged")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_conflicting_shards_are_an_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "suite").mkdir()
    write_minimal_suite(pytester.path / "suite")
    passed = game_shard(pytester.path / "one", pytester.path / "r", "passed")
    failed = game_shard(pytester.path / "two", pytester.path / "r", "failed")
    result = pytester.runpytest(*BASE, "--tcab-suite=suite", f"--tcab-merge={passed}", f"--tcab-merge={failed}",
                                "--tcab-out=merged")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("ERROR: --tcab-merge: item r/.tcab/run.toml::validate[[]moves[]] is passed in */one "
                                 "but failed in */two; shards must not disagree")])
    pytester.makeini(f"[pytest]\ntcab_merge =\n    {passed}\n    {passed}\n")  # the ini twin; agreeing twins merge
    assert pytester.runpytest(*BASE, "--tcab-suite=suite", "--tcab-out=merged").ret == pytest.ExitCode.OK
    assert results(pytester.path / "merged")["runs"][0]["counts"] == {"passed": 1}
