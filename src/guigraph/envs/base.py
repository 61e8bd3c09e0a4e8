"""The environment interface every world implements (SimPhone, replay, Android, web).

It is deliberately small, Gymnasium-style: ``reset(task, seed) -> Observation``,
``step(action) -> StepResult``, ``close()`` and the ``action_space`` it supports. Step budgets,
recording and screenshot resizing are wrappers, not branches inside environments.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from guigraph.types import Action, ActionType, Observation, Task


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

    @abstractmethod
    def reset(self, task: Task, seed: int) -> Observation:
        """Start ``task`` from its initial state; the same seed gives the same world."""

    @abstractmethod
    def step(self, action: Action) -> StepResult:
        """Carry out one action and return what the screen shows afterwards."""

    def close(self) -> None:  # noqa: B027 - most environments hold nothing to release
        """Release devices, browsers or files. Calling it twice is harmless."""

    def __enter__(self) -> Env:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
