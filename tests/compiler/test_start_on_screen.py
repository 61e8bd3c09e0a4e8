"""Several workflows recorded under one page: the screen the episode starts on decides
which one is followed."""

from __future__ import annotations

from typing import Any

from guigraph.agents.observer import RuleObserver
from guigraph.compiler.policy import GraphPolicy, PolicyState
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.stitch import PlanChoice
from guigraph.envs import conventions
from guigraph.envs.conventions import ANDROID, WEB
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.records import ActionTemplate
from guigraph.types import Observation, UIElement

APP = "Movies"


def tap(label: str) -> ScriptStep:
    template = ActionTemplate("click", target_label=label, target_role="textbox")
    return ScriptStep(1, template, None, APP, "t", label=label)


def option(first: str, score: float, donor: str) -> PlanChoice:
    return PlanChoice([tap(first), tap("Go")], [donor], score, stitched=False)


def screen(*labels: str) -> Any:
    elements = tuple(
        UIElement(BBox(300, 100 + 100 * i, 900, 160 + 100 * i), content_desc=label,
                  class_name="textbox", editable=True, clickable=True)
        for i, label in enumerate(labels)
    )  # fmt: skip
    observation = Observation(ScreenSize(1000, 1000), elements=elements, app=APP)
    return RuleObserver().observe(observation, None)


def policy(choice: PlanChoice, *alternatives: PlanChoice) -> GraphPolicy:
    view: Any = None  # choosing at the start reads the options only
    state = PolicyState(script=choice.steps, choice=choice, alternatives=list(alternatives))
    return GraphPolicy(view, state=state)


def test_the_workflow_whose_first_target_is_on_the_screen_is_followed() -> None:
    chosen = policy(
        option("Released date", 13.0, "layout-a"),
        option("Year", 9.0, "far-worse"),  # on the screen, but not as good a match
        option("Year", 12.5, "layout-b"),
    )
    with conventions.using(WEB):  # a field is tapped by its name
        chosen.start_in(screen("Director", "Year"))
    assert chosen.state.choice is not None and chosen.state.choice.donors == ["layout-b"]
    assert chosen.state.script[0].label == "Year"


def test_a_plan_whose_first_target_is_here_is_kept() -> None:
    kept = policy(option("Year", 13.0, "layout-a"), option("Director", 13.0, "layout-b"))
    with conventions.using(WEB):
        kept.start_in(screen("Director", "Year"))
    assert kept.state.choice is not None and kept.state.choice.donors == ["layout-a"]


def form(score: float, donor: str, *labels: str, app: str = APP) -> PlanChoice:
    steps = [tap(label) for label in labels]
    steps = [ScriptStep(1, s.template, None, app, donor, label=s.label) for s in steps]
    return PlanChoice(steps, [donor], score, stitched=False)


def test_every_tap_on_the_first_screen_decides_not_only_the_first() -> None:
    # Both layouts start with "Year"; only one has every field this screen shows.
    chosen = policy(
        form(13.0, "other-layout", "Year", "Genre", "Go"),
        form(12.5, "this-layout", "Year", "Director", "Go"),
    )
    with conventions.using(WEB):
        chosen.start_in(screen("Year", "Director", "Go"))
    assert chosen.state.choice is not None and chosen.state.choice.donors == ["this-layout"]


def test_a_world_that_cannot_leave_its_page_follows_a_run_recorded_on_it() -> None:
    # The best-ranked run was recorded on another page; the world refused going home.
    stuck = policy(
        form(9.0, "elsewhere", "Reply", app="Other page"),
        form(2.0, "here", "Reply"),
    )
    stuck.state.home_refused = True
    with conventions.using(WEB):
        assert stuck._stay_in(screen("Reply"))
    assert stuck.state.choice is not None and stuck.state.choice.donors == ["here"]
    assert stuck.state.cursor == 0


def test_with_no_run_recorded_on_this_page_the_plan_stays() -> None:
    stuck = policy(form(9.0, "elsewhere", "Reply", app="Other page"))
    with conventions.using(WEB):
        assert not stuck._stay_in(screen("Reply"))
    assert stuck.state.choice is not None and stuck.state.choice.donors == ["elsewhere"]


def test_with_no_home_screen_the_run_recorded_on_the_page_is_followed_from_the_start() -> None:
    def options() -> GraphPolicy:
        return policy(form(9.0, "elsewhere", "Reply", app="Other page"), form(2.0, "here", "Reply"))

    on_the_web = options()
    with conventions.using(WEB):  # a web page stays the app its task began in
        on_the_web.start_in(screen("Reply"))
    assert on_the_web.state.choice is not None and on_the_web.state.choice.donors == ["here"]
    on_a_phone = options()
    with conventions.using(ANDROID):  # home leads to the other app: the far better run stays
        on_a_phone.start_in(screen("Reply"))
    assert on_a_phone.state.choice is not None
    assert on_a_phone.state.choice.donors == ["elsewhere"]


def test_an_option_that_taps_nothing_named_first_says_nothing_about_this_screen() -> None:
    # "Released date" is not on this screen; the other option types first and taps at a point.
    typed = ActionTemplate("type", text="1979")
    at_a_point = ActionTemplate("click", point=(500.0, 500.0))
    untold = PlanChoice(
        [ScriptStep(1, typed, None, APP, "u"), ScriptStep(1, at_a_point, None, APP, "u")],
        ["no-named-tap"], 13.0, stitched=False,
    )  # fmt: skip
    kept = policy(option("Released date", 13.0, "layout-a"), untold)
    with conventions.using(WEB):
        kept.start_in(screen("Director", "Year"))
    assert kept.state.choice is not None and kept.state.choice.donors == ["layout-a"]


def test_with_no_home_screen_a_plan_that_goes_on_to_another_page_is_not_followed() -> None:
    # A stitched plan starts on this page, then goes on to another page (a form and its
    # pop-up variant are two MiniWoB++ pages): the world cannot leave the page it is on.
    def options() -> GraphPolicy:
        here_then_there = form(9.0, "here", "Username", "Login")
        there = [
            ScriptStep(2, s.template, None, "Pop-up page", "there", label=s.label)
            for s in form(9.0, "there", "Username", "OK").steps
        ]
        stitched = PlanChoice(
            [*here_then_there.steps, *there], ["here", "there"], 9.5, stitched=True
        )
        return policy(stitched, form(9.0, "here alone", "Username", "Login"))

    on_the_web = options()
    with conventions.using(WEB):
        on_the_web.start_in(screen("Username", "Login"))
    assert on_the_web.state.choice is not None
    assert on_the_web.state.choice.donors == ["here alone"]
    on_a_phone = options()
    with conventions.using(ANDROID):  # home leads to the other app: the stitched plan stays
        on_a_phone.start_in(screen("Username", "Login"))
    assert on_a_phone.state.choice is not None
    assert on_a_phone.state.choice.donors == ["here", "there"]


def test_a_world_that_cannot_leave_its_page_takes_no_option_that_leaves_it_later() -> None:
    stuck = policy(
        form(9.0, "elsewhere", "Reply", app="Other page"),
        PlanChoice(
            [*form(5.0, "x", "Reply").steps, *form(5.0, "y", "Send", app="Other page").steps],
            ["here, then elsewhere"], 5.0, stitched=True,
        ),
        form(2.0, "here", "Reply"),
    )  # fmt: skip
    stuck.state.home_refused = True
    with conventions.using(WEB):
        assert stuck._stay_in(screen("Reply"))
    assert stuck.state.choice is not None and stuck.state.choice.donors == ["here"]
