"""Model-backed acting roles: decider, verifier, outcome check, and the reply guard.

Recovery is data, never an exception: a reply that does not parse, or names an action the
environment cannot execute, or repeats a banned action, becomes an *invalid* proposal whose
reason carries the error and the raw reply. ``ReplyGuard`` (always the team's outermost
verifier, even with ``--verify never``) rejects it, so the loop records the attempt and hands
the reason back to the decider as feedback, within the M attempts of a step.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable

from guigraph.agents import schemas
from guigraph.agents.memory import FocusMemory
from guigraph.agents.model_roles import RAW_KEPT, ModelObserver, RoleClient
from guigraph.agents.outcome import RuleOutcomeChecker
from guigraph.agents.prompting import (
    NOTHING,
    action_menu,
    coords_note,
    fill,
    render_action,
    render_feedback,
    render_history,
    render_memory,
)
from guigraph.agents.roles import (
    Feedback,
    HistoryEntry,
    Outcome,
    OutcomeStatus,
    Proposal,
    SemanticState,
    SubGoal,
    Verifier,
    VerifierVerdict,
)
from guigraph.errors import ResponseParseError
from guigraph.llm.actions import parse_action
from guigraph.types import Action, ActionType

INVALID = "invalid"
#: What an invalid proposal carries as its action: harmless if it is ever executed (after M
#: invalid attempts the loop executes the last proposal, as the paper does).
PLACEHOLDER = Action(ActionType.WAIT, seconds=0.0)
_SETTLED = {ActionType.COMPLETE, ActionType.IMPOSSIBLE, ActionType.WAIT}


def invalid(reason: str) -> Proposal:
    return Proposal(PLACEHOLDER, reason=reason, source=INVALID)


class ModelDecider:
    def __init__(
        self,
        client: RoleClient,
        action_space: Collection[ActionType],
        observer: ModelObserver | None = None,
    ):
        self.client, self.briefing = client, client.briefing
        self.action_space = frozenset(action_space)
        self.observer = observer
        self.schema = schemas.decider(self.action_space)

    def decide(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: Iterable[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:
        history = list(history)
        reply = self.client.ask(self._prompt(subgoal, state, history, feedback, memory),
                                self.client.images(state), self.schema)  # fmt: skip
        if not reply.ok:
            return invalid(reply.why())
        observation = state.observation
        try:
            action = parse_action(
                reply.text, self.client.coords, observation.screen,
                self.client.sent_size(observation),
            )  # fmt: skip
        except ResponseParseError as exc:
            self.client.unparsed()
            return invalid(f"unparseable reply ({exc}); the reply was: {reply.text[:RAW_KEPT]!r}")
        if action.type not in self.action_space:
            allowed = ", ".join(sorted(t.value for t in self.action_space))
            return invalid(
                f"{action.type.value} is not an action this environment can execute "
                f"(allowed: {allowed}); the reply was: {reply.text[:RAW_KEPT]!r}"
            )
        if action in feedback.banned:
            return invalid(f"{render_action(action)} was already rejected or failed here")
        target = state.element_at(action.point) if action.point is not None else None
        return Proposal(action, target, _thought(reply.text), "model")

    def _prompt(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: list[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> str:
        observation = state.observation
        sent = self.client.sent_size(observation)
        description = self.observer.describe(state) if self.observer else ""
        return fill(
            "decider", instruction=self.briefing.instruction, subgoal=subgoal.description,
            subgoal_app=subgoal.app or "any", context=self.briefing.context_text,
            history_count=len(history), history=render_history(history),
            memory=render_memory(memory), feedback=render_feedback(feedback),
            app=state.app or "home", description=description,
            coords_note=coords_note(self.client.coords, observation.screen, sent),
            elements=self.client.elements(state), actions=action_menu(self.action_space),
        )  # fmt: skip


def _thought(text: str) -> str:
    try:
        from guigraph.llm.parsing import extract_json

        value = extract_json(text)
    except ResponseParseError:
        return text[:RAW_KEPT]
    if isinstance(value, dict) and value.get("thought"):
        return str(value["thought"])[:RAW_KEPT]
    return text[:RAW_KEPT]


class ModelVerifier:
    """Approve or reject with feedback. An unusable reply approves (the verifier must not stall
    the episode) and says so in the verdict, which the loop records."""

    def __init__(self, client: RoleClient):
        self.client, self.briefing = client, client.briefing

    def verify(self, state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> VerifierVerdict:
        observation = state.observation
        sent = self.client.sent_size(observation)
        prompt = fill(
            "verifier", instruction=self.briefing.instruction, subgoal=subgoal.description,
            subgoal_app=subgoal.app or "any", app=state.app or "home",
            coords_note=coords_note(self.client.coords, observation.screen, sent),
            elements=self.client.elements(state), proposal=self._proposal(proposal, state),
            target=proposal.target.describe() if proposal.target else NOTHING,
            reason=proposal.reason or NOTHING,
        )  # fmt: skip
        reply = self.client.ask_json(prompt, self.client.images(state), schemas.VERIFIER)
        if not reply.ok:
            return VerifierVerdict(True, f"verifier reply unusable, approved: {reply.why()}")
        approved = reply.value.get("approved")
        feedback = str(reply.value.get("feedback") or "")
        if approved is False:
            return VerifierVerdict.reject(feedback or "the verifier rejected this action")
        return VerifierVerdict(True, feedback)

    def _proposal(self, proposal: Proposal, state: SemanticState) -> str:
        """The action as the model would have written it (points in its own space)."""
        data = proposal.action.to_dict()
        screen, sent = state.observation.screen, self.client.sent_size(state.observation)
        for name in ("point", "end"):
            point = getattr(proposal.action, name)
            if point is not None:
                x, y = self.client.coords.from_point(point, screen, sent)
                data[name] = [round(x), round(y)]
        return json.dumps(data)


class ReplyGuard:
    """Outermost verifier: invalid proposals go back as feedback; others to the inner one."""

    def __init__(self, inner: Verifier | None = None):
        self.inner = inner

    def verify(self, state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> VerifierVerdict:
        if proposal.source == INVALID:
            return VerifierVerdict.reject(proposal.reason)
        return (
            self.inner.verify(state, proposal, subgoal) if self.inner else VerifierVerdict.approve()
        )


class LayeredVerifier:
    """The rule checks first (they only reject what is certainly wrong), then the model, unless
    the proposal's source is trusted (adaptive verification: the graph or a rule vouches)."""

    def __init__(self, rule: Verifier, model: Verifier, trusted: Collection[str] = ()):
        self.rule, self.model, self.trusted = rule, model, frozenset(trusted)

    def verify(self, state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> VerifierVerdict:
        verdict = self.rule.verify(state, proposal, subgoal)
        if not verdict.approved or proposal.source in self.trusted:
            return verdict
        return self.model.verify(state, proposal, subgoal)


class ModelOutcomeChecker:
    """The rule check first (refusals, no effect, the graph's expectation met or missed); the
    model only judges what the rules leave uncertain, comparing both screenshots."""

    def __init__(self, client: RoleClient, trusted: Collection[str] = ()):
        self.client, self.briefing = client, client.briefing
        self.rule = RuleOutcomeChecker()
        self.trusted = frozenset(trusted)

    def check(
        self,
        before: SemanticState,
        proposal: Proposal,
        after: SemanticState,
        subgoal: SubGoal,
        error: str | None,
    ) -> Outcome:
        self.briefing.last_source = proposal.source
        if proposal.source == INVALID:
            # M unusable replies: the placeholder changed nothing, and the monitor must count
            # it as such, or a stubborn model would never look stuck.
            return Outcome(OutcomeStatus.NO_EFFECT, f"no usable proposal: {proposal.reason}")
        outcome = self.rule.check(before, proposal, after, subgoal, error)
        if (
            outcome.status is not OutcomeStatus.UNCERTAIN
            or proposal.source in self.trusted
            or proposal.action.type in _SETTLED
        ):
            return outcome
        prompt = fill(
            "outcome", instruction=self.briefing.instruction, subgoal=subgoal.description,
            action=render_action(proposal.action), app_before=before.app or "home",
            before=self.client.elements(before), app_after=after.app or "home",
            after=self.client.elements(after),
        )  # fmt: skip
        reply = self.client.ask_json(prompt, self.client.images(before, after), schemas.OUTCOME)
        if not reply.ok:
            return Outcome(outcome.status, f"{outcome.note}; outcome reply unusable: {reply.why()}")
        return self._read(reply.value, outcome, after)

    def _read(self, value: dict[str, object], fallback: Outcome, after: SemanticState) -> Outcome:
        try:
            status = OutcomeStatus(str(value.get("status", "")).strip().lower())
        except ValueError:
            return Outcome(fallback.status, f"{fallback.note}; unknown status {value!r}")
        note = str(value.get("note") or status.value)
        recovery = None
        raw = value.get("recovery")
        if status is OutcomeStatus.FAILURE and isinstance(raw, dict):
            try:
                recovery = parse_action(
                    json.dumps(raw), self.client.coords, after.observation.screen,
                    self.client.sent_size(after.observation),
                )  # fmt: skip
            except ResponseParseError as exc:
                note += f" (recovery unusable: {exc})"
        return Outcome(status, note, recovery)
