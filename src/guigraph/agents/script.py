"""Scripts: the action steps a plan asks for, each tied to the graph state it is taken in.

A recorded trace becomes a script by unrolling its edges (every in-page action of a state,
then the action that left it) and its tail (the actions in the last state before COMPLETE).
A task whose template was never recorded is stitched: for each app the instruction names, in
order, the segment of the best retrieved trace that works in that app.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from guigraph.graph.records import ActionTemplate, Edge, Node, Trace
    from guigraph.retrieval.context import RetrievedTrace

HOME_APPS = frozenset({"home", "launcher", ""})
_END_TYPES = frozenset({"complete", "impossible"})


@dataclass(frozen=True)
class ScriptStep:
    node: int  # the graph state the action is taken in
    template: ActionTemplate
    jumps_to: int | None  # the state it leads to, when it is the action that leaves the state
    app: str | None
    segment: int
    slot_key: str  # prefix of this step's slots in the trace's values ("<edge_id>" or "tail")
    trace_id: str


def trace_script(
    trace: Trace, edges: Mapping[int, Edge], nodes: Mapping[int, Node], segment: int = 0
) -> list[ScriptStep]:
    steps: list[ScriptStep] = []
    for k, edge_id in enumerate(trace.edge_path):
        edge = edges[edge_id]
        here, there = trace.node_path[k], trace.node_path[k + 1]
        for i, template in enumerate(edge.actions):
            last = i == len(edge.actions) - 1
            steps.append(
                ScriptStep(
                    here,
                    template,
                    there if last else None,
                    _app(nodes, here),
                    segment,
                    str(edge_id),
                    trace.episode_id,
                )
            )
    last_node = trace.node_path[-1]
    for template in trace.tail:
        if template.type not in _END_TYPES:
            steps.append(
                ScriptStep(
                    last_node,
                    template,
                    None,
                    _app(nodes, last_node),
                    segment,
                    "tail",
                    trace.episode_id,
                )
            )
    return steps


def _app(nodes: Mapping[int, Node], node_id: int) -> str | None:
    node = nodes.get(node_id)
    return node.app if node else None


def app_sequence(script: Sequence[ScriptStep]) -> list[str]:
    """Apps in the order the script works in them (home screens left out)."""
    order: list[str] = []
    for step in script:
        if step.app and step.app not in HOME_APPS and (not order or order[-1] != step.app):
            order.append(step.app)
    return order


def app_aliases(edges: Sequence[Edge], nodes: Mapping[int, Node]) -> dict[str, str]:
    """Name → app, from the app names themselves and the launcher labels tapped to open them."""
    aliases: dict[str, str] = {}
    for node in nodes.values():
        if node.app and node.app not in HOME_APPS:
            aliases.setdefault(node.app.lower(), node.app)
    for edge in edges:
        source, target = nodes.get(edge.source), nodes.get(edge.target)
        if source is None or target is None or (source.app or "") not in HOME_APPS:
            continue
        label = edge.actions[-1].target_label.strip().lower()
        if label and target.app and target.app not in HOME_APPS:
            aliases.setdefault(label, target.app)
    return aliases


def apps_in_instruction(instruction: str, aliases: Mapping[str, str]) -> list[str]:
    """Apps an instruction names, in the order it names them."""
    text = instruction.lower()
    found: list[tuple[int, str]] = []
    for alias, app in aliases.items():
        stem = alias[:-1] if alias.endswith("s") and len(alias) > 4 else alias
        match = re.search(rf"(?<!\w){re.escape(stem)}s?(?!\w)", text)
        if match:
            found.append((match.start(), app))
    ordered: list[str] = []
    for _, app in sorted(found):
        if app not in ordered:
            ordered.append(app)
    return ordered


def stitch(
    wanted_apps: Sequence[str],
    candidates: Sequence[RetrievedTrace],
    scripts: Mapping[str, list[ScriptStep]],
) -> tuple[list[ScriptStep], list[str]]:
    """One segment per wanted app, each from the best candidate trace that works in it.

    A candidate where the app stands at the same position (first, middle, last) as in the new
    task is preferred: the weather segment of "weather then note" ends by reading the forecast,
    the one of "note then weather" may not.
    """
    plan: list[ScriptStep] = []
    used: list[str] = []
    for position, app in enumerate(wanted_apps):
        best = _best_segment(app, position, len(wanted_apps), candidates, scripts)
        if best is None:
            continue
        trace_id, segment = best
        used.append(trace_id)
        plan.extend(_renumber(segment, position))
    return plan, used


def _best_segment(
    app: str,
    position: int,
    total: int,
    candidates: Sequence[RetrievedTrace],
    scripts: Mapping[str, list[ScriptStep]],
) -> tuple[str, list[ScriptStep]] | None:
    ranked: list[tuple[tuple[int, float], str, list[ScriptStep]]] = []
    for item in candidates:
        script = scripts[item.trace.episode_id]
        order = app_sequence(script)
        if app not in order:
            continue
        where = order.index(app)
        same_role = _role(where, len(order)) == _role(position, total)
        segment = [s for s in script if s.app == app]
        ranked.append(((int(same_role), item.score), item.trace.episode_id, segment))
    if not ranked:
        return None
    _, trace_id, segment = max(ranked, key=lambda r: r[0])
    return trace_id, segment


def _role(index: int, length: int) -> str:
    if length == 1:
        return "only"
    return "first" if index == 0 else "last" if index == length - 1 else "middle"


def _renumber(steps: list[ScriptStep], segment: int) -> list[ScriptStep]:
    from dataclasses import replace

    return [replace(s, segment=segment) for s in steps]
