"""Replaying a workflow: each step's target found by its locators, its expected state checked.

``run_workflow`` is deterministic and calls no model: it settles the screen (loading,
pop-ups), finds the step's target (scrolling a list to reveal it when it is below the fold),
acts, settles again and checks the expected state, then reads the step's variables off the
screen. A step that fails — its target is not there, the world refused the action, another
screen came — goes to the healer when there is one (``heal.py``), and the run records what
was healed; without one the run stops at that step with the reason. At the end the checks
are verified and the world's checker, where the world has one for the task, gives success.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from guigraph.agents.roles import SemanticState
from guigraph.envs import conventions
from guigraph.envs.base import Env
from guigraph.types import Action, ActionType, ScrollDirection, Task
from guigraph.workflow.driver import Driver, Event
from guigraph.workflow.locate import Found, expected_here, locate, shows_text
from guigraph.workflow.schema import Step, StepAction, Target, Workflow, fill

if TYPE_CHECKING:
    from guigraph.workflow.heal import Healing

#: Scrolls to reveal a target below the fold before the step counts as failed.
MAX_REVEAL_SCROLLS = 3
#: Waits for a target while the screen is still changing (a page that lands late), and each
#: wait's length: a screen that stays the same over one wait ends the waiting.
MAX_TARGET_WAITS = 4
TARGET_WAIT_SECONDS = 0.5
#: Where a step of a run stands in its file: (the file's step, index in its ``otherwise``).
Origin = tuple[int, int | None]


@dataclass(frozen=True)
class Failure:
    """Why a step failed, in words a person reads in the summary."""

    step: int
    reason: str
    acted: bool  # the step's action was taken (the screen may have changed)
    #: What failed: "target" (not found), "refused" (by the world), "screen" (the expected
    #: state did not show), "read" (a value to read is not there), "focus" (no field).
    kind: str = "target"


class Healer(Protocol):
    """Heals a failed step from the state the run is in (graph or model team)."""

    name: str

    def heal(self, run: StepRunner, failure: Failure) -> Healing | None: ...


@dataclass
class RunResult:
    completed: bool  # every step done and every check held
    success: bool | None  # the world's checker (None: the world cannot check this task)
    steps_done: int
    failure: str = ""  # the first step that could not be done or healed, and why
    healings: list[Healing] = field(default_factory=list)
    reads: dict[str, str] = field(default_factory=dict)
    model_calls: int = 0
    seconds: float = 0.0
    world_seconds: float = 0.0
    cpu_seconds: float = 0.0  # this thread's CPU time over the run
    world_cpu_seconds: float = 0.0
    events: list[Event] = field(default_factory=list)  # every action taken, in order
    #: Steps whose target, a value of the run, was not listed: their ``otherwise`` steps ran.
    alternatives: list[dict[str, object]] = field(default_factory=list)
    #: The workflow as run: a healing may have spliced steps in (what ``--update`` revises).
    workflow: Workflow | None = None

    @property
    def ok(self) -> bool:
        return self.success if self.success is not None else self.completed

    @property
    def runner_seconds(self) -> float:
        """The runner's own time: everything but the world's steps and observations."""
        return max(0.0, self.seconds - self.world_seconds)

    @property
    def runner_cpu_seconds(self) -> float:
        """The runner's own CPU time (a figure a loaded machine does not inflate)."""
        return max(0.0, self.cpu_seconds - self.world_cpu_seconds)


@dataclass
class StepRunner:
    """One run of a workflow in one world: the state the steps and the healers share."""

    workflow: Workflow
    driver: Driver
    values: dict[str, str]  # parameters, then variables read as the run goes
    #: Labels of the controls tapped so far (healing does not try them for another step).
    tapped: list[str] = field(default_factory=list)
    #: The locator that found the last target tapped ("heal" when healing chose it).
    found_by: str = ""
    #: Where each step of ``workflow`` (as run: steps spliced in) stands in the file: the
    #: file's step and, for a step spliced in its place, its index among that step's
    #: ``otherwise``; (-1, None) for a step the file does not hold.
    origins: list[Origin] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.origins:
            self.origins = [(i, None) for i in range(len(self.workflow.steps))]

    def splice(self, index: int, steps: Sequence[Step]) -> None:
        """Steps that take step ``index``'s place in this run (its otherwise steps, or a way
        the graph knows); the last of them leads where the step led."""
        step = self.workflow.steps[index]
        last = steps[-1]
        steps = [
            *steps[:-1],
            last.model_copy(
                update={"expect": last.expect or step.expect, "read": {**step.read, **last.read}}
            ),
        ]
        at, within = self.origins[index]
        outside: Origin = (-1, None)
        places = [(at, j) if within is None else outside for j in range(len(steps))]
        self.origins[index : index + 1] = places
        old = self.workflow.steps
        self.workflow = self.workflow.model_copy(
            update={"steps": (*old[:index], *steps, *old[index + 1 :])}
        )

    def step_name(self, index: int) -> str:
        """Step ``index`` of the run as the file numbers it: ``step 2``, or ``step 2,
        otherwise step 4`` for a step of the way taken in its place."""
        at, within = self.origins[index] if index < len(self.origins) else (-1, None)
        if at < 0:
            return f"step {index + 1} of the run"
        return f"step {at + 1}" + (f", otherwise step {within + 1}" if within is not None else "")

    def take_otherwise(self, failure: Failure) -> dict[str, object] | None:
        """The step's otherwise steps in its place when its target was not found (a value the
        screen does not list); what was taken, for the run's summary."""
        step = self.workflow.steps[failure.step]
        if failure.acted or failure.kind != "target" or not step.otherwise:
            return None
        self.splice(failure.step, step.otherwise)
        return {
            "step": self.origins[failure.step][0] + 1,
            "reason": failure.reason,
            "took": [summary(s, self.values) for s in step.otherwise],
        }

    def do_step(self, index: int) -> Failure | None:
        """Step ``index`` as the file says: act, settle, check the expected state, read."""
        step = self.workflow.steps[index]
        self.driver.settle(index, keep=self._keeps(step))
        failure = self._act(index, step)
        if failure is not None:
            return failure
        self.driver.settle(index, keep=self._keeps(self._next(index)))
        if self.driver.last_error:
            return Failure(
                index, f"the world refused it: {self.driver.last_error}", True, "refused"
            )
        if step.expect is not None and not expected_here(step.expect, self.driver.now, self.values):
            reason = f"another screen came: {self.describe_screen()}"
            return Failure(index, reason, True, "screen")
        return self.read(index)

    def _keeps(self, step: Step | None) -> Callable[[SemanticState], bool] | None:
        """A screen showing ``step``'s target is kept as it is (its pop-up is the step's)."""
        if step is None or step.target is None:
            return None
        target = step.target
        return lambda state: locate(target, state, self.values) is not None

    def _next(self, index: int) -> Step | None:
        steps = self.workflow.steps
        return steps[index + 1] if index + 1 < len(steps) else None

    def _act(self, index: int, step: Step) -> Failure | None:
        action = step.action
        if action in (StepAction.TAP, StepAction.LONG_PRESS):
            assert step.target is not None
            found = self.find(index, step.target)
            if found is None:
                return Failure(
                    index, f"target not found: {describe_target(step.target, self.values)}", False
                )
            self.tap(index, step, found, "step")
            return None
        if action is StepAction.TYPE:
            return self._type(index, step)
        self.found_by = ""
        self.driver.act(plain_action(step, self.values), index, "step", step.action.value)
        return None

    def _type(self, index: int, step: Step) -> Failure | None:
        text = fill(step.value or "", self.values)
        state = self.driver.now
        focused = state.focused_field
        if step.target is not None:
            found = self.find(index, step.target)
            if found is not None and not (
                focused is not None and focused.index == found.view.index
            ):
                state = self.tap(index, step, found, "step")
                focused = state.focused_field
            elif found is None and focused is None:
                return Failure(
                    index, f"field not found: {describe_target(step.target, self.values)}", False
                )
        if focused is None and state.elements:
            return Failure(index, "no field has the focus to type into", False, "focus")
        shown = (focused.element.text or "").strip() if focused is not None else ""
        if shown != text.strip():  # typing appends: a field that holds the text is left alone
            self.driver.act(Action.type_text(text), index, "step", "type")
        return None

    def find(self, index: int, target: Target) -> Found | None:
        """The target on this screen, once it stops changing, scrolling a list down to reveal
        it if need be."""
        found = self._wait_for(index, target)
        scrolls = 0
        while found is None and scrolls < MAX_REVEAL_SCROLLS and _scrolls(self.driver.now):
            before = self.driver.now.fingerprint
            self.driver.act(Action.scroll(ScrollDirection.UP), index, "reveal", "look further down")
            scrolls += 1
            if self.driver.now.fingerprint == before:
                break
            found = locate(target, self.driver.now, self.values)
        return found

    def _wait_for(self, index: int, target: Target) -> Found | None:
        """The target, waiting while the screen still changes: the page the last action
        started may land after the screen was read (a redirect on a loaded machine), as a
        person waits for it. A screen that stays the same over a wait will not bring the
        target by waiting, so a target that is not there costs one wait."""
        found = locate(target, self.driver.now, self.values)
        waits = 0
        while found is None and waits < MAX_TARGET_WAITS:
            before = self.driver.now.fingerprint
            wait = Action(ActionType.WAIT, seconds=TARGET_WAIT_SECONDS)
            self.driver.act(wait, index, "settle", "the target is not there yet")
            waits += 1
            if self.driver.now.fingerprint == before:
                break
            found = locate(target, self.driver.now, self.values)
        return found

    def tap(self, index: int, step: Step, found: Found, kind: str) -> SemanticState:
        point = found.view.center
        self.tapped.append(found.view.label)
        self.found_by = found.locator
        if step.action is StepAction.LONG_PRESS:
            action = Action.long_press(point.x, point.y)
        else:
            action = Action.click(point.x, point.y)
        return self.driver.act(
            action, index, kind, f"tap {found.view.label!r} (by {found.locator})"
        )

    def read(self, index: int) -> Failure | None:
        for name, target in self.workflow.steps[index].read.items():
            found = locate(target, self.driver.now, self.values)
            if found is None or not found.view.element.text:
                reason = f"could not read {name}: {describe_target(target, self.values)}"
                return Failure(index, reason, True, "read")
            self.values[name] = found.view.element.text
        return None

    def checks_hold(self) -> list[str]:
        """The checks that do not hold on the last screen."""
        state = self.driver.now
        return [
            c.shows
            for c in self.workflow.checks
            if not shows_text(fill(c.shows, self.values), state)
        ]

    def describe_screen(self) -> str:
        state = self.driver.now
        texts = ", ".join(dict.fromkeys(t for t in state.texts[:6] if t))
        return f"{state.app or 'no app'}: {texts[:120]}"


def plain_action(step: Step, values: Mapping[str, str]) -> Action:
    """The action of a step that needs no element."""
    if step.action is StepAction.SCROLL:
        return Action.scroll(ScrollDirection(step.direction or "up"))
    if step.action is StepAction.BACK:
        return Action(ActionType.PRESS_BACK)
    if step.action is StepAction.HOME:
        return Action(ActionType.PRESS_HOME)
    if step.action is StepAction.OPEN_APP:
        return Action.open_app(fill(step.app or "", values))
    return Action(ActionType.WAIT, seconds=1.0)


def describe_target(target: Target, values: Mapping[str, str]) -> str:
    """The locators of a target as a person reads them: ``id 'x', text 'Cart'``."""
    parts = []
    for name in target.locator_order():
        value = getattr(target, name)
        if name in ("id", "text", "description", "near"):
            parts.append(f"{name} {fill(value, values)!r}")
        elif name == "position":
            parts.append(f"{value.role} #{value.index + 1}")
        elif name == "box":
            parts.append("box [" + ", ".join(f"{v:.0f}" for v in value) + "]")
    return ", ".join(parts) or "no locator"


def _scrolls(state: SemanticState) -> bool:
    return any(v.element.scrollable for v in state.elements)


def run_workflow(
    workflow: Workflow,
    env: Env,
    values: Mapping[str, str],
    task: Task,
    seed: int = 0,
    healer: Healer | None = None,
) -> RunResult:
    """One run of ``workflow`` with parameter ``values`` in ``env`` (reset to ``task``)."""
    started, cpu = time.perf_counter(), time.thread_time()
    driver = Driver(env)
    run = StepRunner(workflow, driver, dict(values))
    with conventions.using(env.conventions):
        driver.start(task, seed)
        result = _steps(run, healer)
        if not any(h.ended for h in result.healings):
            end = ActionType.COMPLETE if result.completed else ActionType.IMPOSSIBLE
            driver.act(Action(end), None, "end", end.value)
        verdict = env.evaluate()
    result.success = None if verdict is None else verdict.success
    result.reads = {k: v for k, v in run.values.items() if k not in values}
    result.seconds = time.perf_counter() - started
    result.world_seconds = driver.world_seconds
    result.cpu_seconds = time.thread_time() - cpu
    result.world_cpu_seconds = driver.world_cpu_seconds
    result.model_calls = sum(h.model_calls for h in result.healings)
    result.events = driver.events
    result.workflow = run.workflow
    return result


def _steps(run: StepRunner, healer: Healer | None) -> RunResult:
    result = RunResult(completed=False, success=None, steps_done=0)
    index = 0
    while index < len(run.workflow.steps):
        steps = run.workflow.steps  # a healing may splice steps in
        failure = run.do_step(index)
        if failure is not None:
            taken = run.take_otherwise(failure)
            if taken is not None:
                result.alternatives.append(taken)
                continue  # the first otherwise step runs next, at the same index
            place = run.origins[index]
            healing = healer.heal(run, failure) if healer is not None else None
            if healing is not None:
                healing.place = place
            if healing is None or not healing.healed:
                if healing is not None:
                    result.healings.append(healing)
                result.failure = (
                    f"{run.step_name(index)} ({summary(steps[index], run.values)}): "
                    f"{failure.reason}"
                )
                result.steps_done = index
                return result
            result.healings.append(healing)
            index = healing.resume_at
            continue
        index += 1
    result.steps_done = len(run.workflow.steps)
    missing = run.checks_hold()
    if missing:
        result.failure = "checks do not hold: " + "; ".join(f"shows {m!r}" for m in missing)
        return result
    result.completed = True
    return result


def summary(step: Step, values: Mapping[str, str]) -> str:
    """A step in a few words: ``tap 'Cart'``, ``type 'Nova lamp'``, ``back``."""
    if step.action is StepAction.TYPE:
        return f"type {fill(step.value or '', values)!r}"
    if step.target is not None:
        label = step.target.text or step.target.description or step.target.id or step.target.near
        if label:
            return f"{step.action.value} {fill(label, values)!r}"
        return f"{step.action.value} {describe_target(step.target, values)}"
    if step.action is StepAction.OPEN_APP:
        return f"open {step.app}"
    if step.action is StepAction.SCROLL:
        return f"scroll {step.direction}"
    return step.action.value


def instruction_for(workflow: Workflow, values: Mapping[str, str]) -> str:
    """The workflow's instruction with the run's values in place of the exported ones
    ("Buy the Nova watch" run with search=Atlas kettle: "Buy the Atlas kettle")."""
    text = workflow.description or workflow.name
    for parameter in workflow.parameters:
        old, new = parameter.default, values.get(parameter.name)
        if old and new and old != new:
            text = text.replace(old, new)
    return text


def values_from(workflow: Workflow, instruction: str) -> dict[str, str] | None:
    """The parameter values an instruction worded as the workflow's gives ("Buy the Atlas
    kettle" for "Buy the Nova watch": search=Atlas kettle); None when it is worded otherwise.
    Each parameter's default must appear once in the workflow's instruction."""
    import itertools
    import re

    text = workflow.description
    spans: list[tuple[int, int, str]] = []
    for parameter in workflow.parameters:
        old = parameter.default or ""
        if not old or text.count(old) != 1:
            continue
        start = text.index(old)
        spans.append((start, start + len(old), parameter.name))
    spans.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(spans)):
        return None  # values overlap in the instruction: no way to tell them apart
    pattern, last = "", 0
    for start, end, name in spans:
        pattern += re.escape(text[last:start]) + f"(?P<{name}>.+?)"
        last = end
    match = re.fullmatch(pattern + re.escape(text[last:]), instruction.strip())
    if match is None:
        return None
    given = match.groupdict()
    return {p.name: given.get(p.name, p.default or "") for p in workflow.parameters}
