"""The knowledge base as a networkx graph, and exports: GraphML, JSON, a self-contained HTML.

The HTML file is the explorer of ``graph/explorer.py``: laid out in Python to fit the window,
grouped by app, with thumbnails embedded; it needs no network.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.errors import ConfigError

if TYPE_CHECKING:
    import networkx as nx

    from guigraph.graph.explorer import Highlight
    from guigraph.graph.kb import KnowledgeBase

FORMATS = ("graphml", "json", "html")


def to_networkx(kb: KnowledgeBase) -> nx.DiGraph:
    """Nodes carry app/description/elements/screenshot; edges actions/slots/count/episodes.

    Parallel edges (two different action sequences between the same states) are kept as a
    list under ``variants``; the top-level attributes describe the most frequent one.
    """
    import networkx as nx

    graph = nx.DiGraph()
    for node in kb.nodes():
        graph.add_node(
            node.node_id,
            app=node.app or "",
            description=node.description,
            state_text=node.state_text,
            example_elements=[e.to_dict() for e in node.example_elements],
            screenshot=node.screenshot_path or "",
            visits=node.visits,
        )
    for edge in sorted(kb.edges(), key=lambda e: -e.count):
        variant = {
            "edge_id": edge.edge_id,
            "actions": [a.to_dict() for a in edge.actions],
            "slots": [{"name": s.name, "example": s.example} for s in edge.slots],
            "target_label": edge.target_label,
            "count": edge.count,
            "episodes": list(edge.episodes),
        }
        if graph.has_edge(edge.source, edge.target):
            data = graph.edges[edge.source, edge.target]
            data["variants"].append(variant)
            data["total_count"] += edge.count
        else:
            graph.add_edge(
                edge.source, edge.target, **variant, variants=[variant], total_count=edge.count
            )
    return graph


def export(
    kb: KnowledgeBase, fmt: str, out: str | Path, highlight: Highlight | None = None
) -> Path:
    """Write the graph; ``highlight`` (HTML only) is marked when the page opens."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown export format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if highlight is not None and fmt != "html":
        raise ConfigError("a highlighted subgraph can only be shown with --format html")
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "graphml":
        _write_graphml(kb, path)
    elif fmt == "json":
        path.write_text(json.dumps(graph_document(kb), ensure_ascii=False, indent=1))
    else:
        path.write_text(render_html(kb, highlight), encoding="utf-8")
    return path


def graph_document(kb: KnowledgeBase, thumbnails: bool = False) -> dict[str, Any]:
    """Plain JSON: schema_version, nodes, edges (one per variant), traces."""
    nodes = []
    for node in kb.nodes():
        item: dict[str, Any] = {
            "id": node.node_id,
            "app": node.app,
            "description": node.description,
            "state_text": node.state_text,
            "visits": node.visits,
            "screenshot": node.screenshot_path,
            "example_elements": [e.to_dict() for e in node.example_elements],
        }
        if thumbnails:
            jpeg = kb.node_thumbnail(node.node_id)
            item["thumbnail"] = (
                "data:image/jpeg;base64," + base64.b64encode(jpeg).decode() if jpeg else None
            )
        nodes.append(item)
    edges = [
        {
            "id": e.edge_id,
            "source": e.source,
            "target": e.target,
            "actions": [a.to_dict() for a in e.actions],
            "slots": [{"name": s.name, "example": s.example} for s in e.slots],
            "target_label": e.target_label,
            "count": e.count,
            "episodes": list(e.episodes),
        }
        for e in kb.edges()
    ]
    traces = [t.outline() for t in kb.traces()]
    from guigraph.graph.settings import SCHEMA_VERSION

    return {"schema_version": SCHEMA_VERSION, "nodes": nodes, "edges": edges, "traces": traces}


def _write_graphml(kb: KnowledgeBase, path: Path) -> None:
    """GraphML holds scalars only: lists and dicts become JSON strings."""
    import networkx as nx

    graph = kb.graph.copy()
    for _, data in graph.nodes(data=True):
        _scalarise(data)
    for _, _, data in graph.edges(data=True):
        _scalarise(data)
    nx.write_graphml(graph, path)


def _scalarise(data: dict[str, Any]) -> None:
    for key, value in list(data.items()):
        if isinstance(value, list | dict | tuple):
            data[key] = json.dumps(value, ensure_ascii=False)
        elif value is None:
            data[key] = ""


def render_html(kb: KnowledgeBase, highlight: Highlight | None = None) -> str:
    """The explorer page (``graph/explorer.py``): laid out to fit, offline, all text escaped."""
    from guigraph.graph.explorer import render

    return render(kb, highlight)
