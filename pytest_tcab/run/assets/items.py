"""`asset[<file>]` items: an asset run's files measured against the suite's reference asset.

An asset-producing definition (sprite, voxel, blender, particle, music, audio-fx) names a
reference asset (`assets/<id>/asset.toml`); its run holds the produced files at `assets/<id>/`
under the same names. Each file becomes one item, reported at the `files` line of asset.toml:
the produced file must exist inside the run, decode with its format's library and fit the
reference's measurable shape (`asset_formats.py`), every figure that does not fit named with
both values. A particle system is also played once in the page by the suite's particle
runtime. Each side is previewed for report.html (`asset_previews.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.case import SuppliedAsset
from pytest_tcab.errors import TcabError
from pytest_tcab.paths import PathEscapes
from pytest_tcab.paths import contained
from pytest_tcab.run.assets.formats import MAX_ASSET_BYTES
from pytest_tcab.run.assets.formats import MEASURED
from pytest_tcab.run.assets.formats import Format
from pytest_tcab.run.assets.formats import Shape
from pytest_tcab.run.assets.formats import Unreadable
from pytest_tcab.run.assets.formats import format_for
from pytest_tcab.run.browser.item import BrowserFunction
from pytest_tcab.run.browser.item import browser_test
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.item import RunItem
from pytest_tcab.toml import line_in

ASSETS_FOLDER = "assets"
"""Where a run holds its produced assets, and where their previews go under the run's output."""
PARTICLE_RUNTIME = "@test-cabinet/particle-runtime"
"""The package of the suite's store that plays particle systems; it ships `schema.json`."""
PLAY_SECONDS = 10.0
PLAY_STEP_S = 1 / 60
PLAYER_SIZE = (320, 320)

_PLAYER = """<!doctype html>
<meta charset="utf-8">
<style>html, body { margin: 0; background: #0d0f14; }</style>
<canvas id="stage" width="__W__" height="__H__"></canvas>
<script type="module">
import * as runtime from "__RUNTIME__";
// Plays a system once: steps it at a fixed rate until no particle is alive (or the bound),
// drawing its first second as trails for the report.
window.__tcabPlay = async ({ file, seconds, step }) => {
  const definition = await (await fetch(file)).json();
  const system = runtime.createSystem(definition);
  const canvas = document.getElementById("stage");
  const context = canvas.getContext("2d");
  system.start(canvas.width / 2, canvas.height / 2);
  let peak = 0, peakAt = 0, endedAt = null;
  for (let t = step; t <= seconds + 1e-9; t += step) {
    const alive = system.step(step);
    if (alive.length > peak) { peak = alive.length; peakAt = t; }
    if (t <= 1) {
      for (const p of alive) {
        context.globalAlpha = 0.35 * Math.max(0.1, Math.min(1, p.life ?? 1));
        context.fillStyle = p.colour ?? "#ffffff";
        context.fillRect(p.x - 1, p.y - 1, 2, 2);
      }
    }
    if (alive.length === 0 && peak > 0) { endedAt = t; break; }
  }
  return { peak, peak_s: peakAt, ended_s: endedAt };
};
window.__tcabReady = true;
</script>
"""


class AssetFailed(TcabError):
    """The produced file is missing, does not decode, or does not fit the reference's shape."""


class AssetItem(RunItem):
    """`asset[<file>]`: one file of the produced asset against the same file of the reference."""

    kind = "asset"

    def __init__(self, *, asset: SuppliedAsset, file: str, reader: Format | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.asset = asset
        self.file = file
        self.reader = reader

    @property
    def produced_name(self) -> str:
        return f"{ASSETS_FOLDER}/{self.asset.id}/{self.file}"

    @property
    def reference_name(self) -> str:
        """The reference file as the suite author knows it: relative to the version folder."""
        return (self.asset.folder / self.file).relative_to(self.run.case.folder).as_posix()

    def runtest(self) -> None:
        failures, _ = self.measure()
        self.conclude(failures)

    def measure(self) -> tuple[list[str], Path | None]:
        """Measure both sides, record shapes and previews; the failures, and the produced file if it decodes."""
        reference = self.run.reporter_folder / self.reference_name  # the snapshot, never the suite on disk
        self.record(asset=self.asset.id, asset_kind=self.asset.kind, file=self.file,
                    format=self.reader.name if self.reader else None,
                    reference_path=self.reference_name, produced_path=self.produced_name)
        if self.reader is None:
            raise AssetFailed(f"{self.file}: run mode cannot measure this file of a {self.asset.kind} asset; "
                              f"it measures {MEASURED}")
        try:
            reference_shape = self.reader.measure(reference)
        except Unreadable as error:
            raise AssetFailed(f"the suite's reference is broken: {error}") from None
        previews = {"reference": self._preview(reference, "reference")}
        self.record(reference=reference_shape, previews=previews)
        produced = self._produced()
        previews["produced"] = self._preview(produced, "produced")
        self.record(previews=previews)
        try:
            shape: Shape = self.reader.measure(produced)
        except Unreadable as error:
            return [f"{self.produced_name}: {error}"], None
        mismatches = [str(mismatch) for mismatch in self.reader.compare(reference_shape, shape)]
        self.record(produced=shape, mismatches=mismatches)
        return mismatches, produced

    def conclude(self, failures: list[str]) -> None:
        if failures:
            lines = "\n".join(f"  {failure}" for failure in failures)
            raise AssetFailed(f"{self.produced_name} does not fit the reference {self.reference_name}:\n{lines}")

    def _produced(self) -> Path:
        """The run's file, which must stay inside the run, exist, and be of a readable size."""
        try:
            path = contained(self.run.source, self.produced_name)
        except PathEscapes as error:
            raise AssetFailed(f"{self.produced_name} {error}") from None
        if not path.is_file():
            folder = path.parent
            found = sorted(p.name for p in folder.iterdir())[:10] if folder.is_dir() else []
            where = f"it holds {', '.join(found)}" if found else f"{folder.name}/ is empty or missing"
            raise AssetFailed(f"the run holds no {self.produced_name} ({where}); produce the asset's files under "
                              f"the names of the reference's asset.toml `files`")
        size = path.stat().st_size
        if size > MAX_ASSET_BYTES:
            raise AssetFailed(f"{self.produced_name} is {size:,} bytes; files over {MAX_ASSET_BYTES:,} bytes are "
                              "not read")
        return path

    def _preview(self, source: Path, side: str) -> dict[str, Any]:
        from pytest_tcab.run.assets.previews import preview

        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.file)
        return preview(source, self.asset.kind, self.run.out_dir / ASSETS_FOLDER / safe / side)


class ParticleItem(AssetItem, BrowserFunction):
    """`asset[<system.json>]` of a particle asset: measured, then played once by the particle runtime."""

    def __init__(self, *, runtime: Path | None, missing: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.runtime = runtime
        """The runtime package's folder, from the suite's package store (None: not declared)."""
        self.missing = missing
        """Why the suite gives no runtime or schema to check the system with, if it does not."""

    runtest = BrowserFunction.runtest
    """The browser's, which hands the session's Chromium to `use_browser` (not `AssetItem.runtest`)."""

    def use_browser(self, browser: BrowserSession) -> None:
        if self.missing is not None:
            raise AssetFailed(self.missing)
        failures, produced = self.measure()
        if produced is not None and self.runtime is not None:
            failures.extend(self._play(browser, produced))
        self.conclude(failures)

    def _play(self, browser: BrowserSession, produced: Path) -> list[str]:
        from playwright.sync_api import Error

        from pytest_tcab.run.browser.serve import PageServer

        assert self.runtime is not None
        player = self.run.scratch() / "particle-player"
        player.mkdir(exist_ok=True)
        main = _package_main(self.runtime)
        page_html = (_PLAYER.replace("__RUNTIME__", f"../runtime/{main}")
                     .replace("__W__", str(PLAYER_SIZE[0])).replace("__H__", str(PLAYER_SIZE[1])))
        (player / "index.html").write_text(page_html, encoding="utf-8")
        folders = {"player": player, "runtime": self.runtime, "system": produced.parent}
        shot = self.run.out_dir / ASSETS_FOLDER / re.sub(r"[^A-Za-z0-9_.-]+", "_", self.file) / "played.png"
        with PageServer(folders) as server:
            page = browser.page(PLAYER_SIZE, origin=server.url)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
            try:
                page.goto(server.page_url("player", "index.html"), wait_until="load")
                page.wait_for_function("() => window.__tcabReady === true", timeout=10_000)
                played = page.evaluate("(input) => window.__tcabPlay(input)",
                                       {"file": server.page_url("system", produced.name), "seconds": PLAY_SECONDS, "step": PLAY_STEP_S})
                page.screenshot(path=shot)
            except Error as error:
                detail = errors[0] if errors else error.message.strip().splitlines()[0]
                return [f"played in the page by {PARTICLE_RUNTIME}: it failed: {detail}"]
        self.record(played={**played, "picture": str(shot)})
        if played["peak"] == 0:
            return [f"played in the page by {PARTICLE_RUNTIME}: no particle was ever alive in {PLAY_SECONDS:g} s"]
        return []


def _package_main(folder: Path) -> str:
    """The runtime's entry module, as its package.json `main` names it (index.js by default)."""
    try:
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "index.js"
    main = manifest.get("main") if isinstance(manifest, dict) else None
    return main if isinstance(main, str) and main else "index.js"


def _particle_runtime(run: RunContext) -> tuple[Path | None, dict[str, Any] | None, str | None]:
    """The suite's particle runtime folder and its schema, or why there are none."""
    from pytest_tcab.session import suite_for

    suite = suite_for(run.config, run.case.folder)
    package = suite.config.packages.get(PARTICLE_RUNTIME)
    if package is None:
        return None, None, (f"the suite's tcab.toml declares no [packages.\"{PARTICLE_RUNTIME}\"]: a particle "
                            "system is checked against that runtime's schema.json and played by it")
    folder = suite.root / package.path
    try:
        schema = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return folder, None, f"{PARTICLE_RUNTIME} ({package.path}) has no readable schema.json: {error}"
    return folder, schema, None


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    """One `asset[<file>]` per file of the reference asset an asset-producing definition names."""
    definition = run.case.definition
    asset = definition.produces if definition is not None else None
    if definition is None or asset is None:
        return
    animated = bool(getattr(getattr(definition.model, "voxel", None), "animated", False))
    runtime, schema, missing = _particle_runtime(run) if asset.kind == "particle" else (None, None, None)
    line = line_in(asset.source, ("files",))
    for file in asset.files:
        reader = format_for(asset.kind, Path(file).suffix, animated=animated, particle_schema=schema)
        common: dict[str, Any] = {"name": f"asset[{file}]", "run": run, "key": file,
                                  "location": (asset.source, line), "asset": asset, "file": file}
        if asset.kind == "particle" and Path(file).suffix.lower() == ".json":
            yield ParticleItem.from_parent(parent, callobj=browser_test, reader=reader, runtime=runtime,
                                           missing=missing, **common)
        else:
            yield AssetItem.from_parent(parent, reader=reader, **common)

