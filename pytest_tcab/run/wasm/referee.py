"""The referee of an adversarial case: the suite's own Python, loaded by path and called for the rules.

The referee is trusted (reporter-side, written by the suite author), so it runs in this process.
Whatever goes wrong inside it is the suite's fault, not a controller's: it is raised as
`RefereeFailed` with the referee's own frames, so the author sees the line to fix.
"""

from __future__ import annotations

import hashlib
import importlib.util
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_tcab.errors import TcabError

State = Any
"""Whatever `new_match` returns; only the referee looks inside it."""


class RefereeFailed(TcabError):
    """The referee raised or answered something the tournament cannot use."""


class Referee:
    """The five functions of a referee module, each call wrapped so its failure names the referee."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.module = _load(path)
        missing = [name for name in ("new_match", "observe", "apply", "step", "frame")
                   if not callable(getattr(self.module, name, None))]
        if missing:
            raise RefereeFailed(f"referee {path}: {', '.join(missing)} not defined as functions")

    def new_match(self, seed: int, players: list[str]) -> State:
        return self._call("new_match", seed, list(players))

    def observe(self, state: State, player: str) -> dict[str, Any]:
        world = self._call("observe", state, player)
        if not isinstance(world, dict):
            raise RefereeFailed(f"referee {self.path.name}: observe() returned {type(world).__name__}, not a dict")
        return world

    def apply(self, state: State, player: str, action: Any) -> None:
        self._call("apply", state, player, action)

    def step(self, state: State) -> dict[str, Any] | None:
        """None while the match goes on, else `{"winner": player | None, "scores": {...}}`."""
        result = self._call("step", state)
        if result is not None and not (isinstance(result, dict) and "winner" in result):
            raise RefereeFailed(f"referee {self.path.name}: step() returned {result!r}; expected None while the "
                                'match goes on, else {"winner": player or None, "scores": {...}}')
        return result

    def frame(self, state: State) -> dict[str, Any]:
        frame = self._call("frame", state)
        if not isinstance(frame, dict):
            raise RefereeFailed(f"referee {self.path.name}: frame() returned {type(frame).__name__}, not a dict")
        return frame

    def _call(self, name: str, *args: Any) -> Any:
        function: Callable[..., Any] = getattr(self.module, name)
        try:
            return function(*args)
        except Exception as exc:  # noqa: BLE001 - whatever the suite's referee raises is reported
            raise RefereeFailed(f"referee {self.path.name}: {name}() raised\n{_referee_frames(exc, self.path)}") from None


_loaded: dict[tuple[Path, str], ModuleType] = {}


def _load(path: Path) -> ModuleType:
    """Import the referee by path, once per process and content (a name of its own, so two
    suites' `duel.py` never collide in `sys.modules`)."""
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise RefereeFailed(f"referee {path} cannot be read: {exc.strerror}") from None
    digest = hashlib.sha256(source).hexdigest()[:16]
    key = (path.resolve(), digest)
    if key not in _loaded:
        spec = importlib.util.spec_from_file_location(f"tcab_referee_{digest}", path)
        assert spec is not None and spec.loader is not None  # a .py path always has a source loader
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - whatever the suite's referee raises is reported
            raise RefereeFailed(f"referee {path.name} fails on import\n{_referee_frames(exc, path)}") from None
        _loaded[key] = module
    return _loaded[key]


def _referee_frames(exc: BaseException, path: Path) -> str:
    """The traceback from the referee's first frame on: the plugin's own frames help no author."""
    frames = traceback.extract_tb(exc.__traceback__)
    start = next((i for i, frame in enumerate(frames) if Path(frame.filename) == path), 0)
    lines = traceback.format_list(frames[start:]) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()
