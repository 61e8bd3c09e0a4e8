"""What the knowledge base stores: nodes, edges with action templates, traces.

These are the read API's types (graph RAG and the agents consume them); they are plain frozen
dataclasses with ``to_dict``/``from_dict`` so SQLite rows and exports share one format.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from guigraph.types import stored_element_keys


@dataclass(frozen=True, slots=True)
class Slot:
    """Typed text that came from the instruction, so a trace can be replayed with another value."""

    name: str  # e.g. "text1"; the template text holds "{text1}"
    example: str  # the value typed in the recorded episode
    source: str = "instruction"


@dataclass(frozen=True, slots=True)
class ActionTemplate:
    """One action of an edge, generalised: the target element's label/role, not only a point."""

    type: str
    target_label: str = ""
    target_role: str = ""
    target_id: str = ""
    point: tuple[float, float] | None = None  # an example point (normalized 0..1000)
    direction: str | None = None
    text: str | None = None  # typed text, with "{slot}" where it came from the instruction
    app: str | None = None
    hint: str = ""  # the recorded low-level instruction, when the data has one
    #: Where each "{slot}" in ``text`` comes from: "instruction", or "screen:<resource id>" for
    #: a value read off an earlier screen (replaying must read it again in the new world).
    text_sources: tuple[tuple[str, str], ...] = ()

    def source_of(self, slot: str) -> str:
        return dict(self.text_sources).get(slot, "")

    def signature(self) -> str:
        """What makes two recorded actions the same step of a workflow (no coordinates)."""
        parts = [self.type, self.target_label, self.target_role, self.target_id]
        parts += [self.direction or "", self.text or "", self.app or ""]
        # Where typed values come from is part of the step: a note typed from the weather
        # screen and one typed from a product page are different workflows.
        parts += [f"{slot}={source}" for slot, source in self.text_sources]
        if self.type in ("click", "long_press") and not (self.target_label or self.target_id):
            # Without a target name, the rounded point is the only identity a tap has.
            parts.append(_coarse_point(self.point))
        return "|".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if v not in (None, "", ())}
        if self.text_sources:
            out["text_sources"] = dict(self.text_sources)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ActionTemplate:
        point = data.get("point")
        return cls(
            type=str(data["type"]),
            target_label=str(data.get("target_label", "")),
            target_role=str(data.get("target_role", "")),
            target_id=str(data.get("target_id", "")),
            point=(float(point[0]), float(point[1])) if point else None,
            direction=data.get("direction"),
            text=data.get("text"),
            app=data.get("app"),
            hint=str(data.get("hint", "")),
            text_sources=tuple(
                (str(k), str(v)) for k, v in dict(data.get("text_sources", {})).items()
            ),
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
    example_elements: tuple[dict[str, Any], ...]
    screenshot_path: str | None
    visits: int
    first_episode: str
    #: ``types.element_keys`` of ``example_elements`` (derived, never stored).
    element_keys: tuple[str, ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        keys = tuple(stored_element_keys(self.example_elements, self.app))
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
    #: What this episode typed into each slot, as "<edge_id>:<slot>" (or "tail:<slot>") ->
    #: text. An edge keeps the example of the episode that created it; a trace keeps its own.
    values: dict[str, str] = field(default_factory=dict)

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
