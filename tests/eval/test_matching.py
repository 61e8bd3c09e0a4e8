import math
import random

import numpy as np
import pytest

from guigraph.errors import ActionError
from guigraph.eval.matching import CLICK_THRESHOLD, match_step

BOX = [400, 400, 600, 450]


def verdict(pred: str, gt: str, box: list[float] | None = None, mode: str = "official") -> str:
    result = match_step(pred, gt, box, mode)  # type: ignore[arg-type]
    assert result.is_correct == result.info.endswith("_correct")
    return result.info


BOTH = pytest.mark.parametrize("mode", ["official", "strict"])


# ---------------------------------------------------------------- types and type-only actions
@BOTH
@pytest.mark.parametrize(
    ("pred", "gt"),
    [
        ("PRESS_HOME", "PRESS_BACK"),
        ("LONG_PRESS: (500, 500)", "CLICK: (500, 500)"),
        ("CLICK: (500, 500)", "LONG_PRESS: (500, 500)"),
        ("SCROLL: UP", "TYPE: up"),
        ("COMPLETE", "IMPOSSIBLE"),
        ("TYPE: hello", "CLICK: (1, 2)"),
    ],
)
def test_different_types_fail(pred: str, gt: str, mode: str) -> None:
    assert verdict(pred, gt, BOX, mode) == "action_fail"


@BOTH
@pytest.mark.parametrize("command", ["PRESS_HOME", "PRESS_BACK", "PRESS_RECENT", "COMPLETE"])
def test_argument_free_actions_match_on_type(command: str, mode: str) -> None:
    assert verdict(command, command, None, mode) == "action_correct"
    assert verdict(f" {command} ", command, None, mode) == "action_correct"
    assert verdict(f"{command}: any words", command, None, mode) == "action_correct"


# ---------------------------------------------------------------------------------- TYPE
@BOTH
@pytest.mark.parametrize(
    ("pred", "gt", "info"),
    [
        ("TYPE: gym", "TYPE: gym", "type_correct"),
        ("TYPE: gym near me", "TYPE: gym", "type_correct"),  # pred contains gt
        ("TYPE: gym", "TYPE: a gym nearby", "type_correct"),  # gt contains pred
        ("TYPE:  3D course ", "TYPE: 3D course", "type_correct"),  # stripped
        ("TYPE: abxy", "TYPE: abcd", "type_correct"),  # similarity exactly 0.5
        ("TYPE: xbcy", "TYPE: abcd", "type_correct"),  # exactly 0.5 again
        ("TYPE: abxyz", "TYPE: abcde", "type_fail"),  # 0.4
        ("TYPE: gym", "TYPE: T2 Muay Thai", "type_fail"),
    ],
)
def test_type_text_rule(pred: str, gt: str, info: str, mode: str) -> None:
    assert verdict(pred, gt, None, mode) == info


@pytest.mark.parametrize("pred", ["TYPE:", "TYPE: ", "TYPE"])
def test_empty_type_prediction_official_matches_strict_does_not(pred: str) -> None:
    assert verdict(pred, "TYPE: T2 Muay Thai") == "type_correct"
    assert verdict(pred, "TYPE: T2 Muay Thai", mode="strict") == "type_fail"
    assert verdict(pred, "TYPE: ", mode="strict") == "type_correct"


def test_colon_truncation_official_only() -> None:
    gt, pred = "TYPE: 2: Vegan chickpea curry", "TYPE: 2: Chicken tikka masala"
    assert verdict(pred, gt) == "type_correct"  # both cut to "2"
    assert verdict(pred, gt, mode="strict") == "type_fail"
    url = "TYPE: https://example.org/a"
    assert verdict("TYPE: https://other.net/zzzzzzzzzzzzzzzz", url) == "type_correct"
    assert verdict("TYPE: https://other.net/zzzzzzzzzzzzzzzz", url, mode="strict") == "type_fail"


# -------------------------------------------------------------------------------- SCROLL
@BOTH
@pytest.mark.parametrize(
    ("pred", "info"),
    [
        ("SCROLL: UP", "scroll_correct"),
        ("SCROLL: up", "scroll_correct"),
        ("SCROLL: DOWN", "scroll_fail"),
    ],
)
def test_scroll_label(pred: str, info: str, mode: str) -> None:
    assert verdict(pred, "SCROLL: UP", None, mode) == info


def test_scroll_without_direction() -> None:
    assert verdict("SCROLL", "SCROLL: UP") == "scroll_fail"
    assert verdict("SCROLL: sideways", "SCROLL: UP") == "scroll_fail"
    assert verdict("SCROLL", "SCROLL: UP", mode="strict") == "invalid"
    assert verdict("SCROLL: sideways", "SCROLL: UP", mode="strict") == "invalid"


# ------------------------------------------------------------------------ CLICK/LONG_PRESS
@BOTH
@pytest.mark.parametrize("kind", ["CLICK", "LONG_PRESS"])
@pytest.mark.parametrize(
    ("point", "box", "info"),
    [
        ((590, 405), BOX, "click_correct"),  # inside the box, 0.1 away: box wins
        ((410, 440), BOX, "click_correct"),  # inside the box, far from the truth
        ((600, 450), BOX, "click_correct"),  # bottom-right corner: edges inclusive
        ((400, 420), BOX, "click_correct"),  # left edge
        ((640, 500), None, "click_correct"),  # exactly 0.14 to the right
        ((584, 612), None, "click_correct"),  # exactly 0.14 diagonally (84, 112)
        ((641, 500), None, "click_fail"),  # just beyond 0.14
        ((641, 500), [], "click_fail"),  # an empty box: distance only
        ((500, 359), BOX, "click_fail"),  # outside the box, 0.141 away
        ((801, 451), [801.5, 451, 900, 500], "click_fail"),  # just left of a far box
        ((300.5, 420.25), [300, 420, 301, 421], "click_correct"),  # fractional, in box
    ],
)
def test_click_rule(
    kind: str, point: tuple[float, float], box: list[float] | None, info: str, mode: str
) -> None:
    pred = f"{kind}: ({point[0]}, {point[1]})"
    assert verdict(pred, f"{kind}: (500, 500)", box, mode) == info


def test_distance_boundary_agrees_with_numpy_norm() -> None:
    """The official test is np.linalg.norm(pred/1000 - gt/1000) <= 0.14; near the circle our
    float arithmetic must land on the same side."""
    rng = random.Random(7)
    for _ in range(20000):
        gx, gy = rng.randint(0, 1000), rng.randint(0, 1000)
        angle = rng.random() * 2 * math.pi
        px = round(gx + 140 * math.cos(angle))
        py = round(gy + 140 * math.sin(angle))
        expected = (
            np.linalg.norm(np.asarray((px, py)) / 1000 - np.asarray((gx, gy)) / 1000)
            <= CLICK_THRESHOLD
        )
        got = match_step(f"CLICK: ({px}, {py})", f"CLICK: ({gx}, {gy})", None).is_correct
        assert got == bool(expected), (px, py, gx, gy)


@pytest.mark.parametrize(
    "pred", ["CLICK: [500, 500]", "CLICK: 500, 500", "CLICK:(500,500)", "CLICK: ((500, 500))"]
)
def test_point_shapes_eval_would_accept(pred: str) -> None:
    assert verdict(pred, "CLICK: (500, 500)") == "click_correct"


# ------------------------------------------------------------------------ invalid and free
@pytest.mark.parametrize(
    ("pred", "gt", "official", "strict"),
    [
        # A point argument that does not evaluate: invalid whatever the truth is.
        ("CLICK: (a, b)", "TYPE: x", "invalid", "invalid"),
        ("CLICK: (a, b)", "CLICK: (1, 2)", "invalid", "invalid"),
        ("LONG_PRESS: near the top", "CLICK: (1, 2)", "invalid", "invalid"),
        # No argument at all: official decodes it, then fails to read the point.
        ("CLICK", "CLICK: (1, 2)", "invalid", "invalid"),
        ("CLICK", "TYPE: x", "action_fail", "invalid"),
        # A literal that is not a pair of numbers.
        ("CLICK: ('a', 'b')", "TYPE: x", "action_fail", "invalid"),
        ("CLICK: ('a', 'b')", "CLICK: (1, 2)", "invalid", "invalid"),
        ("CLICK: (450, 420, 9)", "CLICK: (1, 2)", "click_correct", "invalid"),  # in the box
        ("CLICK: (10, 10, 9)", "CLICK: (1, 2)", "invalid", "invalid"),
        ("CLICK: (5)", "CLICK: (1, 2)", "invalid", "invalid"),
        # Free text: the official decoder takes it as an unknown action name.
        ("I would tap the search bar", "CLICK: (1, 2)", "action_fail", "invalid"),
        ("Action: CLICK (1, 2)", "CLICK: (1, 2)", "action_fail", "invalid"),
        ("click: (1, 2)", "CLICK: (1, 2)", "action_fail", "invalid"),
        ("", "COMPLETE", "action_fail", "invalid"),
    ],
)
def test_unreadable_predictions(pred: str, gt: str, official: str, strict: str) -> None:
    assert verdict(pred, gt, BOX) == official
    assert verdict(pred, gt, BOX, "strict") == strict


@BOTH
@pytest.mark.parametrize("gt", ["tap", "CLICK: somewhere", "CLICK", "FLY: (1, 2)"])
def test_bad_ground_truth_raises(gt: str, mode: str) -> None:
    with pytest.raises(ActionError, match="ground truth"):
        match_step("CLICK: (1, 2)", gt, None, mode)  # type: ignore[arg-type]


def test_bad_box_and_mode_raise() -> None:
    with pytest.raises(ActionError, match="sam2_bbox"):
        match_step("CLICK: (1, 2)", "CLICK: (1, 2)", [1, 2, 3])
    with pytest.raises(ValueError, match="mode"):
        match_step("COMPLETE", "COMPLETE", None, "lenient")  # type: ignore[arg-type]
