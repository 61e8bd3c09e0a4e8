"""The knowledge base's files: their names, and refusing damaged ones (created whole by
``kb_writer.create_database``).

``kb.sqlite`` is the source of truth and ``states.faiss`` a cache of it. A database that is
garbage or cut short is refused up front with its name, before any command half-runs on it;
a cache that cannot be read is rebuilt from the database with a warning.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from guigraph.errors import KnowledgeBaseError

logger = logging.getLogger(__name__)

DB_FILE = "kb.sqlite"
STATES_INDEX_FILE = "states.faiss"
MANIFEST_FILE = "manifest.json"


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
