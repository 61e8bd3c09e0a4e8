"""The verifier test set: (state, action, sub-goal) cases with the verdict each must get."""

from __future__ import annotations

import pytest

from guigraph.agents.roles import Proposal, SubGoal
from guigraph.agents.verifier import ApproveAll, RuleVerifier
from guigraph.types import Action, ActionType, ScrollDirection

from .helpers import button, field, listing, screenshot_only, state, text, toggle

SEARCH_SCREEN = state(
    field("Search products", (50, 50, 950, 120)),
    button("Cart", (850, 900, 990, 990)),
    text("Deals of the day", (50, 200, 950, 260)),
    listing((0, 300, 1000, 880)),
    button("Wireless mouse", (50, 320, 950, 400)),
    toggle("Prime only", (50, 420, 300, 470)),
)
TYPING_SCREEN = state(field("Search products", (50, 50, 950, 120), focused=True))
IN_SHOP = SubGoal("find the product", app="shop")
ELSEWHERE = SubGoal("write the note", app="notes")
FINAL = SubGoal("finish the task", final=True)
OTHER = state(button("Somewhere else", (0, 0, 100, 100)))

APPROVE, REJECT = True, False
CASES = [
    # (id, state, action, target, sub-goal, expected, feedback fragment)
    ("type into focused field", TYPING_SCREEN, Action.type_text("mouse"), None, IN_SHOP, APPROVE, ""),
    ("type with no focus", SEARCH_SCREEN, Action.type_text("mouse"), None, IN_SHOP, REJECT, "no text field is focused"),
    ("type on screenshot-only state", screenshot_only("shop"), Action.type_text("x"), None, IN_SHOP, APPROVE, ""),
    ("tap a button", SEARCH_SCREEN, Action.click(900, 950), None, IN_SHOP, APPROVE, ""),
    ("tap empty space", SEARCH_SCREEN, Action.click(500, 960), None, IN_SHOP, REJECT, "Nothing to tap"),
    ("tap beyond right edge", SEARCH_SCREEN, Action.click(1200, 10), None, IN_SHOP, REJECT, "outside the screen"),
    ("tap negative", SEARCH_SCREEN, Action.click(-5, 500), None, IN_SHOP, REJECT, "outside the screen"),
    ("tap element of another screen", SEARCH_SCREEN, Action.click(50, 50), OTHER.elements[0], IN_SHOP, REJECT, "not on the current screen"),
    ("tap plain text", SEARCH_SCREEN, Action.click(500, 230), None, IN_SHOP, REJECT, "Nothing to tap"),
    ("tap a text field", SEARCH_SCREEN, Action.click(500, 80), None, IN_SHOP, APPROVE, ""),
    ("long-press a list item", SEARCH_SCREEN, Action.long_press(500, 360), None, IN_SHOP, APPROVE, ""),
    ("tap on box edge", SEARCH_SCREEN, Action.click(850, 900), None, IN_SHOP, APPROVE, ""),
    ("tap a toggle", SEARCH_SCREEN, Action.click(100, 450), None, IN_SHOP, APPROVE, ""),
    ("tap on screenshot-only state", screenshot_only("shop"), Action.click(3, 3), None, IN_SHOP, APPROVE, ""),
    ("home while app is needed", SEARCH_SCREEN, Action(ActionType.PRESS_HOME), None, IN_SHOP, REJECT, "needs shop"),
    ("home to reach another app", SEARCH_SCREEN, Action(ActionType.PRESS_HOME), None, ELSEWHERE, APPROVE, ""),
    ("home when finishing", SEARCH_SCREEN, Action(ActionType.PRESS_HOME), None, FINAL, APPROVE, ""),
    ("recents while app is needed", SEARCH_SCREEN, Action(ActionType.PRESS_RECENT), None, IN_SHOP, REJECT, "do not leave"),
    ("open the needed app", SEARCH_SCREEN, Action.open_app("shop"), None, IN_SHOP, APPROVE, ""),
    ("open another app too early", SEARCH_SCREEN, Action.open_app("notes"), None, IN_SHOP, REJECT, "needs shop"),
    ("back is always possible", SEARCH_SCREEN, Action(ActionType.PRESS_BACK), None, IN_SHOP, APPROVE, ""),
    ("scroll a list", SEARCH_SCREEN, Action.scroll(ScrollDirection.UP), None, IN_SHOP, APPROVE, ""),
    ("scroll with nothing to scroll", TYPING_SCREEN, Action.scroll(ScrollDirection.UP), None, IN_SHOP, REJECT, "Nothing on this screen scrolls"),
    ("complete too early", SEARCH_SCREEN, Action(ActionType.COMPLETE), None, IN_SHOP, REJECT, "Not done yet"),
    ("complete at the end", SEARCH_SCREEN, Action(ActionType.COMPLETE), None, FINAL, APPROVE, ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("state_", "action", "target", "subgoal", "expected", "fragment"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_rule_verifier(state_, action, target, subgoal, expected, fragment) -> None:
    verdict = RuleVerifier().verify(state_, Proposal(action, target=target), subgoal)
    assert verdict.approved is expected, verdict.feedback
    assert fragment in verdict.feedback
    assert bool(verdict.feedback) is (not expected)


@pytest.mark.parametrize(
    ("source", "expected"),
    [("graph", APPROVE), ("trace", APPROVE), ("rule", REJECT), ("model", REJECT)],
)
def test_a_replayed_tap_on_text_a_person_tapped_is_approved(source: str, expected: bool) -> None:
    # A page may draw a control as plain text (a calendar's "Prev"): a recording that tapped
    # it is the evidence; a proposer without one still may not tap plain text.
    words = SEARCH_SCREEN.find("Deals of the day")
    assert words is not None and words.role == "text"
    proposal = Proposal(Action.click(500, 230), target=words, source=source)
    assert RuleVerifier().verify(SEARCH_SCREEN, proposal, IN_SHOP).approved is expected


def test_case_set_is_large_enough_and_balanced() -> None:
    verdicts = [case[5] for case in CASES]
    assert len(CASES) >= 20 and verdicts.count(REJECT) >= 8 and verdicts.count(APPROVE) >= 8


def test_approve_all_never_rejects() -> None:
    proposal = Proposal(Action.type_text("x"))
    assert ApproveAll().verify(SEARCH_SCREEN, proposal, IN_SHOP).approved
