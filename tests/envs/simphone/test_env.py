"""SimPhone as an environment: conformance, determinism, phone semantics, bad actions."""

from __future__ import annotations

import pytest

from guigraph.envs import check_env
from guigraph.envs.check import observation_fingerprint
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.expert import Expert
from guigraph.envs.simphone.tasks import make_task, plan_for
from guigraph.geometry import Point
from guigraph.types import Action, ActionType, Observation, ScrollDirection, UIElement

TASK = make_task("multi.weather_note", 5)


def _element(obs: Observation, text: str) -> UIElement:
    return next(e for e in obs.elements or () if e.text == text)


def _tap(env: SimPhone, obs: Observation, text: str) -> Observation:
    center = _element(obs, text).bbox.center
    result = env.step(Action.click(center.x, center.y))
    assert result.error is None
    return result.observation


@pytest.mark.parametrize(
    ("device", "version", "seed"),
    [
        ("Pixel 7 Pro", 1, 0),
        ("Pixel Tablet", 2, 3),
        ("Small Phone", 1, 11),
        ("Pixel 8 Pro", 2, 7),
        ("Pixel Fold", 1, 5),
        ("Medium Phone", 2, 8),
    ],
)
def test_check_env_passes(device: str, version: int, seed: int) -> None:
    check_env(lambda: SimPhone(device, version=version), make_task("shop.buy", seed), seed=seed)


def test_check_env_inside_an_app() -> None:
    """The probe actions (tap at the centre, scroll, type) also run on a real app screen."""
    opening = [
        Action.open_app("Tunes"),
        Action.click(500, 500),
        Action.scroll("up"),
        Action.type_text("x"),
        Action(ActionType.PRESS_BACK),
    ]
    check_env(lambda: SimPhone(popup_rate=0.0), TASK, seed=2, actions=opening)


def _expert_rollout(seed: int) -> list[str]:
    env = SimPhone("Small Phone", version=2, popup_rate=0.5)
    obs = env.reset(TASK, seed)
    expert = Expert(env, plan_for(TASK, env.world), seed, noise=0.3)
    prints = [observation_fingerprint(obs)]
    while True:
        result = env.step(expert.next_action())
        prints.append(observation_fingerprint(result.observation))
        if result.done:
            return prints


def test_two_seeded_rollouts_are_identical_and_seeds_differ() -> None:
    first, second = _expert_rollout(4), _expert_rollout(4)
    assert first == second
    assert _expert_rollout(5) != first


def test_bad_actions_report_errors_and_leave_the_phone_alone() -> None:
    env = SimPhone(popup_rate=0.0)
    obs = env.reset(TASK, 1)
    before = observation_fingerprint(obs)
    for action, message in [
        (Action.click(1200, 50), "outside the screen"),
        (Action.long_press(-5, 300), "outside the screen"),
        (Action.type_text("hello"), "no text field is focused"),
        (Action.open_app("Fortnite"), "unknown app 'Fortnite'"),
        (Action.swipe(Point(500, 900), Point(500, 1500)), "outside the screen"),
    ]:
        result = env.step(action)
        assert result.error is not None and message in result.error
        assert not result.done
        assert observation_fingerprint(result.observation) == before


def test_harmless_actions_do_what_a_phone_does() -> None:
    env = SimPhone(popup_rate=0.0)
    obs = env.reset(TASK, 1)
    for action in (
        Action.click(500, 900),
        Action.long_press(500, 900),
        Action.scroll(ScrollDirection.UP),
        Action(ActionType.PRESS_BACK),
        Action(ActionType.WAIT, seconds=1.0),
    ):
        result = env.step(action)
        assert result.error is None
        assert result.observation.app == "Home"
    assert env.step(Action(ActionType.COMPLETE)).done
    assert obs.app == "Home"


def test_observation_shows_nothing_of_the_internals() -> None:
    env = SimPhone(popup_rate=0.0)
    env.reset(TASK, 1)
    result = env.step(Action.open_app("Weather"))
    assert result.observation.app == "Weather"
    assert result.observation.activity is None
    assert set(result.info) <= {"note", "toast"}
    assert "weather." not in repr(result.info)


def test_typing_needs_focus_and_shows_a_keyboard_back_hides_it_first() -> None:
    env = SimPhone(popup_rate=0.0)
    env.reset(TASK, 1)
    obs = env.step(Action.open_app("ShopMall")).observation
    assert env.step(Action.type_text("lamp")).error is not None
    field = next(e for e in obs.elements or () if e.editable)
    obs = env.step(Action.click(field.bbox.center.x, field.bbox.center.y)).observation
    assert obs.focused_element() is not None
    assert any(e.text == "Go" for e in obs.elements or ())  # the keyboard's enter key
    obs = env.step(Action.type_text("lamp")).observation
    assert obs.focused_element().text == "lamp"  # type: ignore[union-attr]
    obs = env.step(Action(ActionType.PRESS_BACK)).observation
    assert obs.focused_element() is None and obs.app == "ShopMall"
    obs = env.step(Action(ActionType.PRESS_BACK)).observation
    assert obs.app == "Home"


def test_search_results_load_before_they_appear() -> None:
    env = SimPhone(popup_rate=0.0)
    env.reset(TASK, 1)
    obs = env.step(Action.open_app("ShopMall")).observation
    field = next(e for e in obs.elements or () if e.editable)
    env.step(Action.click(field.bbox.center.x, field.bbox.center.y))
    obs = env.step(Action.type_text("lamp")).observation
    obs = _tap(env, obs, "Go")
    assert any(e.text == "Loading..." for e in obs.elements or ())
    assert not any(e.clickable and "lamp" in e.text for e in obs.elements or ())
    obs = env.step(Action(ActionType.WAIT, seconds=1.0)).observation
    assert sum("lamp" in e.text for e in obs.elements or ()) >= 3


def test_scrolling_reveals_content() -> None:
    env = SimPhone("Pixel Tablet", popup_rate=0.0)
    env.reset(TASK, 1)
    obs = env.step(Action.open_app("Tunes")).observation
    before = {e.text for e in obs.elements or ()}
    assert any(e.scrollable for e in obs.elements or ())
    obs = env.step(Action.scroll(ScrollDirection.UP)).observation
    after = {e.text for e in obs.elements or ()}
    assert after - before, "scrolling up showed nothing new"
    obs = env.step(Action.scroll(ScrollDirection.DOWN)).observation
    assert {e.text for e in obs.elements or ()} == before


def test_home_and_recent_apps() -> None:
    env = SimPhone(popup_rate=0.0)
    env.reset(TASK, 1)
    obs = env.step(Action.open_app("Notes")).observation
    obs = _tap(env, obs, "Groceries")
    assert env.screen_identity() == "notes.edit"
    obs = env.step(Action(ActionType.PRESS_HOME)).observation
    assert obs.app == "Home"
    obs = env.step(Action(ActionType.PRESS_RECENT)).observation
    assert env.screen_identity() == "system.recents"
    _tap(env, obs, "Notes")
    assert env.screen_identity() == "notes.edit"  # the app comes back where it was


def test_versions_differ_in_labels_layout_and_ids() -> None:
    def product_page(version: int, item_id: str) -> Observation:
        env = SimPhone(version=version, popup_rate=0.0)
        env.reset(TASK, 1)
        obs = env.step(Action.open_app("ShopMall")).observation
        item = next(e for e in obs.elements or () if e.resource_id.startswith(item_id))
        return env.step(Action.click(item.bbox.center.x, item.bbox.center.y)).observation

    one, two = product_page(1, "shop:id/product_"), product_page(2, "shop:id/card_")
    ids = {e.text: e.resource_id for e in one.elements or ()}
    assert ids["Add to cart"] == "shop:id/add_to_cart"
    renamed = {e.text: e.resource_id for e in two.elements or ()}
    assert renamed["Add to bag"] == "shop:id/btn_add_bag"
    assert "Add to cart" not in renamed
    # The toolkit's own ids stay: the title and the up arrow are the same in both versions.
    assert ids["Product"] == renamed["Product"] == "shop:id/title"
    android = SimPhone(version=2, popup_rate=0.0, skin="android")
    android.reset(TASK, 1)
    shown = android.step(Action.open_app("ShopMall")).observation.elements or ()
    assert any(e.resource_id == "com.simphone.shop:id/nav_bag" for e in shown)


def test_unknown_device_and_version_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown device"):
        SimPhone("Nokia 3310")
    with pytest.raises(ValueError, match="version"):
        SimPhone(version=3)
