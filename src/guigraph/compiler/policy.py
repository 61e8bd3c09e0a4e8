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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from guigraph.compiler import fillers
from guigraph.compiler.bound import bind_trace
from guigraph.compiler.calendar import pages_to_value, paging_run, shown_month, task_month
from guigraph.compiler.fillers import SlotFiller
from guigraph.compiler.forms import in_screen_forms
from guigraph.compiler.grounding import find_target, ground, step_text
from guigraph.compiler.index import GraphView
from guigraph.compiler.script import ScriptStep, is_dismissal, is_home
from guigraph.compiler.search import Reveal, Search, recorded_reveals, value_step_ahead
from guigraph.compiler.stitch import PlanChoice, rank_plans
from guigraph.envs import conventions
from guigraph.focus import FocusMemory
from guigraph.graph.records import TextSource
from guigraph.language import tables
from guigraph.roles import (
    ElementView,
    Feedback,
    HistoryEntry,
    OutcomeStatus,
    Plan,
    Proposal,
    SemanticState,
    SubGoal,
)
from guigraph.types import Action, ActionType, ScrollDirection, Task

if TYPE_CHECKING:
    from guigraph.compiler.records import Context, RetrievedTrace

LOOKAHEAD = 8
ROUTE_COST_LIMIT = 15.0  # about seven transitions
MAX_REVEAL_SCROLLS = 3
#: How much worse a plan that starts in the app on the screen may score and still be preferred.
START_APP_MARGIN = 1.0
#: The page's own recordings looked at when the retrieved options do not fit its screen.
RECORDINGS_HERE = 16

Chooser = Callable[[SemanticState, Feedback, FocusMemory], Proposal | None]


@dataclass(frozen=True)
class PendingStep:
    """The step proposed last and not yet judged: its script index (None for a step of a
    route back to the plan) and the action grounded for it."""

    index: int | None
    action: Action


@dataclass
class PolicyState:
    """Where one episode is in its plan. ``GraphPolicy.advance`` moves it once per executed
    step (when the history grows); deciding reads it and records the step it proposes."""

    script: list[ScriptStep] = field(default_factory=list)
    cursor: int = 0
    pending: PendingStep | None = None
    route: list[ScriptStep] = field(default_factory=list)
    reveal_scrolls: int = 0
    alternatives: list[PlanChoice] = field(default_factory=list)
    detoured: set[tuple[int, str]] = field(default_factory=set)
    choice: PlanChoice | None = None
    started: bool = False
    #: Steps of the history already judged: a second call in the same step (a retried
    #: proposal, the planner then the decider) must not judge the last step again.
    judged_steps: int = 0
    #: The tabs, sections or folders opened looking for a value the task names.
    search: Search = field(default_factory=Search)
    #: The world refused going home: it cannot leave the app (a web page) it started in.
    home_refused: bool = False
    #: Months between the calendar on the screen and the task's date, when last seen, and
    #: whether pages are being turned to it (the day shows in every month: no skipping).
    months_away: int | None = None
    paging: bool = False
    #: The task and what retrieval handed for it (more recordings are bound on the way).
    task: Task | None = None
    context: Context | None = None


@dataclass
class GraphPolicy:
    view: GraphView
    mode: str = "graph"  # "graph" or "trace"
    state: PolicyState = field(default_factory=PolicyState)
    notes: list[str] = field(default_factory=list)
    #: Who fills the recorded slots for the task (``fillers``; None: the rules).
    filler: SlotFiller | None = None

    # -- planning -----------------------------------------------------------------------
    def make_plan(self, task: Task, context: Context | None) -> Plan:
        if context is None or not context.traces:
            return Plan((), rationale="no similar trace in the knowledge base")
        # Numbers as screens show them: "thirty percent" is the "30%" to tap.
        task = replace(task, instruction=in_screen_forms(task.instruction, self.view.values))
        self.state.task, self.state.context = task, context
        candidates = list(context.traces)
        if self.mode == "graph":
            candidates += context.app_traces
        with fillers.using(self.filler):
            ranked = self._ranked(task, context, candidates)
        # A trace with no step to take (a recorded run that gave up at once) is no plan.
        ranked = [option for option in ranked if option.steps]
        if not ranked:
            return Plan((), rationale="nothing to follow")
        choice, self.state.alternatives = ranked[0], ranked[1:]
        self.state.choice, self.state.script = choice, choice.steps
        how = "stitched from" if choice.stitched else "following"
        self.notes.append(f"{how} {', '.join(choice.donors)} (score {choice.score:.1f})")
        return Plan(_subgoals(self.state.script), rationale=self.notes[-1])

    def _ranked(
        self, task: Task, context: Context, candidates: list[RetrievedTrace]
    ) -> list[PlanChoice]:
        return rank_plans(
            task.instruction, candidates, self.view, fills=context.fills,
            allow_stitching=self.mode == "graph",
        )  # fmt: skip

    def start_in(self, state: SemanticState) -> None:
        """Before the first step: an option about as good as the plan that starts in the app
        already on the screen beats one that needs another app first (two sites' login pages
        take the same instruction; the episode began on one of them)."""
        if self.state.started:
            return
        self.state.started = True
        here = state.app
        if self.state.choice is None or not here or is_home(here):
            return
        if not conventions.active().home_screen:
            # No home screen leads to another app: a plan working in one, first or after this
            # one, cannot be followed here (a form's page and its pop-up variant are two
            # pages; the episode is on one). A run recorded here is.
            if _leaves(self.state.script, here):
                self._stay_in(state)
        elif _first_app(self.state.script) not in (None, here):
            self._start_in_app_on_screen(state)
        self._start_on_screen(state)
        self._start_with_pages(state)

    def _start_in_app_on_screen(self, state: SemanticState) -> None:
        """An option about as good that starts in the app on the screen (a phone's home can
        lead to the plan's app, but needs steps the option saves)."""
        assert self.state.choice is not None
        options = [*self.state.alternatives, *self._recordings_here(state)]
        for i, option in enumerate(options):
            if option.score < self.state.choice.score - START_APP_MARGIN:
                continue
            if _first_app(option.steps) == state.app:
                self.state.alternatives = options
                self._adopt(i, f"{state.app} is on the screen")
                return

    def _start_on_screen(self, state: SemanticState) -> None:
        """Several workflows recorded under one page (a form laid out several ways): where
        some of the plan's taps on its first screen name nothing on this screen, the option
        about as good that misses the fewest is the one recorded on a screen like this. The
        page's own recordings are options too: retrieval hands one run per way of working in
        a page, and a form laid out several ways is one such way."""
        missing = _taps_missing_here(self.state.script, state)
        choice = self.state.choice
        if choice is None or not missing:
            return
        options = [*self.state.alternatives, *self._recordings_here(state)]
        best: tuple[int, int] | None = None
        for i, option in enumerate(options):
            if option.score < choice.score - START_APP_MARGIN:
                continue
            its = _taps_missing_here(option.steps, state)
            if its is not None and its < (missing if best is None else best[1]):
                best = (i, its)
        if best is not None:
            self.state.alternatives = options
            self._adopt(best[0], "its first screen's targets are on this screen")

    def _start_with_pages(self, state: SemanticState) -> None:
        """The task names a date: a recording that turned a calendar's pages before tapping
        the day reaches any month, one that turned none only its own (in the same app)."""
        choice, task = self.state.choice, self.state.task
        if choice is None or task is None or _date_month(task) is None:
            return
        if pages_to_value(self.state.script):
            return
        app = _first_app(self.state.script)
        for i, option in enumerate(self.state.alternatives):
            if option.score < choice.score - START_APP_MARGIN or _first_app(option.steps) != app:
                continue
            if pages_to_value(option.steps):
                self._adopt(i, "it turns the calendar's pages")
                return

    def _turn_pages(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        """Turning a calendar's pages to the task's date: the recorded turns are cut short
        where the screen shows the date's month, and repeated while it does not and each turn
        brings it nearer. Proposes nothing itself: the script's next step does."""
        script, cursor, task = self.state.script, self.state.cursor, self.state.task
        self.state.paging = False
        run = paging_run(script, cursor) if task is not None else None
        target = _date_month(task) if run is not None and task is not None else None
        if run is None or target is None or task is None:
            return None
        shown = shown_month(list(state.texts), tables.of(task.instruction).code)
        if shown is None:
            return None
        away = abs(12 * (shown[0] - target[0]) + shown[1] - target[1])
        # One recorded turn seen to bring the month nearer tells the turn's direction (and
        # that it is a turn at all: a single tap before the day may have opened the calendar).
        nearer = self.state.months_away is not None and away < self.state.months_away
        self.state.months_away, self.state.paging = away, away > 0
        if away == 0:
            del script[cursor : run[1]]
        elif cursor == run[1] and nearer:
            script.insert(cursor, script[cursor - 1])
        return None

    def _stay_in(self, state: SemanticState) -> bool:
        """The plan needs another app and the world cannot leave this one: follow the first
        option that works in this app alone (the retrieved ones in their order, then the
        page's own recordings), however it ranked against the plan."""
        options = [*self.state.alternatives, *self._recordings_here(state)]
        here = state.app
        at = next(
            (i for i, o in enumerate(options)
             if _first_app(o.steps) == here and not _leaves(o.steps, here)),
            None,
        )  # fmt: skip
        if at is None:
            return False
        self.state.alternatives = options
        self._adopt(at, f"the world stays in {state.app}")
        self.state.cursor = 0
        self._start_with_pages(state)
        return True

    def _recordings_here(self, state: SemanticState) -> list[PlanChoice]:
        """The runs recorded on the page on the screen, ranked for the task, besides the
        options already held."""
        task, context, choice = self.state.task, self.state.context, self.state.choice
        if self.mode != "graph" or task is None or context is None or choice is None:
            return []
        if not state.app:
            return []
        held = {s.trace_id for option in (choice, *self.state.alternatives) for s in option.steps}
        candidates = [
            bind_trace(trace, task.instruction, self.view, context.fills, score)
            for trace, score in self.view.traces_in(state.app, task.instruction, RECORDINGS_HERE)
            if trace.episode_id not in held
        ]
        if not candidates:
            return []
        with fillers.using(self.filler):
            return [option for option in self._ranked(task, context, candidates) if option.steps]

    def subgoal(self) -> SubGoal:
        if not self.state.script:
            return SubGoal("nothing to follow: no plan", final=True)
        if self.done:
            return SubGoal("finish the task", final=True)
        step = self.state.script[self.state.cursor]
        # A step that leaves its app (home, another app) belongs to where it goes: the verifier
        # must not hold the team in an app the plan is done with.
        destination = self.view.nodes.get(step.jumps_to) if step.jumps_to is not None else None
        app = destination.app if destination is not None else step.app
        return SubGoal(
            f"in {step.app or 'home'}: step {self.state.cursor + 1} of {len(self.state.script)}",
            app=None if is_home(app) else app,
            target_node=str(step.node),
            segment=step.segment,
        )

    @property
    def done(self) -> bool:
        return bool(self.state.script) and self.state.cursor >= len(self.state.script)

    # -- deciding -----------------------------------------------------------------------
    def decide(
        self, state: SemanticState, history: Sequence[HistoryEntry], feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:  # fmt: skip
        self.advance(history)
        _remember_screen(state, memory, len(history))
        if not self.state.script:
            return Proposal(Action(ActionType.IMPOSSIBLE), reason="no plan")
        if self.done:
            return Proposal(Action(ActionType.COMPLETE), reason="every planned step is done")
        choosers: tuple[Chooser, ...] = (
            self._wait_for_loading, self._turn_pages, self._current_step, self._skip_ahead,
            self._dismiss_popup, self._navigate, self._fallback,
        )  # fmt: skip
        refused_back = _back_refused(history)
        self.state.home_refused = _refused(history, ActionType.PRESS_HOME)
        for choose in choosers:
            proposal = choose(state, feedback, memory)
            if proposal is None or proposal.action in feedback.banned:
                continue
            if refused_back and proposal.action.type is ActionType.PRESS_BACK:
                continue  # a world with no page to go back to (a web page) refuses it again
            return proposal
        self.state.pending = None
        back = Action(ActionType.PRESS_BACK)
        if refused_back:
            return Proposal(Action(ActionType.IMPOSSIBLE), reason="the world refuses going back")
        if back in feedback.banned and is_home(state.app):
            # Every way out of the home screen this policy knows was tried, and found nothing.
            return Proposal(Action(ActionType.IMPOSSIBLE), reason="every option was tried")
        return Proposal(back, reason="every option was banned")

    def advance(self, history: Sequence[HistoryEntry]) -> None:
        """Judge the step proposed last, once per executed step: move past it if it was
        executed and did something."""
        state = self.state
        if len(history) <= state.judged_steps:
            return
        state.judged_steps = len(history)
        if state.pending is None:
            return
        index, action = state.pending.index, state.pending.action
        state.pending = None
        last = history[-1]
        if last.action != action:
            return
        if last.outcome.status is OutcomeStatus.NO_EFFECT and index is not None:
            # An in-page step may change nothing visible (an item added to a cart off screen);
            # repeating it would not help. A step that should have left the state did fail,
            # unless the recording credited it with what the next key press did (the script
            # is mended so).
            if state.script[index].jumps_to is not None and not _late_screen(state.script, index):
                return
        elif last.outcome.status not in (OutcomeStatus.SUCCESS, OutcomeStatus.UNCERTAIN):
            return
        if index is None and state.route:
            state.route.pop(0)
        elif index is not None:
            state.cursor = index + 1
            state.reveal_scrolls = 0

    # -- what the hybrid team may ask and change ------------------------------------------
    @property
    def script(self) -> Sequence[ScriptStep]:
        """The plan's steps (read-only: change them through the methods below)."""
        return tuple(self.state.script)

    def pending_state(self) -> int | None:
        """The graph state of the script step proposed last; None for none or a route step."""
        pending = self.state.pending
        if pending is None or pending.index is None:
            return None
        return self.state.script[pending.index].node

    def take_value(self, action: Action) -> None:
        """The step proposed last is taken with another action (the model typed the value):
        judge that action instead, so that the script moves on once it is executed."""
        if self.state.pending is not None:
            self.state.pending = replace(self.state.pending, action=action)

    def follow_apps(self, apps: Sequence[str]) -> Plan | None:
        """Follow the best-ranked other option that visits ``apps`` (lower-case names) in
        that order first, before starting; None when no option does. The model knows what
        the task means (that "buy" is a purchase, not a reminder), the graph how it was done."""
        if self.state.started or self.state.cursor or not apps:
            return None
        wanted = list(apps)
        for i, option in enumerate(self.state.alternatives):
            if Plan(_subgoals(option.steps)).apps()[: len(wanted)] == wanted:
                self._adopt(i, f"the apps {', '.join(wanted)} asked for")
                return Plan(_subgoals(self.state.script), rationale=self.notes[-1])
        return None

    def end_before(self, index: int) -> None:
        """End the script before step ``index`` (another team member does the rest)."""
        del self.state.script[index:]

    def _adopt(self, index: int, why: str) -> None:
        """Follow alternative ``index`` instead of the chosen plan, which takes its place."""
        option, chosen = self.state.alternatives[index], self.state.choice
        if chosen is not None:
            self.state.alternatives[index] = chosen
        else:
            del self.state.alternatives[index]
        self.state.choice, self.state.script = option, option.steps
        self.notes.append(f"{why}: following {', '.join(option.donors)}")

    def _here(self, state: SemanticState) -> int | None:
        return int(state.node_id) if state.node_id is not None else None

    def _proposal(
        self, index: int | None, step: ScriptStep, state: SemanticState, memory: FocusMemory
    ) -> Proposal | None:
        grounded = ground(step, state, memory)
        if grounded is None:
            return None
        self.state.pending = PendingStep(index, grounded.action)
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
            self.state.pending = None
            return Proposal(Action(ActionType.WAIT, seconds=1.0), reason="the screen is loading")
        return None

    def _current_step(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        step = self.state.script[self.state.cursor]
        here = self._here(state)
        kind = step.template.type
        if step.template.taps:
            searching = self._search_for_value(state, memory)
            if searching is not None:
                return searching
            step = self.state.script[self.state.cursor]
            proposal = self._proposal(self.state.cursor, step, state, memory)
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
        if kind is ActionType.TYPE:
            typing_possible = state.focused_field is not None or not state.elements
            if not typing_possible:
                return self._refocus(state, memory)
            if _already_typed(step, state, memory) and self.state.cursor + 1 < len(
                self.state.script
            ):
                # Typing appends: a field that already holds the value (a retried step, a
                # detour back through the same search) is left as it is.
                self.state.cursor += 1
                self.state.pending = None
                return self._current_step(state, feedback, memory)
            return self._proposal(self.state.cursor, step, state, memory)
        if here != step.node and self._popup_button(state) is not None:
            # A key press planned for a screen a pop-up covers waits for the pop-up to go:
            # what the plan reads off that screen (an article's title) is under it.
            return None
        if here == step.node or _same_app(state.app, step.app) or self.mode == "trace":
            return self._proposal(self.state.cursor, step, state, memory)
        return None

    def _search_for_value(self, state: SemanticState, memory: FocusMemory) -> Proposal | None:
        """The steps ahead open something and tap a value the task names (a link in a tab):
        tap the value once it shows; while it does not, open one at a time what the
        recordings opened in this state (``search``), the recorded steps being how one
        recording found its own value, not where this one hides."""
        at = value_step_ahead(self.state.script, self.state.cursor)
        if at is None or self.state.paging:
            return None
        value_step = self.state.script[at]
        if find_target(value_step, state) is not None:
            self.state.cursor = at
            return None  # the value's own step grounds it
        here = self._here(state)
        if here not in (None, value_step.node) and not _same_app(state.app, value_step.app):
            return None
        opening = self.state.search.next_reveal(state, self._reveal_kinds(value_step))
        if opening is None:
            return None
        self.state.cursor, self.state.pending = at, None
        self.notes.append(f"looking for {value_step.label!r}: open {opening.label!r}")
        point = opening.center
        return Proposal(Action.click(point.x, point.y), opening, f"open {opening.label!r}")

    def _reveal_kinds(self, step: ScriptStep) -> list[Reveal]:
        """What recordings opened in ``step``'s state; where none did (each tree a person
        unfolded was a state of its own), what they opened anywhere in its app. The trace
        baseline knows its own trace only."""
        script = self.state.script
        if self.mode != "graph":
            return recorded_reveals({step.node}, script, (), {})
        known = self.state.search.kinds_at.get(step.node)
        if known is None:
            traces = [t for t in self.view.traces if step.node in t.node_path]
            known = recorded_reveals({step.node}, script, traces, self.view.edges)
            if not known and step.app:
                rows = self.view.rows_by_app.get(step.app, [])
                traces = [self.view.traces[row] for row in rows]
                nodes = {n for t in traces for n in t.node_path if self._app_of(n) == step.app}
                known = recorded_reveals(nodes, script, traces, self.view.edges)
            self.state.search.kinds_at[step.node] = known
        return known

    def _app_of(self, node: int) -> str | None:
        found = self.view.nodes.get(node)
        return found.app if found is not None else None

    def _refocus(self, state: SemanticState, memory: FocusMemory) -> Proposal | None:
        """Typing needs a focused field and none is (a pop-up came and went, the page drew
        itself again): tap once more the field the plan tapped to focus it."""
        if self.state.cursor == 0:
            return None
        previous = self.state.script[self.state.cursor - 1]
        if previous.template.type is not ActionType.CLICK:
            return None
        if not conventions.active().is_field_class(previous.template.target_role):
            return None
        return self._proposal(self.state.cursor - 1, previous, state, memory)

    def _detour_for_value(
        self, here: int | None, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        """The value to tap is not offered here (no conversation with Jonas yet): splice in a
        recorded way from this state that types a value of the same kind and then taps it
        (new message, type the name, pick the suggestion)."""
        step = self.state.script[self.state.cursor]
        if self.mode != "graph" or here is None or not _is_task_value(step):
            return None
        if (here, step.label) in self.state.detoured:
            return None  # that way was tried here already and still did not offer the value
        self.state.detoured.add((here, step.label))
        detour = find_value_detour(self.view, here, step)
        if detour is None:
            return None
        self.state.script[self.state.cursor : self.state.cursor + 1] = detour
        self.notes.append(f"typed {step.label!r} through another recorded way at state {here}")
        return self._current_step(state, feedback, memory)

    def _switch_plan(
        self, here: int | None, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        """This plan's next target is not on the screen where it should be (another phone's
        contact list, say): continue with the next option that passes through this state."""
        if self.mode != "graph" or here is None:
            return None
        current = {s.trace_id for s in self.state.script}
        while self.state.alternatives:
            option = self.state.alternatives.pop(0)
            if {s.trace_id for s in option.steps} == current:
                continue
            at = next((i for i, s in enumerate(option.steps) if s.node == here), None)
            if at is None:
                continue
            self.state.script, self.state.cursor = option.steps, at
            self.notes.append(f"switched to {', '.join(option.donors)} at state {here}")
            return self._current_step(state, feedback, memory)
        return None

    def _reveal(self, state: SemanticState) -> Proposal | None:
        """The target is not visible in its own state: scroll the list to find it."""
        scrollable = any(e.element.scrollable for e in state.elements)
        if self.state.reveal_scrolls >= MAX_REVEAL_SCROLLS or not scrollable:
            return None
        self.state.reveal_scrolls += 1
        self.state.pending = None
        return Proposal(Action.scroll(ScrollDirection.UP), reason="look further down the list")

    def _skip_ahead(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        here = self._here(state)
        if (
            here is None
            or here == self.state.script[self.state.cursor].node
            or self.mode == "trace"
        ):
            return None
        horizon = self.state.script[self.state.cursor + 1 : self.state.cursor + 1 + LOOKAHEAD]
        for index, step in enumerate(horizon, self.state.cursor + 1):
            if step.node == here:
                self.state.cursor = index
                return self._current_step(state, feedback, memory)
        return None

    def _dismiss_popup(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        view = self._popup_button(state)
        if view is None:
            return None
        self.state.pending = None
        return Proposal(Action.click(view.center.x, view.center.y), view, "dismiss the pop-up")

    @staticmethod
    def _popup_button(state: SemanticState) -> ElementView | None:
        """The button that closes the pop-up on screen, if one is."""
        return next(
            (v for v in state.elements if v.role == "button" and is_dismissal(v.label)), None
        )

    def _navigate(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        here = self._here(state)
        if self.mode != "graph":
            return None
        if self.state.script[self.state.cursor].home and not is_home(state.app):
            self.state.pending = None  # home is one key away from anywhere
            return Proposal(Action(ActionType.PRESS_HOME), reason="the next step starts at home")
        if here is None:
            return None
        if not self.state.route or self.state.route[0].node != here:
            self.state.route = self._route(here, self.state.script[self.state.cursor].node)
        while len(self.state.route) > 1 and _already_typed(self.state.route[0], state, memory):
            self.state.route.pop(
                0
            )  # the field holds the value from an earlier pass: typing appends
        if not self.state.route:
            return None
        proposal = self._proposal(None, self.state.route[0], state, memory)
        if proposal is None:
            self.state.route = []
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
        return next(
            (s for s in self.state.script if s.node == node and s.template.type is ActionType.TYPE),
            None,
        )

    def _fallback(
        self, state: SemanticState, feedback: Feedback, memory: FocusMemory
    ) -> Proposal | None:
        self.state.pending = None
        step = self.state.script[self.state.cursor]
        if is_home(state.app):
            return None
        if step.app and state.app != step.app and not step.home:
            if self.state.home_refused and self._stay_in(state):
                return self._current_step(state, feedback, memory)
            return Proposal(
                Action(ActionType.PRESS_HOME), reason=f"{step.app} is needed, not {state.app}"
            )
        if step.home:
            return Proposal(Action(ActionType.PRESS_HOME), reason="the next step starts at home")
        return Proposal(Action(ActionType.PRESS_BACK), reason="lost: go back")


def _late_screen(script: list[ScriptStep], index: int) -> bool:
    """Step ``index``, a key press that should have left its state, changed nothing, and the
    next step is a key press recorded in the state it should have reached: a recording whose
    screen was read late (after that next key had already changed it) credits the change to
    this step. Move the change to the next key, taken here: True when ``script`` was so
    mended (this step is then done, the next one leaves the state)."""
    if index + 1 >= len(script):
        return False
    step, after = script[index], script[index + 1]
    if (
        step.template.taps
        or step.jumps_to is None
        or after.template.type is not ActionType.KEY
        or after.node != step.jumps_to
        or after.jumps_to is not None
    ):
        return False
    script[index] = replace(step, jumps_to=None)
    script[index + 1] = replace(after, node=step.node, app=step.app, jumps_to=step.jumps_to)
    return True


def _back_refused(history: Sequence[HistoryEntry]) -> bool:
    """Whether the world refused going back in this episode (the screen stayed as it was)."""
    return _refused(history, ActionType.PRESS_BACK)


def _date_month(task: Task) -> tuple[int, int] | None:
    return task_month(task.instruction, tables.of(task.instruction).code)


def _refused(history: Sequence[HistoryEntry], kind: ActionType) -> bool:
    """Whether the world refused an action of ``kind`` in this episode (the screen stayed as
    it was)."""
    return any(
        e.action.type is kind and e.outcome.status is OutcomeStatus.FAILURE
        and e.fingerprint_before == e.fingerprint_after
        for e in history
    )  # fmt: skip


def _taps_missing_here(script: Sequence[ScriptStep], state: SemanticState) -> int | None:
    """How many of the script's taps on named elements, up to its first screen change, find
    no target on this screen (None: the script does not start with such taps in this app)."""
    first = script[0] if script else None
    if first is None or first.home or first.app not in (None, state.app):
        return None
    leading = itertools.takewhile(lambda s: s.node == first.node, script)
    taps = [s for s in leading if s.template.taps and s.label.strip()]
    if not taps:
        return None
    return sum(find_target(s, state) is None for s in taps)


def _first_app(script: Sequence[ScriptStep]) -> str | None:
    return next((s.app for s in script if s.app and not s.home), None)


def _leaves(script: Sequence[ScriptStep], app: str | None) -> bool:
    """Whether the script works in an app other than ``app`` (home screens aside)."""
    return any(s.app and not s.home and s.app != app for s in script)


def _already_typed(step: ScriptStep, state: SemanticState, memory: FocusMemory) -> bool:
    """A typing step whose text the focused field already shows."""
    if step.template.type is not ActionType.TYPE:
        return False
    field = state.focused_field
    shown = (field.element.text or "").strip() if field is not None else ""
    return bool(shown) and shown == step_text(step, memory).strip()


def find_value_detour(view: GraphView, here: int, step: ScriptStep) -> list[ScriptStep] | None:
    """Steps from a recorded trace leaving ``here`` that type a value and then tap it, where
    that value is of the same kind as ``step``'s (the two sites share recorded values)."""
    from guigraph.compiler.values import type_site

    wanted_kind = view.values.known((step.node, "click"))
    for trace in view.traces:
        if here not in trace.node_path:
            continue
        script = view.script(trace)
        start = next((i for i, s in enumerate(script) if s.node == here), None)
        if start is None:
            continue
        field, typed_at = "", None
        for i, candidate in enumerate(script[start : start + 6], start):
            kind = candidate.template.type
            if (
                kind is ActionType.TYPE
                and len(wanted_kind & view.values.known(type_site(candidate.node, field))) >= 2
            ):
                typed_at = i
            elif candidate.template.taps:
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
    from guigraph.compiler.slots import content_words

    if step.label != step.template.target_label:
        return True
    return bool(content_words(step.label) & step.task_words)


def _same_app(a: str | None, b: str | None) -> bool:
    return bool(a) and (a or "").lower() == (b or "").lower()


def _remember_screen(state: SemanticState, memory: FocusMemory, step: int) -> None:
    """Keep every identified text: a later app may need a value shown here (focus memory)."""
    for view in state.elements:
        if view.element.text:
            key = TextSource.screen(view.key).encoded()
            memory.remember(key, view.element.text, state.app, step)


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
        from guigraph.compiler.records import Context

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
