"""A lower-cased task gets back the capitals the recorded tasks give its words."""

from __future__ import annotations

from difflib import SequenceMatcher

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guigraph.language.casing import CONTENT_WEIGHT, Casing, in_field_case


@pytest.fixture(scope="module")
def casing() -> Casing:
    learned = Casing()
    recorded = [
        ("Play the song Paper Roads", ["Paper Roads"]),
        ("I want to listen to Glass Roads", ["Glass Roads"]),
        ("Add Echo Stars to my Favorites playlist", ["Echo Stars", "Favorites"]),
        ("Set an alarm for 06:30 called Meds", ["06:30", "Meds"]),
        ("Add Piano lesson to my calendar on Jun 13 at 09:00", ["Piano lesson", "Jun 13"]),
        ("Text Dana 'Call me back'", ["Dana", "Call me back"]),
        ("Watch the video Bike Repair for beginners", ["Bike Repair for beginners"]),
        (
            "Find the price of the Orbit watch and note it down under Shopping",
            ["Orbit watch", "Shopping"],
        ),
        ("Take a photo and send it to Farah", ["Farah"]),
    ]
    for instruction, values in recorded:
        learned.learn_text(instruction)
        for value in values:
            learned.learn_value(value)
    return learned


@pytest.mark.parametrize(
    ("said", "written"),
    [
        # a word the recorded texts capitalize, and the sentence's start
        ("play paper roads", "Play Paper Roads"),
        # "roads" always ends a two-word name: the word before it is the name's too
        ("i want to listen to blue roads", "I want to listen to Blue Roads"),
        # the nearest recorded instruction has a one-word name there
        ("set an alarm for 07:30 called laundry", "Set an alarm for 07:30 called Laundry"),
        # ... opening a longer run of the task's own words; after a naming word even a word
        # the recorded texts write plain ("calendar") opens the name
        ("set an alarm for 07:30 called laundry, please",
         "Set an alarm for 07:30 called Laundry, please"),
        ("set an alarm for 07:30 called calendar time, please",
         "Set an alarm for 07:30 called Calendar time, please"),
        # a word no recorded text uses, the long form of a capitalized one; and a word where
        # the nearest recorded instruction has a name's word ("Piano lesson")
        ("add book club to my calendar on june 27 at 14:00",
         "Add Book club to my calendar on June 27 at 14:00"),
        # each part of a task is compared with the nearest recorded wording or part of one:
        # "aero" stands where "Orbit" stood, "bob" where a part of another task has "Farah"
        ("find the price of the aero kettle and text it to bob",
         "Find the price of the Aero kettle and text it to Bob"),
        # a longer run whose name is not at its start gets no capitals from the comparison
        ("could you add the track morning tide to my favorites playlist?",
         "Could you add the track morning tide to my Favorites playlist?"),
        # a quoted text starts like a sentence, and so does one set off by a pair of dashes
        ("text dana 'running late'", "Text Dana 'Running late'"),
        ("make a new alarm - laundry - going off at 15:30",
         "Make a new alarm - Laundry - going off at 15:30"),
        # a word no recorded text uses owning something is a name; a recorded one is not
        ("show me hanoi's weather", "Show me Hanoi's weather"),
        ("play the song's video", "Play the song's video"),
        # a clause after ";" is no new sentence (its first word is no name's)
        ("i love paper roads; like it", "I love Paper Roads; like it"),
        # the capitals of a name with plain words in it
        ("watch the video cat compilation for beginners",
         "Watch the video Cat Compilation for beginners"),
    ],
)  # fmt: skip
def test_a_lower_cased_task_gets_its_capitals_back(casing: Casing, said: str, written: str) -> None:
    assert casing.restore(said) == written


def test_a_task_with_capitals_is_left_as_written(casing: Casing) -> None:
    assert casing.restore("play paper Roads") == "play paper Roads"


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("wake me with an alarm named bus", "Wake me with an alarm named Bus"),
        # the language's own naming words, read in the task's language
        ("pon una alarma llamada autobús para las siete",
         "Pon una alarma llamada Autobús para las siete"),
        # a function word after one opens no name
        ("create a note titled the plan", "Create a note titled the plan"),
    ],
)  # fmt: skip
def test_a_naming_word_opens_a_name_with_nothing_recorded(said: str, written: str) -> None:
    assert Casing().restore(said) == written


def test_a_naming_word_is_no_word_of_the_name_after_it(casing: Casing) -> None:
    # "titled" stands where the nearest recorded part has the name "Meds"; it names, it is
    # not named
    assert casing.restore("create a note titled weekend") == "Create a note titled Weekend"


def test_function_words_and_words_written_plain_stay_plain(casing: Casing) -> None:
    # "the", "to" and "my" are function words; "calendar" the recorded texts write in lower
    # case; "meeting" stands where the nearest recorded task has "Piano lesson", no name
    assert casing.restore("add the meeting to my calendar") == "Add the meeting to my calendar"


def test_a_restored_task_is_known_as_one(casing: Casing) -> None:
    restored = casing.restore("play paper roads")
    assert casing.restored(restored)
    assert not casing.restored("Play Paper Roads for me")


@pytest.mark.parametrize(
    ("value", "field_values", "typed"),
    [
        # reminders were always typed in lower case: a sentence's capital given back goes
        ("Book a table", ["buy a gift", "pay rent"], "book a table"),
        # posts start with a capital and say nothing else in capitals: "Recipe" is a title's
        ("Trying a new Recipe", ["Lovely morning run", "Back from holiday"], "Trying a new recipe"),
        ("laundry", ["Gym", "Meds", "Call mom"], "Laundry"),
        # every word of every recorded value capitalized
        ("dana lee", ["Hiro Sato", "Ana Diaz"], "Dana Lee"),
        # a recorded value said again, as recorded
        ("bike repair for Beginners", ["Bike Repair for beginners", "Yoga Basics"],
         "Bike Repair for beginners"),
        # values that agree on nothing, or too few of them, leave the value as given back
        ("Book a table", ["buy a gift", "Call mom"], "Book a table"),
        ("Book a table", ["buy a gift"], "Book a table"),
    ],
)  # fmt: skip
def test_a_value_of_a_lower_cased_task_takes_its_fields_case(
    value: str, field_values: list[str], typed: str
) -> None:
    assert in_field_case(value, field_values) == typed


def test_the_nearest_recorded_wording_shares_its_content_words_not_its_function_words() -> None:
    # "save it in a note" shares more words with the task ("it", "in") but only function
    # words; "show the time in Quito" shares "time", and has a name where the task says "oslo"
    learned = Casing()
    for instruction, value in [
        ("Show the time in Quito in the Clock app", "Quito"),
        ("Save it in a note Shopping", "Shopping"),
    ]:
        learned.learn_text(instruction)
        learned.learn_value(value)
    said = "i'd like to see what time it is in oslo"
    assert learned.restore(said) == "I'd like to see what time it is in Oslo"


@pytest.mark.parametrize(
    ("said", "written"),
    [
        # "camera" stands where the nearest recorded task's product name goes on in plain
        # words ("Zephyr kettle"); "lumen", never recorded, where its name starts
        ("buy the lumen camera bag on shopmall", "Buy the Lumen camera bag on Shopmall"),
        # "zephyr" always opens a two-word product name whose second word is plain
        ("look up what the zephyr camera bag costs on shopmall",
         "Look up what the Zephyr camera bag costs on Shopmall"),
        # elsewhere the app's name keeps the capital the recordings give it
        ("use the camera to take a selfie", "Use the Camera to take a selfie"),
    ],
)  # fmt: skip
def test_a_words_place_in_a_name_outweighs_how_it_is_written_elsewhere(
    said: str, written: str
) -> None:
    learned = Casing()
    for instruction, values in [
        ("Use the Camera to take a photo", []),
        ("Buy the Zephyr kettle on ShopMall", ["Zephyr kettle"]),
        ("Look up what the Zephyr lamp costs on ShopMall", ["Zephyr lamp"]),
    ]:
        learned.learn_text(instruction)
        for value in values:
            learned.learn_value(value)
    assert learned.restore(said) == written


def test_a_word_where_a_recorded_task_quoted_its_text_opens_the_tasks_text() -> None:
    # The recorded post was quoted, its first word capitalized as a quote's is; said without
    # quotes, the task's text opens at the same place ("could you post [Lovely ...]")
    learned = Casing()
    learned.learn_text("Post 'Trying a new recipe' on Chirp")
    learned.learn_value("Trying a new recipe")
    said = "could you post lovely morning run on chirp?"
    assert learned.restore(said) == "Could you post Lovely morning run on Chirp?"
    # a quote's capital is still no evidence for the word elsewhere
    assert learned.restore("i keep trying") == "I keep trying"


def test_the_plural_of_a_name_is_no_name() -> None:
    # The recordings write the app "Clock"; "clocks", which no recording uses, is not its
    # long form (as "june" is "Jun"'s) but its plural, and a name has none
    learned = Casing()
    learned.learn_text("Show the time in Quito in the Clock app")
    learned.learn_value("Quito")
    assert learned.restore("open the clock app") == "Open the Clock app"
    assert learned.restore("add it to my clocks") == "Add it to my clocks"


#: Few words, so that wordings repeat them (a bound must count each word as often as both say it).
_WORDS = ["the", "to", "roads", "oslo", "time"]


@settings(max_examples=400)
@given(
    recorded=st.lists(
        st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8), min_size=1, max_size=12
    ),
    task=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8),
)
def test_the_nearest_wording_is_the_one_every_wording_compared_would_give(
    recorded: list[list[str]], task: list[str]
) -> None:
    # Wordings whose shared words cannot beat the best so far are never aligned: the nearest
    # found must be the one a comparison with every recorded wording gives (the first best)
    learned = Casing()
    for words in recorded:
        learned.learn_text(" ".join(words))
    stop = frozenset({"the", "to"})

    def weight(words: tuple[str, ...] | list[str]) -> int:
        return sum(1 if w in stop else CONTENT_WEIGHT for w in words)

    best, best_nearness = None, 0.0
    for wording in learned.instructions:
        blocks = SequenceMatcher(a=wording, b=task, autojunk=False).get_matching_blocks()
        shared = sum(weight(wording[i : i + size]) for i, _, size in blocks)
        nearness = 2 * shared / (weight(task) + weight(wording))
        if nearness > best_nearness:
            best, best_nearness = wording, nearness
    assert learned._nearest(task, stop) == best


def test_a_wording_learned_after_a_task_was_restored_can_be_the_nearest() -> None:
    learned = Casing()
    learned.learn_text("Save it in a note Shopping")
    learned.learn_value("Shopping")
    assert learned.restore("show the time in oslo") == "Show the time in oslo"
    learned.learn_text("Show the time in Quito in the Clock app")
    learned.learn_value("Quito")
    assert learned.restore("show the time in oslo") == "Show the time in Oslo"
