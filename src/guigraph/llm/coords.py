"""Model coordinate spaces and their mapping to the screen.

Models name points in their own space:

- ``relative`` (Qwen3-VL): 0..1000 on each axis of the image, whatever its size (some prompts
  and checkpoints use 0..999 instead, which is a different scale: 999 is the far edge).
- ``smart-resize`` (Qwen2.5-VL, UI-TARS): absolute pixels on the image *as the model saw it*,
  i.e. after the vision processor resized it to multiples of 28 within a pixel range.
- ``pixel``: pixels of the image that was sent.

Because guigraph may itself downscale a screenshot before sending it (``ImagePolicy``), every
mapping goes through the fraction of the sent image, and the sent image keeps the screen's
aspect ratio: a point's fraction of the image is its fraction of the screen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from guigraph.errors import ConfigError
from guigraph.geometry import NORM_MAX, CoordSpace, Point, ScreenSize

#: Qwen2.5-VL's vision processor defaults (patch 14, merged 2x2 → factor 28).
QWEN_FACTOR = 28
QWEN_MIN_PIXELS = 4 * 28 * 28
QWEN_MAX_PIXELS = 16384 * 28 * 28
#: The processor refuses images more elongated than this.
MAX_ASPECT_RATIO = 200


def smart_resize(
    height: int,
    width: int,
    factor: int = QWEN_FACTOR,
    min_pixels: int = QWEN_MIN_PIXELS,
    max_pixels: int = QWEN_MAX_PIXELS,
) -> tuple[int, int]:
    """The ``(height, width)`` a Qwen2.5-VL-style processor resizes an image to.

    Both sides become multiples of ``factor``, the area lands in ``[min_pixels, max_pixels]``,
    and the aspect ratio is kept as closely as those constraints allow.
    """
    if height <= 0 or width <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    if max(height, width) / min(height, width) > MAX_ASPECT_RATIO:
        raise ValueError(f"aspect ratio above {MAX_ASPECT_RATIO}: {width}x{height}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


@dataclass(frozen=True, slots=True)
class ModelCoords:
    """One model coordinate space. ``kind`` is ``relative``, ``smart-resize`` or ``pixel``."""

    kind: str
    #: For ``relative``: the value that means the far edge (1000, or 999).
    scale: float = 1000.0
    factor: int = QWEN_FACTOR
    min_pixels: int = QWEN_MIN_PIXELS
    max_pixels: int = QWEN_MAX_PIXELS

    def __post_init__(self) -> None:
        if self.kind not in ("relative", "smart-resize", "pixel"):
            raise ConfigError(
                f"model coords kind must be relative, smart-resize or pixel, got {self.kind!r}"
            )
        if self.scale <= 0:
            raise ConfigError(f"model coords scale must be > 0, got {self.scale}")

    @classmethod
    def from_name(cls, name: str) -> ModelCoords:
        """Coordinates by model family name (the ``coords`` field of ``ModelConfig``)."""
        try:
            return NAMED_COORDS[name.lower()]
        except KeyError:
            raise ConfigError(
                f"model coords {name!r} unknown; expected one of {sorted(NAMED_COORDS)}"
            ) from None

    def model_image_size(self, sent: ScreenSize) -> tuple[float, float]:
        """Width and height of the extent the model's numbers range over."""
        if self.kind == "relative":
            return self.scale, self.scale
        if self.kind == "pixel":
            return float(sent.width), float(sent.height)
        h, w = smart_resize(sent.height, sent.width, self.factor, self.min_pixels, self.max_pixels)
        return float(w), float(h)

    def to_point(
        self, x: float, y: float, screen: ScreenSize, sent: ScreenSize | None = None
    ) -> Point:
        """The model's ``(x, y)`` as a normalized (GUIOdyssey 0..1000) screen point.

        ``sent`` is the size of the image the model was shown (the screen size if it was sent
        unscaled). Points outside the image stay outside: the environment judges them.
        """
        width, height = self.model_image_size(sent or screen)
        return Point(x / width * NORM_MAX, y / height * NORM_MAX, CoordSpace.NORM)

    def from_point(
        self, point: Point, screen: ScreenSize, sent: ScreenSize | None = None
    ) -> tuple[float, float]:
        """A screen point (normalized or pixel) in the model's space, e.g. for few-shot text."""
        norm = point.to_norm(screen)
        width, height = self.model_image_size(sent or screen)
        return norm.x / NORM_MAX * width, norm.y / NORM_MAX * height


NAMED_COORDS: dict[str, ModelCoords] = {
    "qwen3-vl": ModelCoords("relative", 1000.0),
    "relative-1000": ModelCoords("relative", 1000.0),
    "relative-999": ModelCoords("relative", 999.0),
    "qwen2.5-vl": ModelCoords("smart-resize"),
    "ui-tars": ModelCoords("smart-resize", min_pixels=100 * 28 * 28),
    "pixel": ModelCoords("pixel"),
}
