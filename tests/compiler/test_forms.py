"""Value forms: a new value is typed as the field's recorded values were written."""

from __future__ import annotations

import pytest

from guigraph.compiler.forms import conform, in_screen_forms
from guigraph.compiler.script import ScriptStep, bind
from guigraph.compiler.values import ValueIndex, type_site
from guigraph.graph.records import ActionTemplate, SlotKey, TextSource, Trace
from guigraph.types import ActionType

DATES = {"Jun 13", "Jun 19", "Jun 22"}
EVENT_TIMES = {"10:00", "13:15", "21:15"}
ALARM_TIMES = {"06:30", "07:45", "15:00"}


def test_a_word_the_field_never_saw_takes_the_one_recorded_word_it_begins_with() -> None:
    assert conform("June 27", DATES) == "Jun 27"
    # A word the field uses as it is stays; so does a value the field has seen.
    assert conform("Jun 27", DATES) == "Jun 27"
    assert conform("Jun 13", DATES) == "Jun 13"


def test_no_single_recorded_stem_means_no_rewrite() -> None:
    both = {"Jun 13", "Jul 2", "Jun 22"}
    assert conform("Julyish 4", both) == "Jul 4"
    # A word beginning with two recorded words ("Jun", "Junj") could stand for either.
    assert conform("Junjul 4", {"Jun 1", "Jun 2", "Junj 3"}) == "Junjul 4"
    # Under three letters is no evidence ("Ma" of "May" and "March").
    assert conform("Mayday 4", {"Ma 1", "Ma 2", "Ma 3"}) == "Mayday 4"


def test_digits_are_padded_only_to_a_width_the_kind_shows_with_a_leading_zero() -> None:
    # The event's own times never needed a zero; the alarm's times, the same kind, show one.
    assert conform("9:30", EVENT_TIMES) == "9:30"
    assert conform("9:30", EVENT_TIMES, ALARM_TIMES) == "09:30"
    # Two-digit days by chance are no padding: "Jun 5" stays.
    assert conform("June 5", DATES, ALARM_TIMES) == "Jun 5"


def test_fields_without_one_digit_form_are_left_alone() -> None:
    assert conform("June 27", {"Jun 13", "Jun 19", "14:00"}) == "June 27"  # shapes disagree
    assert conform("Saturday", {"Book club", "Team lunch", "Yoga class"}) == "Saturday"
    assert conform("June 27", {"Jun 13", "Jun 19"}) == "June 27"  # too few to agree
    # A rewrite that would not take the field's shape is not made.
    assert conform("June 27 9", DATES) == "June 27 9"


def test_binding_types_the_fields_form_and_claims_the_instructions_words() -> None:
    tap_date = ActionTemplate(ActionType.CLICK, target_label="Date")
    typing = ActionTemplate(
        ActionType.TYPE, text="{text1}", text_sources=(("text1", TextSource.instruction()),)
    )
    steps = [
        ScriptStep(47, tap_date, None, "Calendar", "t1", edge_id=5),
        ScriptStep(47, typing, None, "Calendar", "t1", edge_id=5),
    ]
    donor = "Add Team lunch to the calendar on Jun 22"
    trace = Trace("t1", donor, "Information_Management", ("Calendar",), (1, 47), (5,), 3,
                  values={SlotKey(5, "text1"): "Jun 22"})  # fmt: skip
    values = ValueIndex()
    values.by_site[type_site(47, "Date")] |= DATES
    task = "Add Team lunch to the calendar on June 27"
    binding = bind(steps, trace, task, values)
    assert binding.steps[1].text == "Jun 27"
    assert binding.steps[1].bound_values == {"text1": "Jun 27"}
    assert "june" in binding.claimed


def test_a_12_hour_time_goes_on_the_clock_the_recorded_values_show() -> None:
    """ "10:00 pm" is the "22:00" to type where recorded times run past 12:59; where none
    does, nothing shows the screens use a 24-hour clock and the task's time stays."""
    on_24 = ValueIndex()
    on_24.by_site[type_site(35, "HH:MM")] |= {"06:30", "22:00"}
    task = "At 10:00 pm I need an alarm, name it Laundry, twenty minutes early"
    said = in_screen_forms(task, on_24)
    assert said == "At 22:00 I need an alarm, name it Laundry, 20 minutes early"
    ambiguous = ValueIndex()
    ambiguous.by_site[type_site(35, "HH:MM")] |= {"06:30", "10:00"}
    assert in_screen_forms(task, ambiguous).startswith("At 10:00 pm")


def test_the_words_a_task_was_said_in_are_kept_for_the_latest_tasks_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from guigraph.compiler import forms
    from guigraph.compiler.forms import as_said

    monkeypatch.setattr(forms, "_SAID", forms.OrderedDict())
    monkeypatch.setattr(forms, "_SAID_KEPT", 2)
    said = [f"Set the volume to {n} percent" for n in ("thirty", "forty", "fifty")]
    written = [in_screen_forms(task, ValueIndex()) for task in said]
    assert written[2] == "Set the volume to 50 percent"
    # the earliest is forgotten: its screen form stands for itself
    assert [as_said(w) for w in written] == [written[0], said[1], said[2]]
    assert len(forms._SAID) == 2
