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
