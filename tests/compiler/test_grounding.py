"""Grounding a script step on the screen the team sees now."""

from __future__ import annotations

from dataclasses import replace

from guigraph.agents.memory import FocusMemory
from guigraph.agents.observer import RuleObserver
from guigraph.agents.roles import SemanticState
from guigraph.compiler.grounding import find_target, ground
from guigraph.compiler.script import ScriptStep
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.records import ActionTemplate, TextSource
from guigraph.types import ID_LESS_KEY, Observation, UIElement


def screen(*elements: UIElement) -> SemanticState:
    observation = Observation(ScreenSize(1000, 2000), elements=tuple(elements), app="Browser")
    return RuleObserver().observe(observation, None)


def result(row: int, title: str, site: str) -> UIElement:
    box = BBox(30, 140 + 80 * row, 970, 210 + 80 * row)
    rid = f"browser:id/article_{row}"
    return UIElement(box, text=title, content_desc=site, resource_id=rid, clickable=True)


def tap_step(
    label: str, rid: str, task: str, replacements: tuple[tuple[str, str], ...]
) -> ScriptStep:
    template = ActionTemplate("click", target_label=label, target_role="list", target_id=rid)
    words = frozenset(w.lower().strip(".") for w in task.split()) - {"the", "on", "about"}
    return ScriptStep(
        19, template, 20, "Browser", "t", label=label, replacements=replacements,
        task_words=words,
    )  # fmt: skip


def test_the_recorded_result_gives_way_to_the_one_on_the_tasks_site() -> None:
    """Recorded: "The story of coffee" on lab-notes.io; the task wants dailyfacts.net."""
    state = screen(
        result(0, "Coffee, what to know", "dailyfacts.net"),
        result(1, "The story of coffee", "lab-notes.io"),
    )
    for site, expected in (("dailyfacts.net", "Coffee, what to know"),
                           ("lab-notes.io", "The story of coffee")):  # fmt: skip
        task = f"Find the article about coffee on {site}"
        step = tap_step(
            "The story of coffee", "browser:id/article_1", task, (("coffee", "coffee"),)
        )
        found = find_target(step, state)
        assert found is not None and found.label == expected, site


def test_text_read_off_a_screen_is_not_typed_before_it_was_seen() -> None:
    field = UIElement(BBox(30, 100, 970, 160), resource_id="messages:id/compose", editable=True,
                      clickable=True, focused=True)  # fmt: skip
    state = screen(field)
    template = ActionTemplate(
        "type",
        text="It costs {text1}",
        text_sources=(("text1", TextSource.screen("shop:id/price")),),
    )
    step = ScriptStep(
        25, template, None, "Messages", "t", text="It costs {text1}",
        screen_slots=(("text1", TextSource.screen("shop:id/price")),),
    )  # fmt: skip
    memory = FocusMemory()
    assert ground(step, state, memory) is None  # no price seen: "It costs " would be wrong
    memory.remember("screen:shop:id/price", "$12.00", "ShopMall", 3)
    proposal = ground(step, state, memory)
    assert proposal is not None and proposal.action.text == "It costs $12.00"


def test_a_value_the_binding_could_not_fill_is_the_one_the_task_names_never_the_recorded() -> None:
    def contact(row: int, name: str) -> UIElement:
        box = BBox(30, 300 + 80 * row, 970, 370 + 80 * row)
        return UIElement(box, text=name, resource_id=f"share:id/contact_{row}", clickable=True)

    state = screen(contact(0, "Alice"), contact(1, "Bruno"), contact(2, "Emeka"))
    template = ActionTemplate("click", target_label="Bruno", target_id="share:id/contact_1")
    words = frozenset({"send", "newest", "picture", "gallery", "emeka"})
    step = ScriptStep(32, template, 31, "Gallery", "t", label="Bruno", task_words=words,
                      open_value=True)  # fmt: skip
    found = find_target(step, state)
    assert found is not None and found.label == "Emeka"
    unnamed = frozenset({"send", "newest", "picture"})
    nobody = ScriptStep(32, template, 31, "Gallery", "t", label="Bruno", task_words=unnamed,
                        open_value=True)  # fmt: skip
    assert find_target(nobody, state) is None  # not the recorded "Bruno": nothing to tap


def test_an_id_less_key_names_the_target_only_on_the_steps_own_screen() -> None:
    """Without ids, ``@browser/button:a#0`` is "the first worded button" of its screen: the
    pop-up's "Accept" recorded under it is not the article page's "<" (the step is skipped)."""
    back = UIElement(BBox(0, 40, 120, 100), text="<", class_name="android.widget.Button",
                     clickable=True)  # fmt: skip
    state = screen(back)
    key = state.elements[0].key
    assert key.startswith(ID_LESS_KEY)
    template = ActionTemplate("click", target_label="Accept", target_id=key)
    on_popup = ScriptStep(77, template, 25, "Browser", "t", label="Accept")
    here_article = replace(state, node_id="25")
    assert find_target(on_popup, here_article) is None
    assert find_target(on_popup, state) is None  # a screen the graph does not recognize
    # On the step's own screen the key is the recorded element, whatever it shows now.
    on_its_screen = replace(state, node_id="77")
    found = find_target(on_popup, on_its_screen)
    assert found is not None and found.label == "<"
    # A resource id names its element on any screen.
    with_id = replace(back, resource_id="browser:id/dismiss")
    id_step = replace(on_popup, template=replace(template, target_id="browser:id/dismiss"))
    found = find_target(id_step, replace(screen(with_id), node_id="25"))
    assert found is not None


def test_the_rank_of_an_id_less_row_does_not_stand_for_the_value_the_task_names() -> None:
    """ "Text Farah": the recorded run tapped Farah's chat, the fourth row; today the fourth
    row is Dana's and Farah has no chat yet, so there is nothing to tap (a detour types her
    name). A row the task does not name is still found by its rank on its own screen."""

    def chat(row: int, name: str) -> UIElement:
        box = BBox(30, 300 + 80 * row, 970, 370 + 80 * row)
        return UIElement(box, text=name, class_name="android.widget.LinearLayout", clickable=True)

    state = replace(
        screen(*(chat(i, n) for i, n in enumerate(("Alice", "Bruno", "Chen", "Dana")))),
        node_id="27",
    )
    fourth = state.elements[3].key
    template = ActionTemplate("click", target_label="Farah", target_id=fourth)
    named = ScriptStep(27, template, 28, "Messages", "t", label="Farah",
                       task_words=frozenset({"text", "farah", "running", "late"}))  # fmt: skip
    assert find_target(named, state) is None
    unnamed = replace(named, task_words=frozenset({"open", "latest", "chat"}))
    found = find_target(unnamed, state)
    assert found is not None and found.label == "Dana"


def test_a_bound_value_that_lost_its_marks_finds_the_element_with_the_same_words() -> None:
    """The task's "Tab #3" bound as "Tab 3" (words only): the tab "Tab #3", not "Tab #2"."""
    tabs = [
        UIElement(BBox(30 + 300 * i, 100, 300 + 300 * i, 160), text=f"Tab #{i + 1}",
                  class_name="tab", resource_id=".ui-tabs-tab", clickable=True)
        for i in range(3)
    ]  # fmt: skip
    template = ActionTemplate("click", target_label="Tab #2", target_role="tab")
    step = ScriptStep(1, template, None, "Browser", "t", label="Tab 3")
    found = find_target(step, screen(*tabs))
    assert found is not None and found.label == "Tab #3"
    assert find_target(replace(step, label="Tab 4"), screen(*tabs)) is None


def test_of_elements_that_look_alike_the_one_where_the_recording_tapped_is_taken() -> None:
    """A spinner's two arrows: one name, one id; the recording tapped the lower one."""
    arrows = [
        UIElement(BBox(880, 320 + 50 * i, 940, 360 + 50 * i), text="arrow", clickable=True,
                  resource_id="spin:id/arrow")
        for i in range(2)
    ]  # fmt: skip
    state = screen(*arrows)
    for point, top in (((910.0, 390.0), 370.0), ((910.0, 340.0), 320.0)):
        template = ActionTemplate(
            "click", target_label="arrow", target_role="button", target_id="spin:id/arrow",
            point=point,
        )  # fmt: skip
        found = find_target(ScriptStep(1, template, None, "Spinner", "t", label="arrow"), state)
        assert found is not None and found.bbox.y1 == top


def test_a_tap_on_an_element_the_task_names_by_its_kind_finds_one_of_that_kind() -> None:
    """Recorded: 'Click on a "radio" widget.' tapped the radio labelled GDK; the new task
    quotes "checkbox": the tap is on a checkbox, whatever its label."""
    from guigraph.compiler.script import kind_said

    template = ActionTemplate("click", target_label="GDK", target_role="radio")
    old = 'Click on a "radio" widget.'
    assert kind_said(template, old, 'Click on a "checkbox" widget.') == "checkbox"
    # A tap on what the instruction names by its label is no tap on a kind.
    named = ActionTemplate("click", target_label="radio", target_role="radio")
    assert kind_said(named, old, 'Click on a "checkbox" widget.') == ""

    def widget(role: str, label: str, row: int) -> UIElement:
        return UIElement(BBox(30, 100 * row, 500, 100 * row + 60), text=label, class_name=role,
                         clickable=True, editable=role == "textbox")  # fmt: skip

    state = screen(widget("radio", "GDK", 1), widget("checkbox", "Hh8", 2),
                   widget("textbox", "2uMiJ", 3))  # fmt: skip
    step = ScriptStep(1, template, None, "Browser", "t", label="GDK")
    for kind, expected in (("checkbox", "Hh8"), ("text", "2uMiJ"), ("radio", "GDK")):
        found = find_target(replace(step, kind=kind), state)
        assert found is not None and found.label == expected, kind
    assert find_target(replace(step, kind="button"), state) is None


def test_a_quoted_label_is_the_tasks_value_where_the_new_task_quotes_one_there() -> None:
    from guigraph.compiler.script import requoted

    old = 'Click on the "确定" button.'
    assert requoted("确定", old, 'Click on the "♥♥♥" button.')  # no words to align: the one
    assert requoted("ÖK", 'Click on the "ÖK" button.', 'Click on the "Cancél" button.')
    assert not requoted("确定", old, "Click on the OK button.")  # the new task quotes nothing
    assert not requoted("Submit", 'Enter "Ann" and press Submit.', 'Enter "Bo" and press Submit.')


def test_typing_a_value_the_plan_cannot_supply_is_no_proposal() -> None:
    template = ActionTemplate("type", text="{text1}")
    unbound = ScriptStep(1, template, None, "Browser", "t", text="Hi {text1}")
    assert ground(unbound, screen(), FocusMemory()) is None
    bound = replace(unbound, text="Hi Ana")
    proposal = ground(bound, screen(), FocusMemory())
    assert proposal is not None and proposal.action.text == "Hi Ana"


def test_steps_without_a_target_are_taken_as_recorded() -> None:
    from guigraph.types import Action, ActionType, ScrollDirection

    def grounded(template: ActionTemplate) -> Action:
        proposal = ground(ScriptStep(1, template, None, "Browser", "t"), screen(), None)
        assert proposal is not None
        return proposal.action

    assert grounded(ActionTemplate("scroll", direction="down")) == Action.scroll(
        ScrollDirection.DOWN
    )
    assert grounded(ActionTemplate("scroll")) == Action.scroll(ScrollDirection.UP)
    assert grounded(ActionTemplate("open_app", app="Mail")) == Action.open_app("Mail")
    assert grounded(ActionTemplate("wait")) == Action(ActionType.WAIT, seconds=1.0)
