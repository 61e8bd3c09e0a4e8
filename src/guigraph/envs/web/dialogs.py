"""A page's own dialogs (``alert``, ``confirm``, ``prompt``, leaving a page ``beforeunload``)
as a step of the task, never a hang.

A native dialog stops the page's JavaScript until it is answered, and the browser call that
raised it (the click) does not return before that: the answer cannot wait for the team's next
decision. So the world answers at once the way that changes nothing — an alert is acknowledged,
a confirmation, prompt or "leave this page?" is refused — and shows the dialog on the next
observation as a modal box with its buttons (ids ``dialog-accept`` / ``dialog-dismiss``, the
field ``dialog-input``). Choosing the refusing button closes the box; choosing the accepting one
repeats the action that raised the dialog with the answer given in advance (and the prompt's
typed text), so the page gets "yes" exactly where a person would have said it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace
from typing import Any

from guigraph.geometry import BBox, Point
from guigraph.types import Action, Observation, UIElement

ACCEPT_ID, DISMISS_ID, INPUT_ID, MESSAGE_ID = (
    "dialog-accept", "dialog-dismiss", "dialog-input", "dialog-message",
)  # fmt: skip
#: The dialog box in the normalized 0..1000 space, and its parts.
BOX = BBox(300, 330, 700, 600)
_MESSAGE = BBox(320, 350, 680, 450)
_INPUT = BBox(320, 460, 680, 510)
_ACCEPT = BBox(560, 530, 680, 580)
_DISMISS = BBox(420, 530, 540, 580)
#: Chromium's words on the buttons of each kind of dialog.
_BUTTONS = {
    "alert": ("OK", ""),
    "confirm": ("OK", "Cancel"),
    "prompt": ("OK", "Cancel"),
    "beforeunload": ("Leave", "Cancel"),
}


@dataclass(frozen=True, slots=True)
class Dialog:
    """A dialog the page opened, and the action (or page load) that opened it."""

    kind: str
    message: str
    trigger: Action | None
    typed: str = ""

    @property
    def buttons(self) -> tuple[str, str]:
        return _BUTTONS.get(self.kind, ("OK", "Cancel"))

    @property
    def message_text(self) -> str:
        if self.kind == "beforeunload":
            return self.message or "Leave site? Changes you made may not be saved."
        return self.message

    def elements(self) -> tuple[UIElement, ...]:
        accept, dismiss = self.buttons
        out = [UIElement(_MESSAGE, text=self.message_text, class_name="text",
                         resource_id=MESSAGE_ID)]  # fmt: skip
        if self.kind == "prompt":
            out.append(UIElement(_INPUT, text=self.typed, class_name="textbox",
                                 resource_id=INPUT_ID, clickable=True, editable=True,
                                 focused=True))  # fmt: skip
        if dismiss:
            out.append(UIElement(_DISMISS, text=dismiss, class_name="button",
                                 resource_id=DISMISS_ID, clickable=True))  # fmt: skip
        out.append(UIElement(_ACCEPT, text=accept, class_name="button", resource_id=ACCEPT_ID,
                             clickable=True))  # fmt: skip
        return tuple(out)

    def button_at(self, point: Point) -> str | None:
        """``accept`` / ``dismiss`` for a point on a button, ``box`` elsewhere on the dialog,
        None outside it."""
        if _ACCEPT.contains(point):
            return "accept"
        if self.buttons[1] and _DISMISS.contains(point):
            return "dismiss"
        return "box" if BOX.contains(point) else None


class DialogDesk:
    """Answers a page's dialogs as they open and keeps the last one for the next observation."""

    def __init__(self) -> None:
        self.open: Dialog | None = None
        self.trigger: Action | None = None
        self._answer: str | None = None  # accept the next dialog, with this prompt text

    def attach(self, page: Any) -> None:
        page.on("dialog", self._on_dialog)

    def accept_next(self, text: str) -> None:
        self._answer = text

    def _on_dialog(self, dialog: Any) -> None:
        kind, message = str(dialog.type), str(dialog.message)
        try:
            if self._answer is not None:
                text, self._answer = self._answer, None
                dialog.accept(text) if kind == "prompt" else dialog.accept()
                return
            if kind == "alert":
                dialog.accept()
            else:
                dialog.dismiss()
        except Exception:  # the page went away with its dialog: nothing to answer
            return
        self.open = Dialog(kind, message, self.trigger)

    def typed(self, text: str) -> None:
        if self.open is not None:
            self.open = replace(self.open, typed=self.open.typed + text)

    def close(self) -> None:
        self.open = None


def overlay(base: Observation, dialog: Dialog) -> Observation:
    """``base`` with the dialog drawn over it; only the dialog can be acted on (it is modal)."""
    return replace(base, screenshot=_drawn(base, dialog), elements=dialog.elements())


def _drawn(base: Observation, dialog: Dialog) -> bytes | None:
    from PIL import Image, ImageDraw

    width, height = base.screen.width, base.screen.height
    if base.screenshot:
        image = Image.open(io.BytesIO(base.screenshot)).convert("RGB")
    else:
        image = Image.new("RGB", (width, height), "white")
    sx, sy = image.width / 1000, image.height / 1000
    draw = ImageDraw.Draw(image, "RGBA")
    draw.rectangle((0, 0, image.width, image.height), fill=(0, 0, 0, 90))

    def box(b: BBox, fill: str, outline: str = "#888888") -> tuple[float, ...]:
        xy = (b.x1 * sx, b.y1 * sy, b.x2 * sx, b.y2 * sy)
        draw.rectangle(xy, fill=fill, outline=outline)
        return xy

    box(BOX, "white")
    x, y, *_ = box(_MESSAGE, "white", "white")
    draw.text((x, y), dialog.message_text[:300], fill="black")
    for element in dialog.elements()[1:]:
        left, top, *_ = box(element.bbox, "#e8f0fe" if element.clickable else "white")
        draw.text((left + 6, top + 6), element.text, fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
