"""A recorded run bound to a new task: its script with the task's values in its slots."""

from __future__ import annotations

from typing import TYPE_CHECKING

from guigraph.compiler.records import RetrievedTrace
from guigraph.compiler.script import FillCache, KindClues, bind, slot_values

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.graph.records import Trace


def bind_trace(
    trace: Trace, instruction: str, graph: GraphView, fills: FillCache | None = None,
    score: float = 0.0,
) -> RetrievedTrace:  # fmt: skip
    """The trace bound to ``instruction`` by the team's own binder (``compiler/script.py``),
    so that model roles read the values the model-free team would type. ``fills`` is the
    episode's cache of slot fills, shared with the team's plan ranking."""
    script = graph.script(trace)
    kinds = KindClues(graph.aliases, graph.read_fields)
    binding = bind(script, trace, instruction, graph.values, fills, kinds)
    values, missing = slot_values(trace, binding)
    return RetrievedTrace(trace, score, values, missing, binding)
