"""Token and cost accounting per role, step, episode and run.

Every model call records one ``UsageRecord`` (the numbers the server reported, the images sent,
the cost at the model's configured prices, whether the reply came from the cache, the attempts
it took, the error it ended with) into a thread-safe ``UsageLedger``; roles add the replies
they could not parse. Totals group by any of its tags. A ledger given a ``path`` rewrites that
file (atomically: a temporary file renamed over it) after every call, so a run that is killed
keeps the usage of every call it completed.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2  # 2: attempts, errors, retries, failed calls, parse failures


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
    #: HTTP requests the call took (0 for a cached reply); more than 1 means retries.
    attempts: int = 1
    #: The final error of a call that failed (no reply, no tokens); empty when it succeeded.
    error: str = ""

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
    retries: int = 0
    failed_calls: int = 0
    parse_failures: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, record: UsageRecord) -> None:
        self.calls += 1
        self.cached_calls += int(record.cached)
        self.images += record.images
        self.retries += max(0, record.attempts - 1)
        self.failed_calls += int(bool(record.error))
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
    #: Replies a role could not parse, by the role's tags.
    parse_failures: list[UsageTags] = field(default_factory=list)
    #: Where the ledger rewrites itself after each call (None: only on ``save``).
    path: Path | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _write_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, record: UsageRecord) -> None:
        with self._lock:
            self.records.append(record)
        self._autosave()

    def parse_failure(self, tags: UsageTags) -> None:
        """A role could not use a reply (recorded after its call, so counted separately)."""
        with self._lock:
            self.parse_failures.append(tags)
        self._autosave()

    def _autosave(self) -> None:
        if self.path is not None:
            self.save(self.path)

    def snapshot(self) -> list[UsageRecord]:
        with self._lock:
            return list(self.records)

    def _failures(self) -> list[UsageTags]:
        with self._lock:
            return list(self.parse_failures)

    def total(self, where: Callable[[UsageRecord], bool] | None = None) -> UsageTotals:
        totals = _sum(r for r in self.snapshot() if where is None or where(r))
        if where is None:
            totals.parse_failures = len(self._failures())
        return totals

    def by(
        self,
        key: Callable[[UsageRecord], Any],
        failure_key: Callable[[UsageTags], Any] | None = None,
    ) -> dict[Any, UsageTotals]:
        """Totals grouped by ``key``, e.g. ``ledger.by(lambda r: r.tags.role)``; parse failures
        are grouped too when ``failure_key`` (the same key on tags) is given."""
        groups: dict[Any, UsageTotals] = {}
        for record in self.snapshot():
            groups.setdefault(key(record), UsageTotals()).add(record)
        if failure_key is not None:
            for tags in self._failures():
                groups.setdefault(failure_key(tags), UsageTotals()).parse_failures += 1
        return groups

    def by_role(self) -> dict[str, UsageTotals]:
        return self.by(lambda r: r.tags.role, lambda t: t.role)

    def by_episode(self) -> dict[str, UsageTotals]:
        return self.by(lambda r: r.tags.episode, lambda t: t.episode)

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
            "parse_failures": [asdict(t) for t in self._failures()],
        }

    def save(self, path: str | Path) -> Path:
        """Write the ledger to ``path`` atomically: a reader never sees half a file."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with self._write_lock:
            text = json.dumps(self.to_dict(), indent=1)
            handle, temporary = tempfile.mkstemp(
                dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
            )
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(text)
                os.chmod(temporary, 0o644)  # as a plain write would leave it (mkstemp: 0600)
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        return target

    def summary(self) -> str:
        """A short table for the end of a run."""
        lines = [
            f"{'role':<16}{'calls':>7}{'cached':>8}{'prompt':>10}{'completion':>12}{'$':>10}"
            f"{'retries':>9}{'failed':>8}{'unparsed':>10}"
        ]
        for role, t in sorted(self.by_role().items()):
            lines.append(_row(role or "-", t))
        lines.append(_row("run", self.total()))
        return "\n".join(lines)


def _row(name: str, t: UsageTotals) -> str:
    return (
        f"{name:<16}{t.calls:>7}{t.cached_calls:>8}{t.prompt_tokens:>10}"
        f"{t.completion_tokens:>12}{t.cost_usd:>10.4f}{t.retries:>9}{t.failed_calls:>8}"
        f"{t.parse_failures:>10}"
    )


def _sum(records: Iterable[UsageRecord]) -> UsageTotals:
    totals = UsageTotals()
    for record in records:
        totals.add(record)
    return totals
