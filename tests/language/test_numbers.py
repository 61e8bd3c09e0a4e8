"""Numbers a task spells out, read as the digits screens show."""

from __future__ import annotations

from guigraph.envs.conventions import ANDROID, Conventions


def test_spelled_out_and_hyphenated_numbers_become_digits() -> None:
    assert ANDROID.with_digits("Start a twenty-five-minute timer") == "Start a 25 minute timer"
    assert ANDROID.with_digits("Count down three minutes") == "Count down 3 minutes"
    assert ANDROID.with_digits("Make it Thirty percent bright") == "Make it 30 percent bright"
    assert ANDROID.with_digits("Set a 25-minute timer") == "Set a 25 minute timer"
    assert ANDROID.with_digits("one hundred percent") == "100 percent"


def test_quoted_values_and_words_containing_number_words_are_kept() -> None:
    assert ANDROID.with_digits("Text Bo 'one more thing' at six") == "Text Bo 'one more thing' at 6"
    assert ANDROID.with_digits("Someone often goes there") == "Someone often goes there"


def test_a_world_without_number_words_keeps_the_text() -> None:
    assert Conventions(name="bare").with_digits("three minutes") == "three minutes"


def test_twelve_hour_times_go_on_the_24_hour_clock_outside_quotes() -> None:
    assert ANDROID.with_24_hour_clock("At 10:00 pm I need an alarm") == "At 22:00 I need an alarm"
    assert ANDROID.with_24_hour_clock("wake me at 7am") == "wake me at 7:00"
    assert ANDROID.with_24_hour_clock("at 12 am, then 12:30 p.m.") == "at 0:00, then 12:30"
    assert ANDROID.with_24_hour_clock("Text Bo 'at 7 pm' now") == "Text Bo 'at 7 pm' now"
    # No number before the mark, or an hour no 12-hour clock shows: not a time.
    assert ANDROID.with_24_hour_clock("I am at 13 pm") == "I am at 13 pm"
    assert Conventions(name="bare").with_24_hour_clock("at 10 pm") == "at 10 pm"
