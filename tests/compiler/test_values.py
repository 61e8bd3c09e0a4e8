"""The kinds of values a knowledge base has seen, and values of another kind."""

from __future__ import annotations

import pytest

from guigraph.compiler.values import ValueIndex, label_in_instruction, label_named_as_shown

CITY_SEARCH = (3, "type:city name")
PRODUCT_SEARCH = (4, "type:search products")
NOTE_BODY = (17, "type:note")
NOTE_TITLE = (17, "type:title")


def index() -> ValueIndex:
    values = ValueIndex()
    values.by_site[CITY_SEARCH] |= {"Oslo", "Paris", "Sydney", "Rome"}
    values.by_site[PRODUCT_SEARCH] |= {"Atlas lamp", "Nova kettle", "Orbit watch"}
    # A note's body holds values of every kind: it must not make cities of products.
    values.by_site[NOTE_BODY] |= {"Oslo", "Paris", "Atlas lamp", "Nova kettle", "buy milk"}
    values.by_site[NOTE_TITLE] |= {"Shopping", "Work", "Ideas"}
    return values


def test_a_value_recorded_only_where_another_kind_goes_is_foreign() -> None:
    values = index()
    assert values.foreign("Sydney", PRODUCT_SEARCH)
    assert values.foreign("Shopping", CITY_SEARCH)


def test_own_unknown_and_free_text_values_are_not_foreign() -> None:
    values = index()
    assert not values.foreign("Paris", CITY_SEARCH)
    assert not values.foreign("Denver", CITY_SEARCH)  # never seen: could be a new city
    assert not values.foreign("buy milk", CITY_SEARCH)  # seen only in free text


def test_percent_spelled_out_names_a_percent_label() -> None:
    assert label_in_instruction("70%", "Change brightness to 70 percent")
    assert not label_in_instruction("30%", "Change brightness to 70 percent")


def test_a_form_button_every_run_taps_is_a_control_even_when_instructions_name_it() -> None:
    values = ValueIndex()
    editor, notes = 6, 16
    for run in range(10):
        values.visits[editor] += 1
        values.visits[notes] += 1
        # "save it in a note" names Save in most runs; every run taps it.
        values.tapped[(editor, "Save")][0] += int(run < 7)
        values.tapped[(editor, "Save")][1] += 1
        title = ("Ideas", "Groceries", "Call Alice")[run % 3]
        values.tapped[(notes, title)][0] += int(run != 9)  # one stray tap, then back
        values.tapped[(notes, title)][1] += 1
        values.by_site[(notes, "click")].add(title)
    values.by_site[(editor, "click")] |= {"Save", "Note"}
    instruction = "Open the note Ideas and save it"
    assert not values.is_value_label(editor, "Save", "Check Oslo and save it in a note")
    assert values.is_value_label(notes, "Ideas", instruction)
    assert values.is_value_label(notes, "Groceries", "Open the note Groceries")


def test_times_are_one_kind_by_their_shape_even_when_no_time_was_shared() -> None:
    values = ValueIndex()
    event_time, alarm_time = (47, "type:time (hh:mm)"), (34, "type:hh:mm")
    values.by_site[event_time] |= {"10:45", "11:45", "19:00"}
    values.by_site[alarm_time] |= {"06:45", "07:30", "21:15"}
    values.by_site[NOTE_TITLE] |= {"Shopping", "Work", "Ideas"}
    assert not values.foreign("06:45", event_time)
    assert values.foreign("Shopping", event_time)
    assert not values.foreign("Denver", event_time)  # never recorded: could be anything


def test_a_label_seen_once_here_is_a_value_when_it_is_a_value_elsewhere() -> None:
    values = ValueIndex()
    share_sheet, to_field = (32, "click"), (18, "type:to: name or number")
    values.by_site[share_sheet] |= {"Bruno"}
    values.tapped[(32, "Bruno")] = [1, 1]
    values.tapped[(32, "Share")] = [0, 1]
    values.by_site[to_field] |= {"Bruno", "Dana", "Emeka"}
    assert values.is_value_label(32, "Bruno", "Send the newest picture in Gallery to Bruno")
    assert not values.is_value_label(32, "Share", "Share the newest picture")


def test_a_value_holding_a_known_value_of_another_kind_is_foreign_where_that_kind_is_not() -> None:
    values = index()
    reminders = (50, "type:remind me to")
    values.by_site[reminders] |= {"buy a gift", "pay rent", "renew passport"}
    # "I'd like to buy a Nova kettle": the product wrapped in words is no reminder text...
    assert values.foreign("buy a Nova kettle", reminders)
    # ...but a reminder naming nothing of another kind is one, and free text holds any kind.
    assert not values.foreign("buy a present", reminders)
    assert not values.foreign("buy a Nova kettle", NOTE_BODY)


def test_percent_with_a_space_names_a_percent_label() -> None:
    assert label_in_instruction("30%", "Adjust screen brightness: 30 %")


def test_a_label_is_named_as_a_value_only_as_the_screen_writes_it() -> None:
    # The note "Groceries" is named as shown; the "Lyrics" button is talked about.
    assert label_named_as_shown("Groceries", "Send the content of my note Groceries to Dana")
    assert not label_named_as_shown("Lyrics", "Open the lyrics of Fire Lights")
    # A capital only because the sentence starts there is no evidence.
    assert not label_named_as_shown("Like", "Like the song Paper Lights")
    # A label without capitals cannot tell by case.
    assert label_named_as_shown("vina", "Call Vina back")


def test_buttons_each_named_by_their_own_tasks_are_controls_not_values() -> None:
    """The player's "Lyrics" and "Like": each tapped only by the tasks that talk about it,
    so by share alone they looked like a set of values (and a task that never says "lyrics"
    had an open value to fill)."""
    values = ValueIndex()
    player = 42
    runs = [("Lyrics", "Open the lyrics of Fire Lights and post its first line")] * 4
    runs += [("Like", "Like the song Paper Lights")] * 4
    runs += [("Favorites", "Put the song Gold Roads on the Favorites playlist")] * 2
    runs += [("Workout", "Put the song Echo Roads on the Workout playlist")] * 2
    for label, instruction in runs:
        values.visits[player] += 1
        named = label_named_as_shown(label, instruction)
        values.tapped[(player, label)][0] += int(named)
        values.tapped[(player, label)][1] += 1
        if named:
            values.by_site[(player, "click")].add(label)
    assert not values.is_value_label(player, "Lyrics", runs[0][1])
    assert not values.is_value_label(player, "Like", runs[4][1])
    assert values.is_value_label(player, "Favorites", runs[8][1])


def test_names_said_are_recorded_values_written_as_names() -> None:
    values = index()
    values.by_site[(9, "click")] |= {"Chen", "Dana"}
    said = values.names_said("Text Chen the first line of the lyrics of Echo Stars")
    assert said == ["Chen"]
    # Lower-case ("rome") or only at the sentence start is not naming the value.
    assert values.names_said("Rome is where the weather is checked") == []
    assert values.names_said("check the weather in rome") == []


def test_a_controls_label_the_task_names_is_no_name_said() -> None:
    """ "press Submit": a button every run taps, not a value a plan must use."""
    values = ValueIndex()
    form = 5
    for _ in range(10):
        values.visits[form] += 1
        values.tapped[(form, "Submit")][0] += 1
        values.tapped[(form, "Submit")][1] += 1
    values.by_site[(form, "click")].add("Submit")
    values.by_site[(7, "type:username")] |= {"Vina", "Keli", "Jerald"}
    said = values.names_said('Enter "Vina" into the text field and press Submit.')
    assert said == ["Vina"]


def test_values_shaped_like_a_value_come_from_every_site_and_follow_new_traces() -> None:
    values = ValueIndex()
    values.by_site[(34, "type:hh:mm")] |= {"06:30", "21:15"}
    values.by_site[(47, "type:time")] |= {"10:45"}
    values.by_site[NOTE_TITLE] |= {"Work"}
    assert sorted(values.shaped_like("9:30")) == ["06:30", "10:45", "21:15"]
    assert values.shaped_like("Jun 5") == []


def test_a_value_said_only_inside_a_longer_recorded_name_is_not_said_on_its_own() -> None:
    values = index()
    values.by_site[NOTE_TITLE] |= {"Call Alice"}
    values.by_site[(25, "click")] |= {"Alice", "Chen"}
    assert values.said_only_inside_names(
        "Alice", "Message Chen the contents of the Call Alice note"
    )
    assert not values.said_only_inside_names("Chen", "Message Chen the Call Alice note")
    # Said on its own too, or inside no recorded name: it is the task's value.
    assert not values.said_only_inside_names("Alice", "Send Alice the Call Alice note")
    assert not values.said_only_inside_names("Alice", "Text Alice the note Ideas")


def test_lists_that_offered_a_value_in_common_hold_one_kind_however_little_they_overlap() -> None:
    values = index()
    chats, share_sheet, suggestions = (34, "click"), (50, "click"), (35, "click")
    to_field = (35, "type:to: name or number")
    # A small knowledge base: the conversation list and the new-chat suggestions never
    # offered the same contact, but the share sheet offered one of each.
    values.by_site[chats] |= {"Chen", "Dana", "Emeka"}
    values.by_site[share_sheet] |= {"Alice", "Bruno", "Chen", "Farah"}
    values.by_site[suggestions] |= {"Farah", "Greta", "Hiro"}
    values.by_site[to_field] |= {"Farah", "Greta", "Hiro"}
    assert not values.foreign("Hiro", chats)
    assert not values.foreign("Farah", chats)
    assert not values.foreign("Dana", to_field)
    # Typed fields do not chain places: the note's body, which holds cities and products,
    # leaves a city foreign where products are tapped.
    products, cities = (6, "click"), (3, "click")
    values.by_site[products] |= {"Atlas lamp", "Nova kettle", "Orbit watch"}
    values.by_site[cities] |= {"Oslo", "Paris", "Sydney"}
    assert values.foreign("Sydney", products)
    assert values.foreign("Sydney", PRODUCT_SEARCH)
    assert values.foreign("Hiro", products)


def test_a_value_held_at_many_sites_is_one_value_of_its_shape() -> None:
    # A large knowledge base holds the same times at thousands of places: binding reads
    # their form, so each is listed once, whatever the number of places.
    values = ValueIndex()
    for node in range(500):
        values.by_site[(node, "type:time")] |= {"06:30", "21:15"}
    assert sorted(values.shaped_like("9:30")) == ["06:30", "21:15"]


def test_sites_naming_a_value_are_each_listed_once_in_the_order_found() -> None:
    values = ValueIndex()
    for node in (9, 3, 7):
        values.by_site[(node, "type:city name")] |= {"Oslo"}
        values.by_site[(node, "click")] |= {"Oslo"}
    values.by_site[(5, "type:search products")] |= {"Atlas kettle"}
    found = values.sites_naming("Find Oslo and buy the Zephyr kettle in Oslo")
    assert len(found) == len(set(found)) == 7
    # Sites of the values named first, then of the kinds named by their last word.
    assert found[-1] == (5, "type:search products")
    assert set(found[:-1]) == {(n, kind) for n in (9, 3, 7) for kind in ("type:city name", "click")}


def test_the_names_said_are_remembered_for_a_bounded_number_of_tasks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from guigraph.compiler import values as values_module

    monkeypatch.setattr(values_module, "SAID_MEMO", 2)
    values = index()
    tasks = [f"Check the weather in {city}" for city in ("Oslo", "Paris", "Rome")]
    assert [values.names_said(task) for task in tasks] == [["Oslo"], ["Paris"], ["Rome"]]
    assert len(values._said) <= 2  # cleared when full: an evaluation of many tasks
    assert values.names_said(tasks[0]) == ["Oslo"]  # worked out again, the same
