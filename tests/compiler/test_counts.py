"""A recorded tap repeated as many times as a number the task says (``compiler/counts.py``)."""

from __future__ import annotations

import pytest

from guigraph.compiler.counts import find_count_run, new_count
from guigraph.compiler.script import ScriptStep, bind
from guigraph.compiler.values import ValueIndex
from guigraph.graph.records import ActionTemplate, Trace
from guigraph.types import ActionType

UP, DOWN = (900.0, 340.0), (900.0, 390.0)


def tap(label: str, point: tuple[float, float], role: str = "button") -> ScriptStep:
    template = ActionTemplate(ActionType.CLICK, target_label=label, target_role=role, point=point)
    return ScriptStep(1, template, None, "spinner", "t1", in_tail=True, label=label)


def recorded(number: int) -> tuple[list[ScriptStep], Trace]:
    arrow = UP if number >= 0 else DOWN
    steps = [*(tap("arrow", arrow) for _ in range(abs(number))), tap("Submit", (300.0, 510.0))]
    instruction = f"Select {number} with the spinner and hit Submit."
    trace = Trace("t1", instruction, "General_Tool", ("spinner",), (1,), (), len(steps))
    return steps, trace


def test_the_run_of_identical_taps_the_instruction_counts_is_found() -> None:
    steps, trace = recorded(3)
    run = find_count_run(steps, trace.instruction)
    assert run is not None and (run.first, run.count, run.negative) == (0, 3, False)
    assert (run.before, run.after) == ("Select", "with")
    down = find_count_run(*recorded(-4)[:1], "Select -4 with the spinner and hit Submit.")
    assert down is not None and down.negative and down.count == 4


def test_taps_no_number_counts_make_no_run() -> None:
    steps, _ = recorded(3)
    assert find_count_run(steps, "Select 5 with the spinner and hit Submit.") is None
    assert find_count_run(steps[2:], "Select 1 with the spinner and hit Submit.") is None  # one tap


def test_the_new_number_is_read_where_the_recorded_one_stood() -> None:
    steps, trace = recorded(3)
    run = find_count_run(steps, trace.instruction)
    assert run is not None
    assert new_count(run, "Select 7 with the spinner and hit Submit.") == (7, False, "7")
    assert new_count(run, "Select −2 with the spinner and hit Submit.") == (2, True, "−2")
    assert new_count(run, "Press Submit") is None


@pytest.mark.parametrize("number", [0, 1, 2, 8])
def test_a_bound_script_taps_as_many_times_as_the_new_number(number: int) -> None:
    steps, trace = recorded(3)
    binding = bind(steps, trace, f"Select {number} with the spinner and hit Submit.", ValueIndex())
    assert [s.label for s in binding.steps] == ["arrow"] * number + ["Submit"]
    assert binding.steps[-1].template.point == (300.0, 510.0)


def test_a_number_of_the_other_sign_leaves_a_value_unfilled() -> None:
    steps, trace = recorded(3)
    same = bind(steps, trace, "Select 5 with the spinner and hit Submit.", ValueIndex())
    other = bind(steps, trace, "Select -5 with the spinner and hit Submit.", ValueIndex())
    assert other.unfilled == same.unfilled + 1  # the down arrow's recording ranks first


def test_the_new_number_is_explained_as_written_sign_and_all() -> None:
    """ "-8" is one word of the task: a recording of the same sign that taps eight times
    explains it, and so outranks one that taps nothing ("Select 0 ...")."""
    steps, trace = recorded(-3)
    binding = bind(steps, trace, "Select -8 with the spinner and hit Submit.", ValueIndex())
    assert len(binding.steps) == 9 and "-8" in binding.claimed
