"""A calendar paged to the month of the date the task names, however many pages the
recording turned."""

from __future__ import annotations

from typing import Any

from guigraph.agents.observer import RuleObserver
from guigraph.compiler.calendar import pages_to_value, paging_run, shown_month, task_month
from guigraph.compiler.policy import GraphPolicy, PolicyState
from guigraph.compiler.script import ScriptStep
from guigraph.envs import conventions
from guigraph.envs.conventions import WEB
from guigraph.focus import FocusMemory
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.records import ActionTemplate
from guigraph.roles import Feedback
from guigraph.types import Observation, Task, UIElement

APP = "Dates"


def tap(label: str, recorded: str | None = None, at: float = 100.0) -> ScriptStep:
    template = ActionTemplate(
        "click", target_label=recorded or label, target_role="text", point=(at, 400.0)
    )
    return ScriptStep(1, template, None, APP, "t", label=label)


def recorded(pages: int) -> list[ScriptStep]:
    # The field, the arrow turned ``pages`` times (a person's taps land a pixel apart), the
    # day (bound anew: 15 was recorded), Submit.
    turns = [tap("Prev", at=250.0 + 0.1 * i) for i in range(pages)]
    return [tap("datepicker"), *turns, tap("3", "15"), tap("Submit")]


def test_the_date_a_task_names_is_read_with_its_month_and_year() -> None:
    assert task_month("Select 05/15/2016 as the date and hit submit.", "en") == (2016, 5)
    assert task_month("Pick 3 de marzo de 2016 en el calendario", "es") == (2016, 3)
    assert task_month("Select the date and hit submit.", "en") is None


def test_a_calendar_title_is_read_from_a_month_word_and_a_year_beside_it() -> None:
    screen = ["Date:", "Submit", "Prev", "Next", "December", "2016", "Su", "Mo", "15"]
    assert shown_month(screen, "en") == (2016, 12)
    assert shown_month(["Noviembre de 2016", "Lu"], "es") == (2016, 11)
    # a weekday, a lone day and a lone year are no month on show
    assert shown_month(["Sunday", "15", "2016", "Submit"], "en") is None


def test_the_page_turns_before_the_day_are_one_run() -> None:
    script = recorded(3)
    assert paging_run(script, 0) is None  # the field is no page turn
    assert paging_run(script, 1) == (1, 4)
    assert paging_run(script, 3) == (1, 4)
    assert paging_run(script, 4) == (1, 4)  # just finished: the day is next
    assert paging_run(script, 5) is None  # Submit
    assert pages_to_value(script)
    assert not pages_to_value(recorded(0))
    assert not pages_to_value(recorded(1))  # the field's tap and one more: no evidence


def calendar(*texts: str) -> Any:
    elements = tuple(
        UIElement(BBox(100 * i, 100, 100 * i + 90, 150), text=text, class_name="text")
        for i, text in enumerate(texts)
    )  # fmt: skip
    return RuleObserver().observe(
        Observation(ScreenSize(1000, 1000), elements=elements, app=APP), None
    )


def paging(script: list[ScriptStep], cursor: int, instruction: str) -> GraphPolicy:
    view: Any = None  # turning pages reads the script and the screen only
    task = Task("t", instruction)
    return GraphPolicy(view, state=PolicyState(script=script, cursor=cursor, task=task))


def turn(policy: GraphPolicy, cursor: int, *screen: str) -> list[str]:
    policy.state.cursor = cursor
    with conventions.using(WEB):
        assert policy._turn_pages(calendar(*screen), Feedback(), FocusMemory()) is None
    return [step.label for step in policy.state.script]


def test_the_turns_stop_where_the_screen_shows_the_dates_month() -> None:
    policy = paging(recorded(3), 1, "Select 11/03/2016 as the date and hit submit.")
    assert turn(policy, 1, "Prev", "November", "2016", "3") == ["datepicker", "3", "Submit"]
    assert not policy.state.paging  # the day may be tapped now


def test_a_turn_is_repeated_while_each_brings_the_month_nearer() -> None:
    policy = paging(recorded(2), 1, "Select 05/15/2016 as the date and hit submit.")
    turn(policy, 1, "Prev", "December", "2016")
    assert policy.state.paging  # the day shows in December too: it is not tapped there
    turn(policy, 2, "Prev", "November", "2016")
    # the recorded turns are done, October is still five months from May: one turn more
    labels = turn(policy, 3, "Prev", "October", "2016")
    assert labels == ["datepicker", "Prev", "Prev", "Prev", "3", "Submit"]


def test_a_turn_that_takes_the_month_further_away_is_not_repeated() -> None:
    policy = paging(recorded(2), 1, "Select 05/15/2016 as the date and hit submit.")
    turn(policy, 1, "Prev", "December", "2016")
    turn(policy, 2, "Prev", "January", "2017")
    labels = turn(policy, 3, "Prev", "February", "2017")
    assert labels == ["datepicker", "Prev", "Prev", "3", "Submit"]


def test_no_month_on_the_screen_leaves_the_recorded_turns_as_they_are() -> None:
    # The calendar is not open yet (or shows no title): no turn is cut or repeated.
    policy = paging(recorded(2), 1, "Select 05/15/2016 as the date and hit submit.")
    turn(policy, 1, "Prev", "December", "2016")
    labels = turn(policy, 3, "Prev", "Submit")
    assert labels == ["datepicker", "Prev", "Prev", "3", "Submit"]
    assert not policy.state.paging
    assert policy.state.months_away == 7  # December to May, as last seen
