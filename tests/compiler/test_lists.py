"""A recorded step repeated once per item of a list the task names (``compiler/lists.py``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from guigraph.compiler.lists import find_run, new_items, split_items
from guigraph.compiler.script import ScriptStep, bind
from guigraph.compiler.values import ValueIndex
from guigraph.graph.records import ActionTemplate, Trace
from guigraph.language import tables
from guigraph.language.english import ENGLISH
from guigraph.types import ActionType

RECORDED = "Select fzzqo, NYYyS82 and click Submit."


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("8ai", ("8ai",)),
        ("8ai and xpHrXXA", ("8ai", "xpHrXXA")),
        ("8ai, xpHrXXA", ("8ai", "xpHrXXA")),
        ("8ai, xpHrXXA and cy8fNnP", ("8ai", "xpHrXXA", "cy8fNnP")),
        ("8ai, xpHrXXA, and cy8fNnP.", ("8ai", "xpHrXXA", "cy8fNnP")),
        ("red or blue", ("red", "blue")),
        ("Alba Rossi, Hiro Tanaka", ("Alba Rossi", "Hiro Tanaka")),
        ("nothing", ()),
    ],
)
def test_an_enumeration_splits_into_its_items(text: str, items: tuple[str, ...]) -> None:
    assert split_items(text) == items


def test_the_joiners_are_the_task_languages() -> None:
    with tables.using(tables.get("es")):
        assert split_items("rojo, verde y azul") == ("rojo", "verde", "azul")
    with tables.using(replace(ENGLISH, list_joiners=())):
        assert split_items("red and blue") == ("red and blue",)


def tap(label: str, role: str = "checkbox", node: int = 3) -> ScriptStep:
    template = ActionTemplate(ActionType.CLICK, target_label=label, target_role=role)
    return ScriptStep(node, template, None, "checkboxes", "t1", in_tail=True, label=label)


def recorded(*labels: str) -> tuple[list[ScriptStep], Trace]:
    steps = [*(tap(label) for label in labels), tap("Submit", role="button")]
    instruction = f"Select {', '.join(labels)} and click Submit."
    trace = Trace("t1", instruction, "General_Tool", ("checkboxes",), (3,), (), len(steps))
    return steps, trace


def test_the_run_of_taps_the_instruction_enumerates_is_found() -> None:
    steps, trace = recorded("fzzqo", "NYYyS82", "pKy")
    run = find_run(steps, trace.instruction)
    assert run is not None and (run.first, run.count) == (0, 3)
    assert run.before == "Select" and run.after == ("and", "click")
    one = find_run(*_one("HF2"))
    assert one is not None and one.count == 1


def _one(label: str) -> tuple[list[ScriptStep], str]:
    steps, trace = recorded(label)
    return steps, trace.instruction


def test_taps_of_another_kind_or_state_make_no_run() -> None:
    steps, trace = recorded("fzzqo", "NYYyS82")
    # The second tap is on another kind of element: the list is no longer one run.
    other = [steps[0], replace(steps[1], template=replace(steps[1].template, target_role="link"))]
    run = find_run([*other, steps[2]], trace.instruction)
    assert run is not None and run.count == 1
    elsewhere = [steps[0], replace(steps[1], node=4), steps[2]]
    run = find_run(elsewhere, trace.instruction)
    assert run is not None and run.count == 1


def test_the_new_list_is_read_between_the_recorded_lists_frame() -> None:
    steps, trace = recorded("fzzqo", "NYYyS82")
    run = find_run(steps, trace.instruction)
    assert run is not None
    assert new_items(run, "Select 8ai, xpHrXXA, cy8fNnP and click Submit.") == (
        "8ai", "xpHrXXA", "cy8fNnP",
    )  # fmt: skip
    assert new_items(run, "Select 8ai and click Submit.") == ("8ai",)
    assert new_items(run, "Select nothing and click Submit.") == ()
    assert new_items(run, "Open the inbox") is None


@pytest.mark.parametrize("count", [0, 1, 3, 7])
def test_a_bound_script_taps_once_per_new_item_then_goes_on(count: int) -> None:
    steps, trace = recorded("fzzqo", "NYYyS82")
    names = [f"box{i}" for i in range(count)]
    said = ", ".join(names) if names else "nothing"
    binding = bind(steps, trace, f"Select {said} and click Submit.", ValueIndex())
    assert [s.label for s in binding.steps] == [*names, "Submit"]
    assert not any(s.open_value for s in binding.steps)


def test_a_recorded_single_item_becomes_a_loop_over_several() -> None:
    steps, trace = recorded("HF2")
    binding = bind(steps, trace, "Select 8ai, xpHrXXA and click Submit.", ValueIndex())
    assert [s.label for s in binding.steps] == ["8ai", "xpHrXXA", "Submit"]
    assert {"8ai", "xphrxxa"} <= {w.lower() for w in binding.claimed}


def test_without_the_recorded_lists_frame_the_binding_is_the_binders() -> None:
    steps, trace = recorded("fzzqo", "NYYyS82")
    binding = bind(steps, trace, "Press the Submit button", ValueIndex())
    assert [s.template.target_label for s in binding.steps] == ["fzzqo", "NYYyS82", "Submit"]


def test_a_list_that_ended_the_recorded_sentence_frames_no_new_one() -> None:
    """Nothing closes it in the new task: what follows there may be another clause."""
    steps = [tap("Tunes", role="button", node=1), tap("Night Lights", node=2)]
    run = find_run(steps, "Put on Night Lights in Tunes")
    assert run is not None and run.after == ()
    assert new_items(run, "Find Summer Skies in Tunes and like it") is None


def test_a_recorded_single_value_reads_a_list_only_where_commas_make_one() -> None:
    steps = [tap("Night Lights", node=2), tap("Play", role="button", node=2)]
    run = find_run(steps, "Find Night Lights in Tunes and play it")
    assert run is not None and run.count == 1
    assert new_items(run, "Find Summer Skies and Gold in Tunes and play it") is None
    assert new_items(run, "Find Summer Skies, Gold in Tunes and play it") == (
        "Summer Skies", "Gold",
    )  # fmt: skip


def test_items_ticked_in_another_order_than_said_are_one_run() -> None:
    steps, _ = recorded("NYYyS82", "fzzqo", "pKy")
    run = find_run(steps, "Select fzzqo, pKy, NYYyS82 and click Submit.")
    assert run is not None and (run.first, run.count) == (0, 3)


def test_a_spanish_task_binds_a_list_recorded_in_spanish() -> None:
    steps = [tap("rojo"), tap("verde"), tap("Enviar", role="button")]
    said = "Marca rojo y verde y pulsa Enviar."
    trace = Trace("t1", said, "General_Tool", ("checkboxes",), (3,), (), len(steps))
    binding = bind(steps, trace, "Marca azul, negro y blanco y pulsa Enviar.", ValueIndex())
    assert [s.label for s in binding.steps] == ["azul", "negro", "blanco", "Enviar"]
