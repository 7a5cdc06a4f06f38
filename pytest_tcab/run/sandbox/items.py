"""The build family: `build` (install then build into a static site) and `proof[<id>]`.

Every run that builds a static site has them; a performance or adversarial run builds a module
(`run.wasm`), an asset run builds nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.models.manifest import PROOF_VIDEO_EXTENSIONS
from pytest_tcab.models.manifest import media_kind
from pytest_tcab.outcomes import NotGraded
from pytest_tcab.outcomes import skip_unless_strict
from pytest_tcab.paths import PathEscapes
from pytest_tcab.paths import contained
from pytest_tcab.run.item import RunItem
from pytest_tcab.run.item import variant_documents
from pytest_tcab.run.sandbox.shared import sharing_figures
from pytest_tcab.toml import line_in

if TYPE_CHECKING:
    from pytest_tcab.case import CaseVersion
    from pytest_tcab.case import Variant
    from pytest_tcab.models.manifest import Proof
    from pytest_tcab.run.context import RunContext


class BuildFailed(TcabError):
    """The produced implementation does not build; the message has the command and its tail."""


class BuildItem(RunItem):
    """`build`: install then build the produced tree into a static site."""

    kind = "build"

    def runtest(self) -> None:
        result = self.run.build()
        self.record(steps=[step.figures() for step in result.steps], message=result.message,
                    **sharing_figures(self.config, self.run.build_inputs_digest, self.run.build_shared_with))
        if result.not_graded:
            raise NotGraded(result.message)
        if not result.ok:
            tail = result.steps[-1].tail(40) if result.steps else ""
            raise BuildFailed(f"{result.message}\n{tail}".rstrip())


class ProofItem(RunItem):
    """`proof[<id>]`: the build wrote the evidence the spec asked for (informational)."""

    kind = "proof"

    def __init__(self, *, proof: Proof, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.proof = proof

    def runtest(self) -> None:
        try:
            path = contained(self.run.source, self.proof.dest)
        except PathEscapes as exc:
            pytest.fail(f"proof {self.proof.id!r}: {self.proof.dest!r} {exc}", pytrace=False)
        if not path.is_file():
            self.record(present=False, dest=self.proof.dest, media_kind=self.proof.kind)
            skip_unless_strict(self.config, f"proof {self.proof.id!r} missing: the build wrote no {self.proof.dest}")
        copy = self.run.out_dir / "proofs" / self.proof.dest
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        self.record(present=True, dest=self.proof.dest, media_kind=media_kind(self.proof.dest, PROOF_VIDEO_EXTENSIONS),
                    media=str(copy))


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item] | None:
    """`build` and `proof[<id>]`: every run that builds a static site (not a performance or
    adversarial run, which build modules, nor an asset run, which builds nothing)."""
    if run.case.performance is not None or run.case.adversarial is not None or run.case.build is None:
        return None
    return _build_and_proofs(run, parent)


def _build_and_proofs(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    manifest = run.case.manifest_path
    yield BuildItem.from_parent(parent, name="build", run=run, key="build",
                                location=(manifest, line_in(manifest, ("build",))))
    # A variant's proofs follow the common ones in its effective set; both are declared as `[[proof]]`.
    for proof in () if run.reference else run.variant.proofs:
        yield ProofItem.from_parent(parent, name=f"proof[{proof.id}]", run=run, key=proof.id, proof=proof,
                                    location=proof_location(run.case, run.variant, proof.id))


def proof_location(case: CaseVersion, variant: Variant, proof_id: str) -> tuple[Path, int | None]:
    """The `[[proof]]` table declaring `proof_id`, in the manifest or the variant file."""
    for document in variant_documents(case, variant):
        for index, proof in enumerate(document.data.get("proof", [])):
            if proof.get("id") == proof_id:
                return document.path, document.line_of(("proof", index))
    return case.manifest_path, None
