"""Graph RAG (Eq. 1 and the Context Builder): task → similar traces → subgraph → context.

The context holds the retrieved traces with their slots filled for the new task, the subgraph
around them (the traces' states and transitions plus one hop beyond), and a linearized text of
``(state) -[action]-> (state)`` triplets and candidate paths that fits a token budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.compiler.slots import content_words, fill_slot
from guigraph.compiler.values import type_site
from guigraph.types import ActionType

if TYPE_CHECKING:
    from guigraph.compiler.values import Site, ValueIndex
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import ActionTemplate, Edge, Node, SlotKey, TextSource, Trace

#: Rough characters per token for budgeting without a tokenizer (English UI text: ~4).
CHARS_PER_TOKEN = 4
NEIGHBOURS_PER_NODE = 3
#: Traces retrieved for each clause of a task in several parts ("...: add it to the calendar,
#: note the temperature under Work and text it to Greta"), besides the top k for the whole.
#: A task never recorded as a whole is covered by traces of its parts, which a search for the
#: whole ranks below the near-duplicates of one part.
CLAUSE_K = 2
_CLAUSE_BREAK = re.compile(r"\s*[:;]\s+|,\s*(?:and\s+|then\s+)?|\s+(?:and\s+)?then\s+|\s+and\s+")


@dataclass(frozen=True)
class RetrievedTrace:
    trace: Trace
    score: float
    slot_values: dict[SlotKey, str]  # the trace's slot -> its value for the new task
    missing_slots: tuple[SlotKey, ...] = ()


@dataclass(frozen=True)
class Context:
    """What retrieval hands the team; ``text`` is the linearized, budgeted prompt part."""

    instruction: str
    traces: tuple[RetrievedTrace, ...]
    nodes: dict[int, Node]
    edges: dict[int, Edge]
    text: str
    tokens: int
    truncated: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def best(self) -> RetrievedTrace | None:
        return self.traces[0] if self.traces else None


def node_label(node: Node, width: int = 60) -> str:
    words = node.description or node.state_text
    summary = " ".join(words.split())[:width]
    return f"#{node.node_id} {node.app or 'home'}: {summary}"


def action_phrase(
    template: ActionTemplate, slot_values: Mapping[SlotKey, str] | None = None
) -> str:
    target = f" {template.target_label!r}" if template.target_label else ""
    if template.type is ActionType.TYPE:
        text = template.text or ""
        for key, value in (slot_values or {}).items():
            text = text.replace("{" + key.slot + "}", value)
        return f"type {text!r}"
    if template.type is ActionType.SCROLL:
        return f"swipe {template.direction}"
    if template.type is ActionType.OPEN_APP:
        return f"open {template.app}"
    if template.taps:
        verb = "tap" if template.type is ActionType.CLICK else "long-press"
        return f"{verb}{target or ' ' + str(template.point)}"
    return template.type.value.replace("_", " ")


def edge_phrase(edge: Edge, slot_values: Mapping[SlotKey, str] | None = None) -> str:
    return ", ".join(action_phrase(a, slot_values) for a in edge.actions)


def fill_trace_slots(
    trace: Trace, instruction: str, graph: GraphData | None = None
) -> tuple[dict[SlotKey, str], tuple[SlotKey, ...]]:
    """The new task's value for each slot the trace typed.

    A slot read off a screen is left out: it is filled from focus memory while acting. A slot
    with no value found in the new instruction keeps the trace's own value and is reported.
    With the graph's value index, each slot is filled as the team fills it: values known at
    its place pin it down and a value of another kind is refused (a note title where the city
    goes), so model roles read the same values the model-free team would type.
    """
    values: dict[SlotKey, str] = {}
    missing: list[SlotKey] = []
    index = graph.values if graph is not None else None
    for key, typed in trace.values.items():
        site, source = _slot_site(key, trace, graph)
        if source is not None and source.from_screen:
            continue  # read off a screen while acting, not from the instruction
        if index is not None and site is not None:
            value = fill_slot(
                typed, trace.instruction, instruction, index.known(site),
                foreign=lambda v, site=site: index.foreign(v, site),  # type: ignore[misc]
            )  # fmt: skip
        else:
            value = fill_slot(typed, trace.instruction, instruction)
        if value is None:
            missing.append(key)
        values[key] = value if value is not None else typed
    return values, tuple(missing)


def _slot_site(
    key: SlotKey, trace: Trace, graph: GraphData | None
) -> tuple[Site | None, TextSource | None]:
    """Where slot ``key`` was typed (the state and the field tapped before it), and where its
    text came from; (None, None) when the graph is not at hand."""
    if key.edge_id is None:
        node, actions = trace.node_path[-1], list(trace.tail)
    elif graph is not None and key.edge_id in graph.edges:
        edge = graph.edges[key.edge_id]
        node, actions = edge.source, list(edge.actions)
    else:
        return None, None
    field = ""
    for action in actions:
        if action.taps:
            field = action.target_label
        elif action.type is ActionType.TYPE and key.slot in dict(action.text_sources):
            return type_site(node, field), dict(action.text_sources)[key.slot]
    return None, None


@dataclass(frozen=True)
class GraphData:
    """Nodes, edges and each state's outgoing edges, in memory. Load it once per knowledge
    base (``GraphData.load`` or a team's ``GraphView``) and share it: reading a large KB on
    every retrieval would cost far more than the retrieval."""

    nodes: Mapping[int, Node]
    edges: Mapping[int, Edge]
    out_edges: Mapping[int, Sequence[Edge]]
    values: ValueIndex | None = None  # the values seen at each place, for slot filling

    @classmethod
    def load(cls, kb: KnowledgeBase) -> GraphData:
        from guigraph.compiler.values import ValueIndex

        edges = {edge.edge_id: edge for edge in kb.edges()}
        index = ValueIndex.build(kb.traces(), edges)
        nodes = {n.node_id: n for n in kb.nodes()}
        return cls(nodes, edges, out_edges_of(edges.values()), index)


def out_edges_of(edges: Iterable[Edge]) -> dict[int, list[Edge]]:
    """Each state's outgoing edges, most used first."""
    by_source: dict[int, list[Edge]] = {}
    for edge in edges:
        by_source.setdefault(edge.source, []).append(edge)
    for listed in by_source.values():
        listed.sort(key=lambda e: -e.count)
    return by_source


def retrieve(
    kb: KnowledgeBase,
    instruction: str,
    k: int = 4,
    token_budget: int = 1500,
    graph: GraphData | None = None,
) -> Context:
    """Eq. 1: the top-k traces by cosine similarity, their subgraph and the budgeted text."""
    graph = graph or GraphData.load(kb)
    retrieved = []
    for trace, score in _search(kb, instruction, k):
        values, missing = fill_trace_slots(trace, instruction, graph)
        retrieved.append(RetrievedTrace(trace, score, values, missing))
    node_ids, edge_ids = _subgraph(retrieved, graph)
    nodes = {n: graph.nodes[n] for n in node_ids if n in graph.nodes}
    edges = {e: graph.edges[e] for e in edge_ids}
    lines = _linearize(retrieved, nodes, edges)
    text, used, truncated = _fit(lines, token_budget)
    return Context(instruction, tuple(retrieved), nodes, edges, text, used, truncated)


def clauses(instruction: str) -> list[str]:
    """The parts of a task in several steps, each with at least two words that carry meaning
    ("16:00" after a date's comma is not a part)."""
    parts = [p.strip(" .,") for p in _CLAUSE_BREAK.split(instruction)]
    return [p for p in parts if len(content_words(p)) >= 2]


def _search(kb: KnowledgeBase, instruction: str, k: int) -> list[tuple[Trace, float]]:
    """The top k for the whole task and the top CLAUSE_K for each of its clauses, every one
    scored by its similarity to the whole task (so a clause's trace ranks as what it is: a
    part of the task), best first."""
    found = kb.search_traces(instruction, k)
    parts = clauses(instruction)
    if len(parts) < 2:
        return found
    seen = {trace.episode_id for trace, _ in found}
    extra: list[Trace] = []
    for part in parts:
        for trace, _ in kb.search_traces(part, CLAUSE_K):
            if trace.episode_id not in seen:
                seen.add(trace.episode_id)
                extra.append(trace)
    if not extra:
        return found
    query = kb.encoder.encode([instruction])[0]
    rows = kb.encoder.encode([trace.instruction for trace in extra])
    scored = [(t, float(score)) for t, score in zip(extra, rows @ query, strict=True)]
    return sorted([*found, *scored], key=lambda pair: -pair[1])


def _subgraph(retrieved: Iterable[RetrievedTrace], graph: GraphData) -> tuple[set[int], list[int]]:
    node_ids: set[int] = set()
    edge_ids: list[int] = []
    for item in retrieved:
        node_ids.update(item.trace.node_path)
        edge_ids.extend(e for e in item.trace.edge_path if e not in edge_ids)
    for node in sorted(node_ids):
        for edge in graph.out_edges.get(node, ())[:NEIGHBOURS_PER_NODE]:
            if edge.edge_id not in edge_ids:
                edge_ids.append(edge.edge_id)
    node_ids.update(n for e in edge_ids for n in (graph.edges[e].source, graph.edges[e].target))
    return node_ids, edge_ids


def _linearize(
    retrieved: list[RetrievedTrace], nodes: dict[int, Node], edges: dict[int, Edge]
) -> list[str]:
    """Most useful first: each trace as a path, then the remaining triplets."""
    lines: list[str] = []
    on_paths: set[int] = set()
    for rank, item in enumerate(retrieved, 1):
        trace = item.trace
        lines.append(f"Trace {rank} (similarity {item.score:.2f}): {trace.instruction}")
        if item.slot_values:
            filled = ", ".join(f"{k}={v!r}" for k, v in item.slot_values.items())
            lines.append(f"  values for this task: {filled}")
        for edge_id in trace.edge_path:
            edge = edges[edge_id]
            on_paths.add(edge_id)
            lines.append(f"  {_triplet(edge, nodes, item.slot_values)}")
    others = [e for e in edges if e not in on_paths]
    if others:
        lines.append("Other known transitions:")
        lines.extend(f"  {_triplet(edges[e], nodes, None)}" for e in others)
    return lines


def _triplet(edge: Edge, nodes: dict[int, Node], values: dict[SlotKey, str] | None) -> str:
    source, target = nodes.get(edge.source), nodes.get(edge.target)
    mine = {k: v for k, v in (values or {}).items() if k.edge_id == edge.edge_id}
    left = node_label(source) if source else f"#{edge.source}"
    right = node_label(target) if target else f"#{edge.target}"
    return f"({left}) -[{edge_phrase(edge, mine)}]-> ({right})"


def _fit(lines: list[str], token_budget: int) -> tuple[str, int, bool]:
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = len(line) // CHARS_PER_TOKEN + 1
        if used + cost > token_budget:
            return "\n".join(kept), used, True
        kept.append(line)
        used += cost
    return "\n".join(kept), used, False
