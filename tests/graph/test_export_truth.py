"""Exports (parsed back) and the truth check's input validation."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import networkx as nx
import pytest

from guigraph.errors import ConfigError, DatasetError
from guigraph.graph.build import GraphBuilder
from guigraph.graph.export import export
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.settings import SCHEMA_VERSION
from guigraph.graph.truth import check, read_truth
from tests.graph.conftest import sources
from tests.graph.world import Recorder


@pytest.fixture
def kb(tmp_path: Path, recorders: list[Recorder]) -> KnowledgeBase:
    built = KnowledgeBase.create(tmp_path / "kb")
    GraphBuilder(built).build(sources(recorders))
    return built


def test_graphml_round_trips(tmp_path: Path, kb: KnowledgeBase) -> None:
    graph = nx.read_graphml(export(kb, "graphml", tmp_path / "g.graphml"))
    assert graph.number_of_nodes() == kb.graph.number_of_nodes()
    assert graph.number_of_edges() == kb.graph.number_of_edges()
    _, _, data = next(iter(graph.edges(data=True)))
    assert json.loads(data["actions"])[0]["type"]


def test_json_has_nodes_edges_traces(tmp_path: Path, kb: KnowledgeBase) -> None:
    doc = json.loads(export(kb, "json", tmp_path / "g.json").read_text())
    assert doc["schema_version"] == SCHEMA_VERSION
    assert len(doc["nodes"]) == 6 and len(doc["edges"]) == len(kb.edges())
    assert len(doc["traces"]) == 9


def test_html_is_self_contained_with_screenshots(tmp_path: Path, kb: KnowledgeBase) -> None:
    html = export(kb, "html", tmp_path / "g.html").read_text()
    assert not re.search(r"""(src|href)=["']https?://""", html)  # works offline
    match = re.search(r'<script type="application/json" id="kb-data">(.*?)</script>', html, re.S)
    assert match is not None
    doc = json.loads(match.group(1))
    assert len(doc["nodes"]) == 6
    for node in doc["nodes"]:
        head, _, payload = node["thumbnail"].partition(",")
        assert head == "data:image/jpeg;base64" and base64.b64decode(payload)[:2] == b"\xff\xd8"
    assert 'class="node"' in html  # drawn in Python: the page shows states without a script


def test_unknown_format(tmp_path: Path, kb: KnowledgeBase) -> None:
    with pytest.raises(ConfigError, match="graphml, json, html"):
        export(kb, "dot", tmp_path / "g.dot")


def test_truth_file_errors_name_the_field(tmp_path: Path, kb: KnowledgeBase) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {"schema_version": 1, "steps": [{"step": 0, "screen": "a", "transition": "hop"}]}
        )
    )
    with pytest.raises(DatasetError, match=r"steps\[0\]\.transition"):
        read_truth(bad)
    bad.write_text("{")
    with pytest.raises(DatasetError, match=r"bad\.json"):
        read_truth(bad)
    with pytest.raises(DatasetError, match="truth"):
        check(kb, tmp_path / "no-logs")


def test_html_keeps_hostile_task_text_inside_its_json_block(tmp_path: Path) -> None:
    """Issue 15 item 6: ``<!--<script>`` in an instruction or typed text broke the page."""
    from tests.graph.world import search_episode

    city = "<!--<script>alert(1)</script></script>"
    built = KnowledgeBase.create(tmp_path / "kb")
    GraphBuilder(built).build(sources([search_episode("s0", city), search_episode("s1", "Oslo")]))
    html = export(built, "html", tmp_path / "g.html").read_text()
    start = html.index('<script type="application/json" id="kb-data">')
    block = html[start : html.index("</script>", start)]  # where the HTML parser ends it
    assert "<" not in block.split(">", 1)[1]  # nothing inside can open a comment or a tag
    doc = json.loads(block.split(">", 1)[1])
    assert f"Find {city} on the map" in [t["instruction"] for t in doc["traces"]]
    assert any(city in action for e in doc["edges"] for action in e["actions"])
    assert "<script>alert" not in html.replace(block, "")  # escaped in the drawing as well
    built.close()


def test_explorer_layout_cards_inside_their_app_box_and_apart(kb: KnowledgeBase) -> None:
    """The layout the page opens with, checked without a browser (tests/report has one)."""
    from guigraph.graph.explorer import CARD_H, CARD_W, layout, screen_name

    groups, corners, (width, height) = layout(kb)
    assert sorted(corners) == sorted(n.node_id for n in kb.nodes())
    boxes = {}
    for group in groups:
        w, h = group.size
        for node in group.nodes:
            x, y = corners[node]
            assert group.x <= x and x + CARD_W <= group.x + w and y + CARD_H <= group.y + h
            boxes[node] = (x, y, x + CARD_W, y + CARD_H)
        assert group.x + w <= width + 0.1 and group.y + h <= height + 0.1
    rects = list(boxes.values())
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert groups[0].app == "home"  # the launcher first
    assert all(screen_name(n) for n in kb.nodes())
