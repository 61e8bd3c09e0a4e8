"""Model calls, tokens and faults per episode, step and role, for the run folder.

The hub of an evaluation worker hands out :class:`MeteredClient` s: the ordinary client
(retries, backoff, ``Retry-After``) plus a count of what each call cost and what went wrong:

- ``retried``: failed attempts that the client retried (429, 5xx, timeouts, dropped
  connections, bodies that are not a completion);
- ``given_up``: calls that failed after every attempt (the role then answers as failed);
- ``unparseable``: replies that came back but could not be used (JSON roles: not a JSON
  object; the decider's are counted from its rejected proposals by the suite).

Every client of the worker shares one :class:`~guigraph.llm.limits.ConcurrencyLimit`, so the
server never sees more requests at once than the run's ``--concurrency``.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from guigraph.errors import ModelCallError, ResponseParseError
from guigraph.llm.client import ChatClient, ChatResult
from guigraph.llm.config import RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.llm.limits import ConcurrencyLimit
from guigraph.llm.usage import UsageTags

#: Roles whose replies must be a JSON object (model_roles.RoleClient.ask_json).
JSON_ROLES = frozenset({"planner", "progress", "verifier", "outcome"})
_ATTEMPTS = re.compile(r"after (\d+) attempt")


@dataclass
class RoleCounts:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    retried: int = 0
    given_up: int = 0
    unparseable: int = 0

    def add(self, other: RoleCounts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def usage(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
        }

    def faults(self) -> dict[str, int]:
        return {"retried": self.retried, "given_up": self.given_up, "unparseable": self.unparseable}


@dataclass
class EpisodeMeter:
    """One episode's counts: per role, and calls/tokens per step."""

    roles: dict[str, RoleCounts] = field(default_factory=dict)
    steps: dict[int, list[int]] = field(default_factory=dict)  # step -> [calls, prompt, compl.]

    def role(self, name: str) -> RoleCounts:
        return self.roles.setdefault(name, RoleCounts())

    def step_usage(self, step: int) -> tuple[int, int, int]:
        calls, prompt, completion = self.steps.get(step, (0, 0, 0))
        return calls, prompt, completion

    def totals(self) -> RoleCounts:
        total = RoleCounts()
        for counts in self.roles.values():
            total.add(counts)
        return total


class Meter:
    """The counts of every episode in flight in this worker (thread-safe)."""

    def __init__(self) -> None:
        self._episodes: dict[str, EpisodeMeter] = {}
        self._lock = threading.Lock()

    def episode(self, episode_id: str) -> EpisodeMeter:
        with self._lock:
            return self._episodes.setdefault(episode_id, EpisodeMeter())

    def pop(self, episode_id: str) -> EpisodeMeter:
        with self._lock:
            return self._episodes.pop(episode_id, EpisodeMeter())

    def called(self, tags: UsageTags | None, role: str, result: ChatResult, cost: float) -> None:
        episode, step = (tags.episode, tags.step) if tags is not None else ("", None)
        with self._lock:
            meter = self._episodes.setdefault(episode, EpisodeMeter())
            counts = meter.role(role)
            prompt = 0 if result.cached else result.prompt_tokens
            completion = 0 if result.cached else result.completion_tokens
            counts.calls += 1
            counts.prompt_tokens += prompt
            counts.completion_tokens += completion
            counts.cost_usd += 0.0 if result.cached else cost
            counts.retried += max(0, result.attempts - 1)
            if role in JSON_ROLES and not _is_json_object(result.text):
                counts.unparseable += 1
            row = meter.steps.setdefault(step or 0, [0, 0, 0])
            row[0] += 1
            row[1] += prompt
            row[2] += completion

    def failed(self, tags: UsageTags | None, role: str, error: ModelCallError) -> None:
        episode, step = (tags.episode, tags.step) if tags is not None else ("", None)
        found = _ATTEMPTS.search(str(error))
        attempts = int(found.group(1)) if found else 1
        with self._lock:
            meter = self._episodes.setdefault(episode, EpisodeMeter())
            counts = meter.role(role)
            counts.given_up += 1
            counts.retried += max(0, attempts - 1)
            meter.steps.setdefault(step or 0, [0, 0, 0])

    def unparseable(self, episode_id: str, role: str, count: int = 1) -> None:
        with self._lock:
            meter = self._episodes.setdefault(episode_id, EpisodeMeter())
            meter.role(role).unparseable += count


def _is_json_object(text: str) -> bool:
    from guigraph.llm.parsing import extract_json

    try:
        return isinstance(extract_json(text), dict)
    except ResponseParseError:
        return False


class MeteredClient(ChatClient):
    """A ChatClient that reports every call to a :class:`Meter`."""

    def __init__(self, *args: Any, meter: Meter, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.meter = meter

    # Both entry points (sync and async) account every answer and every failure through
    # these two, so hooking them meters each call once, cached answers included.

    def _account(self, result: ChatResult, images: int, tags: UsageTags | None) -> None:
        super()._account(result, images, tags)
        cost = self.config.prices.cost(result.prompt_tokens, result.completion_tokens)
        self.meter.called(tags, self.role, result, cost)

    def _account_failure(
        self, error: ModelCallError, images: int, attempts: int, tags: UsageTags | None
    ) -> None:
        super()._account_failure(error, images, attempts, tags)
        self.meter.failed(tags, self.role, error)


class MeteredHub(ModelHub):
    """A ModelHub whose clients are metered and share one concurrency limit."""

    def __init__(self, models: RoleModels, meter: Meter, limit: ConcurrencyLimit) -> None:
        super().__init__(models)
        self.meter = meter
        self.limit = limit
        self._metered: dict[str, MeteredClient] = {}

    def client(self, role: str) -> ChatClient:
        with self._lock:
            if role not in self._metered:
                self._metered[role] = MeteredClient(
                    self.models.for_role(role), role=role, ledger=self.ledger,
                    cache=self.cache, limit=self.limit, meter=self.meter,
                )  # fmt: skip
            return self._metered[role]

    def close(self) -> None:
        with self._lock:
            for client in self._metered.values():
                client.close()
            self._metered.clear()
        super().close()
