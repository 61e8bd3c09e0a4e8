"""The records retrieval hands the team: the recorded runs like a task, each bound to it.

They are the compiler's (the planner ranks them), so they live here, below retrieval, which
fills them (``retrieval.context.retrieve``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.compiler.script import FillCache

if TYPE_CHECKING:
    from guigraph.compiler.script import Binding
    from guigraph.graph.records import Edge, Node, SlotKey, Trace


@dataclass(frozen=True)
class RetrievedTrace:
    trace: Trace
    score: float
    slot_values: dict[SlotKey, str]  # the trace's slot -> its value for the new task
    missing_slots: tuple[SlotKey, ...] = ()
    binding: Binding | None = None  # the trace's script bound to the new task


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
    #: Traces of the apps the task names, beyond the top k (not in ``text``).
    app_traces: tuple[RetrievedTrace, ...] = ()
    #: The slot fills worked out for this task, for the team's plan ranking to reuse.
    fills: FillCache = field(default_factory=dict, compare=False)

    @property
    def best(self) -> RetrievedTrace | None:
        return self.traces[0] if self.traces else None
