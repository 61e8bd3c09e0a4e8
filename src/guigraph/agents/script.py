"""Scripts: the action steps a plan asks for, each tied to the graph state it is taken in.

A recorded trace becomes a script by unrolling its edges (every in-page action of a state, then
the action that left it) and its tail (the actions in the last state before COMPLETE). Binding
a script to a new task fills its values: typed text from the instruction, tapped labels that
the instruction named (a song, a contact), and values to be read off a screen while acting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from guigraph.retrieval.slots import fill_slot, words
from guigraph.retrieval.values import ValueIndex, label_in_instruction

if TYPE_CHECKING:
    from guigraph.graph.records import ActionTemplate, Edge, Node, Trace

HOME_APPS = frozenset({"home", "launcher", ""})
_END_TYPES = frozenset({"complete", "impossible"})


@dataclass(frozen=True)
class ScriptStep:
    node: int  # the graph state the action is taken in
    template: ActionTemplate
    jumps_to: int | None  # the state it leads to, when it is the action that leaves the state
    app: str | None
    trace_id: str
    slot_key: str = ""  # "<edge_id>" or "tail": where this step's slots live in trace.values
    segment: int = 0
    text: str | None = None  # the text to type, once bound (None: read it off a screen)
    text_source: str = ""  # "screen:<resource id>" when the text is read off a screen
    fallback_source: str = ""  # where else to read it (a value carried from an earlier app)
    label: str = ""  # the label to tap, once bound (the task's value for a value label)

    @property
    def home(self) -> bool:
        return (self.app or "") in HOME_APPS


@dataclass
class Binding:
    """A script bound to a new task, with what it explains of the instruction."""

    steps: list[ScriptStep]
    claimed: set[str] = field(default_factory=set)  # words of the new instruction it explains
    unfilled: int = 0  # instruction values it needs but could not find
    exports: list[str] = field(default_factory=list)  # screen sources it reads values from


def trace_script(
    trace: Trace, edges: Mapping[int, Edge], nodes: Mapping[int, Node]
) -> list[ScriptStep]:
    steps: list[ScriptStep] = []
    for k, edge_id in enumerate(trace.edge_path):
        edge = edges[edge_id]
        here, there = trace.node_path[k], trace.node_path[k + 1]
        for i, template in enumerate(edge.actions):
            jumps_to = there if i == len(edge.actions) - 1 else None
            steps.append(_step(here, template, jumps_to, nodes, trace, str(edge_id)))
    last = trace.node_path[-1]
    steps += [
        _step(last, t, None, nodes, trace, "tail") for t in trace.tail if t.type not in _END_TYPES
    ]
    return steps


def _step(
    node: int, template: ActionTemplate, jumps_to: int | None, nodes: Mapping[int, Node],
    trace: Trace, slot_key: str,
) -> ScriptStep:  # fmt: skip
    app = nodes[node].app if node in nodes else None
    return ScriptStep(
        node, template, jumps_to, app, trace.episode_id, slot_key, label=template.target_label
    )


def bind(
    steps: Sequence[ScriptStep], trace: Trace, instruction: str, values: ValueIndex
) -> Binding:
    """Fill the script's values for ``instruction``; unfilled ones keep the trace's own."""
    binding = Binding([])
    new_words = {w.lower() for w in words(instruction)}
    for step in steps:
        template = step.template
        if template.type == "type":
            step = _bind_text(step, trace, instruction, values, binding)
        elif template.type in ("click", "long_press") and label_in_instruction(
            template.target_label, trace.instruction
        ):
            new = fill_slot(
                template.target_label, trace.instruction, instruction,
                values.known((step.node, "click")),
            )  # fmt: skip
            if new is None:
                binding.unfilled += 1
            else:
                binding.claimed |= {w.lower() for w in words(new)} & new_words
                step = replace(step, label=new)
        binding.steps.append(step)
    return binding


def _bind_text(
    step: ScriptStep, trace: Trace, instruction: str, values: ValueIndex, binding: Binding
) -> ScriptStep:
    template = step.template
    raw = template.text or ""
    if not raw.startswith("{"):
        return replace(step, text=raw)  # literal text: typed the same every time
    recorded = trace.values.get(f"{step.slot_key}:{raw.strip('{}')}", "")
    if template.text_source.startswith("screen:"):
        binding.exports.append(template.text_source)
        return replace(step, text=None, text_source=template.text_source)
    new = fill_slot(recorded, trace.instruction, instruction, values.known((step.node, "type")))
    if new is None:
        binding.unfilled += 1
        return replace(step, text=recorded)
    binding.claimed |= {w.lower() for w in words(new)} & {w.lower() for w in words(instruction)}
    return replace(step, text=new)


def app_sequence(script: Sequence[ScriptStep]) -> list[str]:
    """Apps in the order the script works in them (home screens left out)."""
    order: list[str] = []
    for step in script:
        if step.app and not step.home and (not order or order[-1] != step.app):
            order.append(step.app)
    return order


def segments(script: Sequence[ScriptStep]) -> list[list[ScriptStep]]:
    """The script cut where it changes app; home-screen steps go with the app they open."""
    parts: list[list[ScriptStep]] = []
    pending: list[ScriptStep] = []
    for step in script:
        if step.home:
            pending.append(step)
            continue
        if parts and parts[-1][-1].app == step.app and not pending:
            parts[-1].append(step)
        else:
            parts.append([*pending, step])
        pending = []
    if pending and parts:
        parts[-1].extend(pending)
    return parts


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
