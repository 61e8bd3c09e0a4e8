"""Binding a recorded script to a new task: which values it takes, and which it refuses."""

from __future__ import annotations

from guigraph.compiler.script import ScriptStep, bind
from guigraph.compiler.values import ValueIndex
from guigraph.graph.records import ActionTemplate, SlotKey, TextSource, Trace
from guigraph.types import ActionType

ALIASES = {"shopmall": "ShopMall", "viewtube": "ViewTube", "camera": "Camera"}
DONOR = "Find the price of the Lumen camera bag and note it down under Work"


def search_step() -> tuple[ScriptStep, Trace]:
    typing = ActionTemplate(
        ActionType.TYPE, text="{text1}", text_sources=(("text1", TextSource.instruction()),)
    )
    step = ScriptStep(28, typing, None, "ShopMall", "t1", edge_id=7)
    trace = Trace("t1", DONOR, "Multi_Apps", ("ShopMall",), (1, 28), (7,), 3,
                  values={SlotKey(7, "text1"): "Lumen camera bag"})  # fmt: skip
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


def test_a_question_is_not_the_message_when_the_task_asks_for_its_answer() -> None:
    typing = ActionTemplate(
        ActionType.TYPE, text="{text1}", text_sources=(("text1", TextSource.instruction()),)
    )
    step = ScriptStep(25, typing, None, "Messages", "t2", edge_id=9)
    donor = "Send Bruno a message saying running late"
    trace = Trace("t2", donor, "Social_Sharing", ("Messages",), (1, 25), (9,), 3,
                  values={SlotKey(9, "text1"): "running late"})  # fmt: skip
    sent = "Send Dana a message saying who sings Gold Hearts"
    told = bind([step], trace, sent, ValueIndex(), aliases=ALIASES)
    assert told.unfilled == 0 and told.steps[0].text == "who sings Gold Hearts"
    answer = "Tell Dana in a message saying who sings Gold Hearts"
    asked = bind([step], trace, answer, ValueIndex(), aliases=ALIASES)
    assert asked.unfilled == 1  # the answer is wanted: the artist, read off the player
