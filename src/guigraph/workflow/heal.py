"""Healing a step that failed because the application changed: done by the graph's knowledge,
never silently.

The workflow knows, from the graph, what each step is for: the state it leads to and what
the next step will need there. When a step's target is gone (renamed, moved, its id changed),
:class:`GraphHealer` looks for the element that now plays its part:

- a control whose words, id words, description, kind or place are close to the old target's
  (``Send`` -> ``Send SMS``, ``Display`` -> ``Display & brightness``) is taken when one stands
  out; a step that moves to another screen is then checked like any step;
- a step that moves to another screen and has no such control (``Cart`` became a ``Bag``
  tab at the bottom) is explored: the candidates are tried, closest first, and the one after
  which the screen is the expected state (its next step's target is there by its id, text or
  description, or its identifying elements show) is kept; a wrong one is undone with back.

When the expected state does not show after a step, the screen is accepted as that state
only when the next step's target is there by a strong locator; its identifying elements are
then taken again. Every healing records the step, why it failed, what was done instead and
the new locators; ``--update`` writes them into a revised file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.agents.roles import ACTIONABLE_ROLES, ElementView, SemanticState
from guigraph.envs import conventions
from guigraph.types import Action, ActionType
from guigraph.workflow.locate import (
    STRONG_LOCATORS,
    Found,
    caption_of,
    expected_here,
    facts_of,
    locate,
    matches,
    overlap,
    position_of,
)
from guigraph.workflow.schema import (
    Expect,
    Position,
    Step,
    StepAction,
    Target,
    fill,
    placeholders,
)

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import Node
    from guigraph.workflow.runner import Failure, StepRunner

#: A control this close to the old target (0..1) is taken without exploring.
SURE_LIKENESS = 0.6
#: It must stand out by this much from the next best.
LIKENESS_MARGIN = 0.15
#: Candidates tried when exploring one step.
MAX_PROBES = 6
#: How alike two screens' texts must be to be the same screen (a probe that went nowhere,
#: or back where it started).
SAME_SCREEN = 0.7
#: How alike (shared texts) a screen must be to a recorded state to be taken for it.
RESEMBLES = 0.2


@dataclass
class Healing:
    """One healed (or unhealable) step, as the run's summary and report show it."""

    step: int  # 0-based index of the workflow step
    reason: str  # why the step failed
    healed: bool
    how: str  # what was done instead
    resume_at: int  # the step the run goes on with
    by: str = "graph"
    actions: list[str] = field(default_factory=list)
    target: Target | None = None  # the new locators of the step's target
    expect: Expect | None = None  # the expected state's new identifying elements
    reads: dict[str, Target] = field(default_factory=dict)  # new locators of values read
    #: The healer ended the episode itself (the team said complete): the run adds no end.
    ended: bool = False
    #: Steps that took the step's place in the run (a recorded way to a value).
    replaced_by: list[Step] = field(default_factory=list)
    model_calls: int = 0
    #: Where the healed step stands in the file (``runner.Origin``; set by the runner).
    place: tuple[int, int | None] = (-1, None)

    def to_dict(self) -> dict[str, object]:
        at, within = self.place
        where: dict[str, object] = {"step": at + 1 if at >= 0 else self.step + 1}
        if at >= 0 and within is not None:
            where["otherwise_step"] = within + 1  # a step of the way taken instead
        return {
            **where,
            "reason": self.reason,
            "healed": self.healed,
            "how": self.how,
            "by": self.by,
            "actions": self.actions,
            "target": self.target.model_dump(mode="json", exclude_none=True)
            if self.target
            else None,
            "expect": self.expect.model_dump(mode="json", exclude_defaults=True)
            if self.expect
            else None,
            "model_calls": self.model_calls,
            "replaced_by": [
                s.model_dump(mode="json", exclude_defaults=True) for s in self.replaced_by
            ],
        }


class GraphHealer:
    """Heals from the workflow and the graph's recorded states (``view``, the KB's): no model
    call."""

    name = "graph"

    def __init__(self, view: GraphView | None = None, kb: KnowledgeBase | None = None) -> None:
        self.view = view
        self.kb = kb

    def heal(self, run: StepRunner, failure: Failure) -> Healing | None:
        """The step healed on its own; else, with a KB, the graph team takes over from here."""
        healing = self._heal_step(run, failure)
        if (healing is not None and healing.healed) or self.kb is None or self.view is None:
            return healing
        from guigraph.workflow.takeover import take_over

        why = healing.how if healing is not None else "no way to heal the step on its own"
        return take_over(run, failure, self.kb, self.view, why)

    def _heal_step(self, run: StepRunner, failure: Failure) -> Healing | None:
        step = run.workflow.steps[failure.step]
        if failure.acted:
            return self._reidentify(run, failure, step)
        if step.target is None or step.action not in (StepAction.TAP, StepAction.LONG_PRESS):
            return None
        field = self._field_of_form(run, failure, step)
        if field is not None:
            return field
        return self._relocate(run, failure, step, step.target)

    # -- a field of a form ----------------------------------------------------------------------
    def _field_of_form(self, run: StepRunner, failure: Failure, step: Step) -> Healing | None:
        """A field tapped to type a value into, whose caption is gone (reworded, moved): the
        form's empty fields are matched to the values the workflow types from here on, by
        their captions and what the task says around each value (``forms.assign``); the
        step's field is taken when its caption is like the value's words or when every
        empty field is to be filled (the one no other value claims)."""
        from guigraph.workflow.forms import assign, value_words
        from guigraph.workflow.forms import likeness as caption_likeness
        from guigraph.workflow.runner import instruction_for

        index = failure.step
        form = self._form_from(run, index)
        if not form:
            return None
        state = run.driver.now
        empty = [v for v in state.elements if v.role == "field" and not v.element.text.strip()]
        captions = [caption_of(v, state.elements) for v in empty]
        instruction = instruction_for(run.workflow, run.values)
        wanted = [value_words(instruction, value, near) for value, near in form]
        pick = assign(captions, wanted)[0] if empty else None
        if pick is None:
            return None
        alike = caption_likeness(captions[pick], wanted[0]) > 0
        if not alike and len(empty) != len(form):
            return None
        field = empty[pick]
        run.tap(index, step, _found(field), "heal")
        run.driver.settle(index)
        if run.driver.now.focused_field is None:
            return None
        why = "its caption is like the value's words" if alike else "no other value claims it"
        how = f"took the field captioned {captions[pick]!r} ({why})"
        return self._healed(run, failure, field, state, how, [field])

    @staticmethod
    def _form_from(run: StepRunner, index: int) -> list[tuple[str, str]]:
        """(value, recorded caption) of each field the workflow taps and types into from step
        ``index`` on, while it does."""
        steps = run.workflow.steps
        form: list[tuple[str, str]] = []
        j = index
        while j + 1 < len(steps):
            tap, typing = steps[j], steps[j + 1]
            target = tap.target
            if tap.action is not StepAction.TAP or target is None or target.role != "field":
                break
            if typing.action is not StepAction.TYPE:
                break
            form.append((fill(typing.value or "", run.values), target.near or ""))
            j += 2
        return form

    # -- the target is gone -------------------------------------------------------------------
    def _relocate(
        self, run: StepRunner, failure: Failure, step: Step, target: Target
    ) -> Healing | None:
        index = failure.step
        state = run.driver.now
        if placeholders(target.text):
            # A value of the run (the contact to text) names one element: another is wrong;
            # the graph may know another way to it (start a new conversation).
            value = fill(target.text or "", run.values)
            detour = self._value_detour(run, index, target, value)
            if detour is not None:
                return detour
            return Healing(index, failure.reason, False, f"{value!r} is not on this screen", index)
        ranked = rank_candidates(target, state, run.values)
        if not ranked:
            return Healing(index, failure.reason, False, "no control on this screen to try", index)
        best, likeness = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else 0.0
        tried: list[ElementView] = []
        only = [v for v, _ in ranked if v.role != "field"]
        if target.role != "field" and len(only) == 1 and only[0] is best:
            # The screen's one control (a form's button, reworded): nothing else to mistake.
            tried.append(best)
            run.tap(index, step, _found(best), "heal")
            run.driver.settle(index)
            if step.expect is None or self._arrived(run, index, step):
                return self._healed(
                    run, failure, best, state, "took the screen's only control", tried
                )
            return Healing(
                index, failure.reason, False,
                f"tapped {best.label!r}, the screen's only control, but the expected state did "
                "not come", index, actions=[f"tap {best.label!r}"],
            )  # fmt: skip
        if likeness >= SURE_LIKENESS and likeness - second >= LIKENESS_MARGIN:
            tried.append(best)
            run.tap(index, step, _found(best), "heal")
            run.driver.settle(index)
            if self._arrived(run, index, step):
                return self._healed(run, failure, best, state, "took the closest control", tried)
            if not leaves_screen(run, index) or not self._undo(run, index, state):
                return Healing(
                    index, failure.reason, False,
                    f"tapped {best.label!r}, the closest control, but the expected state did "
                    "not come", index, actions=[f"tap {best.label!r}"],
                )  # fmt: skip
        elif not leaves_screen(run, index):
            return Healing(
                index, failure.reason, False,
                f"no control stands out (closest {best.label!r}, {likeness:.2f}) and the step "
                "stays on its screen, so trying controls could change what it should not", index,
            )  # fmt: skip
        candidates = self._probe_order(run, index, target, state, ranked, tried)
        return self._explore(run, failure, step, state, candidates, tried)

    def _value_detour(
        self, run: StepRunner, index: int, target: Target, value: str
    ) -> Healing | None:
        """A recorded way from the step's state that types a value of the same kind and taps
        it, spliced into the run in place of the step (its own steps heal as any do)."""
        from guigraph.compiler.policy import find_value_detour
        from guigraph.compiler.script import ScriptStep
        from guigraph.graph.records import ActionTemplate
        from guigraph.workflow.export import detour_steps
        from guigraph.workflow.runner import summary

        steps = run.workflow.steps
        here = steps[index - 1].expect if index > 0 else None
        there = steps[index].expect
        if self.view is None or here is None or here.state is None:
            return None
        tap = ActionTemplate(type=ActionType.CLICK, target_label=value)
        wanted = ScriptStep(here.state, tap, None, here.app, "workflow", label=value)
        detour = find_value_detour(self.view, here.state, wanted)
        if not detour:
            return None
        after = there.state if there is not None else None
        spliced = detour_steps(detour, self.view, value, target.text or "", after)
        if not spliced:
            return None
        # The detour's last tap leads where the step led: it keeps the step's expectation.
        spliced[-1] = spliced[-1].model_copy(update={"expect": steps[index].expect})
        run.splice(index, spliced)
        how = (
            f"{value!r} is not on this screen; the graph's recorded way to such a value "
            f"({len(spliced)} steps: {', '.join(summary(s, run.values) for s in spliced)}) "
            "takes the step's place"
        )
        return Healing(index, f"target not found: {value!r}", True, how, index, replaced_by=spliced)

    def _probe_order(
        self, run: StepRunner, index: int, target: Target, state: SemanticState,
        ranked: list[tuple[ElementView, float]], tried: list[ElementView],
    ) -> list[ElementView]:  # fmt: skip
        """Controls worth trying, most likely first: ones the recorded screen did not show
        (the renamed target is new there; what it showed is something else), not used by
        the run already, then by likeness, then by how near the old target they are."""
        known = self._recorded_texts(run, index)
        used = set(run.tapped)
        done = {v.index for v in tried}
        centre = _centre(target.box) if target.box is not None else None

        def order(pair: tuple[ElementView, float]) -> tuple[float, ...]:
            view, like = pair
            new = not (_shown(view) & known)
            far = math.dist(centre, (view.center.x, view.center.y)) if centre else 0.0
            return (0.0 if new else 1.0, -round(like, 2), far)

        pool = [
            pair for pair in ranked
            if pair[0].index not in done and pair[0].label not in used
            and pair[0].role in ACTIONABLE_ROLES and pair[0].role != "field"
        ]  # fmt: skip
        return [view for view, _ in sorted(pool, key=order)]

    def _recorded_texts(self, run: StepRunner, index: int) -> set[str]:
        """What the recorded screen of step ``index`` showed (its graph state in the KB)."""
        if self.view is None or index == 0:
            return set()
        before = run.workflow.steps[index - 1].expect
        node = self.view.nodes.get(before.state) if before and before.state is not None else None
        if node is None:
            return set()
        return {
            t.strip().lower() for e in node.example_elements for t in (e.text, e.content_desc) if t
        }

    def _explore(
        self, run: StepRunner, failure: Failure, step: Step, start: SemanticState,
        candidates: list[ElementView], tried: list[ElementView],
    ) -> Healing:  # fmt: skip
        index = failure.step
        for view in candidates[:MAX_PROBES]:
            tried.append(view)
            run.tap(index, step, _found(view), "heal")
            run.driver.settle(index)
            if self._arrived(run, index, step):
                how = (
                    f"explored {len(tried)} control(s); {view.label!r} leads to the expected state"
                )
                return self._healed(run, failure, view, start, how, tried)
            if not self._undo(run, index, start):
                break
        labels = ", ".join(repr(v.label) for v in tried)
        return Healing(
            index,
            failure.reason,
            False,
            f"explored {labels}: none led to the expected state",
            index,
        )

    def _undo(self, run: StepRunner, index: int, start: SemanticState) -> bool:
        """Back to the screen the probe started on; False when that cannot be done."""
        if likeness_of_screens(run.driver.now, start) >= SAME_SCREEN:
            return True  # the probe changed little (a toast): nothing to undo
        run.driver.act(Action(ActionType.PRESS_BACK), index, "heal", "undo a probe")
        run.driver.settle(index)
        return likeness_of_screens(run.driver.now, start) >= SAME_SCREEN

    def _arrived(self, run: StepRunner, index: int, step: Step) -> bool:
        """Whether the screen is where the step leads. When the next step taps something,
        only its target named here (by id, text, description or caption) says so; when it
        types, a focused field; else the expected state's elements, or the screen being
        closer to the recorded state it leads to than to the one it left."""
        state = run.driver.now
        following = run.workflow.steps[index + 1] if index + 1 < len(run.workflow.steps) else None
        if not leaves_screen(run, index) and run.driver.state is not None:
            return True  # an in-page step (add to cart) stays: its control was the closest one
        if following is not None and following.target is not None:
            return strongly_located(following.target, state, run.values)
        if following is not None and following.action is StepAction.TYPE:
            return state.focused_field is not None
        if (
            step.expect is not None
            and step.expect.shows
            and expected_here(step.expect, state, run.values)
        ):
            return True
        return self._resembles_expected(run, index, state)

    def _resembles_expected(self, run: StepRunner, index: int, state: SemanticState) -> bool:
        """Whether the screen's texts are closer to the recorded screen of the state the step
        leads to than to the one it was taken in (the graph's states, from the KB)."""
        steps = run.workflow.steps
        there = steps[index].expect
        here = steps[index - 1].expect if index > 0 else None
        if self.view is None or there is None or there.state is None:
            return False
        target = self.view.nodes.get(there.state)
        if target is None:
            return False
        shown = {t.strip().lower() for t in state.texts}
        to_target = _jaccard(shown, _node_texts(target))
        source = self.view.nodes.get(here.state) if here and here.state is not None else None
        to_source = _jaccard(shown, _node_texts(source)) if source is not None else 0.0
        return to_target >= RESEMBLES and to_target > to_source

    def _healed(
        self, run: StepRunner, failure: Failure, view: ElementView, before: SemanticState,
        how: str, tried: list[ElementView],
    ) -> Healing:  # fmt: skip
        index = failure.step
        step = run.workflow.steps[index]
        target = locators_of(view, before, step.target)
        expect = refreshed_expect(step.expect, run.driver.now)
        actions = [f"tap {v.label!r}" for v in tried]
        problem = run.read(index)
        reads: dict[str, Target] = {}
        if problem is not None:
            reread = self._reread(run, problem, step)
            if not reread.healed:
                how = f"{how}; but {problem.reason}"
                return Healing(index, failure.reason, False, how, index, actions=actions)
            how, reads = f"{how}; {reread.how}", reread.reads
        return Healing(
            index, failure.reason, True, how, index + 1, actions=actions, target=target,
            expect=expect, reads=reads,
        )  # fmt: skip

    # -- another screen came, or a value to read is not where it was -------------------------
    def _reidentify(self, run: StepRunner, failure: Failure, step: Step) -> Healing:
        """The step acted and the screen does not show the expected state's elements. It is
        that state under new names when the app is the expected one and either the next
        step can go on here (its target is named here; a field is focused for its typing)
        or this step's own target was found by what it is (id, text, description, caption):
        the tap was the right one, so where it led is where the workflow goes on."""
        index = failure.step
        state = run.driver.now
        if failure.kind == "read":
            return self._reread(run, failure, step)
        if failure.kind != "screen":
            return Healing(index, failure.reason, False, "the world refused the step", index)
        expected_app = step.expect.app if step.expect is not None else None
        app_ok = not expected_app or not state.app or expected_app.lower() == state.app.lower()
        evidence = self._goes_on_here(run, index, state)
        if not evidence and step.target is not None and run.found_by in STRONG_LOCATORS:
            evidence = f"its target was found by {run.found_by}"
        if not evidence and step.target is None:
            evidence = "the step needs no target"
        if not (app_ok and evidence):
            return Healing(
                index, failure.reason, False, "the screen is not the expected state", index
            )
        expect = refreshed_expect(step.expect, state)
        problem = run.read(index)
        if problem is not None:
            healing = self._reread(run, problem, step)
            if not healing.healed:
                return healing
            return Healing(
                index, failure.reason, True,
                f"the screen is the expected state under new names ({evidence}); {healing.how}",
                index + 1, expect=expect, reads=healing.reads,
            )  # fmt: skip
        return Healing(
            index, failure.reason, True,
            f"the screen is the expected state under new names ({evidence})", index + 1,
            expect=expect,
        )  # fmt: skip

    def _goes_on_here(self, run: StepRunner, index: int, state: SemanticState) -> str:
        steps = run.workflow.steps
        following = steps[index + 1] if index + 1 < len(steps) else None
        if following is None:
            return ""
        if following.target is not None and strongly_located(following.target, state, run.values):
            return "the next step's target is here"
        if following.action is StepAction.TYPE and state.focused_field is not None:
            return "a field is focused for the next step's typing"
        return ""

    def _reread(self, run: StepRunner, failure: Failure, step: Step) -> Healing:
        """Values to read that are not where their locators said: the element at the same
        rank among its kind, or in the same place, holds them now."""
        index = failure.step
        state = run.driver.now
        reads: dict[str, Target] = {}
        for name, target in step.read.items():
            if name in run.values:
                continue
            placed = Target(position=target.position, box=target.box, role=target.role)
            found = locate(placed, state, run.values) if placed.locator_order() else None
            if found is None or not found.view.element.text:
                return Healing(index, failure.reason, False, f"{name} is nowhere to read", index)
            run.values[name] = found.view.element.text
            new = locators_of(found.view, state, None)
            reads[name] = new.model_copy(update={"text": None, "description": None})
        return Healing(
            index, failure.reason, True,
            f"read {', '.join(reads)} where the same element sits now", index + 1, reads=reads,
        )  # fmt: skip


def leaves_screen(run: StepRunner, index: int) -> bool:
    """Whether the step moves to another graph state (its expected state is not the one the
    step before expected); unknown counts as moving, since exploring is then undone."""
    steps = run.workflow.steps
    here = steps[index - 1].expect if index > 0 else None
    there = steps[index].expect
    if here is None or there is None or here.state is None or there.state is None:
        return True
    return here.state != there.state


def _found(view: ElementView) -> Found:
    return Found(view, "heal")


def strongly_located(target: Target, state: SemanticState, values: Mapping[str, str]) -> bool:
    """Whether one element here is named by the target's id, text, description or caption."""
    for name in target.locator_order():
        if name in STRONG_LOCATORS and len(matches(name, target, state, values)) == 1:
            return True
    return False


# -- how alike two controls are ---------------------------------------------------------------
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _id_words(resource_id: str) -> set[str]:
    name = conventions.active().parse_id(resource_id).name if resource_id else ""
    return _words(name.replace("_", " "))


def rank_candidates(
    target: Target, state: SemanticState, values: Mapping[str, str]
) -> list[tuple[ElementView, float]]:
    """The screen's controls, closest to ``target`` first, with a likeness in 0..1."""
    scored = [
        (view, likeness(target, view, state, values))
        for view in state.elements
        if ((view.role in ACTIONABLE_ROLES or view.element.clickable) and view.role != "field")
        or view.role == target.role
    ]
    scored.sort(key=lambda pair: -pair[1])
    return scored


def likeness(
    target: Target, view: ElementView, state: SemanticState, values: Mapping[str, str]
) -> float:
    """How alike the control is to the old target: words of its text and description, words
    of its id, its kind, its rank among its kind and its place."""
    from rapidfuzz import fuzz

    score, weight = 0.0, 0.0
    text = fill(target.text, values) if target.text else ""
    if text:
        weight += 3.0
        shown = view.element.text or view.label
        ratio = fuzz.token_set_ratio(text.lower(), shown.lower()) / 100 if shown else 0.0
        score += 3.0 * (ratio if ratio >= 0.6 else 0.0)
    if target.description:
        weight += 2.0
        score += 2.0 * (
            target.description.strip().lower() == view.element.content_desc.strip().lower()
        )
    if target.id:
        old, new = _id_words(fill(target.id, values)), _id_words(view.element.resource_id)
        weight += 1.0
        score += len(old & new) / len(old | new) if old and new else 0.0
    if target.role:
        weight += 1.0
        score += view.role == target.role
    if target.position is not None and view.role == target.position.role:
        weight += 0.5
        score += 0.5 * (position_of(view, state) == target.position.index)
    if target.box is not None:
        weight += 1.0
        b = view.bbox
        near = overlap(target.box, (b.x1, b.y1, b.x2, b.y2))
        score += near
    return score / weight if weight else 0.0


def likeness_of_screens(a: SemanticState, b: SemanticState) -> float:
    one, two = set(a.texts), set(b.texts)
    if not one and not two:
        return 1.0 if a.fingerprint == b.fingerprint else 0.0
    return len(one & two) / len(one | two)


# -- the new locators -------------------------------------------------------------------------
def locators_of(view: ElementView, state: SemanticState, old: Target | None) -> Target:
    """Every locator this screen gives the element (as an export writes them)."""
    data: dict[str, object] = {}
    element = view.element
    if element.resource_id:
        data["id"] = element.resource_id
    if element.text:
        data["text"] = element.text
    if element.content_desc and element.content_desc != element.text:
        data["description"] = element.content_desc
    caption = "" if element.text or element.content_desc else caption_of(view, state.elements)
    if caption and view.role in ("field", "toggle"):
        data["near"] = caption
    elif old is not None and old.near:
        data["near"] = old.near
    data["position"] = Position(role=view.role, index=position_of(view, state))
    b = view.bbox
    data["box"] = (round(b.x1, 1), round(b.y1, 1), round(b.x2, 1), round(b.y2, 1))
    data["role"] = view.role
    return Target.model_validate(data)


def refreshed_expect(old: Expect | None, state: SemanticState) -> Expect | None:
    """The expected state with the identifying elements this screen shows now."""
    if old is None:
        return None
    return old.model_copy(update={"shows": facts_of(state)})


def _centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def _shown(view: ElementView) -> set[str]:
    element = view.element
    return {t.strip().lower() for t in (element.text, element.content_desc) if t}


def _node_texts(node: Node) -> set[str]:
    return {t.strip().lower() for e in node.example_elements for t in (e.text, e.content_desc) if t}


def _jaccard(one: set[str], two: set[str]) -> float:
    return len(one & two) / len(one | two) if one or two else 0.0
