"""The graph team takes over a run whose step could not be healed on its own.

Where a step's own healing found nothing (a contact with no conversation yet, which the
recorded plan tapped in the list; a screen no locator explains), the model-free team that
the workflow was exported from carries the rest of the task out from the screen the run is
on: its plan for the run's instruction (the workflow's, with the row's values), grounded on
this screen, skipping ahead to where the screen already is, detouring where the graph knows
a way (a new conversation), as it would in ``guigraph run``. The world is not reset: the
team starts where the workflow stopped. What it did is the healing's record.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from guigraph.envs.base import StepResult
from guigraph.envs.wrappers import EnvWrapper
from guigraph.types import Action, Observation, Task

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.workflow.heal import Healing
    from guigraph.workflow.runner import Failure, StepRunner

#: Actions the team may take to finish the task from where the workflow stopped.
TAKEOVER_STEPS = 25


class _FromHere(EnvWrapper):
    """The world as it is now: ``reset`` does not start over, it shows the current screen."""

    def __init__(self, run: StepRunner) -> None:
        super().__init__(run.driver.env)
        self.run = run
        self.last: Observation | None = None
        self.seconds = 0.0

    def reset(self, task: Task, seed: int) -> Observation:
        return self.run.driver.now.observation

    def step(self, action: Action) -> StepResult:
        started = time.perf_counter()
        result = self.env.step(action)
        self.seconds += time.perf_counter() - started
        self.last = result.observation
        return result

    def close(self) -> None:
        """The run's world outlives the team."""


def take_over(
    run: StepRunner, failure: Failure, kb: KnowledgeBase, view: GraphView, why: str
) -> Healing:
    from guigraph.agents.loop import Budget, run_episode
    from guigraph.agents.team import TeamOptions, rule_team
    from guigraph.workflow.heal import Healing
    from guigraph.workflow.runner import instruction_for

    index = failure.step
    instruction = instruction_for(run.workflow, run.values)
    world = _FromHere(run)
    team = rule_team(kb, view, TeamOptions())
    task = Task("workflow-takeover", instruction)
    result = run_episode(world, team, task, budget=Budget(TAKEOVER_STEPS))
    run.driver.world_seconds += world.seconds
    if world.last is not None:
        run.driver.observed(world.last)
    actions = [_describe(step.executed.action, step.executed.target) for step in result.steps]
    if result.finished:
        how = f"{why}; the graph team finished the task from here in {len(actions)} action(s)"
        return Healing(
            index, failure.reason, True, how, len(run.workflow.steps), by="graph team",
            actions=actions, ended=True,
        )  # fmt: skip
    how = f"{why}; the graph team could not finish the task from here ({result.reason})"
    return Healing(
        index, failure.reason, False, how, index, by="graph team", actions=actions, ended=True
    )


def _describe(action: Action, target: object) -> str:
    label = getattr(target, "label", "")
    kind = action.type.value
    if action.text is not None:
        return f"{kind} {action.text!r}"
    return f"{kind} {label!r}" if label else kind
