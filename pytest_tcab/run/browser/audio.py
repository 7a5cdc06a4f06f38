"""Web Audio evidence taken from outside the page's realm, through the DevTools protocol's WebAudio domain.

Everything in a page's JavaScript realm is the page's to rewrite, so a log kept there (a patched
`start`) is only the page's word. The WebAudio domain reports what Chromium's audio engine made,
which no script can send on the protocol: each context (realtime or offline) and its state, each
node by type, and the connections between them. It does not report `start()` calls, a parameter's
current value (a frequency), a buffer's length, nor when a node was made; nodes made before the
domain is enabled are never reported, so a page is watched before it navigates (README "Audio
evidence").
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from playwright.sync_api import CDPSession
    from playwright.sync_api import Page

SOURCES_LIMIT = 10_000
"""The most sources one page reports; past it (and past NODES_LIMIT nodes) new ones are not followed."""
NODES_LIMIT = 50_000
"""The most nodes of one page whose connections are followed: a page making nodes without end
costs the harness bounded memory and time."""

_FLUSH_CONTEXT = "tcab-no-such-context"
"""A context id no page has: asking the WebAudio agent about it is a round trip to the renderer,
answered after every event the agent sent before it."""


def watch_audio(page: Page) -> None:
    """Start collecting `page`'s Web Audio graph; call it before the page navigates. Idempotent."""
    if page in _graphs:
        return
    session = page.context.new_cdp_session(page)
    graph = _Graph(session)
    session.on("WebAudio.contextCreated", graph.context_changed)
    session.on("WebAudio.contextChanged", graph.context_changed)
    session.on("WebAudio.audioNodeCreated", graph.node_created)
    session.on("WebAudio.nodesConnected", graph.connected)
    session.on("WebAudio.nodesDisconnected", graph.disconnected)
    session.on("WebAudio.audioNodeWillBeDestroyed", graph.node_destroyed)
    session.send("WebAudio.enable")
    _graphs[page] = graph


def audio_sources(page: Page) -> list[dict[str, Any]]:
    """Each Web Audio source `page` made since `watch_audio`, in order, as Chromium's engine reports it.

    An entry is ``{"type", "offline", "connected", "running"}``: the node's interface
    (``OscillatorNode``, ``AudioBufferSourceNode``, ``ConstantSourceNode``, the media and stream
    sources, an ``AudioWorkletNode`` without inputs), whether its context renders offline (to a
    buffer, never out), whether a chain of connections led from it to its context's destination at
    some moment, and whether its context ran (was not suspended) at some moment while it existed.
    A page never watched answers ``[]``; a closed or crashed page answers what was seen.
    """
    from playwright.sync_api import Error

    graph = _graphs.get(page)
    if graph is None:
        return []
    try:
        graph.session.send("WebAudio.getRealtimeData", {"contextId": _FLUSH_CONTEXT})
    except Error:
        pass  # the expected "no such context", or a closed page: either way the events before it are in
    return [source.record() for source in graph.sources]


@dataclass
class _Source:
    type: str
    context: _Context
    connected: bool = False
    running: bool = False

    def record(self) -> dict[str, Any]:
        return {"type": self.type, "offline": self.context.offline, "connected": self.connected,
                "running": self.running}


@dataclass
class _Context:
    offline: bool
    running: bool = False
    """Whether it runs now (its last reported state)."""
    destination: str | None = None
    sources: list[_Source] = field(default_factory=list)


@dataclass
class _Graph:
    """One page's audio graph as the protocol's events describe it, kept to what `audio_sources` needs."""

    session: CDPSession
    contexts: dict[str, _Context] = field(default_factory=dict)
    nodes: dict[str, str] = field(default_factory=dict)
    """Node id -> its context's id."""
    sources: list[_Source] = field(default_factory=list)
    by_node: dict[str, _Source] = field(default_factory=dict)
    outputs: dict[str, set[str]] = field(default_factory=dict)
    """Node id -> the nodes its outputs are connected to."""
    inputs: dict[str, set[str]] = field(default_factory=dict)

    def context_changed(self, event: dict[str, Any]) -> None:
        described = event["context"]
        context = self.contexts.setdefault(described["contextId"],
                                           _Context(offline=described.get("contextType") == "offline"))
        context.running = described.get("contextState") == "running"
        if context.running:
            for source in context.sources:
                source.running = True

    def node_created(self, event: dict[str, Any]) -> None:
        node = event["node"]
        context = self.contexts.get(node["contextId"])
        if context is None or len(self.nodes) >= NODES_LIMIT:
            return
        self.nodes[node["nodeId"]] = node["contextId"]
        kind = str(node.get("nodeType", ""))
        if kind == "AudioDestination":
            context.destination = node["nodeId"]
        elif node.get("numberOfInputs") == 0 and len(self.sources) < SOURCES_LIMIT:
            source = _Source(f"{kind}Node", context, running=context.running)
            self.sources.append(source)
            context.sources.append(source)
            self.by_node[node["nodeId"]] = source

    def connected(self, event: dict[str, Any]) -> None:
        start, end = event["sourceId"], event["destinationId"]
        if start not in self.nodes or end not in self.nodes:
            return
        self.outputs.setdefault(start, set()).add(end)
        self.inputs.setdefault(end, set()).add(start)
        context = self.contexts[self.nodes[start]]
        if context.destination is not None and self._leads_to(end, context.destination):
            self._mark_feeding(start)

    def disconnected(self, event: dict[str, Any]) -> None:
        start, end = event["sourceId"], event.get("destinationId")
        for target in list(self.outputs.get(start, ())) if end is None else [end]:
            self.outputs.get(start, set()).discard(target)
            self.inputs.get(target, set()).discard(start)

    def node_destroyed(self, event: dict[str, Any]) -> None:
        node = event["nodeId"]
        for target in self.outputs.pop(node, set()):
            self.inputs.get(target, set()).discard(node)
        for feeder in self.inputs.pop(node, set()):
            self.outputs.get(feeder, set()).discard(node)

    def _leads_to(self, start: str, destination: str) -> bool:
        seen, queue = {start}, deque([start])
        while queue:
            node = queue.popleft()
            if node == destination:
                return True
            for target in self.outputs.get(node, ()):
                if target not in seen:
                    seen.add(target)
                    queue.append(target)
        return False

    def _mark_feeding(self, start: str) -> None:
        """Every source with a chain of connections to `start` (and `start` itself) has reached the output."""
        seen, queue = {start}, deque([start])
        while queue:
            node = queue.popleft()
            source = self.by_node.get(node)
            if source is not None:
                source.connected = True
            for feeder in self.inputs.get(node, ()):
                if feeder not in seen:
                    seen.add(feeder)
                    queue.append(feeder)


_graphs: WeakKeyDictionary[Page, _Graph] = WeakKeyDictionary()
