"""Token and cost accounting per role, step, episode and run.

Every model call records one ``UsageRecord`` (the numbers the server reported, the images sent,
the cost at the model's configured prices, whether the reply came from the cache) into a
thread-safe ``UsageLedger``. Totals group by any of its tags; the ledger is saved with a run.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class UsageTags:
    """Where a call belongs; agents pass these so costs can be split afterwards."""

    role: str = ""
    episode: str = ""
    step: int | None = None


@dataclass(frozen=True, slots=True)
class UsageRecord:
    model: str
    tags: UsageTags
    prompt_tokens: int
    completion_tokens: int
    images: int
    cost_usd: float
    latency_s: float
    cached: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(slots=True)
class UsageTotals:
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    images: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, record: UsageRecord) -> None:
        self.calls += 1
        self.cached_calls += int(record.cached)
        self.images += record.images
        # A cached reply costs nothing now, whatever it cost when it was first made.
        if not record.cached:
            self.prompt_tokens += record.prompt_tokens
            self.completion_tokens += record.completion_tokens
            self.cost_usd += record.cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "total_tokens": self.total_tokens}


@dataclass
class UsageLedger:
    """All calls of a run. Safe to share between threads and event loops."""

    records: list[UsageRecord] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, record: UsageRecord) -> None:
        with self._lock:
            self.records.append(record)

    def snapshot(self) -> list[UsageRecord]:
        with self._lock:
            return list(self.records)

    def total(self, where: Callable[[UsageRecord], bool] | None = None) -> UsageTotals:
        return _sum(r for r in self.snapshot() if where is None or where(r))

    def by(self, key: Callable[[UsageRecord], Any]) -> dict[Any, UsageTotals]:
        """Totals grouped by ``key``, e.g. ``ledger.by(lambda r: r.tags.role)``."""
        groups: dict[Any, UsageTotals] = {}
        for record in self.snapshot():
            groups.setdefault(key(record), UsageTotals()).add(record)
        return groups

    def by_role(self) -> dict[str, UsageTotals]:
        return self.by(lambda r: r.tags.role)

    def by_episode(self) -> dict[str, UsageTotals]:
        return self.by(lambda r: r.tags.episode)

    def by_step(self, episode: str) -> dict[int | None, UsageTotals]:
        return {
            step: totals
            for (ep, step), totals in self.by(lambda r: (r.tags.episode, r.tags.step)).items()
            if ep == episode
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "run": self.total().to_dict(),
            "by_role": {k: v.to_dict() for k, v in sorted(self.by_role().items())},
            "by_episode": {k: v.to_dict() for k, v in sorted(self.by_episode().items())},
            "records": [
                {**asdict(r), "tags": asdict(r.tags), "total_tokens": r.total_tokens}
                for r in self.snapshot()
            ],
        }

    def save(self, path: str | Path) -> Path:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")
        return target

    def summary(self) -> str:
        """A short table for the end of a run."""
        lines = [f"{'role':<16}{'calls':>7}{'cached':>8}{'prompt':>10}{'completion':>12}{'$':>10}"]
        for role, t in sorted(self.by_role().items()):
            lines.append(_row(role or "-", t))
        lines.append(_row("run", self.total()))
        return "\n".join(lines)


def _row(name: str, t: UsageTotals) -> str:
    return (
        f"{name:<16}{t.calls:>7}{t.cached_calls:>8}{t.prompt_tokens:>10}"
        f"{t.completion_tokens:>12}{t.cost_usd:>10.4f}"
    )


def _sum(records: Iterable[UsageRecord]) -> UsageTotals:
    totals = UsageTotals()
    for record in records:
        totals.add(record)
    return totals
