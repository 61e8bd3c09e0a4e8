"""The knowledge base's files: creating the database whole, and refusing damaged ones.

``kb.sqlite`` is the source of truth and ``states.faiss`` a cache of it. A database that is
garbage or cut short is refused up front with its name, before any command half-runs on it;
a cache that cannot be read is rebuilt from the database with a warning.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from guigraph.errors import KnowledgeBaseError
from guigraph.graph.settings import SCHEMA_VERSION, KBSettings

logger = logging.getLogger(__name__)

DB_FILE = "kb.sqlite"
STATES_INDEX_FILE = "states.faiss"
MANIFEST_FILE = "manifest.json"

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
    node_id INTEGER PRIMARY KEY, app TEXT, description TEXT NOT NULL, state_text TEXT NOT NULL,
    elements TEXT NOT NULL, screenshot_path TEXT, thumbnail BLOB, visits INTEGER NOT NULL,
    first_episode TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS exemplars (
    exemplar_id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(node_id),
    app TEXT, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS edges (
    edge_id INTEGER PRIMARY KEY, source INTEGER NOT NULL, target INTEGER NOT NULL,
    signature TEXT NOT NULL, actions TEXT NOT NULL, slots TEXT NOT NULL,
    target_label TEXT NOT NULL, count INTEGER NOT NULL, episodes TEXT NOT NULL,
    UNIQUE (source, target, signature));
CREATE TABLE IF NOT EXISTS traces (
    episode_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, instruction TEXT NOT NULL,
    category TEXT NOT NULL, apps TEXT NOT NULL, node_path TEXT NOT NULL,
    edge_path TEXT NOT NULL, steps INTEGER NOT NULL, tail TEXT NOT NULL,
    slot_values TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS steps (
    episode_id TEXT NOT NULL, step INTEGER NOT NULL, node_id INTEGER NOT NULL,
    verdict TEXT, reason TEXT NOT NULL, PRIMARY KEY (episode_id, step));
"""


def create_database(db: Path, settings: KBSettings) -> None:
    """Write the schema to a side file and rename it into place: whoever opens the KB
    meanwhile finds no database or a whole one, never one without its tables."""
    import os

    fresh = db.with_name(db.name + ".new")
    fresh.unlink(missing_ok=True)
    conn = sqlite3.connect(fresh)
    try:
        with conn:
            conn.executescript(SCHEMA)
            conn.executemany(
                "INSERT INTO settings VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("build", json.dumps(settings.to_dict())),
                ],
            )
    finally:
        conn.close()
    os.replace(fresh, db)


def read_cached_index(path: Path, dim: int) -> Any:
    """The cached state index, or None when it is missing or unusable (then it is rebuilt)."""
    import faiss

    if not path.exists():
        return None
    try:
        index = faiss.read_index(str(path))
    except RuntimeError as exc:  # faiss reports every unreadable file this way
        logger.warning("%s: unreadable index cache, rebuilt from %s (%s)", path, DB_FILE, exc)
        return None
    if index.d != dim or not hasattr(index, "hnsw"):
        logger.warning("%s: not this knowledge base's index, rebuilt from %s", path, DB_FILE)
        return None
    return index


_SQLITE_MAGIC = b"SQLite format 3\x00"


def check_length(db: Path) -> None:
    """Refuse a cut-short file up front: SQLite reads the missing pages as zeros and fails
    only later, in the middle of a command. The header says how long the file must be."""
    try:
        with db.open("rb") as file:
            head = file.read(100)
        size = db.stat().st_size
    except OSError as exc:
        raise KnowledgeBaseError(f"{db}: cannot be read ({exc.strerror})") from exc
    if len(head) < 100 or not head.startswith(_SQLITE_MAGIC):
        raise KnowledgeBaseError(
            f"{db}: not an SQLite database (damaged?); build it again with `guigraph build`"
        )
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    # The page count is valid only when written by the same change as the counter at 24.
    # With a write-ahead log present a build is running (a closed KB has none): its
    # checkpoint may be growing the file right now, so only a quiet KB is measured.
    busy = db.with_name(db.name + "-wal").exists()
    if not busy and head[24:28] == head[92:96] and size < page_size * pages:
        raise KnowledgeBaseError(
            f"{db}: truncated ({size} bytes, its header says {page_size * pages}); "
            "build it again with `guigraph build`"
        )
