"""MGA's team (``--team mga``): a semantic planner, a grounding step, a verifying memory.

MGA (Memory-driven GUI Agent) separates what the model team's decider does at once:

- the *planner* (role ``planner``) reads the task, the screen as a task-independent element
  list (no coordinates) and the verified history, and proposes a :class:`SemanticAction`:
  an action type and a target described by its text and role, or a value;
- the *grounding step* (``agents.grounding``) places it on the current screen from the UI
  elements, or through a grounding model (role ``grounder``) on a screen without a tree; a
  target it cannot place goes back to the planner as feedback and is counted as a miss;
- the *memory* (role ``memory``) compares the screens before and after each executed action
  with the action and records ``success``, ``failure`` or ``uncertain`` with the change it saw.
  Its records are the history the planner reads.

The loop (``agents.loop``) is the same as every team's; MGA has no verifier before acting
(the memory checks after), no sub-goal planner (the planner's ``done`` ends the task) and no
recovery actions (the planner reads the failure and chooses). Prompts are package data:
``prompts/mga_planner.txt``, ``mga_memory.txt``, ``grounder.txt``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from guigraph.agents.grounding import (
    ACTION_OF,
    Grounder,
    GroundingCounts,
    ModelGrounder,
)
from guigraph.agents.loop import Team
from guigraph.agents.memory import FocusMemory
from guigraph.agents.model_acting import INVALID, ReplyGuard, invalid
from guigraph.agents.model_roles import RAW_KEPT, Briefing, ModelObserver, RoleClient, ScreenText
from guigraph.agents.observer import RuleObserver
from guigraph.agents.prompting import NOTHING, fill, render_feedback, render_memory
from guigraph.agents.roles import (
    Feedback,
    HistoryEntry,
    Outcome,
    OutcomeStatus,
    Plan,
    Proposal,
    SemanticState,
    SubGoal,
)
from guigraph.agents.semantic import SemanticAction, Verb, parse_semantic, planner_schema
from guigraph.errors import ResponseParseError
from guigraph.types import Action, ActionType, Task

if TYPE_CHECKING:
    from guigraph.agents.model_team import ModelTeamOptions
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.llm.hub import ModelHub

#: Steps of verified history the planner sees (MGA's memory is append-only; the step cap
#: bounds it).
HISTORY_SHOWN = 40
_ENDING = frozenset({ActionType.COMPLETE, ActionType.IMPOSSIBLE})

#: How each verb is written in a reply (the planner's action list is made from these).
VERB_SHAPES: dict[Verb, tuple[dict[str, object], str]] = {
    Verb.CLICK: ({"action": "click", "target": {"text": "...", "role": "..."}}, "click it"),
    Verb.DOUBLE_CLICK: (
        {"action": "double_click", "target": {"text": "...", "role": "..."}},
        "double-click it (open a file)",
    ),
    Verb.LONG_PRESS: (
        {"action": "long_press", "target": {"text": "...", "role": "..."}},
        "press and hold it",
    ),
    Verb.TYPE: (
        {"action": "type", "text": "..."},
        'type into the focused field ("target": a field to type into; \\n is Enter)',
    ),
    Verb.KEY: ({"action": "key", "keys": "ctrl+s"}, "press a key or chord (enter, escape, tab)"),
    Verb.SCROLL: (
        {"action": "scroll", "direction": "up|down|left|right"},
        "swipe; the finger's direction (up shows what is further down)",
    ),
    Verb.OPEN_APP: ({"action": "open_app", "app": "..."}, "launch an app by name"),
    Verb.BACK: ({"action": "back"}, "the back button"),
    Verb.HOME: ({"action": "home"}, "the home screen"),
    Verb.RECENT: ({"action": "recent"}, "show recent apps"),
    Verb.WAIT: ({"action": "wait", "seconds": 1}, "wait for the screen to settle"),
    Verb.DONE: ({"action": "done"}, "the task is done"),
    Verb.FAIL: ({"action": "fail"}, "the task cannot be done"),
}


def verbs_for(space: Collection[ActionType]) -> frozenset[Verb]:
    """The verbs a world whose action space is ``space`` can carry out."""
    allowed = set(space)
    return frozenset(verb for verb, kind in ACTION_OF.items() if kind in allowed)


def verb_menu(verbs: Collection[Verb]) -> str:
    return "\n".join(
        f"- {json.dumps(shape)}: {meaning}"
        for verb, (shape, meaning) in VERB_SHAPES.items()
        if verb in verbs
    )


def render_screen(state: SemanticState) -> str:
    """The screen as the planner reads it: every element's role, words and state, no
    coordinates (placing is the grounding step's job)."""
    if not state.elements:
        return "(no UI tree: read the screenshot)"
    return "\n".join(
        f"[{view.index}] {view.role} {' '.join(view.label.split())[:60]!r}"
        + (f" ({', '.join(flags)})" if (flags := _flags(view.element)) else "")
        for view in state.elements
    )


def _flags(element: Any) -> list[str]:
    return [name for name in ("focused", "checked") if getattr(element, name)]


@dataclass
class EpisodeNotes:
    """What MGA's roles of one episode share: the semantic action behind the executed one,
    and the history line the memory made of it."""

    proposed: SemanticAction | None = None
    note: str = ""
    line: str = ""


class MgaPlanner:
    """Plans step by step: the whole task is one goal, and each step's semantic action comes
    from one call that reads the verified history; the grounding step places it."""

    def __init__(
        self,
        client: RoleClient,
        grounder: Grounder,
        notes: EpisodeNotes,
        action_space: Collection[ActionType],
        observer: ModelObserver | None = None,
    ):
        self.client, self.briefing, self.grounder, self.notes = (
            client, client.briefing, grounder, notes
        )  # fmt: skip
        self.action_space = frozenset(action_space)
        self.verbs = verbs_for(self.action_space)
        self.schema = planner_schema(self.verbs)
        self.observer = observer

    # -- GlobalPlanner and SubgoalPlanner: the task is the goal; ``done`` ends it --------------
    def plan(self, task: Task, context: object) -> Plan:
        self.briefing.task, self.briefing.episode, self.briefing.step = task, task.task_id, 0
        return Plan((SubGoal(task.instruction),), rationale="MGA plans one step at a time")

    def is_complete(
        self, task: Task, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState
    ) -> bool:
        self.briefing.step = len(history)
        return False

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        return plan.subgoals[0] if plan.subgoals else SubGoal(self.briefing.instruction)

    # -- Decider: plan a semantic action, ground it ------------------------------------------
    def decide(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: Sequence[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:
        self.notes.proposed, self.notes.note = None, ""
        prompt = self._prompt(state, list(history), feedback, memory)
        reply = self.client.ask(prompt, self.client.images(state), self.schema)
        if not reply.ok:
            return invalid(reply.why())
        try:
            planned = parse_semantic(reply.text)
        except ResponseParseError as exc:
            self.client.unparsed()
            return invalid(f"unparseable reply ({exc}); the reply was: {reply.text[:RAW_KEPT]!r}")
        semantic = planned.action
        if semantic.action not in self.verbs:
            allowed = ", ".join(v.value for v in Verb if v in self.verbs)
            return invalid(f"{semantic.action.value} is not possible here (allowed: {allowed})")
        placement = self.grounder.place(semantic, state)
        if placement.action is None:
            return invalid(f"grounding missed: {placement.miss}; describe the element as listed")
        if placement.action in feedback.banned:
            return invalid(f"{semantic.describe()} was already rejected or failed here")
        self.notes.proposed, self.notes.note = semantic, placement.note
        reason = planned.thought[:RAW_KEPT] or semantic.describe()
        return Proposal(placement.action, placement.target, reason, "model")

    def _prompt(
        self,
        state: SemanticState,
        history: list[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> str:
        description = self.observer.describe(state) if self.observer else ""
        screen = render_screen(state) if state.elements else self.client.elements(state)
        return fill(
            "mga_planner", instruction=self.briefing.instruction,
            context=self.briefing.context_text, history_count=len(history),
            history=verified_history(history), memory=render_memory(memory),
            feedback=render_feedback(feedback), app=state.app or "home",
            description=description, elements=screen, actions=verb_menu(self.verbs),
        )  # fmt: skip


def verified_history(history: Sequence[HistoryEntry], limit: int = HISTORY_SHOWN) -> str:
    if not history:
        return NOTHING
    shown = history[-limit:]
    skipped = (
        f"({len(history) - len(shown)} earlier steps not shown)\n"
        if len(shown) < len(history)
        else ""
    )
    return skipped + "\n".join(f"{entry.step + 1}. {entry.narrative}" for entry in shown)


class MemoryReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: OutcomeStatus
    change: str = ""

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: Any) -> Any:
        word = str(value or "").strip().lower()
        return {"succeeded": "success", "failed": "failure", "unknown": "uncertain"}.get(word, word)


MEMORY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["success", "failure", "uncertain"]},
        "change": {"type": "string"},
    },
    "required": ["verdict", "change"],
}


class MgaMemory:
    """The memory role as the loop's outcome check: each executed action judged from the
    screens before and after, with the change seen. The world's refusal needs no model; an
    unusable reply leaves the step ``uncertain`` and says so."""

    def __init__(self, client: RoleClient, notes: EpisodeNotes):
        self.client, self.briefing, self.notes = client, client.briefing, notes

    def check(
        self,
        before: SemanticState,
        proposal: Proposal,
        after: SemanticState,
        subgoal: SubGoal,
        error: str | None,
    ) -> Outcome:
        outcome = self._judge(before, proposal, after, error)
        self.notes.line = self._line(proposal, outcome)
        return outcome

    def _judge(
        self, before: SemanticState, proposal: Proposal, after: SemanticState, error: str | None
    ) -> Outcome:
        if proposal.source == INVALID:
            # No usable proposal was executed (a wait): counted as no progress by the monitor.
            return Outcome(OutcomeStatus.NO_EFFECT, f"no usable action: {proposal.reason}")
        if error:
            return Outcome(OutcomeStatus.FAILURE, f"the world refused it: {error}")
        if proposal.action.type in _ENDING:
            return Outcome(OutcomeStatus.SUCCESS, "the episode ends here")
        unchanged = before.fingerprint == after.fingerprint
        prompt = fill(
            "mga_memory", instruction=self.briefing.instruction,
            action=self._action_text(proposal), evidence=evidence(before, after),
            app_before=before.app or "home", before=self._screen(before),
            app_after=after.app or "home", after=self._screen(after),
        )  # fmt: skip
        reply = self.client.ask_json(prompt, self.client.images(before, after), MEMORY_SCHEMA)
        seen = "the screen did not change" if unchanged else "the screen changed"
        if not reply.ok:
            return Outcome(OutcomeStatus.UNCERTAIN, f"{seen}; memory reply unusable")
        try:
            judged = MemoryReply.model_validate(reply.value)
        except ValidationError:
            self.client.unparsed()
            return Outcome(OutcomeStatus.UNCERTAIN, f"{seen}; memory verdict unreadable")
        if judged.verdict is OutcomeStatus.FAILURE and unchanged:
            # A failure that changed nothing: the monitor bans repeating it here.
            return Outcome(OutcomeStatus.NO_EFFECT, judged.change or seen)
        if judged.verdict is OutcomeStatus.NO_EFFECT:
            return Outcome(OutcomeStatus.NO_EFFECT, judged.change or seen)
        return Outcome(judged.verdict, judged.change or seen)

    def _action_text(self, proposal: Proposal) -> str:
        semantic = self.notes.proposed
        said = semantic.describe() if semantic is not None else proposal.action.type.value
        if proposal.target is not None:
            said += f" (placed on {proposal.target.role} {proposal.target.label[:40]!r})"
        return said + (f"; {self.notes.note}" if self.notes.note else "")

    def _screen(self, state: SemanticState) -> str:
        return render_screen(state) if state.elements else self.client.elements(state)

    def _line(self, proposal: Proposal, outcome: Outcome) -> str:
        if proposal.source == INVALID:
            return f"no usable action -> {outcome.status.value}: {outcome.note[:RAW_KEPT]}"
        verdict = "failure" if outcome.status is OutcomeStatus.NO_EFFECT else outcome.status.value
        return f"{self._action_text(proposal)} -> {verdict}: {outcome.note}"


def evidence(before: SemanticState, after: SemanticState) -> str:
    """What changed between two screens, as plain facts the memory can weigh."""
    if before.fingerprint == after.fingerprint:
        return "the two screens are identical"
    facts = []
    if before.app != after.app:
        facts.append(f"the app changed from {before.app or 'home'} to {after.app or 'home'}")
    if after.appeared:
        facts.append("appeared: " + ", ".join(repr(t[:40]) for t in after.appeared[:8]))
    if after.disappeared:
        facts.append("disappeared: " + ", ".join(repr(t[:40]) for t in after.disappeared[:8]))
    return "; ".join(facts) or "the screen changed (layout, focus or state)"


class MgaNarrator:
    """The verified history line: the semantic action, the memory's verdict and change."""

    def __init__(self, notes: EpisodeNotes):
        self.notes = notes

    def narrate(
        self,
        before: SemanticState,
        action: Action,
        after: SemanticState,
        subgoal: SubGoal,
        outcome: Outcome,
    ) -> str:
        line, self.notes.line = self.notes.line, ""
        return line or f"{action.type.value} -> {outcome.status.value}: {outcome.note}"


def mga_team(
    kb: KnowledgeBase | None,
    view: GraphView | None,
    hub: ModelHub,
    options: ModelTeamOptions,
    grounding: GroundingCounts | None = None,
) -> Team:
    """A fresh MGA team for one episode; ``grounding`` adds up what its grounding step did."""
    from guigraph.agents.model_team import graph_context
    from guigraph.agents.team import kb_locator

    briefing = Briefing()
    screen_text = ScreenText()
    notes = EpisodeNotes()

    def client(role: str) -> RoleClient:
        return RoleClient(hub.client(role), role, briefing, options.screenshots, screen_text)

    use_graph = options.use_graph and kb is not None and view is not None
    observer = ModelObserver(client("observer")) if options.describe_screens else None
    grounder = Grounder(ModelGrounder(client("grounder")), grounding)
    planner = MgaPlanner(client("planner"), grounder, notes, options.action_space, observer)
    return Team(
        planner=planner, subgoals=planner, observer=observer or RuleObserver(), decider=planner,
        verifier=ReplyGuard(), narrator=MgaNarrator(notes),
        outcome=MgaMemory(client("memory"), notes),
        context=graph_context(kb if use_graph else None, view, options, briefing),
        locate=kb_locator(kb) if use_graph and kb is not None else None,
        max_attempts=options.max_attempts,
    )  # fmt: skip
