import io

import pytest
from PIL import Image, ImageDraw, ImageFont

from guigraph.geometry import Point
from guigraph.ocr import RapidOcrEngine, describe


def screenshot() -> bytes:
    """A phone-shaped screen with two labels drawn at known places."""
    image = Image.new("RGB", (540, 1200), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=40)
    draw.text((40, 100), "Settings", fill="black", font=font)
    draw.text((40, 700), "Wi-Fi network", fill="black", font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def engine() -> RapidOcrEngine:
    return RapidOcrEngine()  # loads the ONNX models once for the module


def test_reads_text_and_places_it_in_the_normalized_space(engine: RapidOcrEngine) -> None:
    lines = engine.read(screenshot())
    assert [line.text for line in lines] == ["Settings", "Wi-Fi network"]
    settings, wifi = lines
    # "Settings" was drawn from (40, 100) px on a 540x1200 screen: about (74, 83) normalized.
    assert settings.box.contains(Point(150, 100))
    assert wifi.box.y1 > 550 and wifi.box.contains(Point(200, 600))
    assert all(line.score > 0.8 for line in lines)
    text = describe(lines)
    assert text.splitlines()[0].startswith("Settings @ (")


def test_blank_screen_has_no_text(engine: RapidOcrEngine) -> None:
    blank = io.BytesIO()
    Image.new("RGB", (300, 600), "white").save(blank, format="PNG")
    assert engine.read(blank.getvalue()) == []
