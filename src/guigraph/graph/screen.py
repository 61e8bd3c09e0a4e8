"""What the builder knows about one screenshot, computed once and shared by judge and matcher.

A ``ScreenView`` wraps an ``Observation`` with the step's v2 description and lazily computes
the features both stages need: a small grayscale thumbnail (visual change and the visual
descriptor) and the UI structure tokens (when the world has a UI tree and it is not ignored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.errors import DatasetError
from guigraph.types import Observation, UIElement

if TYPE_CHECKING:
    import numpy as np

    from guigraph.ocr import OcrEngine

#: Thumbnail grid (width, height) the judge compares; phones are about twice as tall as wide.
THUMB_SIZE = (32, 64)
#: The visual descriptor pools the thumbnail's edge map over POOLxPOOL blocks: 8x16 = 128.
POOL = 4
VISUAL_DIM = (THUMB_SIZE[0] // POOL) * (THUMB_SIZE[1] // POOL)

_DIGITS = re.compile(r"-?\d+")


@dataclass
class ScreenView:
    observation: Observation
    description: str = ""
    use_ui: bool = True
    #: Reads text off the screenshot when there is neither a UI tree nor a description.
    ocr: OcrEngine | None = field(default=None, repr=False)
    _thumb: np.ndarray | None = field(default=None, repr=False)
    _tokens: frozenset[str] | None = field(default=None, repr=False)
    _visual: np.ndarray | None = field(default=None, repr=False)

    @property
    def elements(self) -> tuple[UIElement, ...] | None:
        return self.observation.elements if self.use_ui else None

    @property
    def app(self) -> str | None:
        return self.observation.app if self.use_ui else None

    @property
    def has_ui(self) -> bool:
        return bool(self.elements)

    def thumbnail(self) -> np.ndarray:
        """Grayscale THUMB_SIZE image in 0..1, rows top to bottom (reads the PNG once).

        Decoding a phone screenshot is the slowest part of a model-free build, so it happens
        only when a stage asks for pixels. An unreadable image is a DatasetError naming it.
        """
        if self._thumb is None:
            try:
                self._thumb = _thumbnail(self.observation)
            except Exception as exc:  # PIL raises several types for a broken PNG
                where = self.observation.screenshot_path or "<in-memory screenshot>"
                raise DatasetError(where, None, "a readable PNG screenshot", str(exc)) from exc
        return self._thumb

    def visual_vector(self) -> np.ndarray:
        """The layout as an edge map: pooled gradient magnitude, centred, unit length.

        Edges, not gray levels, so that a screen in dark mode (inverted colours) still looks
        like itself; cosine of two vectors compares where the boundaries of things are.
        """
        import numpy as np

        if self._visual is not None:
            return self._visual
        thumb = self.thumbnail()
        edges = np.abs(np.diff(thumb, axis=1, append=thumb[:, -1:]))
        edges += np.abs(np.diff(thumb, axis=0, append=thumb[-1:, :]))
        h, w = edges.shape
        pooled = edges.reshape(h // POOL, POOL, w // POOL, POOL).mean(axis=(1, 3)).ravel()
        centred = (pooled - pooled.mean()).astype(np.float32)
        norm = float(np.linalg.norm(centred))
        self._visual = centred / norm if norm > 1e-6 else centred
        return self._visual

    def structure_tokens(self) -> frozenset[str]:
        """The screen's skeleton: element ids or classes with their static labels.

        Digits are masked so a clock, a counter or a price does not make a new structure.
        """
        if self._tokens is None:
            self._tokens = frozenset(_structure_token(e) for e in self.elements or ())
        return self._tokens

    def state_text(self) -> str:
        """What the state descriptor embeds: UI structure when present, else the description,
        else the text OCR reads off the screenshot (when an engine is given).

        The app is not part of it: it is checked on its own, and would make every two screens
        of one app look alike.
        """
        if self.has_ui:
            return " ".join(sorted(self.structure_tokens()))
        if not self.description and self.ocr is not None:
            # Cached like the other features: OCR is by far the most expensive of them.
            lines = self.ocr.read(self.observation.png_bytes())
            self.description = " ".join(line.text for line in lines)
        return self.description


def _structure_token(element: UIElement) -> str:
    """One word per element: ``role:resource-id``, else ``role:label`` for something to tap
    (a button's label is structure), else the role alone; digits masked."""
    role = element.class_name.rsplit(".", 1)[-1].lower()
    if element.resource_id:
        # Digits masked too: list rows are often "note_3", "note_4"... one structure.
        name = element.resource_id.rsplit("/", 1)[-1].lower()
        return f"{role}:{_DIGITS.sub('#', name)}"
    if element.editable:
        return f"{role}:input"  # what is typed into a field is content, not structure
    if not element.clickable:
        return role  # unnamed text is content (an article, a song title), not structure
    label = _DIGITS.sub("#", (element.text or element.content_desc).strip().lower())
    return f"{role}:{'_'.join(label.split())}"


def _thumbnail(observation: Observation) -> np.ndarray:
    import numpy as np
    from PIL import Image

    with observation.image() as opened:
        # Palette and other modes would resize with nearest-neighbour: make them plain first.
        image = opened if opened.mode in ("RGB", "RGBA", "L") else opened.convert("RGB")
        # Shrink first, then drop colour: converting a full screenshot costs more than this.
        # BOX averages every source pixel; reducing_gap pre-shrinks big screenshots fast.
        small = image.resize(THUMB_SIZE, Image.Resampling.BOX, reducing_gap=2.0).convert("L")
    return np.asarray(small, dtype=np.float32) / 255.0
