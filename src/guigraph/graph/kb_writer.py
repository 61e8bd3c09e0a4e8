"""Every write to the knowledge base's database, in one place.

``kb.sqlite`` is written by the build only, one episode per transaction
(``KnowledgeBase.transaction()`` yields a ``KBWriter``), and created whole by
``create_database``. Readers (``KnowledgeBase``'s read API, the explorer, the exports) never
write, so the schema and the shape of every row live in this module alone.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from guigraph.graph.records import dumps
from guigraph.graph.settings import SCHEMA_VERSION, KBSettings

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


@dataclass(frozen=True, slots=True)
class NodeRow:
    """A screen state as stored; ``elements`` is the JSON list of its UI elements."""

    app: str | None
    description: str
    state_text: str
    elements: str
    screenshot_path: str | None
    thumbnail: bytes | None
    first_episode: str
    visits: int = 1


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """A condensed transition; ``actions`` and ``slots`` are JSON lists of their records."""

    source: int
    target: int
    signature: str
    actions: str
    slots: str
    target_label: str
    episodes: Sequence[str]
    count: int = 1


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One episode's path over the graph; the JSON columns are already encoded."""

    episode_id: str
    instruction: str
    category: str
    apps: str
    node_path: str
    edge_path: str
    steps: int
    tail: str
    slot_values: str


@dataclass(frozen=True, slots=True)
class StepRow:
    """Which node a recorded step was assigned to, and the page-jump judge's word on it."""

    episode_id: str
    step: int
    node_id: int
    verdict: str | None
    reason: str


class KBWriter:
    """The writes of one transaction. Rows are appended or counted, never rewritten: a KB
    grown by later builds equals one built from all the episodes at once."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def save_settings(self, settings: KBSettings) -> None:
        """The build settings, once they learn something (the world of the first episode)."""
        self._conn.execute(
            "UPDATE settings SET value = ? WHERE key = 'build'", (json.dumps(settings.to_dict()),)
        )

    def add_node(self, node: NodeRow, node_id: int | None = None) -> int:
        """The new node's id (``node_id`` when given, else the next free one)."""
        cursor = self._conn.execute(
            "INSERT INTO nodes (node_id, app, description, state_text, elements, screenshot_path,"
            " thumbnail, visits, first_episode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                node_id, node.app, node.description, node.state_text, node.elements,
                node.screenshot_path, node.thumbnail, node.visits, node.first_episode,
            ),
        )  # fmt: skip
        return int(cursor.lastrowid or 0)

    def count_visit(self, node_id: int) -> None:
        self._conn.execute("UPDATE nodes SET visits = visits + 1 WHERE node_id = ?", (node_id,))

    def add_exemplar(self, node_id: int, app: str | None, vector: bytes) -> None:
        self._conn.execute(
            "INSERT INTO exemplars (node_id, app, vector) VALUES (?, ?, ?)", (node_id, app, vector)
        )

    def find_edge(self, source: int, target: int, signature: str) -> tuple[int, list[str]] | None:
        """The id and source episodes of the edge with this signature, if there is one yet
        (read inside the transaction, so an episode sees its own earlier edges)."""
        row = self._conn.execute(
            "SELECT edge_id, episodes FROM edges WHERE source = ? AND target = ? AND signature = ?",
            (source, target, signature),
        ).fetchone()
        return None if row is None else (int(row[0]), json.loads(row[1]))

    def count_edge(self, edge_id: int, episodes: Sequence[str]) -> None:
        """One more traversal of an existing edge, with its (capped) list of episodes."""
        self._conn.execute(
            "UPDATE edges SET count = count + 1, episodes = ? WHERE edge_id = ?",
            (dumps(list(episodes)), edge_id),
        )

    def add_edge(self, edge: EdgeRow, edge_id: int | None = None) -> int:
        cursor = self._conn.execute(
            "INSERT INTO edges (edge_id, source, target, signature, actions, slots, target_label,"
            " count, episodes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                edge_id, edge.source, edge.target, edge.signature, edge.actions, edge.slots,
                edge.target_label, edge.count, dumps(list(edge.episodes)),
            ),
        )  # fmt: skip
        return int(cursor.lastrowid or 0)

    def add_steps(self, steps: Iterable[StepRow]) -> None:
        self._conn.executemany(
            "INSERT INTO steps VALUES (?, ?, ?, ?, ?)",
            [(s.episode_id, s.step, s.node_id, s.verdict, s.reason) for s in steps],
        )

    def put_setting(self, key: str, value: str) -> None:
        """A KB-wide record the build learns from all its traces (``slot_types``)."""
        self._conn.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    def add_trace(self, trace: TraceRow) -> None:
        """Appended after the traces already stored (``seq`` keeps the build's order)."""
        self._conn.execute(
            "INSERT INTO traces VALUES (?, (SELECT COUNT(*) FROM traces), ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                trace.episode_id, trace.instruction, trace.category, trace.apps,
                trace.node_path, trace.edge_path, trace.steps, trace.tail, trace.slot_values,
            ),
        )  # fmt: skip
