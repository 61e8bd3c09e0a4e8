"""The environment interface every world implements (SimPhone, replay, Android, web).

It is deliberately small, Gymnasium-style: ``reset(task, seed) -> Observation``,
``step(action) -> StepResult``, ``close()`` and the ``action_space`` it supports. Step budgets,
recording and screenshot resizing are wrappers (``envs.wrappers``), not branches inside
environments.

A world also owns what only it can know: whether the task succeeded (``evaluate``: SimPhone's
checkers, a web page's reward, a device's state), which tasks it can set up (``make_task``),
and its platform conventions (``conventions``), so one evaluation loop serves every world.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from guigraph.envs.conventions import ANDROID, Conventions
from guigraph.types import Action, ActionType, Observation, Task


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A world's verdict on the task it was reset with.

    ``success`` is the binary outcome the evaluation counts; ``reward`` keeps a world's own
    graded score where it has one (MiniWoB's reward in -1..1); ``detail`` says why, for people.
    """

    success: bool
    reward: float | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class StepResult:
    """What an environment returns after one action.

    ``error`` is set when the action could not be carried out as asked (a tap outside the
    screen, typing with no focused field): that is information for the agent, not an exception.
    ``done`` means the episode is over (the agent said complete/impossible, or the world ended it).
    """

    observation: Observation
    done: bool = False
    info: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None


class Env(ABC):
    """A world an agent acts in. Environments never import agents."""

    #: Action types this environment can execute; others are refused with an error result.
    action_space: frozenset[ActionType] = frozenset(ActionType)

    @property
    def conventions(self) -> Conventions:
        """The platform's conventions (home screen, pop-up words, id scheme, ...)."""
        return ANDROID

    @abstractmethod
    def reset(self, task: Task, seed: int) -> Observation:
        """Start ``task`` from its initial state; the same seed gives the same world."""

    @abstractmethod
    def step(self, action: Action) -> StepResult:
        """Carry out one action and return what the screen shows afterwards."""

    def close(self) -> None:  # noqa: B027 - most environments hold nothing to release
        """Release devices, browsers or files. Calling it twice is harmless."""

    def evaluate(self) -> Evaluation | None:
        """Whether the task of the last ``reset`` succeeded, or None when this world cannot
        tell (a free instruction nobody wrote a checker for)."""
        return None

    def app_names(
        self, known: Collection[str], aliases: Mapping[str, Sequence[str]] | None = None
    ) -> Mapping[str, str]:
        """The world's own name of each app ``known`` calls otherwise, mapped to that name
        (a device that reports packages, for logs that name apps by label). ``aliases``: the
        other names the knowledge base already learned for its apps (tried before the world
        is asked). A world that names apps one way only: nothing."""
        return {}

    def make_task(self, spec: str, seed: int) -> Task:
        """The task ``spec`` names in this world (a template id, ``miniwob/<name>``), seeded;
        by default any text is a free instruction that nothing can check."""
        text = spec.strip()
        if not text:
            raise ValueError("the task is empty: give a task id or an instruction")
        return Task(task_id=f"free/{seed}", instruction=text)

    def __enter__(self) -> Env:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
