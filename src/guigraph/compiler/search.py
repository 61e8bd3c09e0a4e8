"""Looking for a value the task names through what the graph knows reveals content.

A link, a file or a row the instruction names may hide behind a closed tab, a collapsed
section or a folder: no fixed workflow reaches it, since where it hides changes every time.
The recordings show which in-page taps of a state reveal content (the tabs or folders a person
opened there before tapping the value). When the step's value is not on the screen, the
policy opens those, and the screen's elements of the same kind, one at a time, checking after
each whether the value showed, and gives up when none is left or the search's budget is spent.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from guigraph.compiler.script import ScriptStep
from guigraph.compiler.slots import content_words
from guigraph.graph.records import ActionTemplate, Edge, Trace
from guigraph.roles import ElementView, SemanticState

#: At most this many reveals per episode: the episode has ten steps.
MAX_REVEALS = 8


@dataclass(frozen=True)
class Reveal:
    """A kind of element a recording opened to show more: its role, label and id."""

    role: str
    label: str
    key: str
    #: Recordings tapped elements of several labels with this id (folders): it names a kind.
    key_names_kind: bool = False


@dataclass
class Search:
    """One episode's search: what it opened, so that each element is opened once."""

    opened: set[tuple[str, str, str]] = field(default_factory=set)
    #: Elements seen selected (the tab open at the start): what they hold was on a screen.
    seen_open: set[tuple[str, str, str]] = field(default_factory=set)
    #: What the recordings opened, by the state the value is tapped in (found once).
    kinds_at: dict[int, list[Reveal]] = field(default_factory=dict)

    def next_reveal(self, state: SemanticState, recorded: Iterable[Reveal]) -> ElementView | None:
        """The first element on the screen, in reading order, of a recorded kind, neither
        opened yet nor selected; None when none is left or the budget is spent."""
        if len(self.opened) >= MAX_REVEALS:
            return None
        kinds = list(recorded)
        for view in reading_order(state.elements):
            mark = (view.element.class_name, view.label, view.key)
            # A selected tab (or an open section) shows what it holds, now or before.
            if view.element.checked:
                self.seen_open.add(mark)
            if mark in self.opened or mark in self.seen_open:
                continue
            if _of_kind(view, kinds, state):
                self.opened.add(mark)
                return view
        return None


def is_bound_value(step: ScriptStep) -> bool:
    """A tap on a value bound anew from the task (the recording tapped another link)."""
    return step.template.taps and bool(step.label) and step.label != step.template.target_label


def value_step_ahead(script: Sequence[ScriptStep], cursor: int) -> int | None:
    """The index of the next tap on a value bound from the task, where every step before it
    from ``cursor`` is a tap on a recorded constant in the same state (opening a tab): those
    taps were how that recording revealed it, and may not be how this one does."""
    node = script[cursor].node if cursor < len(script) else None
    for index in range(cursor, len(script)):
        step = script[index]
        if step.node != node or not step.template.taps:
            return None
        if is_bound_value(step):
            return index
        if step.jumps_to is not None:
            return None
    return None


def recorded_reveals(
    nodes: Collection[int], script: Sequence[ScriptStep], traces: Iterable[Trace],
    edges: dict[int, Edge],
) -> list[Reveal]:  # fmt: skip
    """The in-page taps recordings made in ``nodes`` on things their instruction did not name:
    the script's own, then other traces' (their tails, and edge actions before the leaving
    one). A tap on a named value, and the last tap of a run (the one that finished it), are
    not reveals."""
    own = [
        s.template for s in script
        if s.node in nodes and s.template.taps and s.jumps_to is None and not is_bound_value(s)
        and not content_words(s.label) & s.task_words
    ]  # fmt: skip
    found, labels_of = list(own), _labels_by_id(own)
    for trace in traces:
        said = content_words(trace.instruction)
        for node in set(trace.node_path) & set(nodes):
            for template in _in_page_taps(node, trace, edges, with_last=True):
                labels_of.setdefault(template.target_id, set()).add(template.target_label)
            for template in _in_page_taps(node, trace, edges):
                if template.target_label and not content_words(template.target_label) & said:
                    found.append(template)
    reveals = [_reveal(t, len(labels_of.get(t.target_id, ())) >= 2) for t in found]
    return list(dict.fromkeys(reveals))


def _labels_by_id(templates: Iterable[ActionTemplate]) -> dict[str, set[str]]:
    labels: dict[str, set[str]] = {}
    for template in templates:
        labels.setdefault(template.target_id, set()).add(template.target_label)
    return labels


def _in_page_taps(
    node: int, trace: Trace, edges: dict[int, Edge], with_last: bool = False
) -> list[ActionTemplate]:
    """The taps ``trace`` made in ``node`` without leaving it; ``with_last``: and the one
    that left it or ended the run."""
    end = None if with_last else -1
    taps: list[ActionTemplate] = []
    for edge_id in trace.edge_path:
        edge = edges.get(edge_id)
        if edge is not None and edge.source == node:
            taps += [a for a in edge.actions[:end] if a.taps]
    if trace.node_path and trace.node_path[-1] == node:
        taps += [a for a in trace.tail[:end] if a.taps]
    return taps


def _reveal(template: ActionTemplate, key_names_kind: bool) -> Reveal:
    return Reveal(template.target_role, template.target_label, template.target_id, key_names_kind)


def _of_kind(view: ElementView, kinds: Sequence[Reveal], state: SemanticState) -> bool:
    """Whether ``view`` is one of the recorded reveals: the same role and label, or the same
    role and an id that names a kind of element, not one element (the recordings tapped
    several labels with it, or several elements on the screen share it: folders)."""
    role = view.element.class_name
    for kind in kinds:
        if kind.role != role:
            continue
        if kind.label and kind.label.strip().lower() == view.label.strip().lower():
            return True
        same_kind = kind.key_names_kind or _shared(kind.key, state)
        if kind.key and _id_of(view) == kind.key and same_kind:
            return True
    return False


def _id_of(view: ElementView) -> str:
    return view.element.resource_id or view.key


def _shared(key: str, state: SemanticState) -> bool:
    return sum(1 for v in state.elements if _id_of(v) == key) >= 2


def reading_order(views: Iterable[ElementView]) -> list[ElementView]:
    """Top to bottom, then left to right (rows a few pixels apart are one row)."""
    return sorted(views, key=lambda v: (round(v.bbox.y1 / 20), v.bbox.x1))
