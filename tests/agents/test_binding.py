"""Binding a recorded script to a new task: which values it takes, and which it refuses."""

from __future__ import annotations

from guigraph.agents.script import ScriptStep, bind
from guigraph.graph.records import ActionTemplate, Trace
from guigraph.retrieval.values import ValueIndex

ALIASES = {"shopmall": "ShopMall", "viewtube": "ViewTube", "camera": "Camera"}
DONOR = "Find the price of the Lumen camera bag and note it down under Work"


def search_step() -> tuple[ScriptStep, Trace]:
    typing = ActionTemplate("type", text="{text1}", text_sources=(("text1", "instruction"),))
    step = ScriptStep(28, typing, None, "ShopMall", "t1", slot_key="7")
    trace = Trace("t1", DONOR, "Multi_Apps", ("ShopMall",), (1, 28), (7,), 3,
                  values={"7:text1": "Lumen camera bag"})  # fmt: skip
    return step, trace


def test_a_value_naming_another_app_is_not_this_apps_value() -> None:
    step, trace = search_step()
    task = "Find the price of the ViewTube video City Tour and note it down under Work"
    binding = bind([step], trace, task, ValueIndex(), aliases=ALIASES)
    assert binding.unfilled == 1 and binding.steps[0].text == "Lumen camera bag"


def test_a_common_noun_that_is_also_an_app_does_not_count() -> None:
    step, trace = search_step()
    task = "Find the price of the Nova camera bag and note it down under Work"
    binding = bind([step], trace, task, ValueIndex(), aliases=ALIASES)
    assert binding.unfilled == 0 and binding.steps[0].text == "Nova camera bag"
