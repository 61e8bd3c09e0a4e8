"""The one renderer: draws a laid-out screen to a PNG a person can read.

Every app looks alike on purpose (app bar in the app's colour, list rows, buttons, switches),
as Material apps do; what differs is content and structure. Fonts are Pillow's scalable default,
cached per size. PNGs use a low compression level: recording speed matters more than bytes.
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from guigraph.envs.simphone.devices import DeviceProfile
from guigraph.envs.simphone.layout import FONT, NAVBAR, STATUS, Layout, Placed

Color = tuple[int, int, int]
LIGHT = {
    "bg": (250, 250, 250),
    "fg": (28, 28, 30),
    "muted": (110, 110, 118),
    "line": (222, 222, 226),
    "field": (255, 255, 255),
    "off": (190, 190, 196),
}
DARK = {
    "bg": (32, 33, 36),
    "fg": (236, 236, 240),
    "muted": (160, 160, 170),
    "line": (70, 70, 76),
    "field": (48, 49, 54),
    "off": (100, 100, 108),
}
WHITE: Color = (255, 255, 255)
KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, size))


def one_line(text: str) -> str:
    """Every text slot is one line tall: a value of several lines (typed into a field, posted)
    shows its lines side by side, as a one-line field shows pasted lines."""
    return " ".join(text.splitlines())


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: float) -> str:
    f = font(size)
    if draw.textlength(text, font=f) <= width:
        return text
    while text and draw.textlength(text + "...", font=f) > width:
        text = text[:-1]
    return text + "..."


class Painter:
    def __init__(self, device: DeviceProfile, accent: Color, dark: bool) -> None:
        self.device = device
        self.dp = device.dp
        self.accent = accent
        self.theme = DARK if dark else LIGHT
        self.image = Image.new("RGB", (device.width, device.height), self.theme["bg"])
        self.draw = ImageDraw.Draw(self.image)

    def px(self, value: float) -> int:
        return round(value * self.dp)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int,
        fill: Color,
        width: float | None = None,
        anchor: str = "lm",
    ) -> None:
        size_px = self.px(size)
        text = one_line(text)
        if width is not None:
            text = _fit(self.draw, text, size_px, width)
        self.draw.text(xy, text, font=font(size_px), fill=fill, anchor=anchor)

    def chrome(self, clock: str) -> None:
        w, h = self.device.width, self.device.height
        status = self.px(STATUS)
        self.draw.rectangle((0, 0, w, status), fill=(20, 20, 22))
        self.text((self.px(10), status / 2), clock, FONT["status"], WHITE)
        self.text((w - self.px(10), status / 2), "5G  100%", FONT["status"], WHITE, anchor="rm")
        nav_top = h - self.px(NAVBAR)
        self.draw.rectangle((0, nav_top, w, h), fill=(20, 20, 22))
        cy, r = (nav_top + h) / 2, self.px(7)
        for i, shape in enumerate(("back", "home", "recent")):
            cx = w * (i + 1) / 4
            if shape == "back":
                self.draw.polygon([(cx + r, cy - r), (cx + r, cy + r), (cx - r, cy)], fill=WHITE)
            elif shape == "home":
                self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=WHITE, width=2)
            else:
                self.draw.rectangle((cx - r, cy - r, cx + r, cy + r), outline=WHITE, width=2)

    def paint(self, layout: Layout, focus: str | None) -> None:
        for placed in layout.placed:
            self.widget(placed, focus)

    def widget(self, placed: Placed, focus: str | None) -> None:
        w, (x1, y1, x2, y2), region = placed.widget, placed.box, placed.region
        t, cy = self.theme, (y1 + y2) / 2
        pad = self.px(8)
        if region == "appbar":
            if w.key == "title":
                self.draw.rectangle((x1, y1, x2, y2), fill=self.accent)
                self.text((self.px(52), cy), w.text, FONT["title"], WHITE, width=x2 * 0.55)
            else:
                size = 24 if w.key == "nav_up" else FONT["button"]
                self.text(((x1 + x2) / 2, cy), w.text, size, WHITE, anchor="mm")
            return
        if region == "bottom" and w.kind == "row":
            self.draw.rectangle((x1, y1, x2, y2), fill=t["field"])
            self.draw.line((x1, y1, x2, y1), fill=t["line"])
            return
        if region == "keyboard":
            self.keyboard(placed)
            return
        painter = getattr(self, f"_{w.kind}", None)
        if painter is not None:
            painter(placed, focus, pad, cy)

    # One method per widget kind ------------------------------------------------------------
    def _text(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        self.text(
            (p.box[0], cy), p.widget.text, FONT["text"], self.theme["fg"], width=p.box[2] - p.box[0]
        )

    def _label(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        color = self.accent if p.region != "popup" else self.theme["fg"]
        size = FONT["label"] if p.region != "popup" else FONT["title"] - 2
        self.text((p.box[0], cy), p.widget.text, size, color, width=p.box[2] - p.box[0])

    def _big(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        self.text((p.box[0], cy), p.widget.text, FONT["big"], self.theme["fg"])
        if p.widget.sub:
            self.text((p.box[2], cy), p.widget.sub, FONT["item"], self.theme["muted"], anchor="rm")

    def _item(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, y1, x2, y2 = p.box
        w = p.widget
        right = x2 - (self.px(16) if w.tap else 0)
        if w.sub:
            self.text(
                (x1, y1 + (y2 - y1) * 0.33),
                w.text,
                FONT["item"],
                self.theme["fg"],
                width=right - x1,
            )
            self.text(
                (x1, y1 + (y2 - y1) * 0.72),
                w.sub,
                FONT["sub"],
                self.theme["muted"],
                width=right - x1,
            )
        else:
            self.text((x1, cy), w.text, FONT["item"], self.theme["fg"], width=right - x1)
        if w.tap:
            self.text((x2, cy), ">", FONT["item"], self.theme["muted"], anchor="rm")
        self.draw.line((x1, y2, x2, y2), fill=self.theme["line"])

    def _button(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, y1, x2, y2 = p.box
        inset = self.px(4)
        fill = (
            self.accent if p.widget.tap or p.region in ("popup", "keyboard") else self.theme["off"]
        )
        self.draw.rounded_rectangle((x1, y1 + inset, x2, y2 - inset), radius=self.px(10), fill=fill)
        self.text(
            ((x1 + x2) / 2, cy),
            p.widget.text,
            26 if p.widget.text == "+" else FONT["button"],
            WHITE,
            width=x2 - x1 - pad,
            anchor="mm",
        )

    def _input(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, y1, x2, y2 = p.box
        w = p.widget
        focused = focus is not None and focus == w.key
        inset = self.px(4)
        self.draw.rounded_rectangle(
            (x1, y1 + inset, x2, y2 - inset),
            radius=self.px(8),
            fill=self.theme["field"],
            outline=self.accent if focused else self.theme["off"],
            width=2 if focused else 1,
        )
        shown, color = (
            (w.text, self.theme["fg"]) if w.text else (w.placeholder, self.theme["muted"])
        )
        self.text((x1 + pad, cy), shown, FONT["input"], color, width=x2 - x1 - 2 * pad)
        if focused:
            end = (
                x1
                + pad
                + (
                    self.draw.textlength(one_line(w.text), font=font(self.px(FONT["input"])))
                    if w.text
                    else 0
                )
            )
            self.draw.line(
                (end + 2, cy - self.px(9), end + 2, cy + self.px(9)), fill=self.accent, width=2
            )

    def _toggle(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, _y1, x2, y2 = p.box
        self.text((x1, cy), p.widget.text, FONT["toggle"], self.theme["fg"], width=x2 - x1 - 60)
        on = bool(p.widget.checked)
        tw, th = self.px(40), self.px(22)
        box = (x2 - tw, cy - th / 2, x2, cy + th / 2)
        self.draw.rounded_rectangle(
            box, radius=th // 2, fill=self.accent if on else self.theme["off"]
        )
        knob_x = box[2] - th / 2 if on else box[0] + th / 2
        r = th / 2 - 3
        self.draw.ellipse((knob_x - r, cy - r, knob_x + r, cy + r), fill=WHITE)
        self.draw.line((x1, y2, x2, y2), fill=self.theme["line"])

    def _tab(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, _y1, x2, y2 = p.box
        on = bool(p.widget.checked)
        color = self.accent if on else self.theme["muted"]
        self.text(
            ((x1 + x2) / 2, cy), p.widget.text, FONT["tab"], color, width=x2 - x1, anchor="mm"
        )
        if on:
            self.draw.rectangle((x1 + pad, y2 - self.px(3), x2 - pad, y2), fill=self.accent)

    def _icon(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, y1, x2, _y2 = p.box
        size = min(x2 - x1 - pad, self.px(52))
        cx = (x1 + x2) / 2
        box = (cx - size / 2, y1 + self.px(4), cx + size / 2, y1 + self.px(4) + size)
        self.draw.rounded_rectangle(box, radius=self.px(14), fill=p.widget.color or self.accent)
        self.text((cx, (box[1] + box[3]) / 2), p.widget.text[:1], 26, WHITE, anchor="mm")
        self.text(
            (cx, box[3] + self.px(12)),
            p.widget.text,
            FONT["icon"],
            WHITE,
            width=x2 - x1,
            anchor="mm",
        )

    def _image(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, y1, x2, y2 = p.box
        self.draw.rounded_rectangle(
            (x1, y1 + 2, x2, y2 - 2), radius=self.px(8), fill=p.widget.color or (120, 150, 190)
        )
        self.text(
            ((x1 + x2) / 2, cy),
            p.widget.text,
            FONT["image"],
            WHITE,
            width=x2 - x1 - pad,
            anchor="mm",
        )

    def _chip(self, p: Placed, focus: str | None, pad: int, cy: float) -> None:
        x1, y1, x2, y2 = p.box
        on = bool(p.widget.checked)
        self.draw.rounded_rectangle(
            (x1, y1 + 3, x2, y2 - 3),
            radius=(y2 - y1) // 2,
            fill=self.accent if on else self.theme["field"],
            outline=self.accent,
        )
        self.text(
            ((x1 + x2) / 2, cy),
            p.widget.text,
            FONT["chip"],
            WHITE if on else self.accent,
            width=x2 - x1 - pad,
            anchor="mm",
        )

    def keyboard(self, p: Placed) -> None:
        x1, y1, x2, y2 = p.box
        if p.widget.key == "kb_enter":
            self._button(p, None, self.px(4), (y1 + y2) / 2)
            return
        self.draw.rectangle(p.box, fill=(210, 213, 219))
        rows = len(KEY_ROWS) + 1
        key_h = (y2 - y1 - self.px(8)) / rows
        for r, keys in enumerate(KEY_ROWS):
            key_w = (x2 - x1) / 10
            offset = (10 - len(keys)) * key_w / 2
            for c, letter in enumerate(keys):
                kx = x1 + offset + c * key_w
                ky = y1 + self.px(4) + r * key_h
                self.draw.rounded_rectangle(
                    (kx + 2, ky + 2, kx + key_w - 2, ky + key_h - 2), radius=4, fill=WHITE
                )
                self.text((kx + key_w / 2, ky + key_h / 2), letter, 14, (30, 30, 30), anchor="mm")
        space_y = y1 + self.px(4) + 3 * key_h
        self.draw.rounded_rectangle(
            (x1 + (x2 - x1) * 0.25, space_y + 2, x1 + (x2 - x1) * 0.7, space_y + key_h - 2),
            radius=4,
            fill=WHITE,
        )

    def dim(self, dialog_box: tuple[int, int, int, int]) -> None:
        self.image = Image.blend(self.image, Image.new("RGB", self.image.size, (0, 0, 0)), 0.45)
        self.draw = ImageDraw.Draw(self.image)
        self.draw.rounded_rectangle(dialog_box, radius=self.px(14), fill=self.theme["field"])

    def png(self) -> bytes:
        buffer = io.BytesIO()
        self.image.save(buffer, format="PNG", compress_level=1)
        return buffer.getvalue()
