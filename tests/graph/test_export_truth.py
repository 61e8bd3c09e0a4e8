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
    assert "mouseenter" in html  # hover shows the screenshot


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


FAKE_DOM = """
function fakeElement(tag) {
  const e = {tag, attrs: {}, children: [], listeners: {}, textContent: "", innerHTML: "",
    clientWidth: 900, clientHeight: 700,
    setAttribute(k, v) { this.attrs[k] = v; }, appendChild(c) { this.children.push(c); },
    addEventListener(t, f) { this.listeners[t] = f; },
    getBoundingClientRect() { return {left: 0, top: 0}; }};
  return e;
}
const payload = require("fs").readFileSync(process.argv[2], "utf8");
const ids = {view: fakeElement("svg"), info: fakeElement("div"), "kb-data": {textContent: payload}};
globalThis.document = {
  getElementById: id => ids[id], createElementNS: (ns, tag) => fakeElement(tag)};
globalThis.window = {addEventListener() {}};
"""
REPORT = """
const kids = ids.view.children, dots = kids.filter(c => c.tag === "circle");
dots[0].listeners.mouseenter();
const strokes = kids.filter(c => c.tag === "line");
console.log(JSON.stringify({circles: dots.length, lines: strokes.length, info: ids.info.innerHTML,
  finite: dots.every(c => Number.isFinite(c.attrs.cx) && Number.isFinite(c.attrs.cy)) &&
          strokes.every(l => Number.isFinite(l.attrs.x1) && Number.isFinite(l.attrs.y2))}));
"""


def test_html_viewer_script_runs_and_draws_every_node(tmp_path: Path, kb: KnowledgeBase) -> None:
    """Runs the page's own script under Node with a minimal DOM (no browser here)."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed; the parse test above still checks the page")
    html = export(kb, "html", tmp_path / "g.html").read_text()
    data = re.search(r'id="kb-data">(.*?)</script>', html, re.S)
    script = re.search(r"<script>(.*?)</script>", html, re.S)
    assert data is not None and script is not None
    program, payload = tmp_path / "viewer.js", tmp_path / "data.json"
    program.write_text(FAKE_DOM + script.group(1) + REPORT)
    payload.write_text(data.group(1).replace("<\\/", "</"))
    out = subprocess.run(
        [node, str(program), str(payload)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    drawn = json.loads(out.stdout)
    assert drawn["circles"] == len(kb.nodes())
    assert drawn["lines"] == len(kb.edges())
    assert drawn["finite"]  # the layout converged to real coordinates
    assert "<img" in drawn["info"] and "node " in drawn["info"]  # hover shows the screenshot
