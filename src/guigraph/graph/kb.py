"""The knowledge base on disk: one folder with ``kb.sqlite``, FAISS index files, a manifest.

SQLite is the source of truth (exemplar vectors are stored there too); ``states.faiss`` is a
cache of the state index that is rebuilt from SQLite whenever it is missing or behind, so a
build killed between two episodes resumes exactly where its last committed episode left it.
Every episode is written in one transaction: it is either wholly in the graph or not at all.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.errors import KnowledgeBaseError
from guigraph.graph.kb_files import (
    DB_FILE,
    MANIFEST_FILE,
    STATES_INDEX_FILE,
    check_length,
    read_cached_index,
)
from guigraph.graph.kb_writer import KBWriter, create_database
from guigraph.graph.records import ActionTemplate, Edge, Node, Slot, SlotKey, Trace
from guigraph.graph.settings import SCHEMA_VERSION, KBSettings
from guigraph.types import UIElement

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from guigraph.embed import TextEncoder
    from guigraph.graph.matcher import StateIndex
    from guigraph.graph.slot_types import SlotType
    from guigraph.ocr import OcrEngine
    from guigraph.types import Observation

__all__ = ["DB_FILE", "MANIFEST_FILE", "STATES_INDEX_FILE", "KnowledgeBase"]


def _one_thread_per_search() -> None:
    """Every search here is one query: FAISS's OpenMP threads and OpenBLAS's threads (numpy's
    matrix-vector products) only add scheduling. On a busy 2-core machine FAISS's made a
    10k-vector search ~30x slower (1 -> 32 ms), and OpenBLAS's added ~2 ms of CPU per agent
    step at 100k nodes (bench/loop.py); both are set to one thread for the process."""
    global _THREADS_SET
    if _THREADS_SET:
        return
    import faiss
    from threadpoolctl import threadpool_limits

    faiss.omp_set_num_threads(1)
    threadpool_limits(1, user_api="blas")
    _THREADS_SET = True


_THREADS_SET = False
#: The settings row holding the other names of the KB's apps (``KnowledgeBase.app_names``).
APP_NAMES_SETTING = "app_names"


class KnowledgeBase:
    """Read API (graph, nodes, edges, traces, match_state, search_traces) and the build's writes."""

    def __init__(self, path: Path, conn: sqlite3.Connection, settings: KBSettings):
        self.path = path
        self.conn = conn
        self.settings = settings
        self._encoder: TextEncoder | None = None
        self._ocr: OcrEngine | None = None
        self._state_index: StateIndex | None = None
        self._graph: nx.DiGraph | None = None
        self._trace_search: tuple[Any, list[str]] | None = None
        _one_thread_per_search()

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, settings: KBSettings | None = None) -> KnowledgeBase:
        """Open the KB in ``path``, creating it with ``settings`` when the folder has none."""
        folder = Path(path)
        if (folder / DB_FILE).exists():
            kb = cls.open(folder)
            if settings is not None:
                kb.settings.check_compatible(settings)
            return kb
        folder.mkdir(parents=True, exist_ok=True)
        settings = settings or KBSettings()
        create_database(folder / DB_FILE, settings)
        manifest = {"schema_version": SCHEMA_VERSION, "database": DB_FILE, **settings.to_dict()}
        (folder / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
        return cls(folder, _connect(folder / DB_FILE), settings)

    @classmethod
    def open(cls, path: str | Path, *, shared: bool = False) -> KnowledgeBase:
        """Open an existing KB. ``shared``: its connection may be used from several threads
        (read-only use, such as an evaluation's worker threads; SQLite serializes calls)."""
        folder = Path(path)
        db = folder / DB_FILE
        if not db.is_file():
            raise KnowledgeBaseError(f"{folder}: not a knowledge base (no {DB_FILE})")
        check_length(db)
        try:
            conn = _connect(db, shared)
            rows = dict(conn.execute("SELECT key, value FROM settings").fetchall())
        except sqlite3.DatabaseError as exc:
            raise KnowledgeBaseError(
                f"{db}: unreadable knowledge base ({exc}); build it again with `guigraph build`"
            ) from exc
        version = rows.get("schema_version")
        if version != str(SCHEMA_VERSION):
            raise KnowledgeBaseError(
                f"{db}: field 'schema_version' expected {SCHEMA_VERSION}, got {version!r}: "
                "written by another guigraph version; build it again from its logs with "
                "`guigraph build LOGS --kb NEW_FOLDER`"
            )
        return cls(folder, conn, KBSettings.from_dict(json.loads(rows["build"])))

    def close(self) -> None:
        # Fold the write-ahead log back into kb.sqlite so the folder is one tidy database.
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- shared machinery ----------------------------------------------------------------
    @property
    def encoder(self) -> TextEncoder:
        if self._encoder is None:
            from guigraph.embed import encoder_from_spec

            self._encoder = encoder_from_spec(self.settings.encoder)
        return self._encoder

    @property
    def ocr(self) -> OcrEngine | None:
        """The OCR engine of a KB built with ``ocr=True`` (RapidOCR, extra ``ocr``)."""
        if self.settings.ocr and self._ocr is None:
            from guigraph.ocr import RapidOcrEngine

            self._ocr = RapidOcrEngine()
        return self._ocr

    @property
    def state_index(self) -> StateIndex:
        if self._state_index is None:
            self._state_index = self._load_state_index()
        return self._state_index

    def _load_state_index(self) -> StateIndex:
        import numpy as np

        from guigraph.graph.matcher import VISUAL_DIM, StateIndex

        rows = self.conn.execute(
            "SELECT node_id, app, vector FROM exemplars ORDER BY exemplar_id"
        ).fetchall()
        text_dim, weight = self.encoder.dim, self.settings.match.text_weight
        index = read_cached_index(self.path / STATES_INDEX_FILE, text_dim + VISUAL_DIM)
        if index is not None and index.ntotal == len(rows):
            state_index = StateIndex(text_dim, weight, index)
            state_index.node_ids = [r[0] for r in rows]
            state_index.apps = [r[1] for r in rows]
            return state_index
        # Missing, damaged or behind (a killed build): rebuild from SQLite, the source of truth.
        state_index = StateIndex(text_dim, weight)
        if rows:
            vectors = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
            state_index.add_stored(vectors, [r[0] for r in rows], [r[1] for r in rows])
        return state_index

    def save_indexes(self) -> None:
        if self._state_index is not None:
            self._state_index.save(self.path / STATES_INDEX_FILE)

    @contextmanager
    def transaction(self) -> Iterator[KBWriter]:
        """One episode's writes; on failure SQLite rolls back and the in-memory index reloads."""
        try:
            with self.conn:
                yield KBWriter(self.conn)
        except BaseException:
            self._state_index = None
            raise
        finally:
            self._graph = None
            self._trace_search = None

    def app_names(self) -> dict[str, tuple[str, ...]]:
        """Other names of the knowledge base's apps, where a device told them (a label's
        package: ``{"Settings": ("com.android.settings",)}``), kept across runs so a device
        is not asked again (``remember_app_names``)."""
        row = self.conn.execute(
            "SELECT value FROM settings WHERE key = ?", (APP_NAMES_SETTING,)
        ).fetchone()
        if row is None:
            return {}
        try:
            stored = json.loads(row[0])
            if not isinstance(stored, dict):
                raise TypeError("not an object")
            return {
                str(app): tuple(str(other) for other in others) for app, others in stored.items()
            }
        except (ValueError, TypeError, AttributeError) as exc:
            raise KnowledgeBaseError(
                f"{self.path / DB_FILE}: setting {APP_NAMES_SETTING!r} expected a JSON object of "
                f"app -> list of names ({exc}); build the knowledge base again"
            ) from exc

    def remember_app_names(self, names: Mapping[str, str]) -> bool:
        """Keep each app's other name (``{KB's name: the device's}``) beside those known, most
        recent last; whether anything was new. Only this row is written: the graph and its
        caches stay as they are."""
        known = {app: list(others) for app, others in self.app_names().items()}
        new = False
        for app, other in names.items():
            if app and other and other != app and other not in known.setdefault(app, []):
                known[app].append(other)
                new = True
        if new:
            stored = json.dumps(known, sort_keys=True)
            with self.conn:
                KBWriter(self.conn).put_setting(APP_NAMES_SETTING, stored)
        return new

    def learn_slot_types(self) -> None:
        """Learn every slot's type from all traces and store it (after a build)."""
        from guigraph.graph import slot_types

        traces = self.traces()
        with self.transaction() as writer:
            learned = slot_types.learn_slot_types(traces)
            writer.put_setting(slot_types.SETTING, slot_types.encode(learned, len(traces)))

    def slot_types(self, traces: Sequence[Trace] | None = None) -> dict[SlotKey, SlotType]:
        """Each slot's type, as the build stored it; learned here from ``traces`` (default:
        all) where the KB holds none or holds types of fewer traces (a build cut short, a
        KB built before types were learned)."""
        from guigraph.graph import slot_types

        traces = self.traces() if traces is None else traces
        row = self.conn.execute(
            "SELECT value FROM settings WHERE key = ?", (slot_types.SETTING,)
        ).fetchone()
        if row is not None:
            stored, count = slot_types.decode(row[0], str(self.path / DB_FILE))
            if count == len(traces):
                return stored
        return slot_types.learn_slot_types(traces)

    def has_episode(self, episode_id: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM traces WHERE episode_id = ?", (episode_id,))
        return row.fetchone() is not None

    # -- read API ------------------------------------------------------------------------
    def nodes(self) -> list[Node]:
        rows = self.conn.execute(
            "SELECT node_id, app, description, state_text, elements, screenshot_path, visits,"
            " first_episode FROM nodes ORDER BY node_id"
        )
        return [_node(r) for r in rows]

    def node_thumbnail(self, node_id: int) -> bytes | None:
        """A small JPEG of the node's representative screenshot (kept inside the KB)."""
        row = self.conn.execute("SELECT thumbnail FROM nodes WHERE node_id = ?", (node_id,))
        found = row.fetchone()
        return bytes(found[0]) if found and found[0] is not None else None

    def edges(self) -> list[Edge]:
        rows = self.conn.execute(
            "SELECT edge_id, source, target, actions, slots, target_label, count, episodes"
            " FROM edges ORDER BY edge_id"
        )
        return [_edge_from_row(r) for r in rows]

    def traces(self) -> list[Trace]:
        rows = self.conn.execute(
            "SELECT episode_id, instruction, category, apps, node_path, edge_path, steps,"
            " tail, slot_values FROM traces ORDER BY seq"
        )
        return [_trace_from_row(r) for r in rows]

    def trace(self, episode_id: str) -> Trace | None:
        row = self.conn.execute(
            "SELECT episode_id, instruction, category, apps, node_path, edge_path, steps,"
            " tail, slot_values FROM traces WHERE episode_id = ?",
            (episode_id,),
        ).fetchone()
        return _trace_from_row(row) if row else None

    def step_assignments(self) -> list[tuple[str, int, int, str | None]]:
        """(episode_id, step, node_id, verdict) for every built step: what `kb check` scores."""
        rows = self.conn.execute(
            "SELECT episode_id, step, node_id, verdict FROM steps ORDER BY episode_id, step"
        )
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    @property
    def graph(self) -> nx.DiGraph:
        """The workflow graph; node and edge attributes are the records' fields."""
        if self._graph is None:
            from guigraph.graph.export import to_networkx

            self._graph = to_networkx(self)
        return self._graph

    def stats(self) -> dict[str, Any]:
        count = lambda table: self.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: E731
        nodes, edges = count("nodes"), count("edges")
        apps = [r[0] for r in self.conn.execute("SELECT DISTINCT app FROM nodes WHERE app != ''")]
        return {
            "nodes": nodes,
            "edges": edges,
            "traces": count("traces"),
            "steps": count("steps"),
            "apps": sorted(a for a in apps if a),
            "average_degree": round(2 * edges / nodes, 3) if nodes else 0.0,
            "schema_version": SCHEMA_VERSION,
            "settings": self.settings.to_dict(),
        }

    def match_state(
        self, observation: Observation, description: str = "", k: int = 4
    ) -> list[tuple[int, float]]:
        """The ``k`` nodes most like this screen, as (node_id, similarity), best first."""
        from guigraph.graph.matcher import describe
        from guigraph.graph.screen import ScreenView

        view = ScreenView(observation, description, self.settings.use_ui, self.ocr)
        descriptor = describe([view], self.encoder)[0]
        return [(c.node_id, c.score) for c in self.state_index.search(descriptor, k)]

    def _trace_index(self) -> tuple[Any, list[str]]:
        """Every trace's instruction vector (encoded once per process) and its episode id."""
        if self._trace_search is None:
            import faiss

            rows = self.conn.execute("SELECT episode_id, instruction FROM traces ORDER BY seq")
            ids, instructions = [], []
            for episode_id, instruction in rows:
                ids.append(episode_id)
                instructions.append(instruction)
            index = faiss.IndexFlatIP(self.encoder.dim)
            if instructions:
                index.add(self.encoder.encode(instructions))
            self._trace_search = (index, ids)
        return self._trace_search

    def trace_vectors(self) -> np.ndarray:
        """The instruction vectors of ``traces()``, in that order: the ones the trace search
        uses, so that an in-memory index does not encode every instruction again."""
        import numpy as np

        index, ids = self._trace_index()
        if not ids:
            return np.zeros((0, self.encoder.dim), dtype=np.float32)
        return index.reconstruct_n(0, len(ids))

    def search_traces(self, text: str, k: int = 5) -> list[tuple[Trace, float]]:
        """Traces whose instruction is most similar to ``text`` (cosine), best first."""
        found = self.nearest_trace_ids(self.encoder.encode([text])[0], k)
        traces = ((self.trace(episode_id), score) for episode_id, score in found)
        return [(trace, score) for trace, score in traces if trace is not None]

    def nearest_trace_ids(self, vector: np.ndarray, k: int = 5) -> list[tuple[str, float]]:
        """The episode ids of the traces whose instruction vector is most similar to
        ``vector`` (one encoded by ``encoder``), best first, with their similarity."""
        import numpy as np

        index, ids = self._trace_index()
        if not ids:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        scores, found = index.search(query, min(k, len(ids)))
        return [(ids[row], float(score)) for score, row in zip(scores[0], found[0], strict=True)]

    def exemplar_vectors(self) -> np.ndarray:
        import numpy as np

        rows = self.conn.execute("SELECT vector FROM exemplars ORDER BY exemplar_id").fetchall()
        return np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows])


def _connect(db: Path, shared: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(db, check_same_thread=not shared)
    # WAL: readers (the agents) are never blocked by a growing build, and commits are cheap.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def _edge_from_row(r: tuple[Any, ...]) -> Edge:
    return Edge(
        edge_id=r[0],
        source=r[1],
        target=r[2],
        actions=tuple(ActionTemplate.from_dict(a) for a in json.loads(r[3])),
        slots=tuple(Slot.from_dict(s) for s in json.loads(r[4])),
        target_label=r[5],
        count=r[6],
        episodes=tuple(json.loads(r[7])),
    )


def _trace_from_row(r: tuple[Any, ...]) -> Trace:
    return Trace(
        episode_id=r[0],
        instruction=r[1],
        category=r[2],
        apps=tuple(json.loads(r[3])),
        node_path=tuple(json.loads(r[4])),
        edge_path=tuple(json.loads(r[5])),
        steps=r[6],
        tail=tuple(ActionTemplate.from_dict(a) for a in json.loads(r[7])),
        values={SlotKey.parse(k): v for k, v in json.loads(r[8]).items()},
    )


def _node(row: Sequence[Any]) -> Node:
    try:
        elements = tuple(UIElement.from_dict(e) for e in json.loads(row[4]))
    except (KeyError, TypeError, ValueError) as exc:
        raise KnowledgeBaseError(
            f"node {row[0]}: field 'elements' expected UI elements, each with a 'bbox'"
            f" of four numbers in 0..1000 ({exc})"
        ) from None
    return Node(row[0], row[1], row[2], row[3], elements, *row[5:8])
