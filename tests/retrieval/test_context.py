"""Graph RAG over a small built knowledge base (the graph tests' rendered world)."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from guigraph.compiler.index import GraphView
from guigraph.compiler.script import FillCache
from guigraph.compiler.slots import clauses
from guigraph.compiler.values import ValueIndex
from guigraph.graph.build import GraphBuilder
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.records import ActionTemplate, Edge, SlotKey, TextSource, Trace
from guigraph.retrieval.context import bind_trace, retrieve
from guigraph.types import ActionType
from tests.graph.conftest import make_recorders


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    kb = KnowledgeBase.create(tmp_path_factory.mktemp("kb") / "kb")
    builder = GraphBuilder(kb)
    for recorder in make_recorders():
        builder.add_episode(recorder.episode())
    kb.save_indexes()
    return kb


def test_top_traces_are_the_similar_ones_with_slots_filled(kb: KnowledgeBase) -> None:
    context = retrieve(kb, "Find Tokyo on the map", k=3)
    assert len(context.traces) == 3
    assert all(item.trace.instruction.startswith("Find ") for item in context.traces)
    scores = [item.score for item in context.traces]
    assert scores == sorted(scores, reverse=True)
    best = context.best
    assert best is not None and list(best.slot_values.values()) == ["Tokyo"]
    assert "type 'Tokyo'" in context.text
    assert "Trace 1 (similarity" in context.text


def test_subgraph_covers_the_trace_paths(kb: KnowledgeBase) -> None:
    context = retrieve(kb, "Add tea to the cart", k=1)
    best = context.best
    assert best is not None and "cart" in best.trace.instruction
    assert set(best.trace.node_path) <= set(context.nodes)
    assert set(best.trace.edge_path) <= set(context.edges)
    for edge in context.edges.values():
        assert edge.source in context.nodes and edge.target in context.nodes


def test_token_budget_truncates_but_keeps_the_best_trace_first(kb: KnowledgeBase) -> None:
    full = retrieve(kb, "Find Tokyo on the map", k=4, token_budget=10_000)
    small = retrieve(kb, "Find Tokyo on the map", k=4, token_budget=40)
    assert not full.truncated and small.truncated
    assert small.tokens <= 40 < full.tokens
    assert full.text.startswith(small.text)


def test_a_value_the_phrasing_hides_is_reported_missing(kb: KnowledgeBase) -> None:
    context = retrieve(kb, "Show me where that city is", k=1)
    best = context.best
    assert best is not None and best.missing_slots
    assert list(best.slot_values.values()) == [next(iter(best.trace.values.values()))]


def test_empty_kb_gives_empty_context(tmp_path: Path) -> None:
    empty = KnowledgeBase.create(tmp_path / "empty")
    context = retrieve(empty, "anything")
    assert context.best is None and context.text == ""


def test_each_clause_of_a_task_in_parts_brings_its_own_traces(kb: KnowledgeBase) -> None:
    whole = retrieve(kb, "Find Tokyo on the map, then add tea to the cart", k=1)
    kinds = {item.trace.instruction.split()[0] for item in whole.traces}
    assert kinds == {"Find", "Add"}
    scores = [item.score for item in whole.traces]
    assert scores == sorted(scores, reverse=True)
    single = retrieve(kb, "Find Tokyo on the map", k=1)
    assert len(single.traces) == 1


def test_the_traces_retrieved_are_the_views_and_only_those_it_can_plan_with(
    tmp_path: Path,
) -> None:
    """Retrieval reads the traces the view holds (not the KB's rows again); a trace the KB
    gained after the view was loaded is left out, as the view has none of its states."""
    kb = KnowledgeBase.create(tmp_path / "kb")
    recorders = make_recorders()
    finds = [r for r in recorders if r.episode().instruction.startswith("Find ")]
    for recorder in finds:
        GraphBuilder(kb).add_episode(recorder.episode())
    view = GraphView.load(kb)
    context = retrieve(kb, "Find Tokyo on the map, then add tea to the cart", k=2, graph=view)
    assert context.traces and all(
        any(item.trace is trace for trace in view.traces) for item in context.traces
    )
    for recorder in recorders:
        if recorder not in finds:
            GraphBuilder(kb).add_episode(recorder.episode())
    stale = retrieve(kb, "Add tea to the cart", k=3, graph=view)
    fresh = retrieve(kb, "Add tea to the cart", k=3)
    assert not any("cart" in item.trace.instruction for item in stale.traces)
    assert "cart" in fresh.traces[0].trace.instruction
    kb.close()


def test_clauses_split_on_breaks_and_drop_fragments() -> None:
    text = "Plan a trip to Rome on Jul 3 at 09:00: add it to the calendar, and text it to Bo"
    assert clauses(text) == [
        "Plan a trip to Rome on Jul 3 at 09:00",
        "add it to the calendar",
        "text it to Bo",
    ]
    assert clauses("Put 'Trip' in my calendar for Jul 10, 16:00") == [
        "Put 'Trip' in my calendar for Jul 10"
    ]


def test_slots_are_filled_with_the_values_kinds_as_the_team_fills_them() -> None:
    """A product slot is not given the city the instruction names; a screen slot is left to
    be read while acting."""
    search = ActionTemplate("click", target_label="Search products")
    typing = ActionTemplate(
        "type", text="{text1} {text2}",
        text_sources=(
            ("text1", TextSource.instruction()), ("text2", TextSource.screen("shop:id/price"))
        ),
    )  # fmt: skip
    edge = Edge(7, 4, 5, (search, typing), (), "", 1)
    trace = Trace("t", "Find the price of the Atlas lamp and note it", "Multi_Apps",
                  ("ShopMall",), (4, 5), (7,), 2,
                  values={SlotKey(7, "text1"): "Atlas lamp",
                          SlotKey(7, "text2"): "$12.00"})  # fmt: skip
    index = ValueIndex()
    index.by_site[(4, "type:search products")] |= {"Atlas lamp", "Nova kettle", "Orbit watch"}
    index.by_site[(9, "type:city name")] |= {"Sydney", "Oslo", "Paris"}
    graph = GraphView({}, {7: edge}, nx.DiGraph(), index, {}, [trace])
    text1 = SlotKey(7, "text1")
    # The city is of another kind than the products typed here: unfilled, and reported.
    refused = bind_trace(trace, "Find the price of the Sydney and note it", graph)
    assert refused.slot_values == {text1: "Atlas lamp"} and refused.missing_slots == (text1,)
    fills: FillCache = {}
    found = bind_trace(trace, "Find the price of the Nova kettle and note it", graph, fills)
    assert found.slot_values == {text1: "Nova kettle"} and not found.missing_slots
    # The context's binding is the team's: the script types the new value and leaves the
    # screen value to be read while acting; the fill is cached for the team's plan ranking.
    assert found.binding is not None
    typed = [s for s in found.binding.steps if s.template.type is ActionType.TYPE]
    assert [s.text for s in typed] == ["Nova kettle {text2}"]
    assert [s.screen_slots for s in typed] == [(("text2", TextSource.screen("shop:id/price")),)]
    assert [c.first[0] for c in fills.values() if c.first] == ["Nova kettle"]


def test_traces_of_an_app_are_the_most_similar_first_one_per_workflow(kb: KnowledgeBase) -> None:
    import numpy as np

    graph = GraphView.load(kb)
    assert graph.apps == tuple(sorted({n.app for n in graph.nodes.values() if n.app}))
    instruction = "Find Tokyo on the map"
    for app in graph.apps:
        found = graph.traces_using(app, instruction, k=3)
        rows = graph.rows_by_app.get(app, [])
        assert graph.trace_vectors is not None and graph.encoder is not None
        query = graph.encoder.encode([instruction])[0]
        # The reference: every trace of the app, by similarity, then the later row first.
        ranked = sorted(
            ((float(graph.trace_vectors[row] @ query), row) for row in rows), reverse=True
        )
        best = [score for score, _ in ranked]
        scores = [score for _, score in found]
        assert scores == sorted(scores, reverse=True)
        assert np.isclose(scores[0], best[0])
        assert found[0][0] is graph.traces[ranked[0][1]]
        # A second call with the same instruction (the query remembered) finds the same.
        assert graph.traces_using(app, instruction, k=3) == found
