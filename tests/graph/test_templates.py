"""Typed text becomes a slot without the keys typed with it."""

from __future__ import annotations

from guigraph.geometry import ScreenSize
from guigraph.graph.records import Slot
from guigraph.graph.templates import action_template
from guigraph.types import Action, Observation, Step


def _typed(text: str, instruction: str) -> tuple[str, list[Slot]]:
    step = Step(0, Observation(ScreenSize(100, 100), elements=()), Action.type_text(text))
    slots: list[Slot] = []
    template = action_template(step, instruction, slots)
    return template.text or "", slots


def test_enter_after_a_value_stays_in_the_template_not_the_slot() -> None:
    text, slots = _typed("orchids\n", "Search the wiki for orchids")
    assert [s.example for s in slots] == ["orchids"]
    assert text == "{text1}\n"


def test_a_line_appended_after_a_newline_keeps_the_newline_outside() -> None:
    text, slots = _typed("\nBuy milk\t", "Add the line Buy milk to the page shopping")
    assert [s.example for s in slots] == ["Buy milk"] and text == "\n{text1}\t"


def test_a_secret_placeholder_is_literal_text() -> None:
    text, slots = _typed("{password}\n", "Log in and create the page garden")
    assert slots == [] and text == "{password}\n"


def test_a_tap_on_nothing_is_not_a_step_of_the_workflow() -> None:
    from guigraph.geometry import BBox
    from guigraph.graph.build import without_idle_taps
    from guigraph.types import DeviceInfo, Episode, UIElement

    screen = Observation(
        ScreenSize(1000, 1000),
        elements=(UIElement(BBox(0, 0, 200, 50), text="Search", clickable=True),),
    )
    actions = [Action.click(900, 900), Action.click(100, 25), Action.click(950, 950)]
    steps = tuple(Step(i, screen, a) for i, a in enumerate(actions))
    episode = Episode("e", "Search", "General_Tool", DeviceInfo("d", 1000, 1000), steps)
    kept = without_idle_taps(episode).steps
    # the margin click is gone; the last step (the episode's end) stays whatever it is
    assert [s.action for s in kept] == actions[1:] and [s.index for s in kept] == [0, 1]
    bare = Episode("e", "Search", "General_Tool", DeviceInfo("d", 1000, 1000),
                   tuple(Step(i, Observation(ScreenSize(1000, 1000), elements=()), a)
                         for i, a in enumerate(actions)))  # fmt: skip
    assert without_idle_taps(bare) == bare  # no UI tree: nothing tells a tap touched nothing


def test_a_placeholder_is_not_cut_by_a_label_that_shares_its_word() -> None:
    from guigraph.geometry import BBox
    from guigraph.types import UIElement

    login = Observation(
        ScreenSize(1000, 1000),
        elements=(UIElement(BBox(0, 0, 300, 50), text="Password"),),
    )
    earlier = [Step(0, login, Action.click(10, 10))]
    step = Step(1, login, Action.type_text("{password}\n"))
    slots: list[Slot] = []
    template = action_template(step, "Log in and create the page garden", slots, True, earlier)
    assert slots == [] and template.text == "{password}\n"


def test_a_field_holding_a_value_is_named_by_its_name_or_id_not_the_value() -> None:
    from guigraph.geometry import BBox
    from guigraph.types import UIElement

    def tapped(field: UIElement) -> str:
        screen = Observation(ScreenSize(1000, 1000), elements=(field,))
        return action_template(Step(0, screen, Action.click(50, 50)), "Edit", []).target_label

    box = BBox(0, 0, 100, 100)
    page_text = "====== Meetings ======\n\nWhat the team keeps about meetings.\n"
    editor = UIElement(box, text=page_text, class_name="textbox", resource_id="wiki__text",
                       editable=True, clickable=True)  # fmt: skip
    assert tapped(editor) == "wiki__text"  # the same editor holds another page's text elsewhere
    labelled = UIElement(box, text="Old title", content_desc="Title", editable=True)
    assert tapped(labelled) == "Title"
    empty = UIElement(box, content_desc="Search", resource_id="app:id/q", editable=True)
    assert tapped(empty) == "Search"
    nameless = UIElement(box, text="draft", editable=True)
    assert tapped(nameless) == "draft"  # nothing else names it
    button = UIElement(box, text="Save", resource_id="save", clickable=True)
    assert tapped(button) == "Save"
