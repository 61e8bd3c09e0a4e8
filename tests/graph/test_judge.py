"""The model-free page-jump judge on rendered screen pairs."""

from __future__ import annotations

import pytest

from guigraph.errors import ConfigError
from guigraph.geometry import ScreenSize
from guigraph.graph.judge import JumpVerdict, PageJumpJudge, RuleJudge, judge_from_name
from guigraph.graph.screen import ScreenView
from guigraph.types import Action, ActionType, Observation
from tests.graph.world import H, ScreenState, W, render


def view(state: ScreenState, use_ui: bool = True) -> ScreenView:
    png, elements = render(state)
    obs = Observation(
        ScreenSize(W, H), screenshot=png, elements=elements, app=state.screen.split(".")[0]
    )
    return ScreenView(obs, "", use_ui)


TAP = Action.click(500, 500)


@pytest.mark.parametrize("use_ui", [True, False])
def test_other_screen_of_same_app_is_a_jump(use_ui: bool) -> None:
    before = view(ScreenState("maps.main"), use_ui)
    after = view(ScreenState("maps.results", items=("a", "b")), use_ui)
    assert RuleJudge().judge(before, TAP, after).verdict is JumpVerdict.JUMP


@pytest.mark.parametrize("use_ui", [True, False])
def test_keyboard_typing_and_clock_stay_in_page(use_ui: bool) -> None:
    plain = ScreenState("maps.main", extra={"field": "1"})
    with_keyboard = ScreenState("maps.main", extra={"field": "1"}, keyboard=True, clock=37)
    typed = ScreenState("maps.main", extra={"field": "1"}, keyboard=True, typed="Lisbon")
    judge = RuleJudge()
    assert (
        judge.judge(view(plain, use_ui), TAP, view(with_keyboard, use_ui)).verdict
        is JumpVerdict.IN_PAGE
    )
    typing = Action.type_text("Lisbon")
    assert (
        judge.judge(view(with_keyboard, use_ui), typing, view(typed, use_ui)).verdict
        is JumpVerdict.IN_PAGE
    )


def test_app_change_is_a_jump_even_when_screens_look_alike() -> None:
    before = view(ScreenState("maps.main"))
    after = view(ScreenState("maps.main"))
    after.observation = Observation(
        after.observation.screen, screenshot=after.observation.screenshot, app="shop"
    )
    judgement = RuleJudge().judge(before, TAP, after)
    assert judgement.verdict is JumpVerdict.JUMP and "app changed" in judgement.reason


def test_nothing_changed_is_in_page_even_for_home() -> None:
    same = view(ScreenState("home.launcher"))
    home = Action.key(ActionType.PRESS_HOME)
    assert (
        RuleJudge().judge(same, home, view(ScreenState("home.launcher"))).verdict
        is JumpVerdict.IN_PAGE
    )
    assert RuleJudge().judge(view(ScreenState("maps.main")), home, same).verdict is JumpVerdict.JUMP


def test_scroll_stays_in_page() -> None:
    before = view(ScreenState("maps.results", items=("a", "b")))
    after = view(ScreenState("maps.results", items=("a", "b"), scroll=60))
    assert RuleJudge().judge(before, Action.scroll("up"), after).verdict is JumpVerdict.IN_PAGE


def test_judge_names() -> None:
    assert isinstance(judge_from_name("rule"), PageJumpJudge)
    with pytest.raises(ConfigError, match="unknown judge"):
        judge_from_name("coin")
