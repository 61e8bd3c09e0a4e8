"""The knowledge base as a networkx graph, and exports: GraphML, JSON, a self-contained HTML.

The HTML file needs no network: the graph data and node thumbnails (JPEG data URIs) are
embedded as JSON, and a small inline script lays the graph out in SVG (a few hundred steps of
a force simulation) and shows a node's screenshot, description and edges on hover.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.errors import ConfigError

if TYPE_CHECKING:
    import networkx as nx

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
            example_elements=list(node.example_elements),
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


def export(kb: KnowledgeBase, fmt: str, out: str | Path) -> Path:
    if fmt not in FORMATS:
        raise ConfigError(f"unknown export format {fmt!r}: expected one of {', '.join(FORMATS)}")
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "graphml":
        _write_graphml(kb, path)
    elif fmt == "json":
        path.write_text(json.dumps(graph_document(kb), ensure_ascii=False, indent=1))
    else:
        path.write_text(render_html(kb), encoding="utf-8")
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
            "example_elements": list(node.example_elements),
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
    traces = [
        {
            "episode_id": t.episode_id,
            "instruction": t.instruction,
            "category": t.category,
            "node_path": list(t.node_path),
            "edge_path": list(t.edge_path),
        }
        for t in kb.traces()
    ]
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


def render_html(kb: KnowledgeBase) -> str:
    document = graph_document(kb, thumbnails=True)
    # "</" inside a script block would end it early; JSON allows the escaped form.
    payload = json.dumps(document, ensure_ascii=False).replace("</", "<\\/")
    return _HTML.replace("__DATA__", payload)


_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>guigraph workflow graph</title>
<style>
body{margin:0;font:13px sans-serif;display:flex;height:100vh}
#view{flex:1}#side{width:340px;overflow:auto;border-left:1px solid #ccc;padding:8px}
circle{stroke:#333;stroke-width:1px;cursor:pointer}line{stroke:#999;stroke-opacity:.6}
#side img{max-width:100%;border:1px solid #ccc}.muted{color:#777}
</style></head><body>
<svg id="view"></svg><div id="side"><b>Workflow graph</b>
<p class="muted">Hover a node to see its screenshot; drag to move it.</p><div id="info"></div></div>
<script type="application/json" id="kb-data">__DATA__</script>
<script>
const data = JSON.parse(document.getElementById("kb-data").textContent);
const svg = document.getElementById("view"), info = document.getElementById("info");
const NS = "http://www.w3.org/2000/svg", W = svg.clientWidth || 900, H = svg.clientHeight || 700;
const apps = [...new Set(data.nodes.map(n => n.app || ""))];
const byId = new Map(data.nodes.map((n, i) => [n.id, Object.assign(n, {
  x: W / 2 + 200 * Math.cos(i), y: H / 2 + 200 * Math.sin(i), vx: 0, vy: 0})]));
const links = data.edges.filter(e => byId.has(e.source) && byId.has(e.target));
for (let t = 0; t < 300; t++) {           // a plain force layout: repel, spring, centre
  const ns = data.nodes;
  for (let i = 0; i < ns.length; i++) for (let j = i + 1; j < ns.length; j++) {
    const a = ns[i], b = ns[j], dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy + 1;
    const f = 800 / d2; a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f; }
  for (const e of links) { const a = byId.get(e.source), b = byId.get(e.target);
    const dx = b.x - a.x, dy = b.y - a.y, f = 0.01;
    a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f; }
  for (const n of ns) { n.vx += (W / 2 - n.x) * 0.002; n.vy += (H / 2 - n.y) * 0.002;
    n.x += n.vx * 0.5; n.y += n.vy * 0.5; n.vx *= 0.6; n.vy *= 0.6; }
}
const el = (tag, attrs) => { const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]); return e; };
const lines = links.map(e => { const l = el("line", {"stroke-width": 1 + Math.log(e.count)});
  svg.appendChild(l); return [l, e]; });
const draw = () => { for (const [l, e] of lines) { const a = byId.get(e.source),
  b = byId.get(e.target); l.setAttribute("x1", a.x); l.setAttribute("y1", a.y);
  l.setAttribute("x2", b.x); l.setAttribute("y2", b.y); } };
const esc = s => String(s ?? "").replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;",
  ">": "&gt;", '"': "&quot;"})[c]);
for (const n of data.nodes) {
  const c = el("circle", {r: 5 + Math.sqrt(n.visits), cx: n.x, cy: n.y,
    fill: `hsl(${360 * apps.indexOf(n.app || "") / apps.length},60%,60%)`});
  c.addEventListener("mouseenter", () => {
    const out = links.filter(e => e.source === n.id).map(e => "<li>" +
      esc(e.actions.map(a => a.type + (a.target_label ? " " + a.target_label : "") +
      (a.text ? " '" + a.text + "'" : "")).join(" → ")) + ` → node ${e.target} (×${e.count})</li>`);
    info.innerHTML = `<p><b>node ${n.id}</b> ${esc(n.app)} · ${n.visits} visits</p>` +
      (n.thumbnail ? `<img alt="screenshot of node ${n.id}" src="${n.thumbnail}">` : "") +
      `<p>${esc(n.description || n.state_text)}</p><ul>${out.join("")}</ul>`; });
  let drag = false;
  c.addEventListener("mousedown", () => { drag = true; });
  window.addEventListener("mouseup", () => { drag = false; });
  svg.addEventListener("mousemove", ev => { if (!drag) return;
    const r = svg.getBoundingClientRect(); n.x = ev.clientX - r.left;
    n.y = ev.clientY - r.top; c.setAttribute("cx", n.x); c.setAttribute("cy", n.y); draw(); });
  const title = el("title", {}); title.textContent = `node ${n.id} ${n.app || ""}`;
  c.appendChild(title); svg.appendChild(c);
}
draw();
</script></body></html>
"""
