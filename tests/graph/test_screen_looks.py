"""The visual descriptor of a screen without UI tree or description (looks alone)."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from guigraph.geometry import ScreenSize
from guigraph.graph.matcher import MatchSettings
from guigraph.graph.screen import LAYOUT_DIM, ScreenView
from guigraph.types import Observation


def screen(background: int, ink: int, bar: int, rows: list[tuple[int, int]]) -> ScreenView:
    """A 360x780 screen: an app bar with a title, then text rows (y, length in px)."""
    pixels = np.full((780, 360), background, dtype=np.uint8)
    pixels[24:70] = bar
    pixels[40:54, 50:120] = 255  # the title, white on the bar
    for y, length in rows:
        pixels[y : y + 12, 16 : 16 + length] = ink
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    observation = Observation(ScreenSize(360, 780), screenshot=buffer.getvalue())
    return ScreenView(observation, use_ui=False)


def parts(a: ScreenView, b: ScreenView) -> tuple[float, float]:
    """Cosines of the layout and of the title band."""
    va, vb = a.visual_vector() * np.sqrt(2.0), b.visual_vector() * np.sqrt(2.0)
    return float(va[:LAYOUT_DIM] @ vb[:LAYOUT_DIM]), float(va[LAYOUT_DIM:] @ vb[LAYOUT_DIM:])


def test_dark_mode_looks_like_the_same_screen() -> None:
    """Edges are counted, not weighed: in dark mode the text and the app bar's lower edge
    have another contrast, yet the screen is where its edges are."""
    rows = [(90, 200), (140, 120), (190, 160)]
    light = screen(background=250, ink=30, bar=90, rows=rows)
    dark = screen(background=32, ink=200, bar=90, rows=rows)
    layout, band = parts(light, dark)
    assert layout >= 0.97 and band >= 0.97


def test_another_layout_still_looks_different() -> None:
    list_page = screen(250, 30, 90, [(90, 200), (140, 200), (190, 200), (240, 200)])
    form = screen(250, 30, 90, [(300, 320), (420, 320)])
    layout, _ = parts(list_page, form)
    assert layout < 0.5


def tablet(title: str) -> ScreenView:
    """An 800x500 landscape screen: status bar, an app bar with ``title``, list rows."""
    from PIL import ImageDraw, ImageFont

    image = Image.new("L", (800, 500), 250)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 800, 26), fill=20)
    draw.rectangle((0, 26, 800, 84), fill=90)
    draw.text((60, 46), title, fill=255, font=ImageFont.load_default(size=26))
    for y in (110, 170, 230):
        draw.rectangle((20, y, 300, y + 14), fill=30)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return ScreenView(Observation(ScreenSize(800, 500), screenshot=buffer.getvalue()), use_ui=False)


def test_a_landscape_screen_keeps_its_titles_apart() -> None:
    """Squeezed into the portrait grid, a tablet's titles blurred into one blob and every
    list page of every app looked alike; its own aspect and a title band in dp keep them."""
    messages, notes = tablet("Messages"), tablet("Settings")
    layout, band = parts(messages, notes)
    assert layout >= 0.9  # the same list layout ...
    assert band < MatchSettings().title_band_threshold  # ... under another title
    assert parts(messages, messages)[1] >= 0.999
