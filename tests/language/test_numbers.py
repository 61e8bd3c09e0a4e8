"""Numbers and times a task says in words, read by kept libraries as screens write them."""

from __future__ import annotations

from guigraph.language.numbers import with_24_hour_clock, with_digits


def test_spelled_out_and_hyphenated_numbers_become_digits() -> None:
    assert with_digits("Start a twenty-five-minute timer", "en") == "Start a 25 minute timer"
    assert with_digits("Count down three minutes", "en") == "Count down 3 minutes"
    assert with_digits("Make it Thirty percent bright", "en") == "Make it 30 percent bright"
    assert with_digits("Set a 25-minute timer", "en") == "Set a 25 minute timer"
    assert with_digits("one hundred percent", "en") == "100 percent"
    # Another language's number words, by the same library.
    assert with_digits("Pon un temporizador de veinticinco minutos", "es") == (
        "Pon un temporizador de 25 minutos"
    )


def test_quoted_values_and_words_containing_number_words_are_kept() -> None:
    said = "Text Bo 'one more thing' at six"
    assert with_digits(said, "en") == "Text Bo 'one more thing' at 6"
    assert with_digits("Someone often goes there", "en") == "Someone often goes there"
    assert with_digits("Switch off the Wi-Fi", "en") == "Switch off the Wi-Fi"


def test_no_language_keeps_the_text() -> None:
    assert with_digits("three minutes", "") == "three minutes"
    assert with_24_hour_clock("at 10 pm", "") == "at 10 pm"


def test_twelve_hour_times_go_on_the_24_hour_clock_outside_quotes() -> None:
    assert with_24_hour_clock("At 10:00 pm I need an alarm", "en") == "At 22:00 I need an alarm"
    assert with_24_hour_clock("wake me at 7am", "en") == "wake me at 7:00"
    assert with_24_hour_clock("at 12 am, then 12:30 p.m.", "en") == "at 0:00, then 12:30"
    assert with_24_hour_clock("Text Bo 'at 7 pm' now", "en") == "Text Bo 'at 7 pm' now"
    # No number before the mark, an hour no 12-hour clock shows, a duration: not a time.
    assert with_24_hour_clock("I am at 13 pm", "en") == "I am at 13 pm"
    assert with_24_hour_clock("Set a 5 min timer", "en") == "Set a 5 min timer"
    assert with_24_hour_clock("Despiértame a las 7:30 pm", "es") == "Despiértame a las 19:30"
