"""The model-free team driven by the workflow graph (the embedded default).

``GraphPolicy`` holds one episode's plan: a script of steps tied to graph states (from the best
trace, or stitched from several), and a cursor. Each decision grounds the next step on the
current screen when it can; otherwise it skips ahead to where the screen already is, dismisses
a pop-up, or navigates through the graph back to the step's state. The planner and decider
role objects are thin views on the policy, so they share its cursor.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.agents.grounding import ground
from guigraph.agents.memory import FocusMemory
from guigraph.agents.roles import (
    Feedback,
    HistoryEntry,
    OutcomeStatus,
    Plan,
    Proposal,
    SemanticState,
    SubGoal,
)
from guigraph.agents.script import (
    HOME_APPS,
    ScriptStep,
    app_aliases,
    app_sequence,
    apps_in_instruction,
    stitch,
    trace_script,
)
from guigraph.types import Action, ActionType, ScrollDirection, Task

if TYPE_CHECKING:
    import networkx as nx

    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import Edge, Node
    from guigraph.retrieval.context import Context

DISMISS_LABELS = ("not now", "no thanks", "later", "deny", "don't allow", "close", "skip",
                  "dismiss", "cancel", "maybe later")  # fmt: skip
LOADING_TEXTS = ("loading", "please wait")
LOOKAHEAD = 8
MAX_REVEAL_SCROLLS = 3


@dataclass
class GraphPolicy:
    """One episode's plan and progress; ``mode`` is "graph" (stitch, navigate) or "trace"."""

    kb: KnowledgeBase
    mode: str = "graph"
    script: list[ScriptStep] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)
    replacements: dict[str, str] = field(default_factory=dict)
    cursor: int = 0
    pending: tuple[int | None, Action] | None = None
    navigation: list[ScriptStep] = field(default_factory=list)
    reveal_scrolls: int = 0
    notes: list[str] = field(default_factory=list)

    # -- planning -----------------------------------------------------------------------
    def make_plan(self, task: Task, context: Context | None) -> Plan:
        if context is None or context.best is None:
            return Plan((), rationale="no similar trace in the knowledge base")
        nodes, edges = self._nodes, self._edges
        scripts = {r.trace.episode_id: trace_script(r.trace, edges, nodes) for r in context.traces}
        best = context.best
        self.script = scripts[best.trace.episode_id]
        used = [best.trace.episode_id]
        wanted = apps_in_instruction(task.instruction, app_aliases(list(edges.values()), nodes))
        if self.mode == "graph" and wanted and wanted != app_sequence(self.script):
            stitched, used = stitch(wanted, context.traces, scripts)
            if stitched:
                self.script = stitched
                self.notes.append(f"stitched {wanted} from traces {used}")
        for item in context.traces:
            if item.trace.episode_id in used:
                self._take_values(item, edges)
        return Plan(_subgoals(self.script), rationale="; ".join(self.notes) or f"follow {used[0]}")

    def _take_values(self, item: object, edges: dict[int, Edge]) -> None:
        from guigraph.retrieval.context import RetrievedTrace

        assert isinstance(item, RetrievedTrace)
        for key, value in item.slot_values.items():
            self.values.setdefault(key, value)
            example = item.trace.values.get(key)
            if example:
                self.replacements.setdefault(example, value)

    def subgoal(self) -> SubGoal:
        if self.cursor >= len(self.script):
            return SubGoal("finish the task", final=True)
        step = self.script[self.cursor]
        return SubGoal(
            f"work in {step.app or 'home'} (step {self.cursor + 1} of {len(self.script)})",
            app=step.app if step.app not in HOME_APPS else None,
            target_node=str(step.node),
            segment=step.segment,
        )

    @property
    def done(self) -> bool:
        return bool(self.script) and self.cursor >= len(self.script)

    # -- deciding -----------------------------------------------------------------------
    def decide(
        self, state: SemanticState, history: Sequence[HistoryEntry], feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:  # fmt: skip
        self._advance(history)
        _remember_screen(state, memory, len(history))
        if not self.script:
            return Proposal(Action(ActionType.IMPOSSIBLE), reason="no plan")
        if self.done:
            return Proposal(Action(ActionType.COMPLETE), reason="every planned step is done")
        for choose in (self._wait_for_loading, self._current_step, self._skip_ahead,
                       self._dismiss_popup, self._navigate, self._fallback):  # fmt: skip
            proposal = choose(state, feedback, memory)
            if proposal is not None and proposal.action not in feedback.banned:
                return proposal
        return Proposal(Action(ActionType.PRESS_BACK), reason="every option was banned")

    def _advance(self, history: Sequence[HistoryEntry]) -> None:
        if self.pending is None or not history:
            return
        index, action = self.pending
        last = history[-1]
        worked = last.outcome.status in (OutcomeStatus.SUCCESS, OutcomeStatus.UNCERTAIN)
        if last.action == action and worked:
            if index is None and self.navigation:
                self.navigation.pop(0)
            elif index is not None:
                self.cursor = index + 1
                self.reveal_scrolls = 0
        self.pending = None

    def _propose(self, index: int | None, step: ScriptStep, proposal: Proposal) -> Proposal:
        self.pending = (index, proposal.action)
        expect = step.jumps_to if step.jumps_to is not None else step.node
        return Proposal(proposal.action, proposal.target, proposal.reason, "graph", str(expect))

    def _ground(
        self, step: ScriptStep, state: SemanticState, memory: FocusMemory
    ) -> Proposal | None:
        values = {
            k.split(":", 1)[1]: v
            for k, v in self.values.items()
            if k.startswith(f"{step.slot_key}:")
        }
        return ground(step.template, state, values, self.replacements, memory)

    def _here(self, state: SemanticState) -> int | None:
        return int(state.node_id) if state.node_id is not None else None

    def _wait_for_loading(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        text = " ".join(state.texts).lower()
        if any(word in text for word in LOADING_TEXTS) and len(state.texts) <= 4:
            self.pending = None
            return Proposal(Action(ActionType.WAIT, seconds=1.0), reason="the screen is loading")
        return None

    def _current_step(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        step = self.script[self.cursor]
        here = self._here(state)
        kind = step.template.type
        if kind in ("click", "long_press"):
            proposal = self._ground(step, state, memory)
            if proposal is None and here == step.node:
                return self._reveal(state)
        elif kind == "type":
            on_field = state.focused_field is not None or not state.elements
            proposal = self._ground(step, state, memory) if on_field else None
        elif here == step.node or (here is None and self.mode == "trace"):
            proposal = self._ground(step, state, memory)
        else:
            proposal = None
        return self._propose(self.cursor, step, proposal) if proposal else None

    def _reveal(self, state: SemanticState) -> Proposal | None:
        """The target is not visible in its own state: scroll the list to find it."""
        if self.reveal_scrolls >= MAX_REVEAL_SCROLLS or not any(
            e.element.scrollable for e in state.elements
        ):
            return None
        self.reveal_scrolls += 1
        self.pending = None
        return Proposal(Action.scroll(ScrollDirection.UP), reason="look further down the list")

    def _skip_ahead(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        here = self._here(state)
        if here is None or here == self.script[self.cursor].node:
            return None
        horizon = self.script[self.cursor + 1 : self.cursor + 1 + LOOKAHEAD]
        for offset, step in enumerate(horizon, self.cursor + 1):
            if step.node == here:
                self.cursor = offset
                self.notes.append(f"skipped ahead to step {offset}")
                return self._current_step(state, feedback, memory)
        return None

    def _dismiss_popup(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        for view in state.elements:
            if view.role == "button" and view.label.strip().lower() in DISMISS_LABELS:
                self.pending = None
                return Proposal(
                    Action.click(view.center.x, view.center.y), view, "dismiss the pop-up"
                )
        return None

    def _navigate(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        if self.mode != "graph":
            return None
        here, goal = self._here(state), self.script[self.cursor].node
        if here is None:
            return None
        if not self.navigation or self.navigation[0].node != here:
            self.navigation = self._route(here, goal)
        if not self.navigation:
            return None
        step = self.navigation[0]
        proposal = self._ground(step, state, memory)
        if proposal is None:
            self.navigation = []
            return None
        self.pending = (None, proposal.action)
        return Proposal(
            proposal.action,
            proposal.target,
            "graph: navigate",
            "graph",
            str(step.jumps_to or step.node),
        )

    def _route(self, here: int, goal: int) -> list[ScriptStep]:
        import networkx as nx

        graph = self._graph
        if here not in graph or goal not in graph:
            return []
        try:
            path = nx.shortest_path(graph, here, goal, weight="cost")
        except nx.NetworkXNoPath:
            return []
        steps: list[ScriptStep] = []
        for source, target in itertools.pairwise(path):
            edge = self._edges[graph.edges[source, target]["edge_id"]]
            for i, template in enumerate(edge.actions):
                last = i == len(edge.actions) - 1
                steps.append(
                    ScriptStep(
                        source, template, target if last else None, None, -1, str(edge.edge_id), ""
                    )
                )
        return steps

    def _fallback(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        self.pending = None
        step = self.script[self.cursor]
        if state.app and state.app not in HOME_APPS and step.app and state.app != step.app:
            return Proposal(
                Action(ActionType.PRESS_HOME), reason=f"{step.app} is needed, not {state.app}"
            )
        if (state.app or "") in HOME_APPS and step.app:
            return None
        return Proposal(Action(ActionType.PRESS_BACK), reason="lost: go back")

    # -- the knowledge base, read once per episode ------------------------------------
    @property
    def _nodes(self) -> dict[int, Node]:
        return _kb_cache(self.kb)[0]

    @property
    def _edges(self) -> dict[int, Edge]:
        return _kb_cache(self.kb)[1]

    @property
    def _graph(self) -> nx.DiGraph:
        return _kb_cache(self.kb)[2]


_CACHE: dict[int, tuple[dict[int, Node], dict[int, Edge], nx.DiGraph]] = {}


def _kb_cache(kb: KnowledgeBase) -> tuple[dict[int, Node], dict[int, Edge], nx.DiGraph]:
    """Nodes, edges and a routing graph (one edge per pair: the most used), built once per KB."""
    key = id(kb)
    if key not in _CACHE:
        import networkx as nx

        nodes = {n.node_id: n for n in kb.nodes()}
        edges = {e.edge_id: e for e in kb.edges()}
        graph = nx.DiGraph()
        for edge in sorted(edges.values(), key=lambda e: e.count):
            graph.add_edge(
                edge.source, edge.target, edge_id=edge.edge_id, cost=1.0 + 1.0 / edge.count
            )
        _CACHE[key] = (nodes, edges, graph)
    return _CACHE[key]


def _remember_screen(state: SemanticState, memory: FocusMemory, step: int) -> None:
    for view in state.elements:
        rid = view.element.resource_id
        if rid and view.element.text:
            memory.remember(f"screen:{rid}", view.element.text, state.app, step)


def _subgoals(script: Sequence[ScriptStep]) -> tuple[SubGoal, ...]:
    goals: list[SubGoal] = []
    for step in script:
        if goals and goals[-1].segment == step.segment and goals[-1].app == step.app:
            continue
        if step.app in HOME_APPS or step.app is None:
            continue
        goals.append(
            SubGoal(
                f"do the recorded steps in {step.app}",
                step.app,
                str(step.node),
                segment=step.segment,
            )
        )
    return tuple(goals)


class GraphPlanner:
    """Global and sub-goal planner over a :class:`GraphPolicy`."""

    def __init__(self, policy: GraphPolicy):
        self.policy = policy

    def plan(self, task: Task, context: object) -> Plan:
        from guigraph.retrieval.context import Context

        return self.policy.make_plan(task, context if isinstance(context, Context) else None)

    def is_complete(
        self, task: Task, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState
    ) -> bool:
        return self.policy.done

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        return self.policy.subgoal()


class GraphDecider:
    def __init__(self, policy: GraphPolicy):
        self.policy = policy

    def decide(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: Sequence[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:
        return self.policy.decide(state, history, feedback, memory)
