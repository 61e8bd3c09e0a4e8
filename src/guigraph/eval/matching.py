"""The GUIOdyssey step matcher: does a predicted command count as the ground truth's action?

``official`` mode gives the verdict of the official evaluator (``GUIOdyssey_action_matching``
with its ``simple_decode`` parsing), quirks included; ``strict`` mode fixes the quirks. The
rules and every difference are in ``docs/evaluation.md``.

This is the hot path of scoring (a million steps in a few seconds), so each mode is one flat
function: commands are split once with ``str.split``/``partition``, points are read by
``parse_numbers`` (no regex, no ``eval``), and verdicts are shared constants.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from rapidfuzz.distance import Levenshtein

from guigraph.data.commands import COMMAND_TYPES, EXTENSION_COMMANDS, parse_numbers, parse_point
from guigraph.errors import ActionError

MatchMode = Literal["official", "strict"]
MODES: tuple[str, ...] = ("official", "strict")

#: Normalized distance under which two points count as the same tap (both axes /1000).
CLICK_THRESHOLD = 0.14
#: Minimum normalized Levenshtein similarity for two typed texts to match.
TEXT_THRESHOLD = 0.5


@dataclass(frozen=True, slots=True)
class ActionMatch:
    is_correct: bool
    info: str

    @property
    def label(self) -> str:
        """``is_correct`` as the official files write it."""
        return "yes" if self.is_correct else "no"


CLICK_CORRECT = ActionMatch(True, "click_correct")
CLICK_FAIL = ActionMatch(False, "click_fail")
TYPE_CORRECT = ActionMatch(True, "type_correct")
TYPE_FAIL = ActionMatch(False, "type_fail")
SCROLL_CORRECT = ActionMatch(True, "scroll_correct")
SCROLL_FAIL = ActionMatch(False, "scroll_fail")
ACTION_CORRECT = ActionMatch(True, "action_correct")
ACTION_FAIL = ActionMatch(False, "action_fail")
INVALID = ActionMatch(False, "invalid")

ACTION_MATCHES: dict[str, ActionMatch] = {
    v.info: v
    for v in (
        CLICK_CORRECT,
        CLICK_FAIL,
        TYPE_CORRECT,
        TYPE_FAIL,
        SCROLL_CORRECT,
        SCROLL_FAIL,
        ACTION_CORRECT,
        ACTION_FAIL,
        INVALID,
    )
}

_POINT_ACTIONS = frozenset({"CLICK", "LONG_PRESS"})
_DIRECTIONS = frozenset({"up", "down", "left", "right"})
#: A point literal that evaluates, but not to numbers ("('a', 'b')"): wrong, not unreadable.
_NOT_NUMBERS: list[float] = []


def match_step(
    pred: str, gt: str, sam2_bbox: Sequence[float] | None, mode: MatchMode = "official"
) -> ActionMatch:
    """The verdict for one step. ``gt`` must be an official command (ActionError otherwise);
    ``pred`` may be anything a model wrote. ``sam2_bbox`` empty or None: distance test only."""
    if mode == "official":
        return match_official(pred, gt, sam2_bbox)
    if mode == "strict":
        return match_strict(pred, gt, sam2_bbox)
    raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


def match_official(pred: str, gt: str, sam2_bbox: Sequence[float] | None) -> ActionMatch:
    # simple_decode: split on every ':' and keep part 0 (action) and part 1 (info) only.
    parts = gt.split(":", 2)
    gt_action = parts[0].strip()
    gt_info = parts[1].strip() if len(parts) > 1 else ""
    if gt_action not in COMMAND_TYPES and gt_action not in EXTENSION_COMMANDS:
        raise ActionError(f"ground truth is not a GUIOdyssey command: {gt!r}")
    parts = pred.split(":", 2)
    pred_action = parts[0].strip()
    pred_info = parts[1].strip() if len(parts) > 1 else ""
    pred_point: list[float] | None = None
    if pred_action in _POINT_ACTIONS and len(parts) > 1:
        # The official decoder evaluates a point argument; if that fails the step is invalid
        # whatever the ground truth is.
        pred_point = _official_point(pred_info)
        if pred_point is None:
            return INVALID
    return _compare(
        Decoded(gt, gt_action, gt_info),
        Decoded(pred, pred_action, pred_info, pred_point),
        sam2_bbox,
    )


def match_strict(pred: str, gt: str, sam2_bbox: Sequence[float] | None) -> ActionMatch:
    name, _, argument = gt.partition(":")
    gt_action = name.strip()
    gt_info = argument.strip()
    if gt_action not in COMMAND_TYPES and gt_action not in EXTENSION_COMMANDS:
        raise ActionError(f"ground truth is not a GUIOdyssey command: {gt!r}")
    name, colon, argument = pred.partition(":")
    pred_action = name.strip()
    pred_info = argument.strip()
    if pred_action not in COMMAND_TYPES and pred_action not in EXTENSION_COMMANDS:
        return INVALID  # free text, or a command the space does not have
    pred_point: list[float] | None = None
    if pred_action in _POINT_ACTIONS:
        point = parse_point(pred_info) if colon else None
        if point is None:
            return INVALID
        pred_point = [point[0], point[1]]
    elif pred_action == "SCROLL" and pred_info.lower() not in _DIRECTIONS:
        return INVALID
    if pred_action == gt_action == "TYPE" and not pred_info:
        return TYPE_CORRECT if not gt_info else TYPE_FAIL  # empty matches only empty
    return _compare(
        Decoded(gt, gt_action, gt_info),
        Decoded(pred, pred_action, pred_info, pred_point),
        sam2_bbox,
    )


class Decoded(NamedTuple):
    """A command split into its action and argument (a point's numbers, when read)."""

    text: str
    action: str
    info: str
    point: list[float] | None = None


def _compare(gt: Decoded, pred: Decoded, sam2_bbox: Sequence[float] | None) -> ActionMatch:
    """The two decoded commands compared: the action first, then its argument."""
    if pred.action != gt.action:
        return ACTION_FAIL
    if gt.action in _POINT_ACTIONS:
        return _match_click(pred.point, _gt_point(gt.info, gt.text), sam2_bbox)
    if gt.action == "TYPE":
        return TYPE_CORRECT if _texts_match(gt.info, pred.info) else TYPE_FAIL
    if gt.action == "SCROLL":
        return SCROLL_CORRECT if gt.info.lower() == pred.info.lower() else SCROLL_FAIL
    return ACTION_CORRECT


def _official_point(text: str) -> list[float] | None:
    """The numbers of a predicted point as ``eval`` would see them; None if it would fail."""
    numbers = parse_numbers(text)
    if numbers is not None:
        return numbers
    # Rare shapes the fast parser leaves alone ("((1, 2))", "('a', 'b')", "1e999"): a literal
    # evaluation is what eval would have done for any literal, without running code.
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(value, list | tuple) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        return [float(v) for v in value]
    return _NOT_NUMBERS


def _gt_point(info: str, gt: str) -> tuple[float, float]:
    point = parse_point(info)
    if point is None:
        raise ActionError(f"ground truth point is not '(x, y)': {gt!r}")
    return point


def _match_click(
    pred: list[float] | None, gt: tuple[float, float], box: Sequence[float] | None
) -> ActionMatch:
    if pred is None or len(pred) < 2:
        return INVALID  # the official matcher fails to index the point
    x, y = pred[0], pred[1]
    if box:
        if len(box) != 4:
            raise ActionError(f"sam2_bbox must be [x1, y1, x2, y2], got {list(box)}")
        if box[0] <= x <= box[2] and box[1] <= y <= box[3]:
            return CLICK_CORRECT
    if len(pred) != 2:
        return INVALID  # the official distance cannot subtract a 2-point from an n-point
    # Same operations, in the same order, as numpy's norm of (pred/1000 - gt/1000), so that
    # points at exactly 0.14 fall on the same side.
    dx = x / 1000 - gt[0] / 1000
    dy = y / 1000 - gt[1] / 1000
    return CLICK_CORRECT if math.sqrt(dx * dx + dy * dy) <= CLICK_THRESHOLD else CLICK_FAIL


def _texts_match(gt: str, pred: str) -> bool:
    """Either text contains the other, or normalized Levenshtein similarity >= 0.5."""
    if gt in pred or pred in gt:
        return True
    length = max(len(gt), len(pred))
    return 1 - Levenshtein.distance(gt, pred) / length >= TEXT_THRESHOLD
