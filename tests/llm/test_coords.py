import pytest
from hypothesis import given
from hypothesis import strategies as st

from guigraph.errors import ConfigError
from guigraph.geometry import CoordSpace, Point, ScreenSize
from guigraph.llm.config import ImagePolicy
from guigraph.llm.coords import NAMED_COORDS, ModelCoords, smart_resize

SCREENS = {
    "phone": ScreenSize(1080, 2400),
    "small-phone": ScreenSize(720, 1280),
    "odd": ScreenSize(1001, 2003),
    "tablet": ScreenSize(2560, 1600),
    "tablet-portrait": ScreenSize(1600, 2560),
}


@pytest.mark.parametrize(
    ("height", "width", "expected"),
    [
        (2400, 1080, (2408, 1092)),  # already small enough: nearest multiples of 28
        (1280, 720, (1288, 728)),
        (28, 28, (56, 56)),  # below min_pixels: scaled up
        (1600, 2560, (1596, 2548)),
    ],
)
def test_smart_resize_matches_the_qwen_processor(
    height: int, width: int, expected: tuple[int, int]
) -> None:
    assert smart_resize(height, width) == expected


def test_smart_resize_respects_max_pixels() -> None:
    h, w = smart_resize(2400, 1080, max_pixels=1280 * 28 * 28)
    assert h % 28 == 0 and w % 28 == 0
    assert h * w <= 1280 * 28 * 28
    assert abs(w / h - 1080 / 2400) < 0.03


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
@pytest.mark.parametrize("name", sorted(NAMED_COORDS))
def test_screen_point_round_trips_through_every_model_space(screen: ScreenSize, name: str) -> None:
    coords = ModelCoords.from_name(name)
    for target in (Point(0, 0), Point(1000, 1000), Point(123.5, 876.25), Point(500, 500)):
        x, y = coords.from_point(target, screen)
        back = coords.to_point(x, y, screen)
        assert back.space is CoordSpace.NORM
        assert back.to_list() == pytest.approx(target.to_list())


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_known_points_land_where_expected(screen: ScreenSize) -> None:
    centre_px = Point(screen.width / 2, screen.height / 2, CoordSpace.PIXEL)
    assert ModelCoords.from_name("qwen3-vl").to_point(500, 500, screen) == Point(500, 500)
    assert ModelCoords.from_name("relative-999").to_point(999, 0, screen).x == pytest.approx(1000)
    pixel = ModelCoords.from_name("pixel").to_point(centre_px.x, centre_px.y, screen)
    assert pixel.to_list() == pytest.approx([500, 500])
    h, w = smart_resize(screen.height, screen.width)
    qwen25 = ModelCoords.from_name("qwen2.5-vl").to_point(w / 2, h / 2, screen)
    assert qwen25.to_pixels(screen).to_list() == pytest.approx([centre_px.x, centre_px.y])


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_downscaled_screenshots_map_back_to_the_full_screen(screen: ScreenSize) -> None:
    """The model saw a smaller image; its point must still land on the right screen pixel."""
    sent = ScreenSize(*ImagePolicy(max_pixels=400_000).target_size(screen.width, screen.height))
    assert sent.width * sent.height <= 400_000
    button_px = Point(screen.width * 0.25, screen.height * 0.75, CoordSpace.PIXEL)
    for name in ("qwen2.5-vl", "ui-tars", "pixel", "qwen3-vl"):
        coords = ModelCoords.from_name(name)
        x, y = coords.from_point(button_px, screen, sent)
        back = coords.to_point(x, y, screen, sent).to_pixels(screen)
        assert back.to_list() == pytest.approx(button_px.to_list())


def test_pixel_space_uses_the_sent_image() -> None:
    screen, sent = ScreenSize(1080, 2400), ScreenSize(540, 1200)
    point = ModelCoords.from_name("pixel").to_point(270, 600, screen, sent)
    assert point == Point(500, 500)


@given(st.integers(28, 4000), st.integers(28, 4000), st.floats(0, 1000), st.floats(0, 1000))
def test_round_trip_property(width: int, height: int, x: float, y: float) -> None:
    screen = ScreenSize(width, height)
    coords = ModelCoords.from_name("qwen2.5-vl")
    if max(width, height) / min(width, height) > 200:
        return
    mx, my = coords.from_point(Point(x, y), screen)
    assert coords.to_point(mx, my, screen).to_list() == pytest.approx([x, y], abs=1e-6)


def test_unknown_names_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="qwen3-vl"):
        ModelCoords.from_name("gpt-9")
    with pytest.raises(ConfigError, match="kind"):
        ModelCoords("inches")
