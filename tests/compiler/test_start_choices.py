"""Before the first step the plan may give way to another option: one that starts in the app
on the screen, one that turns a calendar's pages, one of the runs recorded on this page."""

from __future__ import annotations

from typing import Any

import networkx as nx

from guigraph.agents.observer import RuleObserver
from guigraph.compiler.index import GraphView
from guigraph.compiler.policy import GraphPolicy, PolicyState
from guigraph.compiler.records import Context
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.stitch import PlanChoice
from guigraph.compiler.values import ValueIndex
from guigraph.embed.hashing import HashingEncoder
from guigraph.envs import conventions
from guigraph.envs.conventions import ANDROID, WEB
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.records import ActionTemplate, Node, Trace
from guigraph.types import Observation, Task, UIElement

HERE, OTHER = "Movies", "Cinema"
NODES = {1: HERE, 2: OTHER}
INSTRUCTION = "Search the movies for Alien"
DATE_TASK = "Select 05/15/2016 as the date and hit submit."


def click(label: str, role: str = "button", at: float | None = None) -> ActionTemplate:
    point = (at, 400.0) if at is not None else None
    return ActionTemplate("click", target_label=label, target_role=role, point=point)


def steps(donor: str, *labels: str, app: str = HERE) -> list[ScriptStep]:
    node = 1 if app == HERE else 2
    return [ScriptStep(node, click(label), None, app, donor, label=label) for label in labels]


def option(score: float, donor: str, *labels: str, app: str = HERE) -> PlanChoice:
    return PlanChoice(steps(donor, *labels, app=app), [donor], score, stitched=False)


def screen(*labels: str, app: str = HERE) -> Any:
    elements = tuple(
        UIElement(BBox(100 * i, 100, 100 * i + 90, 150), text=label, class_name="button",
                  clickable=True)
        for i, label in enumerate(labels)
    )  # fmt: skip
    observation = Observation(ScreenSize(1000, 1000), elements=elements, app=app)
    return RuleObserver().observe(observation, None)


def view_of(*traces: Trace) -> GraphView:
    """A graph of two states, one per app, whose recorded runs each stay in one state."""
    nodes = {n: Node(n, app, app, "", (), None, 1, "r") for n, app in NODES.items()}
    encoder = HashingEncoder(64)
    vectors = encoder.encode([t.instruction for t in traces]) if traces else None
    return GraphView(
        nodes, {}, nx.DiGraph(), ValueIndex(), {}, list(traces), vectors, encoder
    )  # fmt: skip


def run_here(episode: str, *labels: str, node: int = 1) -> Trace:
    """A run recorded on one page: its taps are the trace's tail."""
    app = NODES[node]
    return Trace(episode, INSTRUCTION, "c", (app,), (node,), (), len(labels),
                 tail=tuple(click(label) for label in labels))  # fmt: skip


def policy(
    view: Any, choice: PlanChoice, *alternatives: PlanChoice, instruction: str = INSTRUCTION
) -> GraphPolicy:
    context = Context(instruction, (), {}, {}, "", 0)
    state = PolicyState(
        script=choice.steps, choice=choice, alternatives=list(alternatives),
        task=Task("t", instruction), context=context,
    )  # fmt: skip
    return GraphPolicy(view, state=state)


def donors(chosen: GraphPolicy) -> list[str]:
    assert chosen.state.choice is not None
    assert chosen.state.script == chosen.state.choice.steps
    return chosen.state.choice.donors


# -- the app on the screen ---------------------------------------------------------------


def test_on_a_phone_an_option_about_as_good_that_starts_in_the_app_on_screen_is_followed() -> None:
    # Home would lead to the plan's app, but the option recorded here saves those steps.
    chosen = policy(
        view_of(),
        option(9.0, "elsewhere", "Search", app=OTHER),
        option(2.0, "far-worse", "Search"),  # here, but not nearly as good a match
        option(8.5, "as-good", "Search"),
    )
    with conventions.using(ANDROID):
        chosen.start_in(screen("Search"))
    assert donors(chosen) == ["as-good"]
    # the plan it replaced stays an option
    assert ["elsewhere"] in [o.donors for o in chosen.state.alternatives]
    assert chosen.notes[-1].startswith(f"{HERE} is on the screen")


def test_on_a_phone_a_plan_far_better_than_any_option_here_is_kept() -> None:
    chosen = policy(
        view_of(), option(9.0, "elsewhere", "Search", app=OTHER), option(2.0, "far-worse", "Search")
    )
    with conventions.using(ANDROID):
        chosen.start_in(screen("Search"))
    assert donors(chosen) == ["elsewhere"]


# -- the page's own recordings -----------------------------------------------------------


def test_a_run_recorded_on_the_page_on_screen_is_an_option_retrieval_did_not_hand() -> None:
    # Retrieval handed one run, recorded in another app; the graph holds one recorded here.
    view = view_of(run_here("recorded-here", "Search", "Go"), run_here("there", "Find", node=2))
    chosen = policy(view, option(0.5, "elsewhere", "Search", app=OTHER))
    here = chosen._recordings_here(screen("Search"))
    assert [o.donors for o in here] == [["recorded-here"]]  # not the run in the other app
    assert [s.label for s in here[0].steps] == ["Search", "Go"]
    with conventions.using(ANDROID):
        chosen.start_in(screen("Search"))
    assert donors(chosen) == ["recorded-here"]
    assert [s.app for s in chosen.state.script] == [HERE, HERE]


def test_a_recording_an_option_already_holds_is_not_offered_again() -> None:
    view = view_of(run_here("held", "Search"), run_here("new", "Search", "Go"))
    elsewhere, held = option(0.5, "elsewhere", "Search", app=OTHER), option(0.4, "held", "Search")
    chosen = policy(view, elsewhere, held)
    assert [o.donors for o in chosen._recordings_here(screen("Search"))] == [["new"]]
    # with every run here held already, there is nothing to add
    both = policy(view, option(0.5, "new", "Search"), option(0.4, "held", "Search"))
    assert both._recordings_here(screen("Search")) == []


def test_on_the_web_the_page_stays_and_a_run_recorded_on_it_is_followed() -> None:
    # No option retrieval handed starts here; the world cannot leave the page.
    view = view_of(run_here("recorded-here", "Search"))
    chosen = policy(view, option(9.0, "elsewhere", "Search", app=OTHER))
    with conventions.using(WEB):
        chosen.start_in(screen("Search"))
    assert donors(chosen) == ["recorded-here"]


# -- a calendar's pages ------------------------------------------------------------------


def calendar_run(donor: str, pages: int, score: float, app: str = HERE) -> PlanChoice:
    """The date field, the arrow turned ``pages`` times, the day (the 20th was recorded),
    Submit."""
    turns = [
        ScriptStep(1, click("Prev", at=250.0 + 0.1 * i), None, app, donor, label="Prev")
        for i in range(pages)
    ]
    day = ScriptStep(1, click("20", at=100.0), None, app, donor, label="15")  # bound anew
    run = [*steps(donor, "datepicker", app=app), *turns, day, *steps(donor, "Submit", app=app)]
    return PlanChoice(run, [donor], score, stitched=False)


def test_for_a_date_an_option_that_turns_the_calendars_pages_is_followed() -> None:
    # The best run tapped a day of the month it showed: it reaches no other month.
    chosen = policy(
        view_of(),
        calendar_run("same-month", 0, 10.0),
        calendar_run("pages-other-app", 3, 10.0, app=OTHER),
        calendar_run("one-tap-before", 1, 10.0),  # a single tap is no evidence of turning
        calendar_run("far-worse", 3, 2.0),
        calendar_run("turns-pages", 3, 9.5),
        instruction=DATE_TASK,
    )
    with conventions.using(WEB):
        chosen.start_in(screen("datepicker", "Submit"))
    assert donors(chosen) == ["turns-pages"]
    assert chosen.notes[-1].startswith("it turns the calendar's pages")


def test_a_plan_that_turns_pages_already_is_kept() -> None:
    chosen = policy(
        view_of(), calendar_run("two-pages", 2, 10.0), calendar_run("three-pages", 3, 10.0),
        instruction=DATE_TASK,
    )  # fmt: skip
    with conventions.using(WEB):
        chosen.start_in(screen("datepicker", "Submit"))
    assert donors(chosen) == ["two-pages"]


def test_a_task_with_no_date_keeps_a_plan_that_turns_no_pages() -> None:
    chosen = policy(view_of(), calendar_run("same-month", 0, 10.0), calendar_run("turns", 3, 10.0))
    with conventions.using(WEB):
        chosen.start_in(screen("datepicker", "Submit"))
    assert donors(chosen) == ["same-month"]
