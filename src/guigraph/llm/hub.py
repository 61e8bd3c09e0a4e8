"""The clients of a run: one per role, sharing one usage ledger, cache and server limits.

Live runs leave the cache off (a live model should be asked afresh); offline evaluation turns
it on so that a re-run costs nothing and gives the same answers::

    hub = ModelHub(RoleModels.from_dict(settings), cache_path=run_dir / "cache.sqlite")
    plan = hub.client("planner").complete([...], tags=UsageTags(episode=eid, step=0))
    hub.save_usage(run_dir / "usage.json"); print(hub.ledger.summary())
"""

from __future__ import annotations

import threading
from pathlib import Path

from guigraph.llm.cache import ResponseCache
from guigraph.llm.client import ChatClient
from guigraph.llm.config import RoleModels
from guigraph.llm.usage import UsageLedger


class ModelHub:
    def __init__(
        self,
        models: RoleModels,
        *,
        cache_path: str | Path | None = None,
        usage_path: str | Path | None = None,
    ):
        """``usage_path``: the usage file, rewritten after every call (a killed run keeps it)."""
        self.models = models
        self.ledger = UsageLedger(path=Path(usage_path) if usage_path is not None else None)
        self.cache = ResponseCache(cache_path) if cache_path is not None else None
        self._clients: dict[str, ChatClient] = {}
        self._lock = threading.Lock()

    def client(self, role: str) -> ChatClient:
        """The client of a role (made once; clients of one server share its limit)."""
        with self._lock:
            if role not in self._clients:
                self._clients[role] = ChatClient(
                    self.models.for_role(role), role=role, ledger=self.ledger, cache=self.cache
                )
            return self._clients[role]

    def save_usage(self, path: str | Path) -> Path:
        return self.ledger.save(path)

    def close(self) -> None:
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> ModelHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
