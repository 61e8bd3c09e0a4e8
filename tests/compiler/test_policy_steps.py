"""Deciding one step of the plan: focusing a field again, looking further down a list,
switching to another option, staying in a page the world cannot leave, and what the hybrid
team reads and changes of the step proposed last."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import networkx as nx

from guigraph.agents.observer import RuleObserver
from guigraph.compiler.index import GraphView
from guigraph.compiler.policy import MAX_REVEAL_SCROLLS, GraphPolicy, PolicyState
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.stitch import PlanChoice
from guigraph.compiler.values import ValueIndex
from guigraph.envs import conventions
from guigraph.envs.conventions import WEB
from guigraph.focus import FocusMemory
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.records import ActionTemplate, Edge, Node, Trace
from guigraph.roles import (
    Feedback,
    HistoryEntry,
    Outcome,
    OutcomeStatus,
    SemanticState,
    SubGoal,
)
from guigraph.types import Action, ActionType, Observation, UIElement

APP, OTHER = "Notes", "Mail"


def tap(label: str, role: str = "button", node: int = 1, app: str = APP, **kw: Any) -> ScriptStep:
    kind = kw.pop("kind", ActionType.CLICK)
    template = ActionTemplate(kind, target_label=label, target_role=role)
    return ScriptStep(node, template, None, app, kw.pop("trace", "t"), label=label, **kw)


def typing(text: str, node: int = 1, app: str = APP) -> ScriptStep:
    return ScriptStep(node, ActionTemplate(ActionType.TYPE, text=text), None, app, "t", text=text)


def screen(
    *labels: str, app: str = APP, node: int | None = None, field: str = "", focused: bool = False,
    scrollable: bool = False,
) -> SemanticState:  # fmt: skip
    elements = [
        UIElement(BBox(100, 100 + 100 * i, 400, 150 + 100 * i), text=label,
                  class_name="button", clickable=True)
        for i, label in enumerate(labels)
    ]  # fmt: skip
    if field:
        elements.append(
            UIElement(BBox(100, 800, 900, 850), content_desc=field, class_name="textbox",
                      editable=True, clickable=True, focused=focused)
        )  # fmt: skip
    if scrollable:
        elements.append(UIElement(BBox(0, 0, 1000, 1000), class_name="list", scrollable=True))
    observation = Observation(ScreenSize(1000, 1000), elements=tuple(elements), app=app)
    state = RuleObserver().observe(observation, None)
    return replace(state, node_id=None if node is None else str(node))


def policy(script: list[ScriptStep], *alternatives: PlanChoice, view: Any = None) -> GraphPolicy:
    if view is None:
        nodes = {n: Node(n, app, app, "", (), None, 1, "t") for n, app in ((1, APP), (2, OTHER))}
        view = GraphView(nodes, {}, nx.DiGraph(), ValueIndex(), {})
    return GraphPolicy(view, state=PolicyState(script=script, alternatives=list(alternatives)))


def decide(chosen: GraphPolicy, state: SemanticState, history: list[HistoryEntry] | None = None):
    with conventions.using(WEB):  # a field is tapped by its name
        return chosen.decide(state, history or [], Feedback(), FocusMemory())


def executed(action: Action, status: OutcomeStatus = OutcomeStatus.SUCCESS) -> HistoryEntry:
    return HistoryEntry(0, SubGoal("step"), action, "", Outcome(status), "a", "b")


# -- typing with no field focused -----------------------------------------------------------


def test_typing_with_no_field_focused_taps_the_field_the_plan_tapped_again() -> None:
    chosen = policy([tap("Title", role="textbox"), typing("Trip plan")])
    chosen.state.cursor = 1
    proposal = decide(chosen, screen("Save", field="Title"))
    assert proposal.action.type is ActionType.CLICK and proposal.target is not None
    assert proposal.target.label == "Title"


def test_a_button_tapped_before_typing_is_not_tapped_again_to_focus_a_field() -> None:
    # "Send" led to the typing; tapping it again would send, not focus.
    chosen = policy([tap("Send"), typing("Trip plan")])
    chosen.state.cursor = 1
    proposal = decide(chosen, screen("Send", field="Title"))
    assert proposal.action.type is not ActionType.CLICK


def test_a_field_double_clicked_before_typing_is_not_double_clicked_to_focus_it() -> None:
    # A double click selects a word; focusing the field again is a tap, not that.
    chosen = policy([tap("Title", role="textbox", kind=ActionType.DOUBLE_CLICK), typing("x")])
    chosen.state.cursor = 1
    proposal = decide(chosen, screen("Save", field="Title"))
    assert proposal.action.type is not ActionType.DOUBLE_CLICK


def test_typing_first_with_no_field_focused_taps_no_later_field() -> None:
    # Nothing comes before the typing: the plan's last tap is no field to focus.
    chosen = policy([typing("Trip plan"), tap("Title", role="textbox")])
    proposal = decide(chosen, screen("Save", field="Title"))
    assert proposal.action.type is not ActionType.CLICK


# -- a target not on the screen of its own state ------------------------------------------


def test_a_target_missing_from_its_own_screen_is_looked_for_further_down_the_list() -> None:
    chosen = policy([tap("Archive")])
    for _ in range(MAX_REVEAL_SCROLLS):
        proposal = decide(chosen, screen("Inbox", node=1, scrollable=True))
        assert proposal.action.type is ActionType.SCROLL
        assert chosen.state.pending is None  # a scroll is no step of the plan
    # the budget spent, the list is not scrolled again
    proposal = decide(chosen, screen("Inbox", node=1, scrollable=True))
    assert proposal.action.type is not ActionType.SCROLL


def test_a_screen_that_does_not_scroll_is_not_scrolled() -> None:
    proposal = decide(policy([tap("Archive")]), screen("Inbox", node=1))
    assert proposal.action.type is not ActionType.SCROLL


def test_an_option_made_of_the_same_runs_is_no_other_way() -> None:
    # The plan's target is not here; the first option is the plan's own runs again.
    plan = [tap("Archive", trace="mine")]
    same = PlanChoice([tap("Archive", trace="mine")], ["mine"], 9.0, stitched=False)
    other = PlanChoice([tap("Inbox", trace="other")], ["other"], 8.0, stitched=False)
    chosen = policy(plan, same, other)
    proposal = decide(chosen, screen("Inbox", node=1))
    assert proposal.target is not None and proposal.target.label == "Inbox"
    assert [note for note in chosen.notes if note.startswith("switched")] == [
        "switched to other at state 1"
    ]


# -- a world that cannot leave its page ---------------------------------------------------


def test_where_going_home_was_refused_a_run_recorded_on_this_page_is_followed() -> None:
    # The plan's next step is in another app; the world refused going home.
    here = PlanChoice([tap("Reply", trace="here")], ["here"], 2.0, stitched=False)
    chosen = policy([tap("Send", app=OTHER, node=2)], here)
    refused = HistoryEntry(
        0, SubGoal("step"), Action(ActionType.PRESS_HOME), "", Outcome(OutcomeStatus.FAILURE),
        "same", "same",
    )  # fmt: skip
    proposal = decide(chosen, screen("Reply"), [refused])
    assert proposal.action.type is ActionType.CLICK
    assert proposal.target is not None and proposal.target.label == "Reply"
    assert chosen.state.choice is not None and chosen.state.choice.donors == ["here"]
    # going home, never refused, is asked for
    again = policy([tap("Send", app=OTHER, node=2)], here)
    assert decide(again, screen("Reply")).action.type is ActionType.PRESS_HOME


# -- what the hybrid team reads and changes -------------------------------------------------


def test_the_step_proposed_last_tells_its_state_and_a_route_step_none() -> None:
    chosen = policy([tap("Save", node=1)])
    assert chosen.pending_state() is None  # nothing proposed yet
    decide(chosen, screen("Save"))
    assert chosen.pending_state() == 1
    pending = chosen.state.pending
    assert pending is not None
    chosen.state.pending = replace(pending, index=None)  # a step of a route back to the plan
    assert chosen.pending_state() is None


def test_a_value_the_model_typed_instead_moves_the_plan_on() -> None:
    chosen = policy([typing("Trip plan"), tap("Save")])
    proposal = decide(chosen, screen("Save", field="Title", focused=True))
    assert proposal.action == Action.type_text("Trip plan")
    typed = Action.type_text("Trip plan for May")
    chosen.take_value(typed)
    chosen.advance([executed(typed)])
    assert chosen.state.cursor == 1


def test_an_action_other_than_the_one_proposed_does_not_move_the_plan_on() -> None:
    chosen = policy([typing("Trip plan"), tap("Save")])
    decide(chosen, screen("Save", field="Title", focused=True))
    chosen.advance([executed(Action.type_text("Trip plan for May"))])
    assert chosen.state.cursor == 0


def test_with_every_step_done_the_goal_is_to_finish() -> None:
    chosen = policy([tap("Save")])
    chosen.state.cursor = 1
    goal = chosen.subgoal()
    assert goal.final and goal.description == "finish the task"


# -- a detour for a value -----------------------------------------------------------------


def test_a_run_that_only_arrived_where_the_team_is_offers_no_detour_from_there() -> None:
    from guigraph.compiler.policy import find_value_detour

    nodes = {n: Node(n, APP, APP, "", (), None, 1, "t") for n in (1, 2)}
    edge = Edge(10, 1, 2, (ActionTemplate(ActionType.CLICK, target_label="Open"),), (), "Open", 1)
    arrived = Trace("arrived", "Open the note", "c", (APP,), (1, 2), (10,), 1)
    view = GraphView(nodes, {10: edge}, nx.DiGraph(), ValueIndex(), {}, [arrived])
    assert find_value_detour(view, 2, tap("Jonas", node=2)) is None
