"""Graph RAG (Eq. 1 and the Context Builder): task → similar traces → subgraph → context.

The context holds the retrieved traces with their slots filled for the new task, the subgraph
around them (the traces' states and transitions plus one hop beyond), and a linearized text of
``(state) -[action]-> (state)`` triplets and candidate paths that fits a token budget.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from guigraph.compiler import fillers
from guigraph.compiler.bound import bind_trace
from guigraph.compiler.forms import in_screen_forms
from guigraph.compiler.records import Context, RetrievedTrace
from guigraph.compiler.script import FillCache
from guigraph.compiler.slots import clauses
from guigraph.types import ActionType

#: The records retrieval hands the team are the compiler's (``compiler.records``).
__all__ = ["Context", "RetrievedTrace", "bind_trace", "retrieve", "retrieve_said"]

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import ActionTemplate, Edge, Node, SlotKey, Trace

#: Rough characters per token for budgeting without a tokenizer (English UI text: ~4).
CHARS_PER_TOKEN = 4
NEIGHBOURS_PER_NODE = 3
#: Traces retrieved for each clause of a task in several parts ("...: add it to the calendar,
#: note the temperature under Work and text it to Greta"), besides the top k for the whole.
#: A task never recorded as a whole is covered by traces of its parts, which a search for the
#: whole ranks below the near-duplicates of one part.
CLAUSE_K = 2


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


def retrieve(
    kb: KnowledgeBase,
    instruction: str,
    k: int = 4,
    token_budget: int = 1500,
    graph: GraphView | None = None,
) -> Context:
    """Eq. 1: the top-k traces by cosine similarity, their subgraph and the budgeted text;
    besides, the traces working in each app the task names (for stitching a plan)."""
    from guigraph.compiler.index import GraphView

    graph = graph or GraphView.load(kb)
    fills: FillCache = {}
    searched = _search(kb, graph, instruction, k)
    by_app = _app_candidates(instruction, [trace for trace, _ in searched], graph)
    # The task's slot filler sees every run the task may follow before any is bound (a model
    # filler asks about all their slots in one call).
    fillers.active().prepare(instruction, [trace for trace, _ in (*searched, *by_app)])
    retrieved = [bind_trace(trace, instruction, graph, fills, score) for trace, score in searched]
    node_ids, edge_ids = _subgraph(retrieved, graph)
    nodes = {n: graph.nodes[n] for n in node_ids if n in graph.nodes}
    edges = {e: graph.edges[e] for e in edge_ids}
    lines = _linearize(retrieved, nodes, edges)
    text, used, truncated = _fit(lines, token_budget)
    app_traces = [bind_trace(trace, instruction, graph, fills, score) for trace, score in by_app]
    return Context(
        instruction, tuple(retrieved), nodes, edges, text, used, truncated,
        app_traces=tuple(app_traces), fills=fills,
    )  # fmt: skip


def retrieve_said(
    kb: KnowledgeBase, said: str, k: int = 4, token_budget: int = 1500,
    graph: GraphView | None = None,
) -> Context:  # fmt: skip
    """``retrieve`` for a task as a person says it, read first as the team reads it: in the
    knowledge base's forms (``in_screen_forms``: capitals given back to a task written all in
    lower case, numbers in digits, times on the recorded clock)."""
    from guigraph.compiler.index import GraphView

    graph = graph or GraphView.load(kb)
    return retrieve(kb, in_screen_forms(said, graph.values), k, token_budget, graph)


def _app_candidates(
    instruction: str, searched: Sequence[Trace], graph: GraphView
) -> list[tuple[Trace, float]]:
    """For each app the task names (or where a value it names was used), the traces most
    like it among those working in that app: a stitched plan needs one for each of its
    apps, and the whole-task search may rank none of them."""
    seen = {trace.episode_id for trace in searched}
    found: list[tuple[Trace, float]] = []
    for app in graph.relevant_apps(instruction):
        for trace, score in graph.traces_using(app, instruction):
            if trace.episode_id not in seen:
                seen.add(trace.episode_id)
                found.append((trace, score))
    return found


def _search(
    kb: KnowledgeBase, graph: GraphView, instruction: str, k: int
) -> list[tuple[Trace, float]]:
    """The top k for the whole task and the top CLAUSE_K for each of its clauses, every one
    scored by its similarity to the whole task (so a clause's trace ranks as what it is: a
    part of the task), best first. The traces and their vectors are the view's: a trace
    the KB gained after the view was loaded is not one the team can plan with."""
    parts = clauses(instruction)
    parts = parts if len(parts) >= 2 else []
    # The task and its clauses in one encoding call: a call costs far more than a row.
    query, *part_queries = kb.encoder.encode([instruction, *parts])
    rows = graph.trace_rows
    found = [
        (graph.traces[rows[episode_id]], score)
        for episode_id, score in kb.nearest_trace_ids(query, k)
        if episode_id in rows
    ]
    seen = {trace.episode_id for trace, _ in found}
    extra: list[int] = []
    for part_query in part_queries:
        for episode_id, _ in kb.nearest_trace_ids(part_query, CLAUSE_K):
            if episode_id in rows and episode_id not in seen:
                seen.add(episode_id)
                extra.append(rows[episode_id])
    if not extra or graph.trace_vectors is None:
        return found
    scores = graph.trace_vectors[extra] @ query
    scored = [(graph.traces[row], float(score)) for row, score in zip(extra, scores, strict=True)]
    return sorted([*found, *scored], key=lambda pair: -pair[1])


def _subgraph(retrieved: Iterable[RetrievedTrace], graph: GraphView) -> tuple[set[int], list[int]]:
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
