"""A recorded run as script steps: where a step's slots live, the accidental detours dropped,
the script cut by app, a tap on the kind of element the task quotes, a kept end mark."""

from __future__ import annotations

from typing import Any

import pytest

from guigraph.compiler.script import (
    ScriptStep,
    _restep,
    _without_kept_punctuation,
    bind,
    segments,
    without_detours,
)
from guigraph.compiler.values import ValueIndex
from guigraph.graph.records import ActionTemplate, SlotKey, Trace
from guigraph.types import ActionType

APP, HOME = "Widgets", "Home"


def tap(
    node: int, label: str, app: str = APP, jumps_to: int | None = None, **kw: Any
) -> ScriptStep:
    template = ActionTemplate(ActionType.CLICK, target_label=label, target_role="button")
    return ScriptStep(node, template, jumps_to, app, "t", label=label, **kw)


def test_a_step_of_a_route_has_no_slots_in_any_trace() -> None:
    assert tap(1, "Go", edge_id=7).slot_key("text1") == SlotKey(7, "text1")
    assert tap(1, "Go", in_tail=True).slot_key("text1") == SlotKey(None, "text1")
    assert tap(1, "Go").slot_key("text1") is None  # a route's step: neither


def test_a_bound_copy_of_a_step_changes_only_fields_it_has() -> None:
    step = tap(1, "Go")
    assert _restep(step, label="Stop").label == "Stop"
    assert step.label == "Go"  # the recorded step is left as it was
    with pytest.raises(TypeError, match="lable"):
        _restep(step, lable="Stop")  # a misspelled field is no silent no-op


def test_a_step_knows_it_is_on_a_home_screen_of_the_world_it_was_made_in() -> None:
    assert tap(1, "Tunes", app=HOME).home and not tap(1, "Go").home
    assert _restep(tap(1, "Tunes", app=HOME), label="Mail").home


def test_a_wrong_tap_into_a_state_the_graph_does_not_hold_is_dropped() -> None:
    # Tapped into state 2 and straight back with back: state 2 showed nothing read later.
    back = ScriptStep(2, ActionTemplate(ActionType.PRESS_BACK), 1, APP, "t")
    steps = [tap(1, "Oops", jumps_to=2), back, tap(1, "Go")]
    assert [s.label for s in without_detours(steps, {})] == ["Go"]


def test_home_screen_steps_at_the_end_go_with_the_last_app() -> None:
    home = tap(0, "Recents", app=HOME)
    assert home.home
    parts = segments([tap(1, "Save"), home])
    assert [[s.label for s in part] for part in parts] == [["Save", "Recents"]]
    # before an app they go with the app they open
    parts = segments([tap(1, "Save"), home, tap(3, "Send", app="Mail")])
    assert [[s.label for s in part] for part in parts] == [["Save"], ["Recents", "Send"]]


def test_a_tap_on_the_kind_of_element_the_task_quotes_takes_the_new_kind() -> None:
    # The run tapped a radio labelled "GDK" for 'a "radio" widget': the new task wants a button.
    clicked = ActionTemplate(ActionType.CLICK, target_label="GDK", target_role="radio")
    step = ScriptStep(1, clicked, None, APP, "w", in_tail=True, label="GDK")
    trace = Trace("w", 'Click on a "radio" widget.', "c", (APP,), (1,), (), 1, tail=(clicked,))
    binding = bind([step], trace, 'Click on a "button" widget.', ValueIndex())
    assert binding.steps[0].kind == "button"
    assert "button" in binding.claimed  # the task's word is used up by the kind


def test_a_value_ending_in_the_mark_the_template_keeps_loses_its_own() -> None:
    assert _without_kept_punctuation("Odio auctor.", "{text1}.", "{text1}") == "Odio auctor"
    assert _without_kept_punctuation("Odio auctor.", "{text1}", "{text1}") == "Odio auctor."
    assert _without_kept_punctuation("Odio auctor!", "{text1}.", "{text1}") == "Odio auctor!"
