"""The knowledge base in memory, loaded once per process and shared by every episode.

``GraphView`` is the one in-memory index of a KB: its states and transitions, each state's
outgoing edges, the routes between states, the values seen at each place, the traces with
their instruction vectors, and what is learned from them (app names, markers, field words).
Retrieval (``retrieval/context.py``), the binder and the graph policy all read this object;
none of them reads the KB's tables again per episode.
"""

from __future__ import annotations

import functools
import gc
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.compiler.contained import InnerRuns, learn_inner_runs
from guigraph.compiler.controls import learn_control_words
from guigraph.compiler.fields import (
    field_sayings,
    learn_field_words,
    learn_read_states,
    read_field_apps,
)
from guigraph.compiler.script import ScriptStep, app_aliases, is_home, trace_script
from guigraph.compiler.slots import content_words
from guigraph.compiler.stitch import apps_named, source_app
from guigraph.compiler.values import ValueIndex
from guigraph.envs import conventions
from guigraph.types import ActionType

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from guigraph.embed import TextEncoder
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import Edge, Node, Trace

#: An id-less field read by recorded runs is named by the words this share of them said.
FIELD_NAME_SHARE = 0.8


@dataclass
class GraphView:
    """What the policy reads of a knowledge base, loaded once and shared by every episode."""

    nodes: dict[int, Node]
    edges: dict[int, Edge]
    routes: nx.DiGraph  # one edge per state pair: the most used transition
    values: ValueIndex
    aliases: dict[str, str]
    traces: list[Trace] = field(default_factory=list)
    trace_vectors: np.ndarray | None = None
    encoder: TextEncoder | None = None
    #: resource-id prefix ("music") -> the app name observations use ("Tunes")
    id_apps: dict[str, str] = field(default_factory=dict)
    app_counts: dict[str, int] = field(default_factory=dict)  # traces that use each app

    #: app -> words nearly every instruction using the app says, and that rarely appear
    #: without it ("email" for Mail): an app whose marker the task lacks is likely not wanted.
    markers: dict[str, set[str]] = field(default_factory=dict)
    #: id-less screen field -> what recorded instructions call it (``fields.learn_field_words``)
    field_words: dict[str, frozenset[str]] = field(default_factory=dict)
    #: word -> apps whose screens show a field of that name a run read a value from
    #: (``fields.read_field_apps``): text naming one describes a value, it is none itself.
    read_fields: dict[str, frozenset[str]] = field(default_factory=dict)
    #: screen field (with an id or not) -> what the recorded tasks that read it call it,
    #: without words that mark an app ("post"): ``fields.carry_asked_fields``
    said_words: dict[str, frozenset[str]] = field(default_factory=dict)
    #: id-less screen field -> the states runs read it on (``fields.learn_read_states``)
    read_at: dict[str, frozenset[int]] = field(default_factory=dict)
    #: word no recorded instruction says -> the one app whose tapped controls show it
    #: (``controls.learn_control_words``: "wishlist" from ``add_to_wishlist``)
    control_words: dict[str, str] = field(default_factory=dict)
    #: episode id -> the runs whose steps begin it (``contained``: the run that finds an
    #: article, inside the run that finds one and bookmarks it)
    inner_runs: dict[str, InnerRuns] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Indexes built once, so that planning does not scan a large KB per episode.
        self.rows_by_app: dict[str, list[int]] = {}
        #: episode id -> its row in ``traces`` and ``trace_vectors``
        self.trace_rows = {trace.episode_id: row for row, trace in enumerate(self.traces)}
        for row, trace in enumerate(self.traces):
            for app in self._apps_of(trace):
                self.rows_by_app.setdefault(app, []).append(row)
        if not self.app_counts:
            self.app_counts = {app: len(rows) for app, rows in self.rows_by_app.items() if app}
        if not self.markers:
            self.markers = self._find_markers()
        if not self.read_fields or not self.said_words:
            self._name_fields()
        if not self.read_at:
            self.read_at = learn_read_states(self.traces, self.edges, self.nodes)
        if not self.control_words:
            self.control_words = learn_control_words(self.traces, self.edges, self.nodes)
        if not self.inner_runs:
            self.inner_runs = learn_inner_runs(self.traces, self.edges, self.nodes, self.values)
        self._typed_read: dict[tuple[int, str], bool] = {}
        self._scripts: dict[str, tuple[conventions.Conventions, tuple[ScriptStep, ...]]] = {}
        self._by_app_vectors: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._last_query: tuple[str, np.ndarray | None] = ("", None)
        #: Each state's outgoing edges, most used first (retrieval's one-hop neighbours).
        self.out_edges = out_edges_of(self.edges.values())

    def script(self, trace: Trace) -> tuple[ScriptStep, ...]:
        """``trace`` unrolled into steps (``trace_script``), once per trace: every task that
        retrieves a trace binds its script anew, and the script itself never changes."""
        world = conventions.active()  # it reads the world's pop-up words
        known = self._scripts.get(trace.episode_id)
        if known is None or known[0] is not world:
            known = self._scripts[trace.episode_id] = (
                world, tuple(trace_script(trace, self.edges, self.nodes))
            )  # fmt: skip
        return known[1]

    def _name_fields(self) -> None:
        """What recorded tasks call each screen field they read, counted once for both uses:
        ``read_fields`` (a description of a value) and ``said_words`` (carrying a field)."""
        app_words = {w for marks in self.markers.values() for w in marks}
        app_words |= {w for alias in self.aliases for w in content_words(alias)}
        sayings = field_sayings(self.traces, self.edges, every_field=True)
        if not self.read_fields:
            # An id-less field is named by the words nearly every run reading it said, less
            # the words that name apps: half of them ("check", "titled") is too loose to tell
            # a description of a value ("the temperature in Hanoi") by. A field with an id is
            # named by its id (``source_words``).
            named = {key: said - app_words for key, said in sayings.words(FIELD_NAME_SHARE).items()}
            self.read_fields = read_field_apps(
                self.traces, self.edges, lambda s: source_app(s, self.id_apps), named
            )
        if not self.said_words:
            self.said_words = {key: said - app_words for key, said in sayings.words().items()}

    def _find_markers(self, share: float = 0.8) -> dict[str, set[str]]:
        with_app: dict[str, Counter[str]] = {}
        overall: Counter[str] = Counter()
        for trace in self.traces:
            said = content_words(trace.instruction)
            overall.update(said)
            for app in self._apps_of(trace):
                with_app.setdefault(app, Counter()).update(said)
        markers: dict[str, set[str]] = {}
        for app, counts in with_app.items():
            total = self.app_counts.get(app, 0)
            markers[app] = {
                word
                for word, n in counts.items()
                if total >= 3 and n >= share * total and n >= share * overall[word]
            }
        return markers

    def traces_using(self, app: str, instruction: str, k: int = 8) -> list[tuple[Trace, float]]:
        """The ``k`` traces most like ``instruction`` among those that work in ``app``.

        Whole-instruction similarity misses the trace a stitched plan needs for one of its
        apps ("by message": a messaging trace whose instruction shares few words), so every
        app the instruction names gets candidates of its own.
        """
        found: list[tuple[Trace, float]] = []
        workflows: set[tuple[int, ...]] = set()
        for row, score in self._most_like(app, instruction):
            trace = self.traces[row]
            # One trace per way of working in the app: twenty "add to cart" runs would crowd
            # out the one run that reads a price. Typing a value read in another app is
            # another way than typing what the task says: plain emails would crowd out the
            # one that sends an article's title, which a stitched plan needs.
            workflow = (
                *(n for n in trace.node_path if n in self.nodes and self.nodes[n].app == app),
                self._types_read_value(row, app),
            )
            if workflow in workflows:
                continue
            workflows.add(workflow)
            found.append((trace, score))
            if len(found) == k:
                break
        return found

    def traces_in(self, app: str, instruction: str, k: int = 16) -> list[tuple[Trace, float]]:
        """The ``k`` traces most like ``instruction`` among those that work in ``app``, every
        run its own (a form laid out several ways is one workflow of states, recorded once
        per layout)."""
        best = itertools.islice(self._most_like(app, instruction), k)
        return [(self.traces[row], score) for row, score in best]

    def _most_like(self, app: str, instruction: str) -> Iterator[tuple[int, float]]:
        """The rows of the traces working in ``app`` and their similarity to
        ``instruction``, best first, ties by the later row (as sorting (score, row) pairs
        would); taken lazily from an index sort, callers stop early."""
        if self.encoder is None or self.trace_vectors is None:
            return
        rows, vectors = self._app_rows(app)
        if not len(rows):
            return
        import numpy as np

        scores = vectors @ self._query_vector(instruction)
        for at in np.lexsort((rows, scores))[::-1]:
            yield int(rows[at]), float(scores[at])

    def _app_rows(self, app: str) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the traces working in ``app`` and their instruction vectors, gathered
        once per app: copying them out of the whole matrix for every query cost more than
        the product at 10,000 traces."""
        import numpy as np

        found = self._by_app_vectors.get(app)
        if found is None:
            rows = np.asarray(self.rows_by_app.get(app, []), dtype=np.int64)
            assert self.trace_vectors is not None
            found = (rows, np.ascontiguousarray(self.trace_vectors[rows]))
            self._by_app_vectors[app] = found
        return found

    def _query_vector(self, instruction: str) -> np.ndarray:
        """The instruction's vector, remembered for the last instruction: retrieval asks for
        the traces of each app the task names with the same instruction."""
        said, vector = self._last_query  # one read: evaluation threads share the view
        if said != instruction or vector is None:
            assert self.encoder is not None
            vector = self.encoder.encode([instruction])[0]
            self._last_query = (instruction, vector)
        return vector

    @functools.cached_property
    def apps(self) -> tuple[str, ...]:
        """Every app the graph's states are in, as its logs name them (sorted)."""
        return tuple(sorted({node.app for node in self.nodes.values() if node.app}))

    def relevant_apps(self, instruction: str) -> list[str]:
        """Apps the instruction names or marks ("email" for Mail: ``markers``), then apps
        where a value it names was used before."""
        apps = apps_named(instruction, self.aliases)
        said = content_words(instruction)
        apps += [app for app, marks in self.markers.items() if marks & said and app not in apps]
        # One site per app is enough to stand for it (a large KB has thousands of sites).
        direct = self._one_site_per_app(self.values.sites_naming(instruction))
        # A contact known from Mail is a contact in Messages too: sites of the same kind.
        related = self._one_site_per_app(
            k for site in direct.values() for k in self.values.kin(site)
        )
        for app in [*direct, *related]:
            if app not in apps:
                apps.append(app)
        return apps

    def _one_site_per_app(self, sites: Iterable[tuple[int, str]]) -> dict[str, tuple[int, str]]:
        chosen: dict[str, tuple[int, str]] = {}
        for site in sites:
            node = self.nodes.get(site[0])
            if node is not None and node.app and node.app not in chosen and not is_home(node.app):
                chosen[node.app] = site
        return chosen

    def _types_read_value(self, row: int, app: str) -> bool:
        """Whether the trace at ``row`` types, in ``app``, a value read off a screen."""
        key = (row, app)
        found = self._typed_read.get(key)
        if found is None:
            found = any(
                source.from_screen
                for node, _, template in self.traces[row].recorded_actions(self.edges)
                if template.type is ActionType.TYPE
                and node in self.nodes
                and self.nodes[node].app == app
                for _, source in template.text_sources
            )
            self._typed_read[key] = found
        return found

    def _apps_of(self, trace: Trace) -> set[str]:
        return {self.nodes[n].app or "" for n in trace.node_path if n in self.nodes}

    @classmethod
    def load(cls, kb: KnowledgeBase) -> GraphView:
        import networkx as nx

        nodes = {n.node_id: n for n in kb.nodes()}
        edges = {e.edge_id: e for e in kb.edges()}
        routes = nx.DiGraph()
        for edge in sorted(edges.values(), key=lambda e: e.count):
            # Routes avoid transitions that need typed values: those belong to the plan.
            typing = any(a.type is ActionType.TYPE for a in edge.actions)
            cost = 1.0 + 1.0 / edge.count + (3.0 if typing else 0.0)
            routes.add_edge(edge.source, edge.target, edge_id=edge.edge_id, cost=cost)
        traces = kb.traces()
        values = ValueIndex.build(traces, edges)
        vectors = kb.trace_vectors() if traces else None
        view = cls(
            nodes, edges, routes, values, app_aliases(list(edges.values()), nodes), traces,
            vectors, kb.encoder, _id_apps(nodes),
            field_words=learn_field_words(traces, edges),
        )  # fmt: skip
        _freeze_long_lived()
        return view


def _freeze_long_lived() -> None:
    """Take the loaded view out of the cyclic collector's sight.

    At 100k nodes the view is ~3 million objects that live as long as the process; each full
    collection walked them all, 1.5-3.5 s landing in whichever agent step triggered it
    (bench/loop.py). Frozen objects are still freed by reference counting.
    """
    gc.freeze()


def _id_apps(nodes: dict[int, Node]) -> dict[str, str]:
    """Which app each element key (and each id's app part, where the world's ids name one)
    belongs to, from the elements the nodes show: a value read off a screen is that app's."""
    parse = conventions.active().parse_id
    votes: dict[str, Counter[str]] = {}
    for node in nodes.values():
        if not node.app:
            continue
        for element, key in zip(node.example_elements, node.element_keys, strict=False):
            owner = parse(element.resource_id).app
            for name in (key, owner):
                if name:
                    votes.setdefault(name, Counter())[node.app] += 1
    return {name: counts.most_common(1)[0][0] for name, counts in votes.items()}


def out_edges_of(edges: Iterable[Edge]) -> dict[int, list[Edge]]:
    """Each state's outgoing edges, most used first."""
    by_source: dict[int, list[Edge]] = {}
    for edge in edges:
        by_source.setdefault(edge.source, []).append(edge)
    for listed in by_source.values():
        listed.sort(key=lambda e: -e.count)
    return by_source
