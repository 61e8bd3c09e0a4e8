"""What the knowledge base stores: nodes, edges with action templates, traces.

These are the read API's types (graph RAG and the agents consume them); they are plain frozen
dataclasses with ``to_dict``/``from_dict`` so SQLite rows and exports share one format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from guigraph.errors import KnowledgeBaseError
from guigraph.types import POINT_ACTIONS, ActionType, UIElement, element_keys


class SourceKind(StrEnum):
    INSTRUCTION = "instruction"  # the task says the value ("Paris")
    SCREEN = "screen"  # an element of an earlier screen showed it (a temperature)


@dataclass(frozen=True, slots=True)
class TextSource:
    """Where a slot's typed text comes from: the instruction, or the element with ``key``
    (``types.element_keys``) on an earlier screen, which replaying must read again."""

    kind: SourceKind
    key: str = ""

    @classmethod
    def instruction(cls) -> TextSource:
        return cls(SourceKind.INSTRUCTION)

    @classmethod
    def screen(cls, key: str) -> TextSource:
        return cls(SourceKind.SCREEN, key)

    @property
    def from_screen(self) -> bool:
        return self.kind is SourceKind.SCREEN

    def encoded(self) -> str:
        """The stored form, and the key focus memory keeps a screen's text under:
        "instruction" or "screen:<key>"."""
        return f"screen:{self.key}" if self.from_screen else self.kind.value

    @classmethod
    def parse(cls, text: str) -> TextSource:
        kind, _, key = str(text).partition(":")
        try:
            return cls(SourceKind(kind), key)
        except ValueError:
            raise KnowledgeBaseError(
                f"text source {text!r}: expected 'instruction' or 'screen:<element key>'"
            ) from None


@dataclass(frozen=True, slots=True)
class SlotKey:
    """One slot a trace typed: slot ``slot`` of edge ``edge_id``, or of the actions in the
    trace's last state (its tail) when ``edge_id`` is None."""

    edge_id: int | None
    slot: str

    def encoded(self) -> str:
        """The stored (and shown) form: "<edge_id>:<slot>" or "tail:<slot>"."""
        return f"{'tail' if self.edge_id is None else self.edge_id}:{self.slot}"

    def __str__(self) -> str:
        return self.encoded()

    @classmethod
    def parse(cls, text: str) -> SlotKey:
        where, sep, slot = str(text).partition(":")
        if not sep or not slot or not (where == "tail" or where.isdigit()):
            raise KnowledgeBaseError(
                f"slot key {text!r}: expected '<edge id>:<slot>' or 'tail:<slot>'"
            )
        return cls(None if where == "tail" else int(where), slot)


@dataclass(frozen=True, slots=True)
class Slot:
    """Typed text that came from the instruction, so a trace can be replayed with another value."""

    name: str  # e.g. "text1"; the template text holds "{text1}"
    example: str  # the value typed in the recorded episode
    source: TextSource = TextSource(SourceKind.INSTRUCTION)

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "example": self.example, "source": self.source.encoded()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Slot:
        source = data.get("source")
        return cls(
            str(data["name"]),
            str(data["example"]),
            TextSource.parse(source) if source else TextSource.instruction(),
        )


@dataclass(frozen=True, slots=True)
class ActionTemplate:
    """One action of an edge, generalised: the target element's label/role, not only a point."""

    type: ActionType
    target_label: str = ""
    target_role: str = ""
    target_id: str = ""
    point: tuple[float, float] | None = None  # an example point (normalized 0..1000)
    direction: str | None = None
    text: str | None = None  # typed text, with "{slot}" where it came from the instruction
    app: str | None = None
    hint: str = ""  # the recorded low-level instruction, when the data has one
    #: Where each "{slot}" in ``text`` comes from: the instruction, or an element of an
    #: earlier screen (replaying must read it again in the new world).
    text_sources: tuple[tuple[str, TextSource], ...] = ()
    #: The chord of a key action (``("ctrl", "s")``).
    keys: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Built from a plain string too (tests, hand-written templates): kept as the enum.
        object.__setattr__(self, "type", ActionType(self.type))

    def source_of(self, slot: str) -> TextSource | None:
        return dict(self.text_sources).get(slot)

    @property
    def taps(self) -> bool:
        return self.type in POINT_ACTIONS

    def signature(self) -> str:
        """What makes two recorded actions the same step of a workflow (no coordinates)."""
        parts = [self.type.value, self.target_label, self.target_role, self.target_id]
        parts += [self.direction or "", self.text or "", self.app or ""]
        if self.keys:
            parts.append("+".join(self.keys))
        # Where typed values come from is part of the step: a note typed from the weather
        # screen and one typed from a product page are different workflows.
        parts += [f"{slot}={source.encoded()}" for slot, source in self.text_sources]
        if self.taps and not (self.target_label or self.target_id):
            # Without a target name, the rounded point is the only identity a tap has.
            parts.append(_coarse_point(self.point))
        return "|".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if v not in (None, "", ())}
        out["type"] = self.type.value
        if self.text_sources:
            out["text_sources"] = {slot: src.encoded() for slot, src in self.text_sources}
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ActionTemplate:
        point = data.get("point")
        try:
            kind = ActionType(str(data["type"]))
        except ValueError:
            known = ", ".join(t.value for t in ActionType)
            raise KnowledgeBaseError(
                f"action template field 'type': expected one of {known}, got {data['type']!r}"
            ) from None
        return cls(
            type=kind,
            target_label=str(data.get("target_label", "")),
            target_role=str(data.get("target_role", "")),
            target_id=str(data.get("target_id", "")),
            point=(float(point[0]), float(point[1])) if point else None,
            direction=data.get("direction"),
            text=data.get("text"),
            app=data.get("app"),
            hint=str(data.get("hint", "")),
            text_sources=tuple(
                (str(k), TextSource.parse(v)) for k, v in dict(data.get("text_sources", {})).items()
            ),
            keys=tuple(str(k) for k in data.get("keys", ())),
        )


def _coarse_point(point: tuple[float, float] | None) -> str:
    if point is None:
        return ""
    return f"@{round(point[0] / 50)},{round(point[1] / 50)}"


@dataclass(frozen=True, slots=True)
class Node:
    node_id: int
    app: str | None
    description: str
    state_text: str
    example_elements: tuple[UIElement, ...]
    screenshot_path: str | None
    visits: int
    first_episode: str
    #: ``types.element_keys`` of ``example_elements`` (derived, never stored).
    element_keys: tuple[str, ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        keys = tuple(element_keys(self.example_elements, self.app))
        object.__setattr__(self, "element_keys", keys)


@dataclass(frozen=True, slots=True)
class Edge:
    edge_id: int
    source: int
    target: int
    actions: tuple[ActionTemplate, ...]
    slots: tuple[Slot, ...]
    target_label: str  # label of the element the leaving action touched, if known
    count: int
    episodes: tuple[str, ...] = field(default=())

    @property
    def signature(self) -> str:
        return edge_signature(self.actions)


def edge_signature(actions: tuple[ActionTemplate, ...]) -> str:
    return " > ".join(a.signature() for a in actions)


@dataclass(frozen=True, slots=True)
class Trace:
    episode_id: str
    instruction: str
    category: str
    apps: tuple[str, ...]
    node_path: tuple[int, ...]
    edge_path: tuple[int, ...]
    steps: int
    #: Actions taken in the last state before COMPLETE: they lead to no other state, so no
    #: edge holds them, but replaying the trace needs them (typing the note, pressing send).
    tail: tuple[ActionTemplate, ...] = ()
    #: What this episode typed into each slot. An edge keeps the example of the episode that
    #: created it; a trace keeps its own.
    values: dict[SlotKey, str] = field(default_factory=dict)

    def recorded_actions(
        self, edges: Mapping[int, Edge]
    ) -> list[tuple[int, int | None, ActionTemplate]]:
        """Every action the episode took, in order, as (state it was taken on, edge id or
        None for the tail, template); an edge missing from ``edges`` is skipped."""
        actions: list[tuple[int, int | None, ActionTemplate]] = [
            (self.node_path[k], edge_id, template)
            for k, edge_id in enumerate(self.edge_path)
            if edge_id in edges
            for template in edges[edge_id].actions
        ]
        actions += [(self.node_path[-1], None, template) for template in self.tail]
        return actions

    def outline(self) -> dict[str, Any]:
        """What exports and the explorer show of a trace: its task and its path."""
        return {
            "episode_id": self.episode_id,
            "instruction": self.instruction,
            "category": self.category,
            "node_path": list(self.node_path),
            "edge_path": list(self.edge_path),
        }


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
