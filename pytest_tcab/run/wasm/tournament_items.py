"""Adversarial cases in run mode: each run's controller built, the tournament's matches, the standings.

`pytest_tcab_run_items` turns an adversarial run into `build[<controller>]` per produced run,
`match[<a>-vs-<b>#<seed>]` per scheduled match (`match[final#0]`, `match[stage2-1#0]` for the
bracket positions that earlier stages decide) and `standings`. The items share a `TournamentRun`:
each controller is built once per process, each match played once. The standings item plays
whatever this process has not played yet, so it is right under `-k standings` and under xdist.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.case import Adversarial
from pytest_tcab.errors import TcabError
from pytest_tcab.run.browser.item import BrowserFunction
from pytest_tcab.run.browser.item import browser_test
from pytest_tcab.run.browser.replay import clip_speed
from pytest_tcab.run.browser.replay import record_clip
from pytest_tcab.run.browser.replay import write_player
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.item import RunItem
from pytest_tcab.run.media import poster_of
from pytest_tcab.run.wasm.performance import ModuleBuild
from pytest_tcab.run.wasm.performance import build_module
from pytest_tcab.run.wasm.performance import record_module_build
from pytest_tcab.run.wasm.performance import wasm_runner
from pytest_tcab.run.wasm.referee import Referee
from pytest_tcab.run.wasm.referee import RefereeFailed
from pytest_tcab.run.wasm.runner import ModuleRejected
from pytest_tcab.run.wasm.tournament import Entrant
from pytest_tcab.run.wasm.tournament import MatchResult
from pytest_tcab.run.wasm.tournament import Rules
from pytest_tcab.run.wasm.tournament import Slot
from pytest_tcab.run.wasm.tournament import Tournament
from pytest_tcab.run.wasm.tournament import schedule
from pytest_tcab.run.wasm.tournament import standings
from pytest_tcab.run.wasm.tournament import standings_table
from pytest_tcab.toml import line_in

REPLAYS = "replays"
"""Folder of the tournament's results holding one replay log (JSON) per match."""


class TournamentError(TcabError):
    """The tournament cannot be played: too few controllers, or a house controller is broken."""


class TournamentRun:
    """What the items of one tournament share within a process."""

    def __init__(self, run: RunContext, tables: Adversarial) -> None:
        self.run = run
        self.tables = tables
        self.produced = _named(run.entrants)
        """Controller name -> the run that produced it, in the order the runs were given."""
        self.house_names = [_unique(f"house-{path.stem}", self.produced) for path in tables.house]
        self._builds: dict[str, ModuleBuild] = {}
        self._tournament: Tournament | None = None

    @property
    def names(self) -> list[str]:
        return [*self.produced, *self.house_names]

    def build(self, name: str) -> ModuleBuild:
        """The controller's build, done once: in its own sandboxed copy of its own run."""
        if name not in self._builds:
            self._builds[name] = build_module(self.produced[name], self.tables.build, self.tables.contract.entry)
        return self._builds[name]

    def tournament(self) -> Tournament:
        """Every controller loaded, the referee imported and the schedule made, once."""
        if self._tournament is None:
            match = self.tables.match
            if len(self.names) < match.participants:
                raise TournamentError(
                    f"a match needs {match.participants} controllers, and this tournament has {len(self.names)} "
                    f"({', '.join(self.names)}); pass more runs (--tcab-run given again, or a folder of runs) "
                    "or declare house controllers in [match] house")
            entrants = [self._produced_entrant(name) for name in self.produced]
            entrants.extend(self._house_entrant(name, path) for name, path in zip(self.house_names, self.tables.house))
            self._tournament = Tournament(self._rules(), wasm_runner(self.run.config), entrants, match.structure,
                                          match.participants, match.rounds)
        return self._tournament

    def _rules(self) -> Rules:
        tables = self.tables
        try:
            schema = json.loads(tables.action_schema.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise TournamentError(f"the action schema {tables.action_schema} cannot be read: {exc}") from None
        return Rules(referee=Referee(tables.referee), entry=tables.contract.entry,
                     fuel_per_tick=tables.sandbox.fuel_per_tick, max_memory_bytes=tables.sandbox.max_memory_bytes,
                     max_ticks=tables.simulation.max_ticks, timestep_ms=tables.simulation.timestep_ms,
                     action_schema=schema, wall_timeout_s=float(self.run.config.getoption("tcab_wasm_timeout")))

    def _produced_entrant(self, name: str) -> Entrant:
        built = self.build(name)
        if built.module is None:
            return Entrant(name, None, problem=f"build failed: {built.message.splitlines()[0]}")
        return Entrant(name, built.module)

    def _house_entrant(self, name: str, path: Path) -> Entrant:
        """A house controller is the suite's own: when it cannot load, the suite is broken."""
        import wasmtime

        wasm = path
        if path.suffix == ".wat":
            try:
                binary = wasmtime.wat2wasm(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, wasmtime.WasmtimeError) as exc:
                raise TournamentError(f"house controller {path} does not compile: {exc}") from None
            wasm = self.run.scratch() / "house" / f"{name}.wasm"
            wasm.parent.mkdir(parents=True, exist_ok=True)
            wasm.write_bytes(bytes(binary))
        try:
            module = wasm_runner(self.run.config).load(wasm, self.tables.contract.entry)
        except ModuleRejected as exc:
            raise TournamentError(f"house controller {path} is rejected: {exc.message}") from None
        return Entrant(name, module, house=True)

    @property
    def replays(self) -> Path:
        return self.run.out_dir / REPLAYS

    def replay_log(self, slot: Slot, result: MatchResult) -> dict[str, Any]:
        return {"match": slot.label, **result.replay(self.tables.simulation.timestep_ms)}

    def save_replay(self, slot: Slot, result: MatchResult) -> tuple[Path, Path | None]:
        """The match's replay log, and its player page when the case has a renderer."""
        log = self.replay_log(slot, result)
        path = self.replays / f"{_safe(slot.label)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            text = json.dumps(log, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise RefereeFailed(f"referee {self.tables.referee.name}: frame() or step() returned something that is "
                                f"not JSON, so the replay log cannot be written: {exc}") from None
        path.write_text(text, encoding="utf-8")
        renderer = self.tables.renderer
        player = write_player(renderer, log, path.with_suffix(".html")) if renderer is not None else None
        return path, player

    def final(self) -> tuple[Slot, MatchResult] | None:
        """The last match of the schedule (a bracket's final), played."""
        tournament = self.tournament()
        slots = tournament.schedule()
        if not slots:
            return None
        return slots[-1], tournament.play(tournament.players_of(slots[-1]), slots[-1].seed)


def _named(runs: tuple[RunContext, ...]) -> dict[str, RunContext]:
    named: dict[str, RunContext] = {}
    for run in runs:
        named[_unique(_safe(run.label), named)] = run
    return named


def _unique(name: str, taken: dict[str, Any] | list[str]) -> str:
    """`name`, or `name-2`, `name-3`, ... when another controller already has it."""
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    return candidate


def _safe(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_") or "run"


class TournamentItem(RunItem):
    """An item of a tournament: it works through the shared `TournamentRun`."""

    def __init__(self, *, tournament: TournamentRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tournament = tournament


class ControllerBuildItem(TournamentItem):
    """`build[<controller>]`: a produced run's crate built in its own sandbox and checked against the ABI."""

    kind = "build"

    def __init__(self, *, controller: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.controller = controller

    def runtest(self) -> None:
        self.record(controller=self.controller)
        record_module_build(self, self.tournament.build(self.controller))


class MatchItem(TournamentItem):
    """`match[<a>-vs-<b>#<seed>]`: one match played to its end; it fails only when the referee does."""

    kind = "match"

    def __init__(self, *, slot: Slot, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.slot = slot

    def runtest(self) -> None:
        tournament = self.tournament.tournament()
        players = tournament.players_of(self.slot)
        result = tournament.play(players, self.slot.seed)
        log, player = self.tournament.save_replay(self.slot, result)
        self.record(match=result.record(), summary=result.summary(), replay=str(log),
                    player=str(player) if player else None, stage=self.slot.stage)


class StandingsItem(TournamentItem):
    """`standings`: every match played, then wins, draws, losses, forfeits, points and fuel per controller."""

    kind = "standings"

    def runtest(self) -> None:
        shared = self.tournament
        tournament = shared.tournament()
        played = list(tournament.play_all())
        for slot, result in played:
            shared.save_replay(slot, result)
        table = standings([result for _, result in played], tournament.names, shared.house_names)
        final_slot = played[-1][0] if played else None
        players = {slot.label: str(shared.replays / f"{_safe(slot.label)}.html") for slot, _ in played}
        self.record(
            structure=tournament.structure,
            standings=[line.as_dict() for line in table],
            table=standings_table(table),
            champion=tournament.champion(),
            matches=[{"match": slot.label, "summary": result.summary(), **result.record(),
                      "player": players[slot.label] if shared.tables.renderer else None}
                     for slot, result in played],
            final_match=final_slot.label if final_slot is not None else None,
            renderer=str(shared.tables.renderer) if shared.tables.renderer is not None else None,
            replays=str(shared.replays),
        )


class ReplayItem(TournamentItem, BrowserFunction):
    """`replay[<final match>]`: the renderer page plays the final match, recorded as a clip."""

    kind = "replay"

    def use_browser(self, browser: BrowserSession) -> None:
        from pytest_tcab.run.browser.serve import PageServer
        from pytest_tcab.run.browser.session import DEFAULT_VIEWPORT

        shared = self.tournament
        renderer = shared.tables.renderer
        final = shared.final()
        assert renderer is not None and final is not None  # collected only then
        slot, result = final
        log = shared.replay_log(slot, result)
        speed = clip_speed(log)
        folder = shared.replays / "clip"
        write_player(renderer, log, folder / "index.html", speed)
        viewport = self.config.getoption("tcab_viewport") or DEFAULT_VIEWPORT
        seconds = len(log["frames"]) * float(log["timestep_ms"]) / 1000.0 / speed
        with PageServer({"replay": folder}) as server:
            clip = record_clip(browser.page(viewport, origin=server.url), server.page_url("replay", "index.html"),
                               shared.run.out_dir / f"replay__{_safe(slot.label)}.webm",
                               timeout_s=seconds + float(self.config.getoption("tcab_driver_timeout")))
        self.record(match=slot.label, summary=result.summary(), clip=str(clip), poster=poster_of(str(clip)),
                    speed=round(speed, 3), player=str(folder / "index.html"))


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    """`build[<controller>]` per produced run, `match[...]` per scheduled match, then `standings`."""
    tables = run.case.adversarial
    if tables is None:
        return
    shared = TournamentRun(run, tables)
    manifest = run.case.manifest_path
    build_line = (manifest, line_in(manifest, ("build",)))
    match_line = (manifest, line_in(manifest, ("match",)))
    common: dict[str, Any] = {"run": run, "tournament": shared}
    for name in shared.produced:
        yield ControllerBuildItem.from_parent(parent, name=f"build[{name}]", key=name, location=build_line,
                                              controller=name, **common)
    match = tables.match
    slots = schedule(shared.names, match.structure, match.participants, match.rounds)
    if len(shared.names) >= match.participants:
        for slot in slots:
            yield MatchItem.from_parent(parent, name=f"match[{slot.label}]", key=slot.label, location=match_line,
                                        slot=slot, **common)
    yield StandingsItem.from_parent(parent, name="standings", key="standings", location=match_line, **common)
    if tables.renderer is not None and slots and len(shared.names) >= match.participants:
        yield ReplayItem.from_parent(parent, name=f"replay[{slots[-1].label}]", callobj=browser_test,
                                     key=slots[-1].label, location=(manifest, line_in(manifest, ("replay",))),
                                     **common)
