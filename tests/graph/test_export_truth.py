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
