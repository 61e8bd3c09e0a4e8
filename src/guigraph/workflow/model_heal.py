"""Healing by the model team (``--heal model``): a model chooses the control that now does
what a broken step did, from the step, its old locators, where it should lead and the
screen's elements; the choice is checked like the graph healer's (the next step's target is
named where it led) and undone when wrong. Everything else (another screen came, a value to
read moved) is healed as the graph healer does. Each call is counted in the run's summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from guigraph.agents.prompting import fill as fill_prompt
from guigraph.agents.roles import ElementView, SemanticState
from guigraph.llm.messages import system, user
from guigraph.workflow.heal import GraphHealer, Healing, leaves_screen
from guigraph.workflow.locate import Found
from guigraph.workflow.runner import describe_target, summary
from guigraph.workflow.schema import Step, Target, placeholders

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.llm.client import ChatClient
    from guigraph.workflow.runner import Failure, StepRunner

#: Choices asked of the model for one step (each wrong one is undone and excluded).
MAX_CHOICES = 2
SYSTEM = "You repair GUI automation scripts. Answer with one JSON object and nothing else."


class ModelHealer(GraphHealer):
    name = "model"

    def __init__(self, client: ChatClient, view: GraphView | None = None) -> None:
        super().__init__(view)  # no graph team takes over: the model heals or the run stops
        self.client = client
        self.calls = 0

    def _relocate(
        self, run: StepRunner, failure: Failure, step: Step, target: Target
    ) -> Healing | None:
        index = failure.step
        start = run.driver.now
        if placeholders(target.text):
            return super()._relocate(run, failure, step, target)  # a value is never replaced
        tried: list[ElementView] = []
        calls_before = self.calls
        for _ in range(MAX_CHOICES):
            view, reason = self._choose(run, index, step, target, start, tried)
            if view is None:
                break
            tried.append(view)
            run.tap(index, step, _found(view), "heal")
            run.driver.settle(index)
            if self._arrived(run, index, step):
                how = f"the model chose {view.label!r} ({reason})"
                healing = self._healed(run, failure, view, start, how, tried)
                healing.by, healing.model_calls = "model", self.calls - calls_before
                return healing
            if not leaves_screen(run, index) or not self._undo(run, index, start):
                break
        labels = ", ".join(repr(v.label) for v in tried) or "nothing"
        healing = Healing(
            index, failure.reason, False, f"the model chose {labels}: not the expected state",
            index, by="model", actions=[f"tap {v.label!r}" for v in tried],
        )  # fmt: skip
        healing.model_calls = self.calls - calls_before
        return healing

    def _choose(
        self, run: StepRunner, index: int, step: Step, target: Target, state: SemanticState,
        tried: list[ElementView],
    ) -> tuple[ElementView | None, str]:  # fmt: skip
        steps = run.workflow.steps
        following = steps[index + 1] if index + 1 < len(steps) else None
        expect = step.expect
        prompt = fill_prompt(
            "workflow_heal",
            instruction=run.workflow.description or run.workflow.name,
            step=summary(step, run.values),
            locators=describe_target(target, run.values),
            expected=(expect.screen or expect.app or "unknown") if expect else "unknown",
            following=summary(following, run.values) if following else "none (the last step)",
            tried=", ".join(f"[{v.index}] {v.label!r}" for v in tried) or "nothing",
            app=state.app or "unknown",
            elements="\n".join(_line(v) for v in state.elements),
        )
        self.calls += 1
        try:
            answer = self.client.complete([system(SYSTEM), user(prompt)]).json()
        except ValueError:
            return None, "the model's answer was no JSON"
        chosen = answer.get("element") if isinstance(answer, dict) else None
        reason = str(answer.get("reason", "")) if isinstance(answer, dict) else ""
        if not isinstance(chosen, int) or not 0 <= chosen < len(state.elements):
            return None, reason or "no element chosen"
        view = state.elements[chosen]
        if any(v.index == view.index for v in tried):
            return None, "the model chose a control already tried"
        return view, reason


def _line(view: ElementView) -> str:
    description = view.element.content_desc
    extra = f" ({description})" if description and description != view.label else ""
    return f"[{view.index}] {view.role} {view.label!r}{extra}"


def _found(view: ElementView) -> Found:
    return Found(view, "model")
