"""Looking for a value the task names behind tabs: what the recordings opened is opened in turn."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from guigraph.agents.memory import FocusMemory
from guigraph.agents.observer import RuleObserver
from guigraph.compiler.policy import GraphPolicy, PolicyState
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.search import MAX_REVEALS, Reveal, Search, value_step_ahead
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.records import ActionTemplate, Trace
from guigraph.roles import Feedback, HistoryEntry, Outcome, OutcomeStatus, SemanticState, SubGoal
from guigraph.types import Action, ActionType, Observation, UIElement

SITE = "Pages"


class Tabs:
    """A page of tabs, the first one open; ``words[i]`` are the links tab ``i`` shows."""

    def __init__(self, words: list[list[str]]) -> None:
        self.words, self.open = words, 0
        self.clicked: list[str] = []

    def screen(self) -> SemanticState:
        tabs = [
            UIElement(BBox(40 + 200 * i, 100, 200 + 200 * i, 150), text=f"Tab #{i + 1}",
                      class_name="tab", resource_id=".tab", clickable=True,
                      checked=i == self.open)
            for i in range(len(self.words))
        ]  # fmt: skip
        links = [
            UIElement(BBox(40 + 150 * j, 300, 160 + 150 * j, 340), text=word, class_name="text",
                      resource_id=".link", clickable=True)
            for j, word in enumerate(self.words[self.open])
        ]  # fmt: skip
        observation = Observation(ScreenSize(1000, 1000), elements=(*tabs, *links), app=SITE)
        return RuleObserver().observe(observation, None)

    def click(self, x: float, y: float) -> str:
        state = self.screen()
        hit = next(v for v in state.elements if v.bbox.x1 <= x <= v.bbox.x2 and
                   v.bbox.y1 <= y <= v.bbox.y2)  # fmt: skip
        self.clicked.append(hit.label)
        if hit.element.class_name == "tab":
            self.open = int(hit.label.split("#")[1]) - 1
        return hit.label


def tap(label: str, role: str, rid: str, bound: str | None = None) -> ScriptStep:
    template = ActionTemplate(ActionType.CLICK, target_label=label, target_role=role, target_id=rid)
    return ScriptStep(1, template, None, SITE, "t", label=bound or label)


def recorded_script(value: str) -> list[ScriptStep]:
    """A recording that opened Tab #2 and tapped its link "mattis"; bound to ``value``."""
    return [tap("Tab #2", "tab", ".tab"), tap("mattis", "text", ".link", bound=value)]


def play(world: Tabs, script: list[ScriptStep], steps: int = 10) -> list[str]:
    view: Any = SimpleNamespace(traces=[], edges={}, nodes={}, routes=None)
    policy = GraphPolicy(view, mode="trace", state=PolicyState(script=script))
    for _ in range(steps):
        proposal = policy.decide(world.screen(), [], Feedback(), FocusMemory())
        point = proposal.action.point
        if proposal.action.type is not ActionType.CLICK or point is None:
            break
        if world.click(point.x, point.y) not in {f"Tab #{i + 1}" for i in range(9)}:
            break
    return world.clicked


def test_the_tabs_are_opened_in_turn_until_the_value_shows() -> None:
    world = Tabs([["ac", "sed"], ["justo"], ["nibh", "ac"], ["eget"]])
    assert play(world, recorded_script("nibh")) == ["Tab #2", "Tab #3", "nibh"]


def test_a_value_already_showing_is_tapped_without_the_recorded_tabs() -> None:
    world = Tabs([["nibh"], ["justo"], ["sed"]])
    assert play(world, recorded_script("nibh")) == ["nibh"]


def test_a_value_the_recorded_tab_hid_is_found_again() -> None:
    """The recording opened Tab #2 first; here the value was in the tab open at the start."""
    world = Tabs([["sed", "nibh"], ["justo"], ["eget"]])
    script = [tap("Tab #2", "tab", ".tab"), tap("Tab #3", "tab", ".tab"),
              tap("mattis", "text", ".link", bound="nibh")]  # fmt: skip
    world.open = 1  # as if the recorded first step had been taken
    assert play(world, script[1:]) == ["Tab #1", "nibh"]


def test_the_search_stops_when_nothing_is_left_to_open() -> None:
    world = Tabs([["ac"], ["justo"], ["sed"]])
    clicked = play(world, recorded_script("nibh"))
    assert clicked == ["Tab #2", "Tab #3"]  # never a link the task did not name


def test_the_search_respects_its_budget() -> None:
    many = Tabs([["ac"]] * (MAX_REVEALS + 4))
    search = Search()
    kinds = [Reveal("tab", "Tab #2", ".tab")]
    opened = []
    while (view := search.next_reveal(many.screen(), kinds)) is not None:
        opened.append(view.label)
    assert len(opened) == MAX_REVEALS


def test_only_steps_that_open_something_come_before_the_value() -> None:
    typing = ScriptStep(1, ActionTemplate(ActionType.TYPE, text="x"), None, SITE, "t")
    assert value_step_ahead(recorded_script("nibh"), 0) == 1
    assert value_step_ahead([typing, *recorded_script("nibh")], 0) is None
    # A recorded constant that leaves the state (a Submit) is no way of revealing.
    leaving = ScriptStep(
        1, ActionTemplate(ActionType.CLICK, target_label="Go"), 2, SITE, "t", label="Go"
    )
    assert value_step_ahead([leaving, *recorded_script("nibh")], 0) is None


def test_what_recordings_opened_elsewhere_in_the_app_is_opened_here() -> None:
    """Each tab layout was a state of its own: the followed run tapped its value at once
    (state 1), another run opened "Tab #2" in state 5 of the same site first."""
    other = Trace(
        "e2", 'Find the link "mattis"', "", (SITE,), (5,), (), 2,
        tail=(ActionTemplate(ActionType.CLICK, target_label="Tab #2", target_role="tab",
                             target_id=".tab"),
              ActionTemplate(ActionType.CLICK, target_label="mattis", target_role="text",
                             target_id=".link")),
    )  # fmt: skip
    nodes = {n: SimpleNamespace(app=SITE) for n in (1, 5)}
    view: Any = SimpleNamespace(traces=[other], edges={}, nodes=nodes, rows_by_app={SITE: [0]})
    script = [tap("mattis", "text", ".link", bound="nibh")]
    world = Tabs([["ac"], ["justo"], ["nibh"]])
    policy = GraphPolicy(view, mode="graph", state=PolicyState(script=script))
    for _ in range(4):
        point = policy.decide(world.screen(), [], Feedback(), FocusMemory()).action.point
        assert point is not None
        if world.click(point.x, point.y) == "nibh":
            break
    assert world.clicked == ["Tab #2", "Tab #3", "nibh"]


def test_a_world_that_refused_going_back_is_not_asked_again() -> None:
    """Nothing left to open and the value is not there: the policy would go back, but the
    world (a web page) refused that once already; the episode ends instead of repeating."""
    world = Tabs([["ac"]])
    view: Any = SimpleNamespace(traces=[], edges={}, nodes={}, routes=None)
    script = recorded_script("nibh")[1:]
    policy = GraphPolicy(view, mode="trace", state=PolicyState(script=script))
    back = Action(ActionType.PRESS_BACK)
    refused = HistoryEntry(
        0, SubGoal("step 1"), back, "", Outcome(OutcomeStatus.FAILURE, "refused"), "a", "a"
    )
    first = policy.decide(world.screen(), [], Feedback(), FocusMemory())
    assert first.action == back  # nothing says yet that the world refuses it
    again = policy.decide(world.screen(), [refused], Feedback(), FocusMemory())
    assert again.action.type is ActionType.IMPOSSIBLE
