"""Algorithm 1 of the paper, with the outcome check, loop detection and a step cap.

``run_episode`` is the whole control flow; roles do the thinking, callbacks do the recording.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from guigraph.agents.memory import FocusMemory
from guigraph.agents.monitor import ProgressMonitor
from guigraph.agents.roles import (
    Decider,
    Feedback,
    GlobalPlanner,
    HistoryEntry,
    Narrator,
    Observer,
    Outcome,
    OutcomeChecker,
    OutcomeStatus,
    Plan,
    Proposal,
    SemanticState,
    SubGoal,
    SubgoalPlanner,
    Verifier,
    VerifierVerdict,
)
from guigraph.envs import conventions
from guigraph.envs.base import Env
from guigraph.types import Action, ActionType, Observation, Task

Locator = Callable[[SemanticState], tuple[str | None, float]]
_END = {ActionType.COMPLETE, ActionType.IMPOSSIBLE}


@dataclass
class Team:
    """The roles of one run. ``context`` is graph RAG (task -> augmented context)."""

    planner: GlobalPlanner
    subgoals: SubgoalPlanner
    observer: Observer
    decider: Decider
    verifier: Verifier
    narrator: Narrator
    outcome: OutcomeChecker
    context: Callable[[Task], Any] = lambda task: None
    locate: Locator | None = None
    max_attempts: int = 4
    #: The apps the team knows, by the names its knowledge base gives them.
    apps: Collection[str] = ()
    #: The app part of element ids by app, as the knowledge base's screens show them.
    id_owners: Mapping[str, str] = field(default_factory=dict)
    #: The world's name of an app -> the team's (``Env.app_names``), set for each episode.
    app_names: Mapping[str, str] = field(default_factory=dict)
    #: Other names the knowledge base learned for its apps (``KnowledgeBase.app_names``):
    #: the world is asked only for the apps they do not name.
    app_aliases: Mapping[str, Sequence[str]] = field(default_factory=dict)
    #: Keeps what the world told (``{team's name: world's name}``) for the next runs.
    remember_app_names: Callable[[Mapping[str, str]], object] | None = None

    def perceive(self, observation: Observation, previous: SemanticState | None) -> SemanticState:
        observation = self._as_known(observation)
        state = self.observer.observe(observation, previous)
        if self.locate is None:
            return state
        node_id, score = self.locate(state)
        return replace(state, node_id=node_id, node_score=score)

    def _as_known(self, observation: Observation) -> Observation:
        """The observation with its app, and the app part of its element ids, named as the
        team's knowledge base names them (a device that reports packages, logs that name
        apps by label): the same screen must look the same to the graph."""
        device_name = observation.app or ""
        named = self.app_names.get(device_name)
        if named is None:
            return observation
        owner = self.id_owners.get(named)
        elements = observation.elements
        if owner and elements:
            parse = conventions.active().parse_id
            elements = tuple(
                replace(e, resource_id=f"{owner}:id/{parse(e.resource_id).name}")
                if e.resource_id and parse(e.resource_id).app == device_name
                else e
                for e in elements
            )
        return replace(observation, app=named, elements=elements)


@dataclass(frozen=True)
class Attempt:
    proposal: Proposal
    verdict: VerifierVerdict
    subgoal: SubGoal


@dataclass(frozen=True)
class LoopStep:
    """Everything one step did, as written to the trajectory."""

    step: int
    app: str | None
    node_id: str | None
    subgoal: SubGoal
    attempts: tuple[Attempt, ...]
    executed: Proposal
    error: str | None
    outcome: Outcome
    narrative: str
    timings: dict[str, float]
    recovery: bool = False


@dataclass
class EpisodeResult:
    task: Task
    plan: Plan
    steps: list[LoopStep] = field(default_factory=list)
    finished: bool = False  # the team declared COMPLETE
    reason: str = ""
    seconds: float = 0.0

    @property
    def actions(self) -> list[Action]:
        return [record.executed.action for record in self.steps]


class Callback(Protocol):
    def on_start(self, task: Task, plan: Plan, context: Any) -> None: ...

    def on_step(self, record: LoopStep, observation: Observation) -> None: ...

    def on_end(self, result: EpisodeResult) -> None: ...


@dataclass(frozen=True)
class Budget:
    max_steps: int = 30


def run_episode(
    env: Env,
    team: Team,
    task: Task,
    seed: int = 0,
    budget: Budget | None = None,
    callbacks: Sequence[Callback] = (),
) -> EpisodeResult:
    """Algorithm 1 on one task; the world's conventions are in force while the team acts."""
    with conventions.using(env.conventions):
        return _run(env, team, task, seed, budget or Budget(), callbacks)


def _run(
    env: Env, team: Team, task: Task, seed: int, budget: Budget, callbacks: Sequence[Callback]
) -> EpisodeResult:
    started = time.perf_counter()
    # Asked before the task is set up: learning a device's names for apps may open them.
    team.app_names = env.app_names(team.apps, team.app_aliases) if team.apps else {}
    if team.app_names and team.remember_app_names is not None:
        team.remember_app_names({ours: theirs for theirs, ours in team.app_names.items()})
    observation = env.reset(task, seed)
    context = team.context(task)
    plan = team.planner.plan(task, context)
    for callback in callbacks:
        callback.on_start(task, plan, context)
    result = EpisodeResult(task, plan)
    state = team.perceive(observation, None)
    history: list[HistoryEntry] = []
    memory, monitor, feedback = FocusMemory(), ProgressMonitor(), Feedback()
    while len(result.steps) < budget.max_steps:
        memory.capture_values(state.texts, state.app, len(result.steps))
        record, observation, after, done = _one_step(
            env, team, task, plan, state, history, feedback, memory, len(result.steps)
        )
        result.steps.append(record)
        entry = HistoryEntry(
            record.step,
            record.subgoal,
            record.executed.action,
            record.narrative,
            record.outcome,
            state.fingerprint,
            after.fingerprint,
        )
        history.append(entry)
        feedback = monitor.feedback_after(entry, record.error)
        for callback in callbacks:
            callback.on_step(record, observation)
        state = after
        if done or record.executed.action.type in _END:
            result.finished = record.executed.action.type is ActionType.COMPLETE
            result.reason = record.executed.action.type.value if not done else "environment done"
            break
        if record.outcome.recovery is not None and len(result.steps) < budget.max_steps:
            state = _recover(env, team, record, state, result, history, callbacks)
            recovery = result.steps[-1]
            if recovery.error:
                monitor.refused(recovery.executed.action, recovery.error)
        if monitor.stuck():
            result.reason = monitor.why_stuck
            break
    else:
        result.reason = f"step budget of {budget.max_steps} exhausted"
    result.seconds = time.perf_counter() - started
    for callback in callbacks:
        callback.on_end(result)
    return result


def _one_step(
    env: Env,
    team: Team,
    task: Task,
    plan: Plan,
    state: SemanticState,
    history: list[HistoryEntry],
    feedback: Feedback,
    memory: FocusMemory,
    step: int,
) -> tuple[LoopStep, Observation, SemanticState, bool]:
    timings: dict[str, float] = {}
    with _timer(timings, "plan"):
        if team.planner.is_complete(task, plan, history, state):
            subgoal = SubGoal("finish the task", final=True)
        else:
            subgoal = team.subgoals.next_subgoal(plan, history, state, feedback)
    attempts: list[Attempt] = []
    with _timer(timings, "decide"):
        proposal = _propose_verified(
            team, plan, subgoal, state, history, feedback, memory, attempts
        )
    subgoal = attempts[-1].subgoal
    with _timer(timings, "act"):
        result = env.step(proposal.action)
    with _timer(timings, "reflect"):
        after = team.perceive(result.observation, state)
        outcome = team.outcome.check(state, proposal, after, subgoal, result.error)
        narrative = team.narrator.narrate(state, proposal.action, after, subgoal, outcome)
    record = LoopStep(
        step, state.app, state.node_id, subgoal, tuple(attempts), proposal,
        result.error, outcome, narrative, timings,
    )  # fmt: skip
    return record, result.observation, after, result.done  # perceived once, used twice


def _propose_verified(
    team: Team,
    plan: Plan,
    subgoal: SubGoal,
    state: SemanticState,
    history: list[HistoryEntry],
    feedback: Feedback,
    memory: FocusMemory,
    attempts: list[Attempt],
) -> Proposal:
    """Lines 8-15: propose, verify, refine the sub-goal with feedback, at most M times."""
    proposal = team.decider.decide(subgoal, state, history, feedback, memory)
    for attempt in range(team.max_attempts):
        verdict = team.verifier.verify(state, proposal, subgoal)
        attempts.append(Attempt(proposal, verdict, subgoal))
        if verdict.approved or attempt == team.max_attempts - 1:
            break
        feedback.add(verdict.feedback, proposal.action)
        if not subgoal.final:
            subgoal = team.subgoals.next_subgoal(plan, history, state, feedback)
        proposal = team.decider.decide(subgoal, state, history, feedback, memory)
    return proposal  # approved, or the last proposal once the attempts are spent (Algorithm 1)


def _recover(
    env: Env,
    team: Team,
    failed: LoopStep,
    state: SemanticState,
    result: EpisodeResult,
    history: list[HistoryEntry],
    callbacks: Sequence[Callback],
) -> SemanticState:
    """Run the outcome check's recovery (e.g. back from a wrong page) as a recorded step."""
    assert failed.outcome.recovery is not None
    proposal = Proposal(failed.outcome.recovery, reason=failed.outcome.note, source="recovery")
    step_result = env.step(proposal.action)
    after = team.perceive(step_result.observation, state)
    status = OutcomeStatus.FAILURE if step_result.error else OutcomeStatus.UNCERTAIN
    outcome = Outcome(status, "recovered from the previous step")
    narrative = team.narrator.narrate(state, proposal.action, after, failed.subgoal, outcome)
    record = replace(
        failed, step=len(result.steps), app=state.app, node_id=state.node_id, attempts=(),
        executed=proposal, error=step_result.error, outcome=outcome, narrative=narrative,
        timings={}, recovery=True,
    )  # fmt: skip
    result.steps.append(record)
    history.append(
        HistoryEntry(
            record.step,
            failed.subgoal,
            proposal.action,
            narrative,
            outcome,
            state.fingerprint,
            after.fingerprint,
        )
    )
    for callback in callbacks:
        callback.on_step(record, step_result.observation)
    return after


class _timer:
    def __init__(self, sink: dict[str, float], name: str):
        self.sink, self.name = sink, name

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.sink[self.name] = self.sink.get(self.name, 0.0) + time.perf_counter() - self.started
