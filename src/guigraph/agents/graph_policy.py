"""The model-free team driven by the workflow graph (the embedded default).

``GraphPolicy`` holds one episode's plan: a script of steps tied to graph states (from the best
trace, or stitched from several) and a cursor. Each decision grounds the next step on the
current screen when it can; otherwise it skips ahead to where the screen already is, waits for
a loading screen, dismisses a pop-up, or routes through the graph back to the step's state.
The planner and decider role objects are thin views on the policy, so they share its cursor.

``mode="trace"`` is the paper's baseline (linear episodic memory): follow the most similar
trace step by step, with the same grounding, but no stitching and no routing through the graph.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from guigraph.agents.fields import learn_field_words, read_field_apps
from guigraph.agents.grounding import ground, step_text
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
from guigraph.agents.script import ScriptStep, app_aliases, is_dismissal, is_home
from guigraph.agents.stitch import PlanChoice, apps_named, rank_plans, source_app
from guigraph.envs import conventions
from guigraph.retrieval.values import ValueIndex
from guigraph.types import Action, ActionType, ScrollDirection, Task

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from guigraph.embed import TextEncoder
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import Edge, Node, Trace
    from guigraph.retrieval.context import Context, GraphData, RetrievedTrace

LOOKAHEAD = 8
ROUTE_COST_LIMIT = 15.0  # about seven transitions
MAX_REVEAL_SCROLLS = 3
#: How much worse a plan that starts in the app on the screen may score and still be preferred.
START_APP_MARGIN = 1.0

Chooser = Callable[[SemanticState, Feedback, FocusMemory], Proposal | None]


@dataclass
class GraphView:
    """What the policy reads of a knowledge base, loaded once and shared by every episode."""

    nodes: dict[int, Node]
    edges: dict[int, Edge]
    routes: nx.DiGraph  # one edge per state pair: the most used transition
    values: ValueIndex
    aliases: dict[str, str]
    traces: list[Trace] = field(default_factory=list)
    trace_vectors: np.ndarray | None = None
    encoder: TextEncoder | None = None
    #: resource-id prefix ("music") -> the app name observations use ("Tunes")
    id_apps: dict[str, str] = field(default_factory=dict)
    app_counts: dict[str, int] = field(default_factory=dict)  # traces that use each app

    #: app -> words nearly every instruction using the app says, and that rarely appear
    #: without it ("email" for Mail): an app whose marker the task lacks is likely not wanted.
    markers: dict[str, set[str]] = field(default_factory=dict)
    #: id-less screen field -> what recorded instructions call it (``fields.learn_field_words``)
    field_words: dict[str, frozenset[str]] = field(default_factory=dict)
    #: word -> apps whose screens show a field of that name a run read a value from
    #: (``fields.read_field_apps``): text naming one describes a value, it is none itself.
    read_fields: dict[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Indexes built once, so that planning does not scan a large KB per episode.
        self.rows_by_app: dict[str, list[int]] = {}
        for row, trace in enumerate(self.traces):
            for app in self._apps_of(trace):
                self.rows_by_app.setdefault(app, []).append(row)
        if not self.app_counts:
            self.app_counts = {app: len(rows) for app, rows in self.rows_by_app.items() if app}
        if not self.markers:
            self.markers = self._find_markers()
        if not self.read_fields:
            # Fields named by their ids only: words learned for an id-less field are every
            # word its runs said ("check", "note"), too loose to tell a description by.
            self.read_fields = read_field_apps(
                self.traces, self.edges, lambda s: source_app(s, self.id_apps)
            )
        self._graph_data: GraphData | None = None

    @property
    def graph_data(self) -> GraphData:
        """The same nodes and edges for retrieval (loaded once, not per call)."""
        if self._graph_data is None:
            from guigraph.retrieval.context import GraphData, out_edges_of

            self._graph_data = GraphData(
                self.nodes, self.edges, out_edges_of(self.edges.values()), self.values
            )
        return self._graph_data

    def _find_markers(self, share: float = 0.8) -> dict[str, set[str]]:
        from collections import Counter

        from guigraph.retrieval.slots import content_words

        with_app: dict[str, Counter[str]] = {}
        overall: Counter[str] = Counter()
        for trace in self.traces:
            said = content_words(trace.instruction)
            overall.update(said)
            for app in self._apps_of(trace):
                with_app.setdefault(app, Counter()).update(said)
        markers: dict[str, set[str]] = {}
        for app, counts in with_app.items():
            total = self.app_counts.get(app, 0)
            markers[app] = {
                word
                for word, n in counts.items()
                if total >= 3 and n >= share * total and n >= share * overall[word]
            }
        return markers

    def traces_using(self, app: str, instruction: str, k: int = 8) -> list[RetrievedTrace]:
        """The ``k`` traces most like ``instruction`` among those that work in ``app``.

        Whole-instruction similarity misses the trace a stitched plan needs for one of its
        apps ("by message": a messaging trace whose instruction shares few words), so every
        app the instruction names gets candidates of its own.
        """
        from guigraph.retrieval.context import RetrievedTrace

        if self.encoder is None or self.trace_vectors is None:
            return []
        rows = self.rows_by_app.get(app, [])
        if not rows:
            return []
        query = self.encoder.encode([instruction])[0]
        scores = self.trace_vectors[rows] @ query
        found: list[RetrievedTrace] = []
        workflows: set[tuple[int, ...]] = set()
        for score, row in sorted(zip(scores.tolist(), rows, strict=True), reverse=True):
            trace = self.traces[row]
            # One trace per way of working in the app: twenty "add to cart" runs would crowd
            # out the one run that reads a price.
            workflow = tuple(
                n for n in trace.node_path if n in self.nodes and self.nodes[n].app == app
            )
            if workflow in workflows:
                continue
            workflows.add(workflow)
            found.append(RetrievedTrace(trace, float(score), {}, ()))
            if len(found) == k:
                break
        return found

    def relevant_apps(self, instruction: str) -> list[str]:
        """Apps the instruction names, then apps where a value it names was used before."""
        apps = apps_named(instruction, self.aliases)
        # One site per app is enough to stand for it (a large KB has thousands of sites).
        direct = self._one_site_per_app(self.values.sites_naming(instruction))
        # A contact known from Mail is a contact in Messages too: sites of the same kind.
        related = self._one_site_per_app(
            k for site in direct.values() for k in self.values.kin(site)
        )
        for app in [*direct, *related]:
            if app not in apps:
                apps.append(app)
        return apps

    def _one_site_per_app(self, sites: Iterable[tuple[int, str]]) -> dict[str, tuple[int, str]]:
        chosen: dict[str, tuple[int, str]] = {}
        for site in sites:
            node = self.nodes.get(site[0])
            if node is not None and node.app and node.app not in chosen and not is_home(node.app):
                chosen[node.app] = site
        return chosen

    def _apps_of(self, trace: Trace) -> set[str]:
        return {self.nodes[n].app or "" for n in trace.node_path if n in self.nodes}

    @classmethod
    def load(cls, kb: KnowledgeBase) -> GraphView:
        import networkx as nx

        nodes = {n.node_id: n for n in kb.nodes()}
        edges = {e.edge_id: e for e in kb.edges()}
        routes = nx.DiGraph()
        for edge in sorted(edges.values(), key=lambda e: e.count):
            # Routes avoid transitions that need typed values: those belong to the plan.
            typing = any(a.type == "type" for a in edge.actions)
            cost = 1.0 + 1.0 / edge.count + (3.0 if typing else 0.0)
            routes.add_edge(edge.source, edge.target, edge_id=edge.edge_id, cost=cost)
        traces = kb.traces()
        values = ValueIndex.build(traces, edges)
        vectors = kb.encoder.encode([t.instruction for t in traces]) if traces else None
        view = cls(
            nodes, edges, routes, values, app_aliases(list(edges.values()), nodes), traces,
            vectors, kb.encoder, _id_apps(nodes),
            field_words=learn_field_words(traces, edges),
        )  # fmt: skip
        _ = view.graph_data  # built now, so that it is frozen with the rest
        _freeze_long_lived()
        return view


def _freeze_long_lived() -> None:
    """Take the loaded view out of the cyclic collector's sight.

    At 100k nodes the view is ~3 million objects that live as long as the process; each full
    collection walked them all, 1.5-3.5 s landing in whichever agent step triggered it
    (bench/loop.py). Frozen objects are still freed by reference counting.
    """
    import gc

    gc.freeze()


@dataclass
class GraphPolicy:
    view: GraphView
    mode: str = "graph"  # "graph" or "trace"
    script: list[ScriptStep] = field(default_factory=list)
    cursor: int = 0
    pending: tuple[int | None, Action] | None = None
    route: list[ScriptStep] = field(default_factory=list)
    reveal_scrolls: int = 0
    notes: list[str] = field(default_factory=list)
    alternatives: list[PlanChoice] = field(default_factory=list)
    detoured: set[tuple[int, str]] = field(default_factory=set)
    choice: PlanChoice | None = None
    started: bool = False

    # -- planning -----------------------------------------------------------------------
    def make_plan(self, task: Task, context: Context | None) -> Plan:
        if context is None or not context.traces:
            return Plan((), rationale="no similar trace in the knowledge base")
        # Numbers as screens show them: "thirty percent" is the "30%" to tap.
        task = replace(task, instruction=conventions.active().with_digits(task.instruction))
        candidates = list(context.traces)
        if self.mode == "graph":
            seen = {c.trace.episode_id for c in candidates}
            for app in self.view.relevant_apps(task.instruction):
                for extra in self.view.traces_using(app, task.instruction):
                    if extra.trace.episode_id not in seen:
                        candidates.append(extra)
                        seen.add(extra.trace.episode_id)
        ranked = rank_plans(
            task.instruction, candidates, self.view.edges, self.view.nodes, self.view.values,
            self.view.aliases, allow_stitching=self.mode == "graph", id_apps=self.view.id_apps,
            app_counts=self.view.app_counts, markers=self.view.markers,
            field_words=self.view.field_words, read_fields=self.view.read_fields,
        )  # fmt: skip
        if not ranked:
            return Plan((), rationale="nothing to follow")
        choice, self.alternatives = ranked[0], ranked[1:]
        self.choice, self.script = choice, choice.steps
        how = "stitched from" if choice.stitched else "following"
        self.notes.append(f"{how} {', '.join(choice.donors)} (score {choice.score:.1f})")
        return Plan(_subgoals(self.script), rationale=self.notes[-1])

    def start_in(self, state: SemanticState) -> None:
        """Before the first step: an option about as good as the plan that starts in the app
        already on the screen beats one that needs another app first (two sites' login pages
        take the same instruction; the episode began on one of them)."""
        if self.started:
            return
        self.started = True
        here = state.app
        if self.choice is None or not here or is_home(here):
            return
        if _first_app(self.script) in (None, here):
            return
        for i, option in enumerate(self.alternatives):
            if option.score < self.choice.score - START_APP_MARGIN:
                continue
            if _first_app(option.steps) == here:
                self.alternatives[i] = self.choice
                self.choice, self.script = option, option.steps
                self.notes.append(f"{here} is on the screen: following {', '.join(option.donors)}")
                return

    def subgoal(self) -> SubGoal:
        if self.done:
            return SubGoal("finish the task", final=True)
        step = self.script[self.cursor]
        # A step that leaves its app (home, another app) belongs to where it goes: the verifier
        # must not hold the team in an app the plan is done with.
        destination = self.view.nodes.get(step.jumps_to) if step.jumps_to is not None else None
        app = destination.app if destination is not None else step.app
        return SubGoal(
            f"in {step.app or 'home'}: step {self.cursor + 1} of {len(self.script)}",
            app=None if is_home(app) else app,
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
        self.advance(history)
        _remember_screen(state, memory, len(history))
        if not self.script:
            return Proposal(Action(ActionType.IMPOSSIBLE), reason="no plan")
        if self.done:
            return Proposal(Action(ActionType.COMPLETE), reason="every planned step is done")
        choosers: tuple[Chooser, ...] = (
            self._wait_for_loading, self._current_step, self._skip_ahead, self._dismiss_popup,
            self._navigate, self._fallback,
        )  # fmt: skip
        for choose in choosers:
            proposal = choose(state, feedback, memory)
            if proposal is not None and proposal.action not in feedback.banned:
                return proposal
        self.pending = None
        back = Action(ActionType.PRESS_BACK)
        if back in feedback.banned and is_home(state.app):
            # Every way out of the home screen this policy knows was tried, and found nothing.
            return Proposal(Action(ActionType.IMPOSSIBLE), reason="every option was tried")
        return Proposal(back, reason="every option was banned")

    def advance(self, history: Sequence[HistoryEntry]) -> None:
        """Move past the step proposed last time, if it was executed and did something."""
        if self.pending is None or not history:
            return
        index, action = self.pending
        last = history[-1]
        worked = last.outcome.status in (OutcomeStatus.SUCCESS, OutcomeStatus.UNCERTAIN)
        if last.outcome.status is OutcomeStatus.NO_EFFECT and index is not None:
            # An in-page step may change nothing visible (an item added to a cart off screen);
            # repeating it would not help. A step that should have left the state did fail.
            worked = self.script[index].jumps_to is None
        if last.action == action and worked:
            if index is None and self.route:
                self.route.pop(0)
            elif index is not None:
                self.cursor = index + 1
                self.reveal_scrolls = 0
        self.pending = None

    def _here(self, state: SemanticState) -> int | None:
        return int(state.node_id) if state.node_id is not None else None

    def _proposal(
        self, index: int | None, step: ScriptStep, state: SemanticState, memory: FocusMemory
    ) -> Proposal | None:
        grounded = ground(step, state, memory)
        if grounded is None:
            return None
        self.pending = (index, grounded.action)
        expect = step.jumps_to if step.jumps_to is not None else step.node
        node = self.view.nodes.get(expect)
        app = node.app if node is not None else None
        return Proposal(
            grounded.action, grounded.target, grounded.reason, "graph", str(expect), app
        )

    def _wait_for_loading(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        if conventions.active().is_loading(list(state.texts)):
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
            proposal = self._proposal(self.cursor, step, state, memory)
            # Where the step belongs (or, unlocalized, in its app: another screen size can
            # hide the target below the fold), look further down before giving up on it.
            in_place = here == step.node or (here is None and _same_app(state.app, step.app))
            if proposal is None and (in_place or self.mode == "trace"):
                # Unlocalized but in the step's app (a tablet's two-pane list): the recorded
                # ways out of the step's own state are the ones to try.
                where = here if here is not None or not in_place else step.node
                return (
                    self._reveal(state)
                    or self._detour_for_value(where, state, feedback, memory)
                    or self._switch_plan(here, state, feedback, memory)
                )
            return proposal
        if kind == "type":
            typing_possible = state.focused_field is not None or not state.elements
            if not typing_possible:
                return self._refocus(state, memory)
            if _already_typed(step, state, memory) and self.cursor + 1 < len(self.script):
                # Typing appends: a field that already holds the value (a retried step, a
                # detour back through the same search) is left as it is.
                self.cursor += 1
                self.pending = None
                return self._current_step(state, feedback, memory)
            return self._proposal(self.cursor, step, state, memory)
        if here == step.node or _same_app(state.app, step.app) or self.mode == "trace":
            return self._proposal(self.cursor, step, state, memory)
        return None

    def _refocus(self, state: SemanticState, memory: FocusMemory) -> Proposal | None:
        """Typing needs a focused field and none is (a pop-up came and went, the page drew
        itself again): tap once more the field the plan tapped to focus it."""
        if self.cursor == 0:
            return None
        previous = self.script[self.cursor - 1]
        if previous.template.type != "click":
            return None
        if not conventions.active().is_field_class(previous.template.target_role):
            return None
        return self._proposal(self.cursor - 1, previous, state, memory)

    def _detour_for_value(
        self, here: int | None, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        """The value to tap is not offered here (no conversation with Jonas yet): splice in a
        recorded way from this state that types a value of the same kind and then taps it
        (new message, type the name, pick the suggestion)."""
        step = self.script[self.cursor]
        if self.mode != "graph" or here is None or not _is_task_value(step):
            return None
        if (here, step.label) in self.detoured:
            return None  # that way was tried here already and still did not offer the value
        self.detoured.add((here, step.label))
        detour = find_value_detour(self.view, here, step)
        if detour is None:
            return None
        self.script[self.cursor : self.cursor + 1] = detour
        self.notes.append(f"typed {step.label!r} through another recorded way at state {here}")
        return self._current_step(state, feedback, memory)

    def _switch_plan(
        self, here: int | None, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        """This plan's next target is not on the screen where it should be (another phone's
        contact list, say): continue with the next option that passes through this state."""
        if self.mode != "graph" or here is None:
            return None
        current = {s.trace_id for s in self.script}
        while self.alternatives:
            option = self.alternatives.pop(0)
            if {s.trace_id for s in option.steps} == current:
                continue
            at = next((i for i, s in enumerate(option.steps) if s.node == here), None)
            if at is None:
                continue
            self.script, self.cursor = option.steps, at
            self.notes.append(f"switched to {', '.join(option.donors)} at state {here}")
            return self._current_step(state, feedback, memory)
        return None

    def _reveal(self, state: SemanticState) -> Proposal | None:
        """The target is not visible in its own state: scroll the list to find it."""
        scrollable = any(e.element.scrollable for e in state.elements)
        if self.reveal_scrolls >= MAX_REVEAL_SCROLLS or not scrollable:
            return None
        self.reveal_scrolls += 1
        self.pending = None
        return Proposal(Action.scroll(ScrollDirection.UP), reason="look further down the list")

    def _skip_ahead(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        here = self._here(state)
        if here is None or here == self.script[self.cursor].node or self.mode == "trace":
            return None
        horizon = self.script[self.cursor + 1 : self.cursor + 1 + LOOKAHEAD]
        for index, step in enumerate(horizon, self.cursor + 1):
            if step.node == here:
                self.cursor = index
                return self._current_step(state, feedback, memory)
        return None

    def _dismiss_popup(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        for view in state.elements:
            if view.role == "button" and is_dismissal(view.label):
                self.pending = None
                return Proposal(
                    Action.click(view.center.x, view.center.y), view, "dismiss the pop-up"
                )
        return None

    def _navigate(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        here = self._here(state)
        if self.mode != "graph":
            return None
        if self.script[self.cursor].home and not is_home(state.app):
            self.pending = None  # home is one key away from anywhere
            return Proposal(Action(ActionType.PRESS_HOME), reason="the next step starts at home")
        if here is None:
            return None
        if not self.route or self.route[0].node != here:
            self.route = self._route(here, self.script[self.cursor].node)
        while len(self.route) > 1 and _already_typed(self.route[0], state, memory):
            self.route.pop(0)  # the field holds the value from an earlier pass: typing appends
        if not self.route:
            return None
        proposal = self._proposal(None, self.route[0], state, memory)
        if proposal is None:
            self.route = []
        return proposal

    def _route(self, here: int, goal: int) -> list[ScriptStep]:
        import networkx as nx

        routes = self.view.routes
        if here not in routes or goal not in routes or here == goal:
            return []
        try:
            # A route worth taking is short: searching the whole graph for a far or missing
            # goal costs more than the step is worth on a large KB.
            _, path = nx.single_source_dijkstra(
                routes, here, target=goal, cutoff=ROUTE_COST_LIMIT, weight="cost"
            )
        except nx.NetworkXNoPath:
            return []
        steps: list[ScriptStep] = []
        for source, target in itertools.pairwise(path):
            edge = self.view.edges[routes.edges[source, target]["edge_id"]]
            for i, template in enumerate(edge.actions):
                jumps_to = target if i == len(edge.actions) - 1 else None
                app = self.view.nodes[source].app if source in self.view.nodes else None
                step = ScriptStep(
                    source, template, jumps_to, app, "route", label=template.target_label,
                    text=template.text,
                )  # fmt: skip
                if template.text_sources:
                    planned = self._planned_typing(source)
                    if planned is None:
                        return []  # a value this plan cannot supply: do not route through it
                    step = replace(
                        step, text=planned.text, screen_slots=planned.screen_slots,
                        fallback_source=planned.fallback_source,
                    )  # fmt: skip
                steps.append(step)
        return steps

    def _planned_typing(self, node: int) -> ScriptStep | None:
        """The plan's own typing in ``node``, to reuse when a route passes through it."""
        return next((s for s in self.script if s.node == node and s.template.type == "type"), None)

    def _fallback(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        self.pending = None
        step = self.script[self.cursor]
        if is_home(state.app):
            return None
        if step.app and state.app != step.app and not step.home:
            return Proposal(
                Action(ActionType.PRESS_HOME), reason=f"{step.app} is needed, not {state.app}"
            )
        if step.home:
            return Proposal(Action(ActionType.PRESS_HOME), reason="the next step starts at home")
        return Proposal(Action(ActionType.PRESS_BACK), reason="lost: go back")


def _first_app(script: Sequence[ScriptStep]) -> str | None:
    return next((s.app for s in script if s.app and not s.home), None)


def _already_typed(step: ScriptStep, state: SemanticState, memory: FocusMemory) -> bool:
    """A typing step whose text the focused field already shows."""
    if step.template.type != "type":
        return False
    field = state.focused_field
    shown = (field.element.text or "").strip() if field is not None else ""
    return bool(shown) and shown == step_text(step, memory).strip()


def find_value_detour(view: GraphView, here: int, step: ScriptStep) -> list[ScriptStep] | None:
    """Steps from a recorded trace leaving ``here`` that type a value and then tap it, where
    that value is of the same kind as ``step``'s (the two sites share recorded values)."""
    from guigraph.agents.script import trace_script
    from guigraph.retrieval.values import type_site

    wanted_kind = view.values.known((step.node, "click"))
    for trace in view.traces:
        if here not in trace.node_path:
            continue
        script = trace_script(trace, view.edges, view.nodes)
        start = next((i for i, s in enumerate(script) if s.node == here), None)
        if start is None:
            continue
        field, typed_at = "", None
        for i, candidate in enumerate(script[start : start + 6], start):
            kind = candidate.template.type
            if (
                kind == "type"
                and len(wanted_kind & view.values.known(type_site(candidate.node, field))) >= 2
            ):
                typed_at = i
            elif kind in ("click", "long_press"):
                if (
                    typed_at is not None
                    and len(wanted_kind & view.values.known((candidate.node, "click"))) >= 2
                ):
                    return [
                        replace(s, text=step.label, screen_slots=()) if j == typed_at
                        else replace(s, label=step.label) if j == i
                        else s
                        for j, s in enumerate(script[start : i + 1], start)
                    ]  # fmt: skip
                field = candidate.template.target_label
    return None


def _is_task_value(step: ScriptStep) -> bool:
    """A tap whose label is a value of the task (bound anew, or named by the instruction)."""
    from guigraph.retrieval.slots import content_words

    if step.label != step.template.target_label:
        return True
    return bool(content_words(step.label) & step.task_words)


def _same_app(a: str | None, b: str | None) -> bool:
    return bool(a) and (a or "").lower() == (b or "").lower()


def _id_apps(nodes: dict[int, Node]) -> dict[str, str]:
    """Which app each element key (and each id's app part, where the world's ids name one)
    belongs to, from the elements the nodes show: a value read off a screen is that app's."""
    from collections import Counter

    parse = conventions.active().parse_id
    votes: dict[str, Counter[str]] = {}
    for node in nodes.values():
        if not node.app:
            continue
        for element, key in zip(node.example_elements, node.element_keys, strict=False):
            owner = parse(str(element.get("resource_id") or "")).app
            for name in (key, owner):
                if name:
                    votes.setdefault(name, Counter())[node.app] += 1
    return {name: counts.most_common(1)[0][0] for name, counts in votes.items()}


def _remember_screen(state: SemanticState, memory: FocusMemory, step: int) -> None:
    """Keep every identified text: a later app may need a value shown here (focus memory)."""
    for view in state.elements:
        if view.element.text:
            memory.remember(f"screen:{view.key}", view.element.text, state.app, step)


def _subgoals(script: Sequence[ScriptStep]) -> tuple[SubGoal, ...]:
    goals: list[SubGoal] = []
    for step in script:
        if step.home or step.app is None:
            continue
        if goals and goals[-1].segment == step.segment and goals[-1].app == step.app:
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
        # Move past the last step first: the sub-goal (and the verifier's judgement of the
        # next proposal) must be about the step the decider is going to take.
        self.policy.advance(history)
        return self.policy.done

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        self.policy.start_in(state)
        self.policy.advance(history)
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
        self.policy.start_in(state)
        return self.policy.decide(state, history, feedback, memory)
