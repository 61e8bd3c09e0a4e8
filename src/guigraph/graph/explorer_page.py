"""The explorer page's HTML, CSS and script (plain JavaScript and SVG: no library, no network).

Placeholders filled by ``explorer.render``: __TITLE__, __VIEWBOX__, __SVG__ (drawn and escaped in
Python) and __DATA__ (JSON written with ``htmlsafe.script_json``). The script builds no markup
from strings: every text it shows goes in through ``textContent``.
"""

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>guigraph workflow graph</title>
<style>
html,body{margin:0;height:100%;font:13px/1.4 system-ui,sans-serif;color:#222}
body{display:flex;flex-direction:column}
#bar{display:flex;gap:10px;align-items:center;padding:6px 10px;border-bottom:1px solid #ddd;
 background:#fafafa;height:31px;box-sizing:content-box}
#bar select{max-width:520px}#bar .muted{margin-left:auto}
#main{flex:1;display:flex;min-height:0}
#view{flex:1;min-width:0;background:#fff;cursor:grab;user-select:none}
#view.panning{cursor:grabbing}
#side{width:330px;flex:none;overflow:auto;border-left:1px solid #ddd;padding:8px 10px;
 box-sizing:border-box}
#side img{max-width:100%;max-height:420px;border:1px solid #ccc;display:block;margin:6px 0}
#side h3{margin:4px 0;font-size:15px}#side ul,#side ol{padding-left:18px;margin:4px 0}
.muted{color:#777}
text{font-family:system-ui,sans-serif}
text.app{font-size:14px;font-weight:700}text.app .n{font-weight:400;fill:#888}
.node{cursor:pointer}.node rect{fill:#fff;stroke:#8a8a8a;stroke-width:1}
.node rect.stripe{stroke:none}
.node text.label{font-size:12px;fill:#111}.node text.sub{font-size:9.5px;fill:#777}
.node:hover rect:first-of-type,.node.sel rect:first-of-type{stroke:#222;stroke-width:2}
.edge{fill:none;stroke:#6b7686;opacity:.45;marker-end:url(#arrow)}
.edge.cross{opacity:.2}
#arrow path{fill:#6b7686}#arrow-on path{fill:#d62728}#arrow-near path{fill:#0b5cad}
svg.focus .edge{opacity:.06}svg.focus .node{opacity:.25}svg.focus .group{opacity:.5}
svg.focus .node.on{opacity:1}svg.focus .node.on rect:first-of-type{stroke:#d62728;stroke-width:2.5}
svg.focus .edge.on{stroke:#d62728;opacity:.9;marker-end:url(#arrow-on)}
.edge.near,svg.focus .edge.near{stroke:#0b5cad;opacity:.9;marker-end:url(#arrow-near)}
button{font:inherit}
</style></head><body>
<div id="bar"><b style="white-space:nowrap">Workflow graph</b>
<label>Highlight <select id="trace"><option value="">nothing</option></select></label>
<input id="find" type="search" placeholder="find a state…" size="16"
 title="Highlight the states whose app, screen or description contain this text">
<button id="fit" title="Show the whole graph">Fit</button>
<button id="zin" title="Zoom in">+</button><button id="zout" title="Zoom out">−</button>
<span class="muted" title="wheel: zoom · drag: pan · click a state for details">__TITLE__</span>
</div>
<div id="main">
<svg id="view" viewBox="__VIEWBOX__" preserveAspectRatio="xMinYMin meet"
 xmlns="http://www.w3.org/2000/svg" role="img" aria-label="workflow graph">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8"
 markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker>
<marker id="arrow-on" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9"
 markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker>
<marker id="arrow-near" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9"
 markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>
__SVG__</svg>
<div id="side"><h3>States grouped by app</h3>
<p class="muted">Each box is an app; its states stand in columns by how far they are from where
the app is entered. Click a state to see its screenshot and transitions; pick a trace above to
follow one recorded episode through the graph.</p><div id="info"></div></div></div>
<script type="application/json" id="kb-data">__DATA__</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("kb-data").textContent);
const svg = document.getElementById("view"), info = document.getElementById("info");
const nodes = new Map(data.nodes.map(n => [n.id, n]));
const edges = new Map(data.edges.map(e => [e.id, e]));
const home = svg.getAttribute("viewBox").split(" ").map(Number);
let box = home.slice();
const show = () => svg.setAttribute("viewBox", box.map(v => v.toFixed(1)).join(" "));
const toGraph = ev => { const p = svg.createSVGPoint(); p.x = ev.clientX; p.y = ev.clientY;
  return p.matrixTransform(svg.getScreenCTM().inverse()); };
const zoom = (factor, at) => { const c = at || {x: box[0] + box[2] / 2, y: box[1] + box[3] / 2};
  box = [c.x - (c.x - box[0]) * factor, c.y - (c.y - box[1]) * factor,
         box[2] * factor, box[3] * factor]; show(); };
svg.addEventListener("wheel", ev => { ev.preventDefault();
  zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, toGraph(ev)); }, {passive: false});
let drag = null;
svg.addEventListener("mousedown", ev => { drag = {x: ev.clientX, y: ev.clientY, box: box.slice()};
  svg.classList.add("panning"); });
window.addEventListener("mousemove", ev => { if (!drag) return;
  const k = box[2] / svg.getBoundingClientRect().width;
  box = [drag.box[0] - (ev.clientX - drag.x) * k, drag.box[1] - (ev.clientY - drag.y) * k,
         box[2], box[3]]; show(); });
window.addEventListener("mouseup", () => { drag = null; svg.classList.remove("panning"); });
document.getElementById("fit").addEventListener("click", () => { box = home.slice(); show(); });
document.getElementById("zin").addEventListener("click", () => zoom(1 / 1.4));
document.getElementById("zout").addEventListener("click", () => zoom(1.4));

const add = (parent, tag, text, cls) => { const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text; if (cls) e.className = cls;
  parent.appendChild(e); return e; };
const name = id => { const n = nodes.get(id);
  return n ? n.app + " · " + n.screen : "state " + id; };
const words = e => e.actions.join(", ");

function details(id) {
  const n = nodes.get(id); info.replaceChildren();
  document.querySelectorAll(".node.sel").forEach(g => g.classList.remove("sel"));
  document.querySelectorAll(".edge.near").forEach(p => p.classList.remove("near"));
  const g = document.getElementById("n" + id); if (g) g.classList.add("sel");
  add(info, "h3", name(id));
  add(info, "div", "state " + id + " · " + n.visits + " visits", "muted");
  if (n.thumbnail) { const img = add(info, "img"); img.src = n.thumbnail;
    img.alt = "screenshot of " + name(id); }
  add(info, "p", n.description);
  const out = data.edges.filter(e => e.source === id);
  const inn = data.edges.filter(e => e.target === id);
  for (const e of out.concat(inn)) { const p = document.getElementById("e" + e.id);
    if (p) p.classList.add("near"); }
  if (out.length) { add(info, "b", "Leads to"); const ul = add(info, "ul");
    for (const e of out) add(ul, "li", words(e) + " → " + name(e.target) + " (×" + e.count + ")"); }
  if (inn.length) { add(info, "b", "Reached from"); const ul = add(info, "ul");
    for (const e of inn) add(ul, "li", name(e.source) + ": " + words(e) + " (×" + e.count + ")"); }
  const through = data.traces.filter(t => t.node_path.includes(id));
  add(info, "p", through.length + " recorded traces pass through this state.", "muted");
}
for (const g of document.querySelectorAll(".node")) {
  const id = Number(g.dataset.id);
  g.addEventListener("mousedown", ev => ev.stopPropagation());
  g.addEventListener("click", () => details(id));
  g.addEventListener("keydown", ev => { if (ev.key === "Enter") details(id); });
}

const select = document.getElementById("trace");
const marks = [];
if (data.highlight) marks.push({label: data.highlight.label, nodes: data.highlight.nodes,
  edges: data.highlight.edges, about: data.highlight.traces});
for (const t of data.traces) marks.push({label: t.category + " · " + t.instruction,
  nodes: t.node_path, edges: t.edge_path, trace: t});
marks.forEach((m, i) => { const o = document.createElement("option"); o.value = String(i);
  o.textContent = m.label.length > 90 ? m.label.slice(0, 89) + "…" : m.label;
  o.title = m.label; select.appendChild(o); });
function mark(m) {
  document.querySelectorAll(".on").forEach(e => e.classList.remove("on"));
  svg.classList.toggle("focus", !!m);
  if (!m) return;
  for (const id of m.nodes) { const g = document.getElementById("n" + id);
    if (g) g.classList.add("on"); }
  for (const id of m.edges) { const p = document.getElementById("e" + id);
    if (p) p.classList.add("on"); }
  info.replaceChildren();
  add(info, "h3", m.label);
  if (m.trace) { add(info, "div", "episode " + m.trace.episode_id, "muted");
    const ol = add(info, "ol");
    m.trace.node_path.forEach((id, i) => { const li = add(ol, "li", name(id));
      const e = edges.get(m.trace.edge_path[i]);
      if (e) add(li, "div", "then " + words(e), "muted"); });
  } else if (m.list) { const ul = add(info, "ul");
    for (const id of m.list) { const li = add(ul, "li", name(id)); li.style.cursor = "pointer";
      li.addEventListener("click", () => details(id)); }
  } else { add(info, "p", m.nodes.length + " states and " + m.edges.length +
    " transitions retrieved.", "muted");
    if (m.about && m.about.length) { add(info, "b", "from the traces of");
      const ul = add(info, "ul"); for (const id of m.about) { const t = data.traces.find(
        x => x.episode_id === id); add(ul, "li", t ? t.instruction : id); } } }
}
select.addEventListener("change",
  () => mark(select.value === "" ? null : marks[Number(select.value)]));
if (data.highlight) { select.value = "0"; mark(marks[0]); }
const find = document.getElementById("find");
find.addEventListener("input", () => { const q = find.value.trim().toLowerCase();
  if (!q) { mark(select.value === "" ? null : marks[Number(select.value)]); return; }
  const hits = data.nodes.filter(n => (n.app + " " + n.screen + " " + n.description)
    .toLowerCase().includes(q)).map(n => n.id);
  mark({label: hits.length + " states match “" + find.value.trim() + "”", nodes: hits, edges: [],
    list: hits}); });
</script></body></html>
"""
