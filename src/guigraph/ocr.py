"""Text on a screenshot, for screens that come without a UI tree.

``OcrEngine`` is the small interface the rest of guigraph uses; ``RapidOcrEngine`` implements
it with RapidOCR on onnxruntime (extra ``ocr``). Its detection and recognition models ship
inside the wheel, so it works offline, on CPU, in about a quarter of a second per screenshot.
Boxes come back in the normalized 0..1000 space like every other box in guigraph.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from guigraph.errors import require
from guigraph.geometry import BBox, CoordSpace, ScreenSize


@dataclass(frozen=True, slots=True)
class OcrLine:
    text: str
    box: BBox
    score: float


class OcrEngine(Protocol):
    def read(self, png: bytes) -> list[OcrLine]:
        """Lines of text on the image, top to bottom, then left to right."""
        ...


class RapidOcrEngine:
    """RapidOCR (PP-OCR models in ONNX). The engine loads on first use and is then shared."""

    def __init__(self, min_score: float = 0.5):
        self.min_score = min_score
        self._engine: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._engine is None:
                module = require("rapidocr_onnxruntime", "ocr")
                self._engine = module.RapidOCR()
            return self._engine

    def read(self, png: bytes) -> list[OcrLine]:
        from PIL import Image

        with Image.open(io.BytesIO(png)) as image:
            screen = ScreenSize(*image.size)
        found, _timings = self._load()(png)
        lines = [
            _line(text, corners, float(score), screen)
            for corners, text, score in found or ()
            if float(score) >= self.min_score and str(text).strip()
        ]
        # Reading order; rows within 1% of the screen height count as one row.
        return sorted(lines, key=lambda line: (round(line.box.y1 / 10), line.box.x1))


def _line(text: str, corners: list[list[float]], score: float, screen: ScreenSize) -> OcrLine:
    xs = [min(max(c[0], 0.0), screen.width) for c in corners]
    ys = [min(max(c[1], 0.0), screen.height) for c in corners]
    pixels = BBox(min(xs), min(ys), max(xs), max(ys), CoordSpace.PIXEL)
    return OcrLine(str(text).strip(), pixels.to_norm(screen), score)


def describe(lines: list[OcrLine]) -> str:
    """A compact text rendering of a screen for a prompt: one line per text with its centre."""
    out = []
    for line in lines:
        x, y = line.box.center.rounded()
        out.append(f"{line.text} @ ({x}, {y})")
    return "\n".join(out)
