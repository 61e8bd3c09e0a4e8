"""Stage 1: the page-jump judge. Did action ``a`` move ``I_before`` to another GUI state?

Only jumps create transitions in the graph; in-page changes (typing, scrolling, a keyboard
appearing, a toggle) are condensed into the edge that finally leaves the page. The paper uses
an MLLM over ``(I_before, a, I_after)``; ``PageJumpJudge`` is that interface, and ``RuleJudge``
is the model-free default built from visual change, UI-tree change, app change and what the
action type implies.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from guigraph.errors import ConfigError
from guigraph.graph.screen import ScreenView
from guigraph.types import Action, ActionType, ScrollDirection


class JumpVerdict(StrEnum):
    JUMP = "jump"
    IN_PAGE = "in_page"


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: JumpVerdict
    reason: str  # short, for logs and debugging a wrong merge


@runtime_checkable
class PageJumpJudge(Protocol):
    """Anything that judges a transition; an MLLM judge reads the screenshots of the views."""

    def judge(self, before: ScreenView, action: Action, after: ScreenView) -> Judgement: ...


#: Actions that, when they change anything, change where the user is.
_LEAVING_ACTIONS = {ActionType.PRESS_HOME, ActionType.OPEN_APP, ActionType.PRESS_RECENT}
#: Actions that edit or move the content of the current page.
_IN_PAGE_ACTIONS = {ActionType.TYPE, ActionType.SCROLL, ActionType.WAIT}
_SIDEWAYS = {ScrollDirection.LEFT, ScrollDirection.RIGHT}


@dataclass(frozen=True, slots=True)
class RuleJudgeSettings:
    #: Jaccard similarity of UI structure below which the page changed.
    ui_jump_below: float = 0.6
    #: Without a UI tree, the page changed when more than this share of the cells of the
    #: title band changed (titles and app bars change exactly when the page does) ...
    title_changed_above: float = 0.025
    #: ... or more than this share of the upper screen (a keyboard or a bottom sheet covers
    #: the lower part without leaving the page).
    upper_changed_above: float = 0.15
    #: A thumbnail cell changed when its gray level moved by more than this (0..1).
    cell_change: float = 0.03
    #: Mean absolute change of the whole screen below which nothing happened.
    unchanged_below: float = 0.002
    #: The title band in dp below the top of the screen: under the status bar (24 dp, clock
    #: and battery) and inside the app bar (about 56 dp). A dp is estimated from the screen's
    #: short side, which is about ``short_side_dp`` dp on phones and tablets alike.
    title_band_dp: tuple[float, float] = (30.0, 70.0)
    short_side_dp: float = 420.0
    #: Thumbnail rows (of 64) of the upper screen, above where keyboards appear.
    upper_rows: tuple[int, int] = (4, 38)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleJudgeSettings:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for name in ("title_band_dp", "upper_rows"):
            if name in known:
                known[name] = tuple(known[name])
        return cls(**known)


class RuleJudge:
    """Model-free judge. Order of evidence: app change, no change, action type, UI tree, pixels."""

    def __init__(self, settings: RuleJudgeSettings | None = None):
        self.settings = settings or RuleJudgeSettings()

    def judge(self, before: ScreenView, action: Action, after: ScreenView) -> Judgement:
        if before.place and after.place and before.place != after.place:
            return Judgement(JumpVerdict.JUMP, f"app changed {before.place} -> {after.place}")
        if before.has_ui and after.has_ui:
            # The UI tree says everything the pixels would, and costs no image decoding.
            return self._by_structure(before, action, after)
        change = _mean_change(before, after)
        if change < self.settings.unchanged_below:
            return Judgement(JumpVerdict.IN_PAGE, f"screen unchanged ({change:.4f})")
        by_action = _by_action_type(action)
        return by_action if by_action is not None else self._by_pixels(before, after)

    def _by_structure(self, before: ScreenView, action: Action, after: ScreenView) -> Judgement:
        similarity = weighted_jaccard(before.weighted_tokens(), after.weighted_tokens())
        if similarity == 1.0 and _texts(before) == _texts(after):
            return Judgement(JumpVerdict.IN_PAGE, "UI tree unchanged")
        if before.windows() != after.windows():
            # A dialog opened or closed over a page that mostly stays: its own state.
            return Judgement(JumpVerdict.JUMP, "a dialog window opened or closed")
        by_action = _by_action_type(action)
        if by_action is not None:
            return by_action
        titles = before.title(), after.title()
        if all(titles) and titles[0] != titles[1]:
            return Judgement(JumpVerdict.JUMP, f"title changed {titles[0]!r} -> {titles[1]!r}")
        verdict = (
            JumpVerdict.JUMP if similarity < self.settings.ui_jump_below else JumpVerdict.IN_PAGE
        )
        return Judgement(verdict, f"UI structure similarity {similarity:.2f}")

    def _by_pixels(self, before: ScreenView, after: ScreenView) -> Judgement:
        settings = self.settings
        title = _changed_share(before, after, self._title_rows(before), settings.cell_change)
        upper = _changed_share(before, after, settings.upper_rows, settings.cell_change)
        jumped = title > settings.title_changed_above or upper > settings.upper_changed_above
        verdict = JumpVerdict.JUMP if jumped else JumpVerdict.IN_PAGE
        return Judgement(verdict, f"title band changed {title:.3f}, upper screen {upper:.3f}")

    def _title_rows(self, view: ScreenView) -> tuple[int, int]:
        import math

        from guigraph.graph.screen import THUMB_SIZE

        screen = view.observation.screen
        dp = min(screen.width, screen.height) / self.settings.short_side_dp
        rows_per_px = THUMB_SIZE[1] / screen.height
        top, bottom = self.settings.title_band_dp
        first = math.floor(top * dp * rows_per_px)
        return first, max(first + 1, math.ceil(bottom * dp * rows_per_px))


def _changed_share(
    before: ScreenView, after: ScreenView, rows: tuple[int, int], threshold: float
) -> float:
    import numpy as np

    top, bottom = rows
    delta = np.abs(before.thumbnail()[top:bottom] - after.thumbnail()[top:bottom])
    return float((delta > threshold).mean())


def _by_action_type(action: Action) -> Judgement | None:
    """What the action alone says once something changed (None: look at the screens)."""
    if action.type in _LEAVING_ACTIONS:
        return Judgement(JumpVerdict.JUMP, f"{action.type} changed the screen")
    if action.type is ActionType.SCROLL and action.direction in _SIDEWAYS:
        return None  # a pager or tab strip swiped sideways may show another page
    if action.type in _IN_PAGE_ACTIONS:
        return Judgement(JumpVerdict.IN_PAGE, f"{action.type} edits the page in place")
    return None


def _texts(view: ScreenView) -> tuple[str, ...]:
    return tuple(e.text for e in view.elements or ())


def weighted_jaccard(a: dict[str, float], b: dict[str, float]) -> float:
    """Jaccard similarity of weighted sets: sum of the smaller weights over the larger."""
    if not a and not b:
        return 1.0
    low = sum(min(w, b[t]) for t, w in a.items() if t in b)
    high = sum(a.values()) + sum(b.values()) - low
    return low / high if high > 0 else 1.0


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def _mean_change(before: ScreenView, after: ScreenView) -> float:
    import numpy as np

    return float(np.abs(before.thumbnail() - after.thumbnail()).mean())


def judge_from_name(name: str, settings: RuleJudgeSettings | None = None) -> PageJumpJudge:
    """``rule`` (model-free default) or ``llm`` (the paper's MLLM judge).

    The model is the one of the environment (``GUIGRAPH_MODEL`` at ``OPENAI_BASE_URL``, see
    docs/models.md); without one this fails with a ConfigError saying what to set.
    """
    if name == "rule":
        return RuleJudge(settings)
    if name == "llm":
        from guigraph.graph.model_judge import LLMJudge
        from guigraph.llm.client import ChatClient
        from guigraph.llm.config import ModelConfig

        return LLMJudge(ChatClient(ModelConfig(max_tokens=256), role="judge"), RuleJudge(settings))
    raise ConfigError(f"unknown judge {name!r}: expected 'rule' or 'llm'")
