"""What the builder knows about one screenshot, computed once and shared by judge and matcher.

A ``ScreenView`` wraps an ``Observation`` with the step's v2 description and lazily computes
the features both stages need: a small grayscale thumbnail (visual change and the visual
descriptor) and the UI structure tokens (when the world has a UI tree and it is not ignored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.envs.conventions import Conventions, active
from guigraph.errors import DatasetError
from guigraph.types import Observation, UIElement, text_shape

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from guigraph.ocr import OcrEngine

#: Thumbnail grid (width, height) the judge compares; phones are about twice as tall as wide.
THUMB_SIZE = (32, 64)
#: The visual descriptor pools the edge map of a finer image (MID_SIZE) over LAYOUT_GRID
#: (rows, cols) blocks: thin rows, as screens are stacks of rows whose content changes ...
MID_SIZE = (132, 288)
LAYOUT_GRID = (28, 6)
#: A landscape screen (a tablet) keeps its aspect, MID_SIZE turned; its layout is pooled over
#: blocks of about the portrait ones' size in pixels (same count, so vectors stay comparable).
LANDSCAPE_LAYOUT_GRID = (14, 12)
#: Only the upper part of the screen: keyboards and bottom sheets cover the rest while the
#: screen stays the same (and make every screen that shows one look alike).
LAYOUT_SHARE = 0.6
LAYOUT_DIM = LAYOUT_GRID[0] * LAYOUT_GRID[1]
#: ... and that of its title band over BAND_GRID.
#: Where app bars write a page's title, in dp below the top (under the status bar, above the
#: content); a dp is estimated from the short side, about SHORT_SIDE_DP on phones and tablets
#: alike (2.7-10.3 % of a portrait phone's height, 6-22 % of a landscape tablet's).
TITLE_BAND_DP = (24.5, 94.0)
SHORT_SIDE_DP = 420.0
BAND_GRID = (4, 32)
VISUAL_DIM = LAYOUT_DIM + BAND_GRID[0] * BAND_GRID[1]
#: A step in gray level (0..1) between neighbouring MID_SIZE pixels that counts as an edge.
EDGE_STEP = 0.05

_DIGITS = re.compile(r"-?\d+")

#: How much a structure token tells screens apart (see ``ScreenView.weighted_tokens``).
SCAFFOLD_WEIGHT = 0.1  # a layout container with no id and no text
FRAMEWORK_WEIGHT = 0.3  # an id of the platform's, shared by every app's screens


@dataclass
class ScreenView:
    observation: Observation
    description: str = ""
    use_ui: bool = True
    #: Reads text off the screenshot when there is neither a UI tree nor a description.
    ocr: OcrEngine | None = field(default=None, repr=False)
    _thumb: np.ndarray | None = field(default=None, repr=False)
    conventions: Conventions = field(default_factory=active, repr=False)
    _tokens: dict[str, float] | None = field(default=None, repr=False)
    _title: str | None = field(default=None, repr=False)
    _visual: np.ndarray | None = field(default=None, repr=False)
    _mid: np.ndarray | None = field(default=None, repr=False)

    @property
    def elements(self) -> tuple[UIElement, ...] | None:
        return self.observation.elements if self.use_ui else None

    @property
    def app(self) -> str | None:
        return self.observation.app if self.use_ui else None

    @property
    def place(self) -> str | None:
        """The app, and the foreground activity when the world reports one: a screen in
        another activity is another screen, as one in another app is."""
        app = self.app
        activity = self.observation.activity if self.use_ui else None
        if app and activity:
            return f"{app}/{activity}"
        return app

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
                self._thumb, self._mid = _thumbnail(self.observation)
            except Exception as exc:  # PIL raises several types for a broken PNG
                where = self.observation.screenshot_path or "<in-memory screenshot>"
                expected = "a readable PNG or JPEG screenshot"
                raise DatasetError(where, None, expected, str(exc)) from exc
        return self._thumb

    def visual_vector(self) -> np.ndarray:
        """The screen's looks: its layout as an edge map (share of edge pixels per block,
        LAYOUT_GRID) and its title band as a finer one (BAND_GRID), each centred and unit
        length, joined with equal weight (so the dot product of two is the mean of the two
        cosines).

        Edges, not gray levels, and counted rather than weighed, so that a screen in dark
        mode (other colours, other contrasts) still looks like itself. The title band (under
        the status bar, where app bars write the page's name) tells pages apart when their
        content changes everything below it.
        """
        import numpy as np

        if self._visual is not None:
            return self._visual
        self.thumbnail()
        assert self._mid is not None  # made with the thumbnail
        height, width = self._mid.shape
        upper = self._mid[: round(LAYOUT_SHARE * height)]
        grid = LAYOUT_GRID if height >= width else LANDSCAPE_LAYOUT_GRID
        layout = _unit(_pooled_edges(upper, *grid))
        per_dp = min(height, width) / SHORT_SIDE_DP
        top, bottom = (round(dp * per_dp) for dp in TITLE_BAND_DP)
        band = _unit(_pooled_edges(self._mid[top:bottom], *BAND_GRID))
        self._visual = (np.concatenate([layout, band]) / np.sqrt(2.0)).astype(np.float32)
        return self._visual

    def structure_tokens(self) -> frozenset[str]:
        """The screen's skeleton: element ids or classes with their static labels.

        Digits are masked so a clock, a counter or a price does not make a new structure.
        """
        return frozenset(self.weighted_tokens())

    def weighted_tokens(self) -> dict[str, float]:
        """Structure tokens with how much each tells screens apart: the platform's shared
        ids and unnamed layout containers (every screen of a real app has dozens) count
        little; the app's own ids, labelled controls and the title count fully."""
        if self._tokens is None:
            tokens: dict[str, float] = {}
            elements = self.elements or ()
            for element in elements:
                token, weight = _structure_token(element, elements, self.conventions)
                tokens[token] = max(weight, tokens.get(token, 0.0))
            title = self.title()
            # A title known only by its place (``_top_text``) is often content, a city or a
            # contact's name: it tells a jump (the judge), but one screen showing another
            # city is still that screen.
            if title and any(e.resource_id for e in elements):
                tokens[f"title:{title}"] = 1.0
            self._tokens = tokens
        return self._tokens

    def title(self) -> str:
        """The dialog's title when a dialog is open (``dialog:<title>``), else the page's (an
        id named as a title, or the first text in a toolbar); digits masked, lower case."""
        if self._title is None:
            self._title = _title(self.elements or (), self.conventions)
        return self._title

    def summary(self, limit: int = 6) -> str:
        """A name for the screen from its meaningful elements: the title, then the labels of
        its controls and of the app's own named fields (never scaffolding, framework-only
        containers or free content text)."""
        labels: list[str] = []
        elements = self.elements or ()
        for element in elements:
            token, weight = _structure_token(element, elements, self.conventions)
            if weight < 1.0 or ":" not in token or token.endswith(":"):
                continue
            if element.editable:
                label = element.content_desc or token.rsplit(":", 1)[-1]
            elif element.clickable:
                label = element.text or element.content_desc or _inner_text(element, elements)
            elif element.text or element.content_desc or not self._is_frame(element):
                label = token.rsplit(":", 1)[-1].replace("_", " ")
            else:
                continue  # an app's named container (its toolbar, a fragment) says nothing
            label = " ".join(label.split())[:30]
            if label and label not in labels:
                labels.append(label)
        title = " ".join(_title(elements, self.conventions, clean=False).split())
        shown = ", ".join(labels[:limit]) + (
            f" (+{len(labels) - limit})" if len(labels) > limit else ""
        )
        if title:
            return f"{title}: {shown}" if shown else title
        return shown

    def _is_frame(self, element: UIElement) -> bool:
        bars = self.conventions.title_bar_classes
        cls = element.class_name
        return self.conventions.is_container(cls) or (bool(bars) and cls.endswith(bars))

    def windows(self) -> frozenset[str]:
        """Ids that only an overlay window (a dialog) has: which such windows are open."""
        marks = self.conventions.window_ids
        return frozenset(e.resource_id for e in self.elements or () if e.resource_id in marks)

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


def _structure_token(
    element: UIElement, elements: tuple[UIElement, ...], conventions: Conventions
) -> tuple[str, float]:
    """One word per element and its weight: ``role:app:id``, else ``role:label`` for
    something to tap (a button's label is structure), else the role alone; digits masked."""
    role = element.class_name.rsplit(".", 1)[-1].lower()
    if element.resource_id:
        # Digits masked too: list rows are often "note_3", "note_4"... one structure. The
        # app stays: android:id/title and com.example:id/title are different things.
        parsed = conventions.parse_id(element.resource_id)
        name = parsed.name or element.resource_id
        if "button" not in role:  # a button's label is what it is, a row's text is content
            name = _content_free(name, element.text)
        name = _DIGITS.sub("#", name.lower())
        token = f"{role}:{parsed.app}:{name}" if parsed.app else f"{role}:{name}"
        if conventions.is_framework_id(element.resource_id):
            return token, FRAMEWORK_WEIGHT
        return token, 1.0
    if element.editable:
        # What is typed into a field is content; what the field is called is structure
        # (with ids the id says it: "Title" and "Date" are two fields, not two inputs).
        name = _DIGITS.sub("#", element.content_desc.strip().lower())
        return (f"{role}:input:{'_'.join(name.split())}" if name else f"{role}:input"), 1.0
    if not element.clickable:
        # Unnamed text is content (an article, a song title), not structure.
        bare = not (element.text or element.content_desc)
        scaffold = bare and conventions.is_container(element.class_name)
        return role, SCAFFOLD_WEIGHT if scaffold else 1.0
    label = element.text or element.content_desc or _inner_text(element, elements)
    if _is_list_item(element, conventions):
        # What a list's rows show is content (the products a search found), as the number
        # in a row's id is (``product_3``): only the kind of text stays, so the same list
        # with other rows is one screen.
        return f"{role}:{text_shape(label)}", 1.0
    label = _DIGITS.sub("#", label.strip().lower())
    return f"{role}:{'_'.join(label.split())}", 1.0


def _is_list_item(element: UIElement, conventions: Conventions) -> bool:
    """An id-less tappable layout that shows a text of its own: a row of a list (a search
    result, a chat). A layout framing labelled views of their own (a preference row, a
    button drawn as a layout) is a control, named by their label (``_inner_text``)."""
    return (
        not element.resource_id
        and bool(element.text)
        and conventions.is_container(element.class_name)
    )


def _content_free(name: str, text: str) -> str:
    """An id that spells the element's own text (``share_Alice`` showing "Alice") names a
    list row by its content: the row's kind is the rest, as digits are masked for
    ``note_3`` (a share sheet listing other contacts is the same screen)."""
    shown = "_".join(text.split()).lower()
    if len(shown) >= 2 and name.lower().endswith(shown) and len(name) > len(shown):
        return name[: len(name) - len(shown)] + "#"
    return name


def _inner_text(element: UIElement, elements: tuple[UIElement, ...]) -> str:
    """The first text inside a control that has none of its own (a settings row's label)."""
    box = element.bbox
    for other in elements:
        if other is element or not other.text:
            continue
        inner = other.bbox
        if box.x1 <= inner.x1 and box.y1 <= inner.y1 and inner.x2 <= box.x2 and inner.y2 <= box.y2:
            return other.text
    return ""


def _title(elements: tuple[UIElement, ...], conventions: Conventions, clean: bool = True) -> str:
    title = _raw_title(elements, conventions)
    if not clean:
        return title.removeprefix("dialog:")
    return _clean(title)


def _raw_title(elements: tuple[UIElement, ...], conventions: Conventions) -> str:
    dialog = next(
        (e.text for e in elements if e.resource_id in conventions.dialog_title_ids and e.text),
        None,
    )
    if dialog is not None:
        return "dialog:" + dialog
    for element in elements:
        rid = element.resource_id
        if not element.text or not rid or conventions.is_framework_id(rid):
            continue
        if conventions.parse_id(rid).name.lower() in conventions.title_names:
            return element.text
    for bar in elements:
        name = conventions.parse_id(bar.resource_id).name.lower() if bar.resource_id else ""
        is_bar = bool(conventions.title_bar_classes) and bar.class_name.endswith(
            conventions.title_bar_classes
        )
        if not (is_bar or name in conventions.title_bar_names):
            continue
        text = _inner_text(bar, tuple(e for e in elements if not e.clickable))
        if text:
            return text
    return _top_text(elements)


def _top_text(elements: tuple[UIElement, ...]) -> str:
    """A screen with no ids at all (text, role and bounds only) names no title: the text in
    its top row is its title, where an app bar writes it. A tap that changes it went to
    another page (a search result's article has the results list's buttons and one more).
    Not where any element has an id: there the ids say."""
    if not elements or any(e.resource_id for e in elements):
        return ""
    texts = [e for e in elements if e.text and not e.clickable and not e.editable]
    if not texts:
        return ""
    first = min(texts, key=lambda e: (e.bbox.y1, e.bbox.x1))
    above = any(e.bbox.y2 <= first.bbox.y1 for e in elements)
    return "" if above else first.text


def _clean(text: str) -> str:
    return " ".join(_DIGITS.sub("#", text.lower()).split())


def _thumbnail(observation: Observation) -> tuple[np.ndarray, np.ndarray]:
    """The THUMB_SIZE and MID_SIZE grayscale thumbnails, in 0..1."""
    import numpy as np
    from PIL import Image

    if not observation.has_screenshot:
        # No pixels (a world that keeps none): blank thumbnails, whose edge maps are all
        # zeros, so the looks neither agree nor disagree with anything.
        width, height = _mid_size(observation.screen.width, observation.screen.height)
        blank = np.zeros((THUMB_SIZE[1], THUMB_SIZE[0]), dtype=np.float32)
        return blank, np.zeros((height, width), dtype=np.float32)
    with observation.image() as opened:
        size = _mid_size(*opened.size)
        if opened.format == "JPEG":
            # Decode at 1/2..1/8 scale straight from the DCT (a phone's 1080x2340 JPEG in
            # about a tenth of the time): the features need no more than MID_SIZE pixels.
            opened.draft("L", size)
        # Palette and other modes would resize with nearest-neighbour: make them plain first.
        image = opened if opened.mode in ("RGB", "RGBA", "L") else opened.convert("RGB")
        mid = _shrink(image, size)
        # The judge's thumbnail is a portrait grid whatever the screen (its settings are rows
        # of it), so a landscape screen's is squeezed into it as before.
        portrait = mid if size == MID_SIZE else _shrink(image, MID_SIZE)
    small = portrait.resize(THUMB_SIZE, Image.Resampling.BOX)
    as_array = lambda im: np.asarray(im, dtype=np.float32) / 255.0  # noqa: E731
    return as_array(small), as_array(mid)


def _shrink(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` at ``size`` in grayscale."""
    from PIL import Image

    # Shrink first, then drop colour: converting a full screenshot costs more than this.
    # BOX averages every source pixel; reducing_gap pre-shrinks big screenshots fast.
    # A draft already about MID_SIZE needs no averaging: a nearest-pixel fit is enough.
    near = image.width < 2 * size[0] and image.height < 2 * size[1]
    how = Image.Resampling.NEAREST if near else Image.Resampling.BOX
    return image.resize(size, how, reducing_gap=None if near else 2.0).convert("L")


def _mid_size(width: int, height: int) -> tuple[int, int]:
    """MID_SIZE, turned for a landscape screen: squeezing a tablet's 800x500 into a portrait
    grid blurs its text sideways until every screen's edges look alike."""
    return MID_SIZE if height >= width else (MID_SIZE[1], MID_SIZE[0])


def _pooled_edges(image: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Share of edge pixels of ``image`` in each block of a rows x cols grid.

    An edge is a step in gray level larger than EDGE_STEP, counted whatever its size: the
    same screen in dark mode, or under another theme, has its edges where they were but of
    another contrast (text on white vs on near-black), and gradient magnitudes would differ.
    """
    import numpy as np

    across = np.abs(np.diff(image, axis=1, append=image[:, -1:])) > EDGE_STEP
    down = np.abs(np.diff(image, axis=0, append=image[-1:, :])) > EDGE_STEP
    edges = (across | down).astype(np.float32)
    h, w = edges.shape
    edges = edges[: h - h % rows, : w - w % cols]
    return (
        edges.reshape(rows, edges.shape[0] // rows, cols, edges.shape[1] // cols)
        .mean(axis=(1, 3))
        .ravel()
    )


def _unit(vector: np.ndarray) -> np.ndarray:
    """Centred and unit length; all zeros for a blank region."""
    import numpy as np

    centred = (vector - vector.mean()).astype(np.float32)
    norm = float(np.linalg.norm(centred))
    return centred / norm if norm > 1e-6 else centred
