"""Coordinates with explicit spaces.

Mixing coordinate spaces is the most common bug in GUI-agent code, so every point and box
carries its space, and conversion goes through one place:

- ``NORM``: GUIOdyssey's space, 0..1000 on each axis, origin top-left, independent of the screen.
- ``PIXEL``: screen pixels of a concrete device (0..width, 0..height).

Model-specific spaces (Qwen2.5-VL resized pixels, Qwen3-VL 0..1000) map to and from these in
``guigraph.llm.coords``. Values are floats; rounding happens only when a command string is
written, so conversions round-trip exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from guigraph.errors import ActionError

NORM_MAX = 1000.0


class CoordSpace(StrEnum):
    NORM = "norm"
    PIXEL = "pixel"


@dataclass(frozen=True, slots=True)
class ScreenSize:
    """A device screen in pixels."""

    width: int
    height: int

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"screen size must be positive, got {self.width}x{self.height}")


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float
    space: CoordSpace = CoordSpace.NORM

    def __post_init__(self) -> None:
        if not (math.isfinite(self.x) and math.isfinite(self.y)):
            raise ActionError(f"point coordinates must be finite, got ({self.x}, {self.y})")

    def to_pixels(self, screen: ScreenSize) -> Point:
        if self.space is CoordSpace.PIXEL:
            return self
        return Point(
            self.x * screen.width / NORM_MAX, self.y * screen.height / NORM_MAX, CoordSpace.PIXEL
        )

    def to_norm(self, screen: ScreenSize) -> Point:
        if self.space is CoordSpace.NORM:
            return self
        return Point(
            self.x * NORM_MAX / screen.width, self.y * NORM_MAX / screen.height, CoordSpace.NORM
        )

    def rounded(self) -> tuple[int, int]:
        """Integer coordinates, as GUIOdyssey command strings and device taps need them."""
        return round(self.x), round(self.y)

    def in_bounds(self, screen: ScreenSize | None = None) -> bool:
        if self.space is CoordSpace.NORM:
            return 0 <= self.x <= NORM_MAX and 0 <= self.y <= NORM_MAX
        if screen is None:
            raise ValueError("a pixel point needs the screen size to check bounds")
        return 0 <= self.x <= screen.width and 0 <= self.y <= screen.height

    def distance(self, other: Point) -> float:
        if other.space is not self.space:
            raise ValueError(f"cannot measure between {self.space} and {other.space} points")
        return math.hypot(self.x - other.x, self.y - other.y)

    def to_list(self) -> list[float]:
        return [self.x, self.y]


@dataclass(frozen=True, slots=True)
class BBox:
    """An axis-aligned box ``[x1, y1, x2, y2]``, edges inclusive."""

    x1: float
    y1: float
    x2: float
    y2: float
    space: CoordSpace = CoordSpace.NORM

    def __post_init__(self) -> None:
        if not all(math.isfinite(v) for v in (self.x1, self.y1, self.x2, self.y2)):
            raise ValueError(f"box coordinates must be finite, got {self.as_list()}")
        if self.x2 < self.x1 or self.y2 < self.y1:
            raise ValueError(f"box must have x1<=x2 and y1<=y2, got {self.as_list()}")

    @classmethod
    def from_list(
        cls, values: list[float] | tuple[float, ...], space: CoordSpace = CoordSpace.NORM
    ) -> BBox:
        if len(values) != 4:
            raise ValueError(f"a box needs 4 numbers [x1, y1, x2, y2], got {list(values)}")
        return cls(float(values[0]), float(values[1]), float(values[2]), float(values[3]), space)

    def as_list(self) -> list[float]:
        return [self.x1, self.y1, self.x2, self.y2]

    @property
    def width(self) -> float:
        return self.x2 - self.x1

    @property
    def height(self) -> float:
        return self.y2 - self.y1

    @property
    def center(self) -> Point:
        return Point((self.x1 + self.x2) / 2, (self.y1 + self.y2) / 2, self.space)

    def contains(self, point: Point) -> bool:
        if point.space is not self.space:
            raise ValueError(f"cannot test a {point.space} point against a {self.space} box")
        return self.x1 <= point.x <= self.x2 and self.y1 <= point.y <= self.y2

    def to_pixels(self, screen: ScreenSize) -> BBox:
        if self.space is CoordSpace.PIXEL:
            return self
        a = Point(self.x1, self.y1, self.space).to_pixels(screen)
        b = Point(self.x2, self.y2, self.space).to_pixels(screen)
        return BBox(a.x, a.y, b.x, b.y, CoordSpace.PIXEL)

    def to_norm(self, screen: ScreenSize) -> BBox:
        if self.space is CoordSpace.NORM:
            return self
        a = Point(self.x1, self.y1, self.space).to_norm(screen)
        b = Point(self.x2, self.y2, self.space).to_norm(screen)
        return BBox(a.x, a.y, b.x, b.y, CoordSpace.NORM)
