"""The knowledge base's read API and its on-disk guarantees."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from guigraph.errors import KnowledgeBaseError
from guigraph.graph.build import GraphBuilder
from guigraph.graph.kb import DB_FILE, KnowledgeBase
from guigraph.graph.records import ActionTemplate, SlotKey, TextSource
from guigraph.types import ActionType, UIElement, element_keys
from tests.graph.conftest import sources
from tests.graph.world import Recorder, search_episode, shop_episode


@pytest.fixture
def kb(tmp_path: Path, recorders: list[Recorder]) -> KnowledgeBase:
    built = KnowledgeBase.create(tmp_path / "kb")
    GraphBuilder(built).build(sources(recorders))
    built.close()
    return KnowledgeBase.open(tmp_path / "kb")


def test_graph_has_records_as_attributes(kb: KnowledgeBase) -> None:
    graph = kb.graph
    assert isinstance(graph, nx.DiGraph)
    assert graph.number_of_nodes() == len(kb.nodes()) == 6
    apps = {data["app"] for _, data in graph.nodes(data=True)}
    assert apps == {"home", "maps", "shop"}
    for _, _, data in graph.edges(data=True):
        assert data["actions"] and data["count"] >= 1 and data["episodes"]
    node = kb.nodes()[0]
    assert node.example_elements and node.description and node.screenshot_path is None
    assert all(isinstance(e, UIElement) for e in node.example_elements)
    assert node.element_keys == tuple(element_keys(node.example_elements, node.app))
    assert (kb.node_thumbnail(node.node_id) or b"")[:2] == b"\xff\xd8"  # a JPEG


def test_match_state_finds_the_node_of_an_unseen_screen(kb: KnowledgeBase) -> None:
    fresh = search_episode("new", "Zagreb", seed=99).episode()
    expected = {s: n for e, s, n, _ in kb.step_assignments() if e == "s00"}
    apps = {node.node_id: node.app for node in kb.nodes()}
    for step, same_app_nodes in ((0, 1), (1, 3), (4, 3), (6, 3)):  # launcher, maps screens
        observation = fresh.steps[step].observation
        ranked = kb.match_state(observation)
        assert ranked[0][0] == expected[step]
        assert ranked[0][1] == pytest.approx(1.0, abs=1e-4)  # same structure
        # candidates come from the screen's own app only, best first
        assert len(ranked) == same_app_nodes
        assert all(apps[node] == observation.app for node, _ in ranked)
        assert [score for _, score in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_search_traces_ranks_by_instruction(kb: KnowledgeBase) -> None:
    top = kb.search_traces("Add bread to the cart", k=3)
    assert [t.episode_id[0] for t, _ in top] == ["p", "p", "p"]
    best, score = kb.search_traces("Find Rome on the map", k=1)[0]
    assert best.instruction == "Find Rome on the map" and score == pytest.approx(1.0, abs=1e-5)


def test_stats(kb: KnowledgeBase) -> None:
    stats = kb.stats()
    assert (
        stats["nodes"] == 6 and stats["traces"] == 9 and stats["apps"] == ["home", "maps", "shop"]
    )
    assert stats["average_degree"] == pytest.approx(2 * stats["edges"] / 6, abs=1e-3)


def test_open_refuses_what_is_not_a_kb(tmp_path: Path, kb: KnowledgeBase) -> None:
    with pytest.raises(KnowledgeBaseError, match="not a knowledge base"):
        KnowledgeBase.open(tmp_path / "nothing")
    with sqlite3.connect(kb.path / DB_FILE) as conn:
        conn.execute("UPDATE settings SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(KnowledgeBaseError, match=r"schema_version.*build it again"):
        KnowledgeBase.open(kb.path)


def test_empty_kb_answers_empty(tmp_path: Path) -> None:
    empty = KnowledgeBase.create(tmp_path / "empty")
    obs = shop_episode("x", "tea").episode().steps[0].observation
    assert empty.match_state(obs) == [] and empty.search_traces("anything") == []
    assert empty.stats()["average_degree"] == 0.0


def test_typed_graph_records_keep_the_stored_form_and_name_bad_input() -> None:
    """Text sources, slot keys and action types are records in memory and the same strings
    in the KB file, so KBs built before them read unchanged; a bad one names what it expected."""
    data = {"type": "type", "text": "{text1} {text2}",
            "text_sources": {"text1": "instruction", "text2": "screen:shop:id/price"}}  # fmt: skip
    template = ActionTemplate.from_dict(data)
    assert template.type is ActionType.TYPE
    assert template.source_of("text2") == TextSource.screen("shop:id/price")
    assert template.source_of("text1") == TextSource.instruction()
    assert template.to_dict() == data
    assert SlotKey.parse("7:text1") == SlotKey(7, "text1")
    assert SlotKey.parse("tail:text2") == SlotKey(None, "text2")
    assert str(SlotKey(None, "text2")) == "tail:text2"
    with pytest.raises(KnowledgeBaseError, match="expected '<edge id>:<slot>'"):
        SlotKey.parse("route:text1")
    with pytest.raises(KnowledgeBaseError, match="'instruction' or 'screen:<element key>'"):
        TextSource.parse("clipboard")
    with pytest.raises(KnowledgeBaseError, match="field 'type': expected one of click"):
        ActionTemplate.from_dict({"type": "tap"})


def test_a_node_with_malformed_elements_names_the_node_and_field(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    node_id = kb.nodes()[0].node_id
    kb.close()
    with sqlite3.connect(tmp_path / "kb" / DB_FILE) as conn:
        conn.execute(
            "UPDATE nodes SET elements = ? WHERE node_id = ?", ('[{"text": "x"}]', node_id)
        )
    reopened = KnowledgeBase.open(tmp_path / "kb")
    with pytest.raises(KnowledgeBaseError, match=f"node {node_id}: field 'elements' expected"):
        reopened.nodes()
    reopened.close()


def test_trace_vectors_are_the_trace_searchs_in_trace_order(kb: KnowledgeBase) -> None:
    """The in-memory index reads the vectors the trace search encoded, not its own copy."""
    traces = kb.traces()
    vectors = kb.trace_vectors()
    expected = kb.encoder.encode([t.instruction for t in traces])
    assert vectors.shape == expected.shape and np.allclose(vectors, expected, atol=1e-6)
    best, score = kb.search_traces(traces[1].instruction, 1)[0]
    assert score == pytest.approx(float(vectors[1] @ expected[1]), abs=1e-5)
    assert best.instruction == traces[1].instruction


def test_the_nearest_trace_ids_are_the_searchs_and_a_build_adds_its_traces(
    tmp_path: Path, recorders: list[Recorder]
) -> None:
    """The search by vector and by text agree; a build's writes (an incremental one here)
    make the next search find the new traces too."""
    kb = KnowledgeBase.create(tmp_path / "kb")
    searches = [r for r in recorders if r.episode_id.startswith("s")]
    GraphBuilder(kb).build(sources(searches))
    vector = kb.encoder.encode(["Find Rome on the map"])[0]
    (found, score), *_ = kb.nearest_trace_ids(vector, k=1)
    best, best_score = kb.search_traces("Find Rome on the map", k=1)[0]
    assert (best.episode_id, best_score) == (found, score) and found.startswith("s")
    GraphBuilder(kb).build(sources([r for r in recorders if r not in searches]))
    shopping = kb.search_traces("Add tea to the cart", k=1)[0][0]
    assert shopping.episode_id.startswith("p")
    assert kb.nearest_trace_ids(vector, k=1)[0][0] == found
    kb.close()
