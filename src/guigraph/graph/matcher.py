"""Stage 2: state matching. Is this screen a state the graph already has, or a new node?

A ``StateDescriptor`` joins a text embedding (UI structure when present, else the v2
description) with a visual descriptor. ``StateIndex`` keeps one FAISS index over both
(weighted concatenation, so inner product = weighted sum of the two cosines) and returns the
top-4 candidate nodes; a ``StateVerifier`` (the dual check of semantic and visual thresholds,
or an MLLM's verdict) decides which candidate, if any, is the same state.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from guigraph.embed import TextEncoder
from guigraph.embed.hashing import hashed_column
from guigraph.graph.screen import LAYOUT_DIM, VISUAL_DIM, ScreenView

if TYPE_CHECKING:
    import numpy as np

#: The paper's candidate count: enough recall, little latency.
TOP_K = 4
#: Searches remembered per index size (one per distinct screen an agent has seen).
HIT_CACHE_SIZE = 256


@dataclass(frozen=True)
class StateDescriptor:
    """A screen's text vector, and its visual vector given or computed from ``view`` on demand.

    ``from_ui`` says the text is the UI structure: then it identifies the screen on its own,
    ranking uses it alone and the screenshot is decoded only when the text is not conclusive.
    """

    text: str
    text_vector: np.ndarray  # unit length, or zeros when the screen has no text
    visual: np.ndarray | None = None  # unit length; None: computed from ``view`` when asked
    app: str | None = None
    view: ScreenView | None = None
    from_ui: bool = False

    @property
    def has_text(self) -> bool:
        return bool(self.text)

    @property
    def visual_vector(self) -> np.ndarray:
        if self.visual is not None:
            return self.visual
        if self.view is None:
            raise ValueError("a state descriptor needs a visual vector or a view to compute it")
        return self.view.visual_vector()

    @property
    def ranks_by_text(self) -> bool:
        return self.from_ui and self.has_text


@dataclass(frozen=True)
class Candidate:
    node_id: int
    score: float  # the similarity FAISS ranked by (text cosine, or the weighted sum)
    text_similarity: float | None  # None when either side has no text
    app: str | None
    stored_visual: np.ndarray = field(repr=False, compare=False)
    query: StateDescriptor = field(repr=False, compare=False)

    @functools.cached_property
    def has_looks(self) -> bool:
        """Whether both screens have pixels (one kept without a screenshot has a zero
        visual vector)."""
        query = self.query.visual_vector
        return float(self.stored_visual @ self.stored_visual) > 1e-6 and float(query @ query) > 1e-6

    @functools.cached_property
    def visual_similarity(self) -> float:
        """Computed when first asked: it may need the query's screenshot decoded."""
        return float(self.stored_visual @ self.query.visual_vector)

    @functools.cached_property
    def visual_parts(self) -> tuple[float, float]:
        """Cosines of the layout and of the title band (1.0 when neither has a title band)."""
        query = self.query.visual_vector
        stored = self.stored_visual
        layout = 2.0 * float(stored[:LAYOUT_DIM] @ query[:LAYOUT_DIM])
        a, b = stored[LAYOUT_DIM:], query[LAYOUT_DIM:]
        if float(a @ a) < 1e-6 and float(b @ b) < 1e-6:
            return layout, 1.0  # two blank bands: nothing there tells them apart
        return layout, 2.0 * float(a @ b)


@runtime_checkable
class StateVerifier(Protocol):
    """The final merge decision for one candidate (an MLLM verifier compares screenshots)."""

    def accepts(
        self, query: ScreenView, descriptor: StateDescriptor, candidate: Candidate
    ) -> bool: ...


@dataclass(frozen=True, slots=True)
class MatchSettings:
    text_threshold: float = 0.8
    #: UI structure at least this similar is the same screen without looking at pixels.
    text_sure: float = 0.95
    visual_threshold: float = 0.5
    #: With no text on either side, looks alone decide, and screens of one app look alike:
    #: the same screen has the same title band and much the same layout, whatever its
    #: content; or looks the same as a whole.
    visual_only_threshold: float = 0.99
    title_band_threshold: float = 0.99
    layout_threshold: float = 0.7
    #: ... or much the same layout and a title band of the same shape (a chat with another
    #: contact, the results of another query: the title is content there).
    layout_sure: float = 0.85
    title_band_shape: float = 0.9
    #: Share of the text part in the ranking score; the rest is visual.
    text_weight: float = 0.5
    #: A merged screen less similar than this to its node becomes one more exemplar of it, so
    #: a node accepts the variants (scrolled, filled in) it has been seen in.
    exemplar_below: float = 0.92

    def __post_init__(self) -> None:
        if not 0.0 < self.text_weight < 1.0:
            raise ValueError(
                f"text_weight must be strictly between 0 and 1, got {self.text_weight}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSettings:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


class DualThresholdVerifier:
    """Same state iff the app agrees, the text (when both have some) and the looks are close."""

    def __init__(self, settings: MatchSettings):
        self.settings = settings

    def accepts(self, query: ScreenView, descriptor: StateDescriptor, candidate: Candidate) -> bool:
        if descriptor.app and candidate.app and descriptor.app != candidate.app:
            return False
        text = candidate.text_similarity
        if text is None:
            if candidate.visual_similarity >= self.settings.visual_only_threshold:
                return True
            layout, band = candidate.visual_parts
            settings = self.settings
            if band >= settings.title_band_threshold and layout >= settings.layout_threshold:
                return True
            return layout >= settings.layout_sure and band >= settings.title_band_shape
        if text < self.settings.text_threshold:
            return False
        if descriptor.from_ui and text >= self.settings.text_sure:
            return True
        if not candidate.has_looks:
            return True  # a screen kept without pixels: its UI text is all there is to compare
        # The layout: text that agrees already says what a title band would.
        return candidate.visual_parts[0] >= self.settings.visual_threshold


def describe(views: list[ScreenView], encoder: TextEncoder) -> list[StateDescriptor]:
    """Descriptors for a batch of screens (one encoder call per batch: far cheaper).

    Descriptions are language and go through the text encoder; UI structure tokens are
    identifiers, so they are hashed as a set (cosine = overlap of the two skeletons) into the
    same number of dimensions.
    """
    import numpy as np

    texts = [view.state_text() for view in views]
    text_vectors = np.zeros((len(views), encoder.dim), dtype=np.float32)
    with_ui = [i for i, view in enumerate(views) if view.has_ui]
    prose = [i for i, view in enumerate(views) if not view.has_ui]
    if with_ui:
        tokens = [sorted(views[i].weighted_tokens().items()) for i in with_ui]
        text_vectors[with_ui] = structure_vectors(tokens, encoder.dim)
    if prose:
        text_vectors[prose] = encoder.encode([texts[i] for i in prose])
    return [
        StateDescriptor(text, text_vectors[i], None, view.place, view, from_ui=view.has_ui)
        for i, (text, view) in enumerate(zip(texts, views, strict=True))
    ]


def structure_vectors(
    token_lists: Sequence[Sequence[tuple[str, float] | str]], dim: int
) -> np.ndarray:
    """Each list of (token, weight) (or plain tokens, weight 1) as a unit vector of hashed
    weights (no fitting: build-order free): scikit-learn's ``FeatureHasher`` (no alternate
    sign) then its l2 ``normalize``, bit for bit. Worked out here, and remembered per token
    list, because the agent describes every screen it sees: through scikit-learn's argument
    checks that cost about a millisecond a screen."""
    import numpy as np

    rows = np.zeros((len(token_lists), dim), dtype=np.float32)
    for row, tokens in enumerate(token_lists):
        pairs = tuple(t if isinstance(t, tuple) else (t, 1.0) for t in tokens)
        rows[row] = _hashed_unit(pairs, dim)
    return rows


@functools.lru_cache(maxsize=4096)
def _hashed_unit(pairs: tuple[tuple[str, float], ...], dim: int) -> np.ndarray:
    """One token list's vector (read-only: it is shared by every screen with these tokens)."""
    import numpy as np

    buckets: dict[int, list[np.float32]] = {}
    for token, weight in pairs:
        if weight != 0:  # FeatureHasher skips zeros
            buckets.setdefault(hashed_column(token, dim), []).append(np.float32(weight))
    vector = np.zeros(dim, dtype=np.float32)
    if any(len(summed) > 2 for summed in buckets.values()):
        # Three tokens in one bucket: scipy sums them in an order of its own sort.
        vector[:] = _hashed_by_sklearn(pairs, dim)
    elif buckets:
        order = sorted(buckets)
        data = [summed[0] if len(summed) == 1 else summed[0] + summed[1] for summed in (
            buckets[i] for i in order)]  # fmt: skip
        # normalize(norm="l2") on the sorted row: float32 squares summed in order into a
        # double, then each value divided in double precision.
        total = 0.0
        for value in data:
            total += float(value * value)
        if total != 0.0:
            norm = math.sqrt(total)
            vector[order] = [np.float32(float(value) / norm) for value in data]
    vector.flags.writeable = False
    return vector


def _hashed_by_sklearn(pairs: tuple[tuple[str, float], ...], dim: int) -> np.ndarray:
    import numpy as np
    from sklearn.preprocessing import normalize

    hashed = _structure_hasher(dim).transform([list(pairs)])
    return np.asarray(normalize(hashed, norm="l2").toarray(), dtype=np.float32)[0]


@functools.cache
def _structure_hasher(dim: int) -> Any:
    import numpy as np
    from sklearn.feature_extraction import FeatureHasher

    # The same hashing as a HashingVectorizer of the tokens: weights 1 give its vectors.
    return FeatureHasher(n_features=dim, input_type="pair", alternate_sign=False, dtype=np.float32)


class StateIndex:
    """FAISS HNSW over weighted [text | visual] exemplar vectors, each mapped to its node.

    Exemplars are only ever appended one at a time, in build order, so the index (and every
    search on it) is the same whether the graph was built at once or incrementally.
    """

    def __init__(self, text_dim: int, text_weight: float, index: Any = None):
        import faiss

        self.text_dim = text_dim
        self.text_weight = text_weight
        self.dim = text_dim + VISUAL_DIM
        if index is None:
            index = faiss.IndexHNSWFlat(self.dim, 32, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = 64
        index.hnsw.efSearch = 64
        self.index = index
        self.node_ids: list[int] = []
        self.apps: list[str | None] = []
        self._cached_arrays: tuple[np.ndarray, np.ndarray] | None = None
        self._hits: dict[tuple[bytes, str, int], list[tuple[int, float]]] = {}
        self._hits_for = 0  # the index size the remembered hits were found at
        #: app ("" for none, None for any) -> its nodes, over the first ``_counted`` exemplars
        self._app_nodes: dict[str | None, set[int]] = {}
        self._counted = 0

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def combine(self, descriptor: StateDescriptor, visual: bool = True) -> np.ndarray:
        """The index vector; ``visual=False`` zeroes the visual part (rank by text alone)."""
        import numpy as np

        a, b = math.sqrt(self.text_weight), math.sqrt(1.0 - self.text_weight)
        seen = descriptor.visual_vector if visual else np.zeros(VISUAL_DIM, dtype=np.float32)
        joined = np.concatenate([descriptor.text_vector * a, seen * b])
        return joined.astype(np.float32).reshape(1, -1)

    def add(self, node_id: int, descriptor: StateDescriptor) -> np.ndarray:
        """Append one exemplar; returns the stored vector (the KB keeps it in SQLite too)."""
        vector = self.combine(descriptor)
        self.index.add(vector)
        self.node_ids.append(node_id)
        self.apps.append(descriptor.app)
        return vector[0]

    def add_stored(self, vectors: np.ndarray, node_ids: list[int], apps: list[str | None]) -> None:
        """Re-add exemplars read back from SQLite, one by one to keep the build's graph."""
        for row in range(vectors.shape[0]):
            self.index.add(vectors[row : row + 1])
        self.node_ids.extend(node_ids)
        self.apps.extend(apps)

    def search(self, descriptor: StateDescriptor, k: int = TOP_K) -> list[Candidate]:
        """The best exemplar of each of (up to) ``k`` nodes of the same app, best first.

        The app is a hard constraint, so it filters before the top-k is cut: a dialog that
        every app shows alike must not crowd the right app's node out of the candidates.
        """
        if len(self) == 0:
            return []
        by_text = descriptor.ranks_by_text
        query = self.combine(descriptor, visual=not by_text)
        # Scores back on a cosine's scale when one part ranks alone: text alone (UI
        # structure), or looks alone (no text: the query's text part is zeros). Otherwise a
        # looks-alone score would be at most 1 - text_weight, under ``exemplar_below`` even
        # for an identical screen, and every visit of the home screen would add an exemplar
        # (duplicates that also cut the HNSW graph's links to other nodes).
        if by_text:
            scale = 1.0 / self.text_weight
        elif not descriptor.has_text:
            scale = 1.0 / (1.0 - self.text_weight)
        else:
            scale = 1.0
        hits = self._top_hits(query, descriptor.app or "", k)
        found = [self._candidate(exemplar, score * scale, descriptor) for exemplar, score in hits]
        return sorted(found, key=lambda c: -c.score)

    def _top_hits(self, query: np.ndarray, app: str, k: int) -> list[tuple[int, float]]:
        """(exemplar, score) of the best hit of each of up to ``k`` nodes of ``app``.

        Remembered per query until the index grows: an agent sees the same screens again (the
        home screen of every episode), and a screen with few matching nodes widens the fetch
        up to the whole index, ~8 searches (bench/loop.py: 9 ms of CPU each time at 100k nodes).
        """
        if self._hits_for != len(self):
            self._hits.clear()
            self._hits_for = len(self)
        key = (query.tobytes(), app, k)
        if key not in self._hits:
            if len(self._hits) >= HIT_CACHE_SIZE:
                self._hits.pop(next(iter(self._hits)))
            self._hits[key] = self._widening_search(query, app, k)
        return self._hits[key]

    def _widening_search(self, query: np.ndarray, app: str, k: int) -> list[tuple[int, float]]:
        fetch = min(len(self), k * 8)
        if self._nodes_of_app(app) < k:
            # Fewer than k nodes can match: the widening below would end at the whole index
            # after ~8 searches, each discarded; go there at once (the same, last, result).
            fetch = len(self)
        while True:
            scores, ids = self.index.search(query, fetch)
            best = self._best_per_node(scores[0], ids[0], app, k)
            if len(best) == k or fetch == len(self):
                return best
            fetch = min(len(self), fetch * 4)

    def _best_per_node(
        self, scores: np.ndarray, ids: np.ndarray, app: str, k: int
    ) -> list[tuple[int, float]]:
        """The first (best) hit of each node of ``app``, up to ``k`` nodes.

        Vectorized: on a large KB the widening fetch returns thousands of hits, and a Python
        loop over them cost milliseconds per localization.
        """
        import numpy as np

        apps, nodes = self._arrays()
        hits = np.flatnonzero(ids >= 0)
        if app:
            hit_apps = apps[ids[hits]]
            hits = hits[(hit_apps == app) | (hit_apps == "")]
        _, first = np.unique(nodes[ids[hits]], return_index=True)
        return [(int(ids[p]), float(scores[p])) for p in hits[np.sort(first)][:k]]

    def _nodes_of_app(self, app: str | None) -> int:
        """At least as many nodes as a search for a screen of ``app`` can return (those of no
        app count too). Kept up to date as exemplars are added, so a build pays O(1) here."""
        for exemplar in range(self._counted, len(self.node_ids)):
            node, of = self.node_ids[exemplar], self.apps[exemplar] or ""
            self._app_nodes.setdefault(of, set()).add(node)
            self._app_nodes.setdefault(None, set()).add(node)
        self._counted = len(self.node_ids)
        if not app:
            return len(self._app_nodes.get(None, ()))
        return len(self._app_nodes.get(app, ())) + len(self._app_nodes.get("", ()))

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Exemplar apps ("" for none) and node ids as arrays, rebuilt after additions."""
        import numpy as np

        if self._cached_arrays is None or len(self._cached_arrays[1]) != len(self.node_ids):
            apps = np.array([a or "" for a in self.apps], dtype=object)
            self._cached_arrays = (apps, np.array(self.node_ids, dtype=np.int64))
        return self._cached_arrays

    def _candidate(self, exemplar: int, score: float, descriptor: StateDescriptor) -> Candidate:
        stored = self.index.reconstruct(exemplar)
        a, b = math.sqrt(self.text_weight), math.sqrt(1.0 - self.text_weight)
        text_part, visual_part = stored[: self.text_dim] / a, stored[self.text_dim :] / b
        text_similarity: float | None = None
        if descriptor.has_text and float(text_part @ text_part) > 0.5:
            text_similarity = float(text_part @ descriptor.text_vector)
        return Candidate(
            node_id=self.node_ids[exemplar],
            score=score,
            text_similarity=text_similarity,
            app=self.apps[exemplar],
            stored_visual=visual_part,
            query=descriptor,
        )

    def save(self, path: Path) -> None:
        import faiss

        faiss.write_index(self.index, str(path))


class StateMatcher:
    """Top-4 candidates from the index, then the verifier; the best accepted one wins."""

    def __init__(self, index: StateIndex, verifier: StateVerifier, k: int = TOP_K):
        self.index = index
        self.verifier = verifier
        self.k = k

    def match(self, view: ScreenView, descriptor: StateDescriptor) -> Candidate | None:
        for candidate in self.index.search(descriptor, self.k):
            if self.verifier.accepts(view, descriptor, candidate):
                return candidate
        return None
