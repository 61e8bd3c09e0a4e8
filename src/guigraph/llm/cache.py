"""On-disk cache of model replies, keyed by the full request.

The key is the SHA-256 of the canonical JSON of everything that decides a reply: model name,
messages (images as the hashes of the bytes sent), sampling parameters and output schema.
The API key and base URL are not part of it: a secret must not reach the disk, and the same
model behind another URL gives the same answer.

SQLite in WAL mode lets many threads and processes read and write one file at once; each
thread uses its own connection, and a busy timeout makes writers queue instead of failing.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    reply TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def request_key(request: dict[str, Any]) -> str:
    """Stable hash of a request description (sorted keys, no whitespace)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Replies by request key, in one SQLite file. Shared safely by threads and processes."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        connection = self._connection()
        with connection:
            connection.executescript(_SCHEMA)
            connection.execute(
                "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    def get(self, key: str) -> dict[str, Any] | None:
        row = (
            self._connection().execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        )
        return None if row is None else dict(json.loads(row[0]))

    def put(self, key: str, model: str, reply: dict[str, Any]) -> None:
        connection = self._connection()
        with connection:
            connection.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?)",
                (key, model, json.dumps(reply, ensure_ascii=False), time.time()),
            )

    def __len__(self) -> int:
        row = self._connection().execute("SELECT COUNT(*) FROM replies").fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            for connection in self._connections:
                connection.close()
            self._connections.clear()
        self._local = threading.local()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
