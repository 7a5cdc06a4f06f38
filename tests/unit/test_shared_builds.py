"""Builds shared by digest (`run.sandbox.shared`): the digest is of what the build reads, one byte
anywhere in it (or in a command, the case or a cap) makes another, and a held build whose folder
changed after its build is never handed on."""

from __future__ import annotations

import os
from pathlib import Path

from pytest_tcab.run.material import material_of
from pytest_tcab.run.sandbox.shared import Handed
from pytest_tcab.run.sandbox.shared import SharedBuilds
from pytest_tcab.run.sandbox.shared import inputs_digest
from pytest_tcab.run.sandbox.shared import state_digest
from pytest_tcab.run.sandbox.steps import BuildResult
from pytest_tcab.run.sandbox.steps import prepare_workdir

COMMANDS = {"install": "npm ci", "build": "npm run build"}
CASE = {"folder": "/suite/demo", "version": "v1.0.0", "variant": "base"}
CAPS = {"tcab_build_memory": 4 * 2**30, "tcab_build_network": "install"}


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def digest(root: Path, commands: dict[str, str] | None = None, case: dict[str, str] | None = None,
           caps: dict[str, object] | None = None) -> str | None:
    built = material_of(root).built
    return None if built is None else inputs_digest(built, {**COMMANDS, **(commands or {})}, {**CASE, **(case or {})},
                                                    {**CAPS, **(caps or {})})


SOURCES = {"index.html": "<p>hi</p>\n", "src/main.ts": "export const x = 1;\n", ".tcab/run.toml": 'model = "a"\n'}


def test_byte_identical_trees_have_one_digest_and_one_byte_makes_another(tmp_path: Path) -> None:
    a, b, c = (tree(tmp_path / name, SOURCES) for name in "abc")
    (c / "src/main.ts").write_text("export const x = 2;\n")
    assert digest(a) == digest(b)
    assert digest(a) != digest(c)


def test_what_the_build_never_reads_is_not_digested_and_what_it_reads_is(tmp_path: Path) -> None:
    a, b = tree(tmp_path / "a", SOURCES), tree(tmp_path / "b", SOURCES)
    tree(b, {".tcab/run.toml": 'model = "b"\n', "node_modules/x/index.js": "1\n", "dist/index.html": "old\n"})
    assert digest(a) == digest(b), "who produced it, dependency caches and a committed output are not copied"
    assert ".tcab" not in os.listdir(prepare_workdir(b, tmp_path).path), "and the build's copy agrees"
    tree(b, {"src/dist/x.js": "1\n"})  # deeper, an output folder's name is a source
    assert digest(a) != digest(b)


def test_a_name_or_framing_cannot_stand_for_another_tree(tmp_path: Path) -> None:
    a = tree(tmp_path / "a", {"ab": "c"})
    b = tree(tmp_path / "b", {"a": "bc"})
    c = tree(tmp_path / "c", {"a\nb": "c"})
    assert len({digest(a), digest(b), digest(c)}) == 3
    d = tree(tmp_path / "d", {"run.sh": "echo\n"})
    e = tree(tmp_path / "e", {"run.sh": "echo\n"})
    (e / "run.sh").chmod(0o755)
    assert digest(d) != digest(e), "the mode is read too"


def test_a_link_counts_as_the_copy_makes_it(tmp_path: Path) -> None:
    a, b = tree(tmp_path / "a", {"x": "1"}), tree(tmp_path / "b", {"x": "1"})
    (a / "y").symlink_to("x")
    (b / "y").symlink_to("/etc/hostname")
    assert digest(a) != digest(b)


def test_commands_case_and_caps_are_part_of_the_digest(tmp_path: Path) -> None:
    a = tree(tmp_path / "a", SOURCES)
    alike = digest(a)
    assert digest(a, commands={"build": "npm run build:fast"}) != alike
    assert digest(a, case={"variant": "other"}) != alike
    assert digest(a, caps={"tcab_build_memory": 2**30}) != alike


def result(workdir: Path, ok: bool = True, not_graded: bool = False) -> BuildResult:
    return BuildResult(ok=ok, steps=(), workdir=workdir, output_dir=workdir if ok else None, message="",
                       not_graded=not_graded)


def test_a_build_is_held_only_for_a_run_still_waiting_with_its_digest(tmp_path: Path) -> None:
    shared = SharedBuilds()
    first, second, other = object(), object(), object()
    shared.expect(first, lambda: "d1")
    shared.expect(other, lambda: "d2")
    handed = Handed(result(tmp_path), None, "first", state_digest(tmp_path))
    assert not shared.hand_on(first, "d1", handed), "no run waits with d1"
    shared.expect(second, lambda: "d1")
    assert shared.hand_on(first, "d1", handed)
    taken = shared.take("d1")
    assert taken is not None and taken.built_by == "first"
    assert shared.take("d1") is None, "handed to one run at a time"


def test_a_build_not_graded_is_never_shared(tmp_path: Path) -> None:
    shared, waiting, built = SharedBuilds(), object(), object()
    shared.expect(waiting, lambda: "d1")
    assert not shared.hand_on(built, "d1", Handed(result(tmp_path, ok=False, not_graded=True), None, "a", None))


def test_a_build_folder_written_after_its_build_is_not_handed_on(tmp_path: Path) -> None:
    """A step after the build (a toolchain command) that leaves a marker for the next run makes
    that run build afresh: no run can learn another's state through a shared folder."""
    folder = tree(tmp_path / "work", {"dist/index.html": "hi\n", "node_modules/t/index.js": "1\n"})
    shared, waiting, built, disk = SharedBuilds(), object(), object(), Disk()
    shared.expect(waiting, lambda: "d1")
    handed = Handed(result(folder), disk, "a", state_digest(folder))  # type: ignore[arg-type]
    assert shared.hand_on(built, "d1", handed)
    assert shared.take("d1") is handed, "untouched, it is handed on"
    assert shared.hand_on(waiting, "d1", handed) is False, "no one waits any more"
    shared.expect(waiting, lambda: "d1")
    assert shared.hand_on(built, "d1", handed)
    (folder / "node_modules/t/marker").write_text("seen\n")
    assert shared.take("d1") is None
    assert disk.released, "and what was held is removed"


def test_a_build_folder_that_cannot_be_read_is_not_held(tmp_path: Path) -> None:
    shared, waiting, built = SharedBuilds(), object(), object()
    shared.expect(waiting, lambda: "d1")
    assert not shared.hand_on(built, "d1", Handed(result(tmp_path), Disk(), "a", None))  # type: ignore[arg-type]


class Disk:
    """A stand-in for the run's disk: only whether it was released."""

    released = False

    def release(self) -> None:
        self.released = True


def test_nothing_is_held_once_the_session_ended(tmp_path: Path) -> None:
    shared, waiting, built = SharedBuilds(), object(), object()
    shared.expect(waiting, lambda: "d1")
    shared.release()
    assert not shared.hand_on(built, "d1", Handed(result(tmp_path), None, "a", None))


def test_one_walk_gives_the_review_its_material_and_the_build_what_it_reads(tmp_path: Path) -> None:
    a, b = tree(tmp_path / "a", SOURCES), tree(tmp_path / "b", SOURCES)
    tree(b, {".tcab/run.toml": 'model = "b"\n'})
    assert material_of(a).digest != material_of(b).digest, "who produced it is material to a review"
    assert material_of(a).built == material_of(b).built, "but not to the build, which never sees it"
    (b / "index.html").chmod(0o600)
    assert material_of(a).digest == material_of(tree(tmp_path / "c", SOURCES)).digest
    assert digest(a) != digest(b), "a mode the copy keeps is read, beyond the x bit the review counts"


def test_what_the_copy_drops_is_told_apart_and_an_unreadable_file_builds_alone(tmp_path: Path) -> None:
    a, b = tree(tmp_path / "a", {"x": "1"}), tree(tmp_path / "b", {"x": "1"})
    (b / "away").symlink_to("/etc/hostname")
    assert material_of(a).digest == material_of(b).digest
    assert digest(a) != digest(b), "its build says what it dropped"
    (a / "x").chmod(0)
    if os.access(a / "x", os.R_OK):  # root reads it anyway
        return
    assert digest(a) is None


def test_a_graders_folder_the_copy_takes_keeps_the_run_building_alone(tmp_path: Path) -> None:
    """`--tcab-out` inside a run but outside its `.tcab/`: not material, yet the build's copy takes
    it, so what the build would read there is undigested and the run never shares a build."""
    run = tree(tmp_path / "a", {**SOURCES, "results/x.json": "{}\n", ".tcab/reviews/r.md": "x\n"})
    assert material_of(run, [run / ".tcab/reviews"]).built == material_of(run).built
    assert material_of(run, [run / "results"]).built is None
    graders = [run / "results", run / ".tcab/reviews"]
    assert material_of(run, graders).digest == material_of(tree(tmp_path / "b", SOURCES)).digest, "material as before"
