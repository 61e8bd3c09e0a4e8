"""The runner's hands on the world: act, observe, settle, and keep the time the world took.

Every action the runner takes goes through :class:`Driver`, which observes the result with
the rule observer, logs an :class:`Event` and adds the world's time (``env.step`` and the
observation it returns) to ``world_seconds``, so that the runner's own cost per step can be
measured apart from the world's (BENCHMARKS: workflow replay cost).

Settling is not healing: a loading screen is waited out and a pop-up the world's conventions
name (a rate-this-app dialog, a cookie banner) is dismissed before a step and after it, as a
person does; both are logged as events of kind ``settle``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from guigraph.agents.observer import RuleObserver
from guigraph.agents.roles import ElementView, SemanticState
from guigraph.envs import conventions
from guigraph.envs.base import Env
from guigraph.types import Action, ActionType, Observation, Task

#: Waits for a loading screen, and pop-ups dismissed in a row, before the runner gives up.
MAX_WAITS = 5
MAX_DISMISSALS = 3


@dataclass(frozen=True)
class Event:
    """One action the runner took in the world."""

    step: int | None  # the workflow step it belongs to (None: before the first)
    kind: str  # "step", "settle", "reveal", "heal", "end"
    action: Action
    reason: str
    error: str | None
    app: str | None
    screen: tuple[int, int]
    seconds: float


@dataclass
class Driver:
    env: Env
    observer: RuleObserver = field(default_factory=RuleObserver)
    events: list[Event] = field(default_factory=list)
    world_seconds: float = 0.0
    #: The CPU time this thread spent in the world's calls (the runner's own is the rest).
    world_cpu_seconds: float = 0.0
    state: SemanticState | None = None
    #: Called with each state observed (the healer localizes screens in the KB with it).
    on_state: Callable[[SemanticState], None] | None = None

    def start(self, task: Task, seed: int) -> SemanticState:
        started, cpu = time.perf_counter(), time.thread_time()
        observation = self.env.reset(task, seed)
        self.world_seconds += time.perf_counter() - started
        self.world_cpu_seconds += time.thread_time() - cpu
        return self._observe(observation)

    @property
    def now(self) -> SemanticState:
        assert self.state is not None, "the driver has not started"
        return self.state

    def act(self, action: Action, step: int | None, kind: str, reason: str) -> SemanticState:
        before = self.now
        started, cpu = time.perf_counter(), time.thread_time()
        result = self.env.step(action)
        took = time.perf_counter() - started
        self.world_seconds += took
        self.world_cpu_seconds += time.thread_time() - cpu
        screen = before.observation.screen
        self.events.append(
            Event(step, kind, action, reason, result.error, before.app,
                  (screen.width, screen.height), took)
        )  # fmt: skip
        self.last_error = result.error
        return self._observe(result.observation)

    last_error: str | None = None

    def observed(self, observation: Observation) -> SemanticState:
        """A screen another actor brought about (the graph team taking over)."""
        return self._observe(observation)

    def _observe(self, observation: Observation) -> SemanticState:
        self.state = self.observer.observe(observation, self.state)
        if self.on_state is not None:
            self.on_state(self.state)
        return self.state

    # -- settling -------------------------------------------------------------------------
    def settle(
        self, step: int | None, keep: Callable[[SemanticState], bool] | None = None
    ) -> SemanticState:
        """Wait out loading and dismiss pop-ups, unless ``keep`` says the screen is wanted as
        it is (the step's own target is on the pop-up)."""
        waits = dismissals = 0
        while True:
            state = self.now
            if conventions.active().is_loading(list(state.texts)) and waits < MAX_WAITS:
                waits += 1
                self.act(
                    Action(ActionType.WAIT, seconds=1.0), step, "settle", "the screen is loading"
                )
                continue
            if keep is not None and keep(state):
                return state
            button = popup_button(state)
            if button is not None and dismissals < MAX_DISMISSALS:
                dismissals += 1
                point = button.center
                self.act(
                    Action.click(point.x, point.y),
                    step,
                    "settle",
                    f"dismiss the pop-up ({button.label})",
                )
                continue
            return state


def popup_button(state: SemanticState) -> ElementView | None:
    """The button that closes the pop-up on screen, as the world's conventions name it."""
    closing = conventions.active().is_dismissal
    return next((v for v in state.elements if v.role == "button" and closing(v.label)), None)
