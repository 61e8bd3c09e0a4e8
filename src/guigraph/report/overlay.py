"""Actions drawn over a screenshot as inline SVG, and actions in words.

Points are in GUIOdyssey's normalized 0..1000 space; the SVG's viewBox is the displayed image
size in pixels, so a tap stays a circle on any screen shape. The predicted action is red, the
ground truth green (dashed, with the box that counts as a hit), rejected proposals orange.
"""

from __future__ import annotations

import math
from typing import Any

from guigraph.htmlsafe import text

PRED, TRUTH, REJECTED = "#d62728", "#1a9a3a", "#ff8c00"
#: Where a swipe without recorded points is drawn: the finger's path through the centre.
_SWIPES = {"up": (500, 700, 500, 300), "down": (500, 300, 500, 700),
           "left": (800, 500, 200, 500), "right": (200, 500, 800, 500)}  # fmt: skip
_KEYS = {"press_back": "◀ BACK", "press_home": "● HOME", "press_recent": "■ RECENT",
         "complete": "✔ COMPLETE", "impossible": "✖ IMPOSSIBLE", "wait": "… WAIT"}  # fmt: skip


def describe(action: Any) -> str:
    """An action dict (``Action.to_dict()``) in a few words: "tap (120, 540)", "type 'milk'"."""
    if not isinstance(action, dict):
        return "—" if action is None else str(action)
    kind = str(action.get("type", "?"))
    point = _point(action.get("point"))
    if kind in ("click", "long_press"):
        verb = "tap" if kind == "click" else "long-press"
        return f"{verb} ({point[0]:.0f}, {point[1]:.0f})" if point else verb
    if kind == "scroll":
        return f"swipe {action.get('direction') or ''}".strip()
    if kind == "type":
        return f"type {action.get('text', '')!r}"
    if kind == "open_app":
        return f"open {action.get('app', '')}"
    return kind.replace("_", " ")


def _point(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        try:
            x, y = float(value[0]), float(value[1])
        except (TypeError, ValueError):
            return None
        if math.isfinite(x) and math.isfinite(y):
            return x, y
    return None


class Canvas:
    """SVG markup for one screenshot of ``width`` x ``height`` pixels."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.parts: list[str] = []
        self.labels = 0  # badges stacked from the bottom

    def xy(self, point: tuple[float, float]) -> tuple[float, float]:
        return point[0] * self.width / 1000, point[1] * self.height / 1000

    def svg(self) -> str:
        w, h = self.width, self.height
        return (
            f'<svg class="overlay" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
            f'aria-hidden="true">{"".join(self.parts)}</svg>'
        )

    def box(self, bbox: Any, colour: str) -> None:
        if not (isinstance(bbox, list | tuple) and len(bbox) == 4):
            return
        try:
            x1, y1 = self.xy((float(bbox[0]), float(bbox[1])))
            x2, y2 = self.xy((float(bbox[2]), float(bbox[3])))
        except (TypeError, ValueError):
            return
        self.parts.append(
            f'<rect x="{x1:.1f}" y="{y1:.1f}" width="{x2 - x1:.1f}" height="{y2 - y1:.1f}" '
            f'fill="{colour}" fill-opacity="0.12" stroke="{colour}" stroke-dasharray="4 3"/>'
        )

    def action(self, action: Any, colour: str, dashed: bool = False, tag: str = "") -> None:
        if not isinstance(action, dict):
            return
        kind = str(action.get("type", ""))
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        point = _point(action.get("point"))
        if kind in ("click", "long_press") and point:
            x, y = self.xy(point)
            ring = 16 if kind == "click" else 20
            self.parts.append(  # a white halo keeps the ring visible on dark screens
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{ring}" fill="none" stroke="#fff" '
                f'stroke-width="6" stroke-opacity="0.8"/>'
                f'<circle class="tap" cx="{x:.1f}" cy="{y:.1f}" r="{ring}" fill="none" '
                f'stroke="{colour}" stroke-width="3"{dash}/>'
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>'
            )
            if kind == "long_press":
                self.parts.append(
                    f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{ring - 6}" fill="none" '
                    f'stroke="{colour}" stroke-width="2"/>'
                )
            if tag:
                self._tag(x + ring + 2, y - ring + 4, tag, colour)
        elif kind == "scroll":
            self._swipe(action, colour, dash)
        elif kind == "type":
            self._badge("⌨ " + str(action.get("text", "")), colour)
        elif kind in _KEYS or kind == "open_app":
            label = _KEYS.get(kind) or f"open {action.get('app', '')}"
            self._badge(label, colour)

    def _swipe(self, action: dict[str, Any], colour: str, dash: str) -> None:
        start, end = _point(action.get("point")), _point(action.get("end"))
        if start is None or end is None:
            coords = _SWIPES.get(str(action.get("direction", "")))
            if coords is None:
                return
            start, end = (coords[0], coords[1]), (coords[2], coords[3])
        (x1, y1), (x2, y2) = self.xy(start), self.xy(end)
        angle = math.atan2(y2 - y1, x2 - x1)
        head = [(x2 - 14 * math.cos(angle - s), y2 - 14 * math.sin(angle - s)) for s in (0.5, -0.5)]
        self.parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#fff" '
            f'stroke-width="8" stroke-opacity="0.8" stroke-linecap="round"/>'
            f'<line class="swipe" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{colour}" stroke-width="4" stroke-linecap="round"{dash}/>'
            f'<polygon points="{x2:.1f},{y2:.1f} {head[0][0]:.1f},{head[0][1]:.1f} '
            f'{head[1][0]:.1f},{head[1][1]:.1f}" fill="{colour}"/>'
        )

    def _tag(self, x: float, y: float, label: str, colour: str) -> None:
        x = min(x, self.width - 12)
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" fill="{colour}" font-size="13" font-weight="700" '
            f'stroke="#fff" stroke-width="3" paint-order="stroke">{text(label)}</text>'
        )

    def _badge(self, label: str, colour: str) -> None:
        """A caption on a white band near the bottom: typed text, keys, "complete"."""
        shown = label if len(label) <= 34 else label[:33] + "…"
        y = self.height - 14 - 30 * self.labels
        self.labels += 1
        self.parts.append(
            f'<rect x="8" y="{y - 19}" width="{self.width - 16}" height="26" rx="5" '
            f'fill="#fff" fill-opacity="0.93" stroke="{colour}" stroke-width="2"/>'
            f'<text class="typed" x="16" y="{y}" fill="{colour}" font-size="14" '
            f'font-weight="600">{text(shown)}</text>'
        )
