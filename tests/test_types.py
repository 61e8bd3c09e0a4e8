import pytest

from guigraph.errors import ActionError, DatasetError, MissingExtraError, require
from guigraph.geometry import BBox, CoordSpace, Point, ScreenSize
from guigraph.types import (
    Action,
    ActionType,
    DeviceInfo,
    Episode,
    Observation,
    ScrollDirection,
    Step,
    Task,
    UIElement,
    swipe_direction,
)


@pytest.mark.parametrize(
    ("end", "direction"),
    [
        ((500, 100), ScrollDirection.UP),
        ((500, 900), ScrollDirection.DOWN),
        ((100, 500), ScrollDirection.LEFT),
        ((900, 500), ScrollDirection.RIGHT),
        ((700, 700), ScrollDirection.DOWN),  # |dx| == |dy|: vertical wins
        ((300, 300), ScrollDirection.UP),
        ((500, 500), ScrollDirection.DOWN),  # no movement: dy == 0 is not < 0
    ],
)
def test_swipe_direction_follows_guiodyssey_rule(end: tuple[int, int], direction: str) -> None:
    assert swipe_direction(Point(500, 500), Point(*end)) == direction


def test_scroll_from_points_derives_direction() -> None:
    action = Action.swipe(Point(500, 800), Point(500, 200))
    assert action.direction is ScrollDirection.UP


@pytest.mark.parametrize(
    "kwargs",
    [
        {"type": ActionType.CLICK},
        {"type": ActionType.TYPE},
        {"type": ActionType.SCROLL},
        {"type": ActionType.SCROLL, "point": Point(1, 1)},
        {"type": ActionType.OPEN_APP, "app": "  "},
        {"type": ActionType.PRESS_BACK, "point": Point(1, 1)},
        {"type": ActionType.CLICK, "point": Point(1, 1, CoordSpace.PIXEL)},
        {"type": ActionType.WAIT, "seconds": -1},
        {"type": ActionType.TYPE, "text": "x", "app": "notes"},
    ],
)
def test_invalid_actions_are_refused(kwargs: dict) -> None:
    with pytest.raises(ActionError):
        Action(**kwargs)


def test_action_accepts_string_type_and_round_trips() -> None:
    actions = [
        Action.click(12.5, 990),
        Action.long_press(1, 2),
        Action.swipe(Point(1, 900), Point(1, 100)),
        Action.scroll("left"),
        Action.type_text(""),
        Action.open_app("Notes"),
        Action(ActionType.WAIT, seconds=1.5),
        Action(ActionType.PRESS_RECENT),
        Action("complete"),  # type: ignore[arg-type]
    ]
    for action in actions:
        assert Action.from_dict(action.to_dict()) == action
    with pytest.raises(ActionError):
        Action.from_dict({"type": "teleport"})


def test_ui_element_round_trip_and_label() -> None:
    element = UIElement(BBox(0, 0, 10, 10), resource_id="com.app:id/search_box", editable=True)
    assert element.label == "search_box"
    assert UIElement.from_dict(element.to_dict()) == element
    with pytest.raises(ValueError):
        UIElement(BBox(0, 0, 5, 5, CoordSpace.PIXEL))


def test_observation_reads_screenshot_lazily(tmp_path) -> None:
    from PIL import Image

    path = tmp_path / "s.png"
    Image.new("RGB", (4, 8), "white").save(path)
    obs = Observation(ScreenSize(4, 8), screenshot_path=path)
    assert obs.png_bytes().startswith(b"\x89PNG")
    assert obs.image().size == (4, 8)
    with pytest.raises(ValueError):
        Observation(ScreenSize(4, 8)).png_bytes()
    focused = UIElement(BBox(0, 0, 1, 1), focused=True)
    assert (
        Observation(
            ScreenSize(4, 8), elements=(UIElement(BBox(0, 0, 1, 1)), focused)
        ).focused_element()
        is focused
    )


def test_episode_requires_consecutive_step_indices() -> None:
    obs = Observation(ScreenSize(10, 10))
    device = DeviceInfo("Pixel 7 Pro", 1080, 2400)
    steps = (Step(0, obs, Action.click(1, 1)), Step(2, obs, Action(ActionType.COMPLETE)))
    with pytest.raises(ValueError, match="position 1 has index 2"):
        Episode("e", "do it", "General_Tool", device, steps)
    assert device.screen == ScreenSize(1080, 2400)


def test_task_round_trip() -> None:
    task = Task(
        "t1",
        "Note the weather",
        "Multi_Apps",
        ("weather", "notes"),
        "weather_note",
        {"city": "Oslo"},
    )
    assert Task.from_dict(task.to_dict()) == task


def test_dataset_error_names_file_field_and_expectation() -> None:
    err = DatasetError("annotations/1.json", "steps[3].action", "one of CLICK, SCROLL", got="JUMP")
    assert (
        str(err)
        == "annotations/1.json: field 'steps[3].action' expected one of CLICK, SCROLL, got 'JUMP'"
    )


def test_require_names_the_extra() -> None:
    with pytest.raises(MissingExtraError, match=r"guigraph\[web\]"):
        require("surely_not_a_module_xyz", "web")
