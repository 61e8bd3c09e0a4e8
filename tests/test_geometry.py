import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guigraph.geometry import BBox, CoordSpace, Point, ScreenSize

ODD_SCREENS = [
    ScreenSize(1080, 2400),
    ScreenSize(1812, 2176),
    ScreenSize(721, 1603),
    ScreenSize(1, 1),
]


@pytest.mark.parametrize("screen", ODD_SCREENS)
@given(x=st.floats(0, 1000), y=st.floats(0, 1000))
def test_norm_pixel_round_trip(screen: ScreenSize, x: float, y: float) -> None:
    point = Point(x, y)
    back = point.to_pixels(screen).to_norm(screen)
    assert back.space is CoordSpace.NORM
    assert math.isclose(back.x, x, abs_tol=1e-9) and math.isclose(back.y, y, abs_tol=1e-9)


@pytest.mark.parametrize("screen", ODD_SCREENS)
def test_integer_pixels_survive_round_trip(screen: ScreenSize) -> None:
    for px in range(0, screen.width + 1, max(1, screen.width // 37)):
        p = Point(px, screen.height - 1 if screen.height > 1 else 0, CoordSpace.PIXEL)
        assert p.to_norm(screen).to_pixels(screen).rounded() == p.rounded()


def test_pixel_conversion_uses_each_axis() -> None:
    screen = ScreenSize(1000, 2000)
    assert Point(500, 500).to_pixels(screen) == Point(500, 1000, CoordSpace.PIXEL)
    assert Point(10, 20, CoordSpace.PIXEL).to_norm(screen) == Point(10, 10)


def test_box_contains_edges_inclusive_and_refuses_mixed_spaces() -> None:
    box = BBox(100, 200, 300, 400)
    assert box.contains(Point(100, 200)) and box.contains(Point(300, 400))
    assert not box.contains(Point(300.001, 300))
    with pytest.raises(ValueError):
        box.contains(Point(150, 250, CoordSpace.PIXEL))


def test_box_validation_and_conversion() -> None:
    with pytest.raises(ValueError):
        BBox(10, 10, 5, 20)
    with pytest.raises(ValueError):
        BBox.from_list([1, 2, 3])
    screen = ScreenSize(1812, 2176)
    box = BBox(0, 0, 1000, 500)
    assert box.to_pixels(screen).as_list() == [0, 0, 1812, 1088]
    assert box.to_pixels(screen).to_norm(screen) == box
    assert box.center == Point(500, 250)


def test_point_bounds_and_nan() -> None:
    assert Point(0, 1000).in_bounds() and not Point(-1, 5).in_bounds()
    assert Point(1080, 5, CoordSpace.PIXEL).in_bounds(ScreenSize(1080, 10))
    with pytest.raises(ValueError):
        Point(1, 2, CoordSpace.PIXEL).in_bounds()
    with pytest.raises(ValueError):
        Point(float("nan"), 1)
    with pytest.raises(ValueError):
        ScreenSize(0, 10)
