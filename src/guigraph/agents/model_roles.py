"""Model-backed planning and description roles: global planner, sub-goal planner, observer,
narrator; and the plumbing every model role shares (``Briefing``, ``RoleClient``).

A role asks its own client of the ``ModelHub`` (per-role settings: a small model may narrate
while a large one plans), tags each call with the episode and step for the usage ledger, and
parses the reply tolerantly. A reply it cannot use never raises: it falls back to a safe
answer and says so in the record it returns.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from guigraph.agents import schemas
from guigraph.agents.narrator import RuleNarrator
from guigraph.agents.observer import RuleObserver
from guigraph.agents.prompting import (
    NOTHING,
    fill,
    render_action,
    render_elements,
    render_feedback,
    render_history,
    screenshot,
)
from guigraph.agents.roles import (
    Feedback,
    HistoryEntry,
    Outcome,
    Plan,
    SemanticState,
    SubGoal,
)
from guigraph.errors import ModelCallError, ResponseParseError
from guigraph.geometry import Point, ScreenSize
from guigraph.llm.client import ChatClient
from guigraph.llm.coords import ModelCoords
from guigraph.llm.messages import user
from guigraph.llm.usage import UsageTags
from guigraph.types import Action, Observation, Task

log = logging.getLogger("guigraph.agents")
#: A reply template's placeholder, as the prompts write them: "<what to achieve>".
_PLACEHOLDER = re.compile(r"<[^<>]*>")

#: Characters of a raw reply kept in a record (enough to see what went wrong).
RAW_KEPT = 400


@dataclass
class Briefing:
    """What the model roles of one episode share: the task, its context, where the run is,
    and who proposed the step being reflected on (for hybrid narration)."""

    task: Task | None = None
    context_text: str = NOTHING
    episode: str = ""
    step: int = 0
    last_source: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def instruction(self) -> str:
        return self.task.instruction if self.task else ""


@dataclass(frozen=True)
class Reply:
    """A model reply as a role sees it: the raw text and the parsed JSON, or why not."""

    text: str
    value: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def why(self) -> str:
        return f"{self.error}; the reply was: {self.text[:RAW_KEPT]!r}"


class RoleClient:
    """One role's client: calls tagged with the episode and step, failures as data.

    A model set ``vision: false`` (or a team without screenshots) gets no image; a screen
    without a UI tree then comes as the text OCR reads on it, with centres in the model's space.
    """

    def __init__(
        self,
        client: ChatClient,
        role: str,
        briefing: Briefing,
        screenshots: bool,
        screen_text: ScreenText | None = None,
    ):
        self.client, self.role, self.briefing = client, role, briefing
        self.screenshots = screenshots and client.config.vision
        self.coords = ModelCoords.from_name(client.config.coords)
        self.screen_text = screen_text or ScreenText()

    def sent_size(self, observation: Observation) -> ScreenSize:
        return self.client.config.image_policy.sent_size(observation.screen)

    def elements(self, state: SemanticState) -> str:
        sent = self.sent_size(state.observation)
        if state.elements or self.screenshots:
            return render_elements(state, self.coords, sent)
        return self.screen_text.read(state, self.coords, sent)

    def images(self, *states: SemanticState) -> list[bytes]:
        if not self.screenshots:
            return []
        return [png for png in (screenshot(s) for s in states) if png is not None]

    def _tags(self) -> UsageTags:
        return UsageTags(self.role, self.briefing.episode, self.briefing.step)

    def ask(
        self, prompt: str, images: Sequence[bytes] = (), schema: dict[str, Any] | None = None
    ) -> Reply:
        """The reply text; a server that fails after the client's retries is a failed reply."""
        try:
            result = self.client.complete(
                [user(*images, prompt)], json_schema=schema, tags=self._tags()
            )
        except ModelCallError as exc:
            log.warning("%s call failed: %s", self.role, exc)
            return Reply("", error=f"the model call failed: {exc}")
        return Reply(result.text)

    def unparsed(self) -> None:
        """Count a reply this role could not use (in the run's usage)."""
        self.client.ledger.parse_failure(self._tags())

    def ask_json(
        self, prompt: str, images: Sequence[bytes] = (), schema: dict[str, Any] | None = None
    ) -> Reply:
        reply = self.ask(prompt, images, schema)
        if not reply.ok:
            return reply
        from guigraph.llm.parsing import extract_json

        try:
            value = extract_json(reply.text)
        except ResponseParseError as exc:
            self.unparsed()
            return Reply(reply.text, error=f"unparseable reply ({exc})")
        if not isinstance(value, dict):
            self.unparsed()
            return Reply(reply.text, error="the reply is not a JSON object")
        return Reply(reply.text, value)


class ScreenText:
    """A screen without a UI tree as text, for models that take no image: what OCR reads on
    the screenshot (extra ``ocr``), one line per text with its centre, made once per screen."""

    def __init__(self) -> None:
        self._engine: Any = None
        self._read: dict[str, list[tuple[str, Point]]] = {}
        self._missing = ""

    def read(self, state: SemanticState, coords: ModelCoords, sent: ScreenSize) -> str:
        observation = state.observation
        if not observation.has_screenshot:
            return "(no UI tree and no screenshot: nothing to read)"
        lines = self._lines(state)
        if lines is None:
            return f"(no UI tree, and no OCR to read the screenshot: {self._missing})"
        if not lines:
            return "(no UI tree; OCR found no text on the screen)"
        out = []
        for index, (text, center) in enumerate(lines):
            x, y = coords.from_point(center, observation.screen, sent)
            out.append(f"[{index}] text {text[:60]!r} at ({x:.0f}, {y:.0f})")
        return "(no UI tree; text read on the screenshot by OCR)\n" + "\n".join(out)

    def _lines(self, state: SemanticState) -> list[tuple[str, Point]] | None:
        if state.fingerprint in self._read:
            return self._read[state.fingerprint]
        if self._missing:
            return None
        from guigraph.errors import MissingExtraError

        try:
            if self._engine is None:
                from guigraph.ocr import RapidOcrEngine

                self._engine = RapidOcrEngine()
            found = self._engine.read(state.observation.png_bytes())
        except MissingExtraError as exc:
            self._missing = str(exc)
            log.warning("text-only model, screen without UI tree: %s", exc)
            return None
        lines = [(line.text, line.box.center) for line in found]
        self._read[state.fingerprint] = lines
        return lines


def _app(value: Any) -> str | None:
    text = _filled(value)
    return None if text.lower() in ("", "null", schemas.NO_APP, "home") else text


def _filled(value: Any) -> str:
    """A reply's text field, or "" where the model copied the prompt's placeholder
    ("<app name or null>"): a small model echoes the reply template it was shown, and the
    template's words are no plan."""
    text = str(value).strip() if value is not None else ""
    return "" if _PLACEHOLDER.fullmatch(text) else text


def plan_text(plan: Plan) -> str:
    if not plan.subgoals:
        return NOTHING
    return "\n".join(
        f"{i}. {g.description}" + (f" (in {g.app})" if g.app else "")
        for i, g in enumerate(plan.subgoals, 1)
    )


class ModelPlanner:
    """Global planner (plan, completion) and sub-goal planner in one: both read the progress
    reply, so a step costs one call for "done?" and "what next?" together."""

    def __init__(self, plans: RoleClient, progress: RoleClient, apps: Sequence[str] = ()):
        self.plans, self.progress = plans, progress
        self.briefing = plans.briefing
        #: The apps a plan may name (``schemas.planner``); none: any.
        self.schema = schemas.planner(apps)
        self._last: tuple[tuple[int, str, int], Reply] | None = None

    def plan(self, task: Task, context: object) -> Plan:
        text = getattr(context, "text", None) or NOTHING
        self.briefing.task, self.briefing.context_text = task, text
        self.briefing.episode, self.briefing.step = task.task_id, 0
        reply = self.plans.ask_json(
            fill("planner", instruction=task.instruction, context=text), schema=self.schema
        )
        subgoals = _subgoals(reply.value) if reply.ok else ()
        if not subgoals:
            why = reply.why() if not reply.ok else "no sub-goals in the reply"
            return Plan((SubGoal(f"carry out: {task.instruction}"),), rationale=why)
        return Plan(subgoals, rationale=str(reply.value.get("rationale", "")))

    def is_complete(
        self, task: Task, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState
    ) -> bool:
        self.briefing.step = len(history)
        reply = self._progress(plan, history, state, Feedback())
        return bool(reply.ok and reply.value.get("complete") is True)

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        reply = self._progress(plan, history, state, feedback)
        if reply.ok and reply.value.get("complete") is True:
            return SubGoal("finish the task", final=True)  # seen done while refining
        if not reply.ok or not _filled(reply.value.get("subgoal")):
            # Keep going on the plan's first sub-goal; the decider still sees the feedback.
            return plan.subgoals[0] if plan.subgoals else SubGoal("carry out the task")
        return SubGoal(_filled(reply.value["subgoal"]), _app(reply.value.get("app")))

    def _progress(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> Reply:
        key = (len(history), state.fingerprint, len(feedback.messages))
        if self._last is not None and self._last[0] == key:
            return self._last[1]  # is_complete and next_subgoal of one step share a call
        prompt = fill(
            "progress", instruction=self.briefing.instruction, plan=plan_text(plan),
            history_count=len(history), history=render_history(history),
            feedback=render_feedback(feedback), app=state.app or "home",
            elements=self.progress.elements(state),
        )  # fmt: skip
        reply = self.progress.ask_json(prompt, self.progress.images(state), schemas.PROGRESS)
        self._last = (key, reply)
        return reply


def _subgoals(value: Any) -> tuple[SubGoal, ...]:
    items = value.get("subgoals") if isinstance(value, dict) else None
    goals = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and _filled(item.get("description")):
            goals.append(SubGoal(_filled(item["description"]), _app(item.get("app"))))
        elif isinstance(item, str) and _filled(item):
            goals.append(SubGoal(_filled(item)))
    return tuple(goals)


class ModelObserver:
    """The rule observer's element list (nothing dropped), plus a model's description of the
    screen on demand, made once per distinct screen: only roles that need it pay for it."""

    def __init__(self, client: RoleClient):
        self.client = client
        self.rule = RuleObserver()
        self._descriptions: dict[str, str] = {}

    def observe(self, observation: Observation, previous: SemanticState | None) -> SemanticState:
        return self.rule.observe(observation, previous)

    def describe(self, state: SemanticState) -> str:
        if state.fingerprint not in self._descriptions:
            prompt = fill("observer", app=state.app or "home", elements=self.client.elements(state))
            reply = self.client.ask(prompt, self.client.images(state))
            self._descriptions[state.fingerprint] = " ".join(reply.text.split()) if reply.ok else ""
        return self._descriptions[state.fingerprint]


class ModelNarrator:
    """One goal-aware sentence from the model; the rule sentence when the reply is unusable."""

    def __init__(self, client: RoleClient):
        self.client = client
        self.rule = RuleNarrator()

    def narrate(
        self,
        before: SemanticState,
        action: Action,
        after: SemanticState,
        subgoal: SubGoal,
        outcome: Outcome,
    ) -> str:
        prompt = fill(
            "narrator", subgoal=subgoal.description, action=render_action(action),
            outcome=f"{outcome.status.value}: {outcome.note}", app_before=before.app or "home",
            before=_texts(before), app_after=after.app or "home", after=_texts(after),
        )  # fmt: skip
        reply = self.client.ask(prompt)
        sentence = " ".join(reply.text.split())
        if not reply.ok or not sentence:
            return self.rule.narrate(before, action, after, subgoal, outcome)
        return sentence


def _texts(state: SemanticState, limit: int = 20) -> str:
    texts = list(dict.fromkeys(state.texts))[:limit]
    return "; ".join(texts) if texts else NOTHING
