"""Property tests: command and raw forms round-trip for any action GUIOdyssey can express."""

import ast

from hypothesis import given
from hypothesis import strategies as st

from guigraph.data.commands import (
    action_to_command,
    action_to_raw,
    command_to_action,
    parse_numbers,
    raw_to_action,
)
from guigraph.geometry import Point
from guigraph.types import Action, ActionType, ScrollDirection

coords = st.integers(min_value=0, max_value=1000)
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
actions = st.one_of(
    st.builds(Action.click, coords, coords),
    st.builds(Action.long_press, coords, coords),
    st.builds(Action.scroll, st.sampled_from(list(ScrollDirection))),
    st.builds(
        lambda a, b, c, d: Action.swipe(Point(a, b), Point(c, d)), coords, coords, coords, coords
    ),
    st.builds(Action.type_text, texts),
    st.sampled_from(
        [
            Action.key(ActionType.PRESS_BACK),
            Action.key(ActionType.PRESS_HOME),
            Action.key(ActionType.PRESS_RECENT),
            Action(ActionType.COMPLETE),
            Action(ActionType.IMPOSSIBLE),
        ]
    ),
)


@given(actions)
def test_command_round_trip(action: Action) -> None:
    command = action_to_command(action)
    assert action_to_command(command_to_action(command)) == command


@given(actions)
def test_raw_round_trip_keeps_the_action(action: Action) -> None:
    back = raw_to_action(*action_to_raw(action))
    assert action_to_command(back) == action_to_command(action)
    if action.type is not ActionType.SCROLL or action.point is not None:
        assert back == action


@given(
    st.lists(
        st.one_of(st.integers(-5000, 5000), st.floats(allow_nan=False, allow_infinity=False)),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["({})", "[{}]", "{}", "({},)"]),
    st.sampled_from([", ", ",", " , "]),
)
def test_fast_point_parser_agrees_with_literal_eval(
    numbers: list[float], shape: str, separator: str
) -> None:
    text = shape.format(separator.join(repr(n) for n in numbers))
    value = ast.literal_eval(text)
    expected = list(value) if isinstance(value, tuple | list) else [value]
    assert parse_numbers(text) == [float(v) for v in expected]
