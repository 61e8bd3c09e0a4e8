"""The knowledge-base explorer: one offline HTML page that opens readable at any size.

The layout is computed here, not in the browser: states are grouped by app, each app is a box
whose states stand in columns by their distance from where the app is entered (so a workflow
reads left to right), and the boxes are packed to the shape of the window. The SVG's viewBox
is the whole layout, so the page opens with every state in view; wheel and drag zoom and pan.
Each state is named by its app and its screen title; a select box highlights a recorded trace,
or the subgraph retrieved for a task (``guigraph kb export --highlight-task``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guigraph.htmlsafe import data_uri, script_json, text

if TYPE_CHECKING:
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import Node

# Layout units are CSS pixels at zoom 1.
CARD_W, CARD_H = 150, 36
COL_GAP, ROW_GAP = 34, 10
PAD, HEADER = 10, 24
GROUP_GAP = 22
MAX_ROWS = 6  # a column taller than this wraps into the next
#: The drawing area of a 1400x1000 window beside the 330 px side panel, for the packing.
VIEW_ASPECT = (1400 - 330) / (1000 - 44)
MAX_ZOOM = 1.25  # how far a small graph is enlarged when the page opens


@dataclass(frozen=True)
class Highlight:
    """A set of states and transitions to mark, e.g. the subgraph retrieved for a task."""

    label: str
    nodes: Sequence[int]
    edges: Sequence[int]
    traces: Sequence[str] = field(default=())


@dataclass
class Group:
    app: str
    nodes: list[int]
    cells: dict[int, tuple[int, int]]  # node -> (column, row)
    x: float = 0.0
    y: float = 0.0

    @property
    def size(self) -> tuple[float, float]:
        cols = 1 + max((c for c, _ in self.cells.values()), default=0)
        rows = 1 + max((r for _, r in self.cells.values()), default=0)
        width = 2 * PAD + cols * CARD_W + (cols - 1) * COL_GAP
        height = HEADER + 2 * PAD + rows * CARD_H + (rows - 1) * ROW_GAP
        return max(width, 8 * len(self.app) + 2 * PAD + 40), height


def screen_name(node: Node) -> str:
    """What a person calls the screen: its title bar's text; else the first text on it that
    is not a button (a dialog's question); else "<App> screen"."""
    buttons = set()
    for element in node.example_elements:
        label = (element.text or element.content_desc).strip()
        if label and element.resource_id.endswith("/title"):
            return label
        if element.clickable:
            buttons.add(label)
    description = node.description.strip()
    head, colon, rest = description.partition(": ")
    items = [
        i.strip() for i in (rest if colon and head.endswith(" screen") else description).split(",")
    ]
    for item in items:
        if item and item not in buttons:
            return item[:40]
    if colon and head.endswith(" screen"):
        return head
    words = node.state_text.split()
    return " ".join(words[:3]) if words else f"state {node.node_id}"


def app_name(node: Node) -> str:
    return node.app or "(no app)"


def _columns(graph: Any, members: list[int]) -> dict[int, tuple[int, int]]:
    """Column = hops from the states where the app is entered; rows in order; tall columns wrap."""
    import networkx as nx

    inside = set(members)
    sub = graph.subgraph(members)
    entries = [n for n in members if any(p not in inside for p in graph.predecessors(n))]
    if not entries:
        entries = [min(members, key=lambda n: (sub.in_degree(n), n))]
    depth = nx.multi_source_dijkstra_path_length(sub, entries)
    unreached = sorted(n for n in members if n not in depth)
    last = max(depth.values(), default=-1)
    for offset, node in enumerate(unreached):
        depth[node] = last + 1 + offset // MAX_ROWS
    columns: dict[int, list[int]] = {}
    for node in sorted(members, key=lambda n: (depth[n], -graph.nodes[n].get("visits", 0), n)):
        columns.setdefault(depth[node], []).append(node)
    cells: dict[int, tuple[int, int]] = {}
    column = 0
    for key in sorted(columns):
        stack = columns[key]
        for start in range(0, len(stack), MAX_ROWS):
            for row, node in enumerate(stack[start : start + MAX_ROWS]):
                cells[node] = (column, row)
            column += 1
    return cells


def _pack(groups: list[Group]) -> tuple[float, float]:
    """Shelf-pack the boxes, trying row widths, keeping the one that shows most at fit."""
    sizes = [g.size for g in groups]
    widest = max(w for w, _ in sizes)
    total = sum(w for w, _ in sizes) + GROUP_GAP * len(sizes)
    best: tuple[float, tuple[float, float], list[tuple[float, float]]] | None = None
    steps = 40
    for i in range(steps + 1):
        limit = widest + (total - widest) * i / steps
        spots, x, y, shelf, width = [], 0.0, 0.0, 0.0, 0.0
        for w, h in sizes:
            if x > 0 and x + w > limit:
                x, y, shelf = 0.0, y + shelf + GROUP_GAP, 0.0
            spots.append((x, y))
            x += w + GROUP_GAP
            shelf = max(shelf, h)
            width = max(width, x - GROUP_GAP)
        height = y + shelf
        scale = min(VIEW_ASPECT / width, 1 / height)  # proportional to the zoom at fit
        if best is None or scale > best[0]:
            best = (scale, (width, height), spots)
    assert best is not None
    for group, (x, y) in zip(groups, best[2], strict=True):
        group.x, group.y = x, y
    return best[1]


def layout(
    kb: KnowledgeBase,
) -> tuple[list[Group], dict[int, tuple[float, float]], tuple[float, float]]:
    """Groups with positions, each state's card corner, and the layout's width and height."""
    graph = kb.graph
    by_app: dict[str, list[int]] = {}
    for node in kb.nodes():
        by_app.setdefault(app_name(node), []).append(node.node_id)
    order = sorted(by_app, key=lambda a: (a.lower() != "home", -len(by_app[a]), a.lower()))
    groups = [Group(app, by_app[app], _columns(graph, by_app[app])) for app in order]
    extent = _pack(groups) if groups else (400.0, 300.0)
    corners: dict[int, tuple[float, float]] = {}
    for group in groups:
        for node_id, (col, row) in group.cells.items():
            corners[node_id] = (
                group.x + PAD + col * (CARD_W + COL_GAP),
                group.y + HEADER + PAD + row * (CARD_H + ROW_GAP),
            )
    return groups, corners, extent


def _colour(index: int, count: int) -> str:
    return f"hsl({round(360 * index / max(count, 1))},55%,52%)"


def edge_path(a: tuple[float, float], b: tuple[float, float]) -> str:
    """A curve from one card to another: sideways when they stand apart, else up or down."""
    (ax, ay), (bx, by) = a, b
    if bx >= ax + CARD_W:  # forward: right side to left side
        x1, y1, x2, y2 = ax + CARD_W, ay + CARD_H / 2, bx, by + CARD_H / 2
        bend = max(20.0, (x2 - x1) / 2)
        controls = (x1 + bend, y1, x2 - bend, y2)
    elif bx + CARD_W <= ax:  # back: left side to right side, sagging below the row
        x1, y1, x2, y2 = ax, ay + CARD_H / 2, bx + CARD_W, by + CARD_H / 2
        bend = max(20.0, (x1 - x2) / 2)
        controls = (x1 - bend, y1 + 30, x2 + bend, y2 + 30)
    else:  # same column: bottom to top, or top to bottom
        down = by > ay
        x1, x2 = ax + CARD_W * 0.6, bx + CARD_W * 0.4
        y1, y2 = (ay + CARD_H, by) if down else (ay, by + CARD_H)
        side = 40.0 if down else -40.0
        controls = (x1 + 30, y1 + side, x2 + 30, y2 - side)
    c1x, c1y, c2x, c2y = controls
    return f"M{x1:.1f},{y1:.1f} C{c1x:.1f},{c1y:.1f} {c2x:.1f},{c2y:.1f} {x2:.1f},{y2:.1f}"


def action_words(action: dict[str, Any]) -> str:
    """An edge's action template in a few words, for the side panel."""
    kind = str(action.get("type", ""))
    label = action.get("target_label")
    if kind in ("click", "long_press"):
        where = repr(label) if label else str(action.get("point") or "")
        return ("tap " if kind == "click" else "long-press ") + where
    if kind == "type":
        return f"type {action.get('text', '')!r}"
    if kind == "scroll":
        return f"swipe {action.get('direction') or ''}".strip()
    if kind == "open_app":
        return f"open {action.get('app', '')}"
    return kind.replace("_", " ")


def _short(label: str, limit: int = 22) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def document(kb: KnowledgeBase, highlight: Highlight | None = None) -> dict[str, Any]:
    """Everything the page's script needs, besides the SVG drawn in Python."""
    nodes = []
    for node in kb.nodes():
        jpeg = kb.node_thumbnail(node.node_id)
        nodes.append(
            {
                "id": node.node_id,
                "app": app_name(node),
                "screen": screen_name(node),
                "description": node.description or node.state_text,
                "visits": node.visits,
                "thumbnail": data_uri(jpeg, "image/jpeg") if jpeg else None,
            }
        )
    edges = [
        {
            "id": e.edge_id,
            "source": e.source,
            "target": e.target,
            "count": e.count,
            "actions": [action_words(a.to_dict()) for a in e.actions],
        }
        for e in kb.edges()
    ]
    traces = [t.outline() for t in kb.traces()]
    marked = None
    if highlight is not None:
        marked = {
            "label": highlight.label,
            "nodes": list(highlight.nodes),
            "edges": list(highlight.edges),
            "traces": list(highlight.traces),
        }
    return {"nodes": nodes, "edges": edges, "traces": traces, "highlight": marked}


def svg(kb: KnowledgeBase) -> tuple[str, tuple[float, float, float, float]]:
    """The drawing (groups, edges, cards) and its viewBox."""
    groups, corners, (width, height) = layout(kb)
    colours = {g.app: _colour(i, len(groups)) for i, g in enumerate(groups)}
    parts: list[str] = []
    for group in groups:
        w, h = group.size
        c = colours[group.app]
        parts.append(
            f'<g class="group" data-app="{text(group.app)}">'
            f'<rect x="{group.x:.1f}" y="{group.y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="8" '
            f'fill="{c}" fill-opacity="0.08" stroke="{c}" stroke-opacity="0.6"/>'
            f'<text class="app" x="{group.x + PAD:.1f}" y="{group.y + 17:.1f}" fill="{c}">'
            f"{text(group.app)} <tspan class='n'>({len(group.nodes)})</tspan></text></g>"
        )
    apps = {n.node_id: app_name(n) for n in kb.nodes()}
    parts.append('<g id="edges">')
    for edge in kb.edges():
        if edge.source == edge.target or edge.source not in corners or edge.target not in corners:
            continue
        width_px = 1 + math.log(edge.count)
        cross = " cross" if apps[edge.source] != apps[edge.target] else ""
        parts.append(
            f'<path class="edge{cross}" id="e{edge.edge_id}" data-s="{edge.source}" '
            f'data-t="{edge.target}" d="{edge_path(corners[edge.source], corners[edge.target])}"'
            f' stroke-width="{width_px:.2f}"/>'
        )
    parts.append('</g><g id="nodes">')
    for node in kb.nodes():
        x, y = corners[node.node_id]
        name = screen_name(node)
        app = app_name(node)
        parts.append(
            f'<g class="node" id="n{node.node_id}" data-id="{node.node_id}" tabindex="0">'
            f"<title>{text(app)} · {text(name)} (state {node.node_id}, {node.visits} visits)"
            f'</title><rect x="{x:.1f}" y="{y:.1f}" width="{CARD_W}" height="{CARD_H}" rx="5"/>'
            f'<rect class="stripe" x="{x:.1f}" y="{y:.1f}" width="5" height="{CARD_H}" '
            f'fill="{colours[app]}"/>'
            f'<text class="label" x="{x + 10:.1f}" y="{y + 15:.1f}">{text(_short(name))}</text>'
            f'<text class="sub" x="{x + 10:.1f}" y="{y + 29:.1f}">{text(_short(app, 14))} · '
            f"#{node.node_id} · {node.visits}×</text></g>"
        )
    parts.append("</g>")
    # A small graph is not blown up past MAX_ZOOM: the box is at least the window's size
    # divided by it (the page anchors it top-left).
    view_w, view_h = 1400 - 330, 1000 - 44
    box = (
        -GROUP_GAP / 2,
        -GROUP_GAP / 2,
        max(width + GROUP_GAP, view_w / MAX_ZOOM),
        max(height + GROUP_GAP, view_h / MAX_ZOOM),
    )
    return "".join(parts), box


def render(kb: KnowledgeBase, highlight: Highlight | None = None) -> str:
    from guigraph.graph.explorer_page import PAGE

    drawing, box = svg(kb)
    stats = kb.stats()
    title = (
        f"{stats['nodes']} states · {stats['edges']} transitions · {stats['traces']} traces · "
        f"{len(stats['apps'])} apps"
    )
    values = {
        "__VIEWBOX__": " ".join(f"{v:.1f}" for v in box),
        "__TITLE__": text(title),
        "__SVG__": drawing,
        "__DATA__": script_json(document(kb, highlight)),
    }
    # One pass over the template: text from the KB is never scanned for placeholders.
    return re.sub("__(?:VIEWBOX|TITLE|SVG|DATA)__", lambda m: values[m.group(0)], PAGE)
