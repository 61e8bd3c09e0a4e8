import pytest

from guigraph.compiler.slots import (
    _beside_anchors,
    _kindred_names,
    align_value,
    clauses,
    content_word_counts,
    content_words,
    fill_slot,
    words,
)


@pytest.mark.parametrize(
    ("example", "old", "new", "expected"),
    [
        (
            "Paris",
            "Check the weather in Paris and note it",
            "Check the weather in Rome and note it",
            "Rome",
        ),
        (
            "wireless mouse",
            "Buy a wireless mouse in Shop",
            "Buy a camera bag in Shop",
            "camera bag",
        ),
        ("Paris", "What's the weather in Paris?", "What's the weather in Oslo?", "Oslo"),
        ("Alice", "Send Alice the forecast", "Send Bruno the forecast", "Bruno"),
        ("Paris", "Check the weather in Paris", "Check the weather in Paris", "Paris"),
        ("21°C", "Type 21°C into a note", "Type 18°C into a note", "18°C"),
        ("Blue River", "Play Blue River by Sable", "Play Gold Waves by Sable", "Gold Waves"),
        (
            "Zephyr camera bag",
            "Add the Zephyr camera bag to my cart",
            "Add the Zephyr kettle to my cart",
            "Zephyr kettle",
        ),
        ("Oslo", "Weather in Oslo today", "Weather in New York today", "New York"),
        ("Oslo", "What is the weather like in Oslo?", "Check the weather in Lima", "Lima"),
        (
            "Jun 22",
            "Add lunch to my calendar on Jun 22 at 07:00",
            "Schedule lunch for Jun 14, 21:00",
            "Jun 14",
        ),
    ],
)
def test_alignment_finds_the_new_value(example: str, old: str, new: str, expected: str) -> None:
    assert align_value(example, old, new) == expected


def test_value_not_in_old_instruction_has_no_alignment() -> None:
    assert align_value("Lima", "Check the weather", "Check the weather in Rome") is None


def test_the_sentence_end_anchors_a_final_value() -> None:
    old, new = "Add lunch to my calendar on Jun 22 at 07:00", "Schedule lunch for Jun 14, 21:00"
    assert align_value("07:00", old, new) == "21:00"


def test_a_stopword_is_no_anchor() -> None:
    old, new = "Email Chen with the subject Doctor visit", "Tell Chen how much the Orbit lamp costs"
    assert align_value("Doctor visit", old, new) is None


def test_unrelated_sentences_give_no_value() -> None:
    assert (
        align_value("Chen", "Send the content of my note to Chen", "Tell Greta how warm it is")
        is None
    )


def test_fill_slot_falls_back_to_known_values_then_quotes() -> None:
    old, new = "Look up Paris weather", "I'd like to know how it is outside in Tokyo today"
    assert fill_slot("Paris", old, new, known_values=["Paris", "Tokyo", "Lima"]) == "Tokyo"
    assert fill_slot("hello", "Say 'hello'", 'Write "see you soon" to Dana') == "see you soon"
    assert fill_slot("hello", "Say 'hello'", "Write something nice") is None
    # The recorded value was not quoted: a quoted text belongs to another slot.
    assert fill_slot("Paris", "Go to Paris", "Put 'Trip to Rome' in my calendar") is None
    # An apostrophe is no quote.
    assert (
        fill_slot("hi", "Reply 'hi'", "Save Bruno's last message, then reply 'Got it'") == "Got it"
    )


def test_words_strip_punctuation_but_keep_units() -> None:
    assert words("It's 21°C, costs $23.50.") == ["It's", "21°C", "costs", "$23.50"]


def test_a_new_value_of_a_known_kind_ends_at_its_head_noun() -> None:
    old, new = "Buy the Orbit camera bag on ShopMall", "Check the Nova kettle price on ShopMall"
    known = ["Orbit camera bag", "Atlas kettle", "Nova lamp"]
    assert fill_slot("Orbit camera bag", old, new, known) == "Nova kettle"
    assert fill_slot("Orbit camera bag", old, new) == "Nova kettle price"  # nothing known


def test_an_expression_is_one_value_however_its_parts_are_known() -> None:
    # "2" and "21*2" were typed before: neither cuts "94*2" apart or into the words "94 2".
    old = "Compute 21*2 with Galculator and save the result in Mousepad as ideas.txt"
    new = "Compute 94*2 with Galculator and save the result in Mousepad as diary.txt"
    assert fill_slot("21*2", old, new, ["2"]) == "94*2"
    assert fill_slot("21*2", old, new, ["21*2", "37*4"]) == "94*2"
    add = "Add 408+11 with Galculator and save the sum in Mousepad as notes.txt"
    assert fill_slot("408+11", add, add.replace("408", "789"), ["11"]) == "789+11"


def test_a_title_field_takes_the_quoted_phrase() -> None:
    old = "Add Doctor visit to my calendar on Jun 30 at 10:45"
    new = "Put 'Trip to Cairo' in my calendar for Jul 6, 12:00"
    assert fill_slot("Doctor visit", old, new) is None  # not quoted there: another slot's?
    assert fill_slot("Doctor visit", old, new, titled=True) == "Trip to Cairo"
    # A first clause that is no thing (a question word, the pronoun itself) names nothing: the
    # whole clause was typed as an event's title.
    clause = "I'd like to see what time it is in Oslo; add it to my clocks"
    assert fill_slot("Doctor visit", old, clause, titled=True) is None


def test_a_value_named_twice_is_the_one_outside_a_longer_name() -> None:
    old = "Send the content of my note Call Alice to Alice"
    new = "Send the content of my note Call Alice to Emeka"
    assert align_value("Alice", old, new) == "Emeka"


def test_a_value_opening_a_longer_changed_run_keeps_its_length() -> None:
    old = "Check the temperature in Paris and save it in a note titled Shopping"
    assert align_value("Paris", old, "Tell Jonas the temperature in Denver by message") == "Denver"


def test_a_message_keeps_its_exclamation_but_a_question_drops_its_mark() -> None:
    assert (
        align_value("Call me", "Text Bob: Call me", "Text Bob: Happy birthday!")
        == "Happy birthday!"
    )
    assert align_value("Call me", "Text Bob: Call me", "Text Bob: Well done!! ") == "Well done!!"
    old, new = "What is the weather like in Oslo?", "What is the weather like in Denver?"
    assert align_value("Oslo", old, new) == "Denver"


def test_percent_in_words_is_the_percent_sign_a_screen_shows() -> None:
    old, new = "Change brightness to 30 percent", "Change brightness to 70 percent"
    assert align_value("30%", old, new) == "70%"
    assert words("set it to 5 per cent") == ["set", "it", "to", "5%"]


def test_a_known_value_completes_a_name_cut_at_a_lower_case_word() -> None:
    old = "Create a note titled Ideas that says buy milk"
    new = "Create a note titled Trip plan that says renew passport"
    assert align_value("Ideas", old, new) == "Trip"
    assert fill_slot("Ideas", old, new, known_values=["Trip plan", "Ideas"]) == "Trip plan"


def test_a_pronoun_value_takes_the_first_clause_object() -> None:
    old = "Add Doctor visit to my calendar on Jun 30 at 10:45"
    new = "Plan a trip to Cairo on Jul 24 at 07:00: add it to the calendar, then text Hiro"
    assert fill_slot("Doctor visit", old, new, titled=True) == "Trip to Cairo"


def test_pronouns_and_name_details_are_the_task_languages() -> None:
    """The pronoun, article and detail words are the task language's: a language that lists
    none of them gets the aligned word itself, not an antecedent."""
    from dataclasses import replace

    from guigraph.language import tables
    from guigraph.language.english import ENGLISH

    old = "Add Doctor visit to my calendar on Jun 30 at 10:45"
    new = "Plan a trip to Cairo on Jul 24 at 07:00: add it to the calendar, then text Hiro"
    bare = replace(ENGLISH, pronouns=frozenset(), articles=(), detail_prepositions=())
    with tables.using(bare):
        assert fill_slot("Doctor visit", old, new, titled=True) != "Trip to Cairo"
    other = replace(ENGLISH, articles=("a",), detail_prepositions=("until",))
    with tables.using(other):  # "on Jul 24 ..." is no detail in this language
        kept = fill_slot("Doctor visit", old, new, titled=True)
    assert kept is not None and kept.startswith("Trip to Cairo on Jul 24")


def test_a_value_of_another_kind_is_refused() -> None:
    old = "Check the temperature in Oslo and save it in a note titled Work"
    new = "Plan a trip to Sydney: note the temperature under Shopping and text it to Hiro"
    assert align_value("Oslo", old, new) == "Shopping"
    cities = ["Oslo", "Sydney", "Paris"]

    def is_title(value: str) -> bool:
        return value in {"Shopping", "Work"}

    assert fill_slot("Oslo", old, new, cities, foreign=is_title) == "Sydney"
    assert fill_slot("Oslo", old, new.replace("Sydney", "Lima"), cities, foreign=is_title) is None


def test_a_known_value_is_found_in_its_possessive() -> None:
    old = "Check the temperature in Paris and save it in a note titled Work"
    new = "Save Oslo's temperature in a note called Shopping and send it to Jonas"
    assert fill_slot("Paris", old, new, known_values=["Paris", "Oslo", "Rome"]) == "Oslo"


def test_a_final_name_after_the_same_word_is_the_new_name() -> None:
    old = "Open the note Ideas and text what it says to Chen"
    new = "Check the Lumen kettle price on ShopMall and message it to Dana"
    assert align_value("Chen", old, new) == "Dana"
    # Not free text, and not without the shared word before it.
    assert align_value("Running late", "Text Bob Running late", "Text Al See you") is None
    assert align_value("Chen", old, "Tell Dana how much the Zephyr kettle costs") is None


def test_a_task_splits_into_clauses_at_its_languages_joining_words() -> None:
    task = "Open the note Ideas and text what it says to Chen"
    assert clauses(task) == ["Open the note Ideas", "text what it says to Chen"]
    assert clauses(
        "Plan a trip to Cairo on Jul 24 at 07:00: add it to the calendar, then post"
    ) == [
        "Plan a trip to Cairo on Jul 24 at 07:00",
        "add it to the calendar",
    ]
    # Spanish joins its parts with its own words.
    assert clauses("Abre la nota Ideas y envía lo que dice a Chen") == [
        "Abre la nota Ideas",
        "envía lo que dice a Chen",
    ]
    # A language without joining words splits at punctuation only.
    from guigraph.language.parse import parse
    from guigraph.language.tables import Language

    bare = Language("xx", stopwords=frozenset({"the", "to", "it"}))
    assert list(parse(task, bare).clauses) == [task]
    assert list(parse("Check Oslo; text it to Bo", bare).clauses) == ["Check Oslo", "text it to Bo"]


SONGS = ["Paper Lights", "Gold Roads", "Night Hearts", "Echo Dreams"]


def test_a_name_of_the_fields_kind_is_found_where_the_wording_does_not_align() -> None:
    old = "Like the song Paper Lights"
    assert align_value("Paper Lights", old, "I love Paper Roads; like it") is None
    assert fill_slot("Paper Lights", old, "I love Paper Roads; like it", SONGS) == "Paper Roads"
    assert fill_slot("Paper Lights", old, "Give Paper Roads a like", SONGS) == "Paper Roads"
    # A sentence's first word is capitalized anyway; it is no name.
    assert fill_slot("Paper Lights", old, "Paper roads: give them a like", SONGS) is None


def test_names_of_another_kind_or_more_than_one_candidate_give_no_value() -> None:
    old = "Like the song Paper Lights"
    # "Dana" is no word of a song title; with no song-like run there is no value.
    assert fill_slot("Paper Lights", old, "I love what Dana sings; like it", SONGS) is None
    # Two song-like names: which one is meant is not for this rule to guess.
    two = "I love Paper Roads and Gold Hearts; like it"
    assert fill_slot("Paper Lights", old, two, SONGS) is None

    # A run the caller knows as another kind is no candidate, so the other is the only one.
    def is_playlist(value: str) -> bool:
        return value == "Gold Hearts"

    assert fill_slot("Paper Lights", old, two, SONGS, foreign=is_playlist) == "Paper Roads"
    # Only a name stands in for a name.
    assert fill_slot("buy a gift", "Remind me to buy a gift", "I love Paper Roads", SONGS) is None


def test_a_name_is_not_refused_for_the_words_that_follow_it() -> None:
    old = "Wake me at 15:00 with an alarm named Bus"
    assert align_value("Bus", old, "Alarm named Laundry at 15:30, please") == "Laundry"
    # The name itself must still be about as long as the recorded one.
    long_name = "Alarm named Laundry And Dishes And Floors at 15:30"
    assert align_value("Bus", old, long_name) is None


def test_a_name_set_off_by_dashes_is_the_name() -> None:
    old = "Wake me at 15:00 with an alarm named Bus"
    new = "Make a new alarm - Laundry - going off at 15:30"
    assert align_value("Bus", old, new) is None
    assert fill_slot("Bus", old, new, ["Bus", "Meds", "Dentist"]) == "Laundry"
    # Not a name, or two of them: no value.
    assert fill_slot("Bus", old, "Make a new alarm - for laundry - at 15:30") is None
    assert fill_slot("Bus", old, "An alarm - Laundry - or - Dishes - at 15:30") is None
    # A hyphenated word is no pair of dashes.
    assert fill_slot("Bus", old, "Make a new alarm for Wi-Fi at 15:30") is None


def test_only_known_names_make_a_names_kind() -> None:
    """A city field pooled with a note's body knows products too: "Zephyr kettle" is no
    name, so "Zephyr" is no city."""
    old = "Check the weather in Paris"
    new = "How much is the Zephyr camera bag? Tell me"
    pooled = ["Paris", "Oslo", "Zephyr kettle", "Lumen camera bag"]
    assert fill_slot("Paris", old, new, pooled) is None
    assert fill_slot("Paris", old, new, [*pooled, "Zephyr Bay"]) == "Zephyr"


def test_words_describing_a_name_before_it_are_not_the_name() -> None:
    old = "Add Night Stars to my Workout playlist"
    new = "Could you add the track Glass Roads to Workout?"
    assert align_value("Night Stars", old, new) == "Glass Roads"
    # A block too long to be the value's own place stays refused.
    longer = "Could you add the lovely old track Glass Roads to Workout?"
    assert align_value("Night Stars", old, longer) is None


def test_the_words_read_as_plain_words_are_the_task_languages() -> None:
    from guigraph.compiler.slots import content_words, normalize_units
    from guigraph.language import tables
    from guigraph.language.tables import Language

    assert content_words("Save the bookmarks please") == {"save", "bookmark"}
    assert normalize_units("Set brightness to 70 percent") == "Set brightness to 70%"
    # A Spanish task is read with Spanish tables: its own empty words and "%" words.
    spanish = content_words("Guarda la nota por favor")
    assert {"guarda", "nota"} <= spanish and not {"la", "por", "favor"} & spanish
    # ... and also carries the English words its own translate to (``language.glossary``).
    assert {"save", "note"} <= spanish
    assert normalize_units("Pon el brillo al 70 por ciento") == "Pon el brillo al 70%"
    # A text that shows no registered language is read in the task's.
    german = Language("de", stopwords=frozenset({"die"}), percent_words=("prozent",))
    with tables.using(german):
        assert content_words("Speichere die Notiz") == {"speichere", "notiz"}
        assert normalize_units("Helligkeit auf 70 Prozent") == "Helligkeit auf 70%"


def test_content_word_counts_count_each_meaningful_word_as_content_words_folds_it() -> None:
    counts = content_word_counts(
        "Put 'Trip to Oslo' in the calendar and note the Oslo weather notes"
    )
    assert counts["oslo"] == 2
    assert counts["note"] == 2  # "notes" folds to "note", as content_words does
    assert "the" not in counts and "to" not in counts


def test_a_possessive_is_the_word_it_belongs_to() -> None:
    # Was "cairo'" (the plural ending folded off "cairo's"): the site in "lab-notes.io's
    # article" matched no recorded site, and a reworded article task failed on every KB.
    assert content_words("Save Cairo's temperature from lab-notes.io's article") >= {
        "cairo",
        "lab-notes.io",
    }
    assert content_word_counts("Oslo's weather, then Oslo")["oslo"] == 2


def test_a_name_ends_at_its_possessive_and_half_its_words_make_its_kind() -> None:
    old = "Post the first line of the lyrics of Paper Lights on Chirp"
    # "Roads's": the possessive ends the name, which is a song by its words.
    new = "Put the first line of Paper Roads's lyrics in a note titled Weekend"
    assert fill_slot("Paper Lights", old, new, SONGS) == "Paper Roads"
    # One word of two known ("Roads"; no song has "Glass") is enough for a song-like name.
    new = "Create a note Weekend containing the opening line of Glass Roads"
    assert fill_slot("Paper Lights", old, new, SONGS) == "Glass Roads"
    # A run with no known word at all ("Weekend") is still no song.
    assert fill_slot("Paper Lights", old, "Create a note Weekend", SONGS) is None
    # No name runs into a quoted text: half of "Farah Running" is a known contact's name.
    assert _kindred_names("Text Farah 'Running late'", ("Farah", "Greta")) == ["Farah"]


def test_only_a_date_or_time_example_gives_a_span_by_its_shape() -> None:
    # "See you at 7" is a message, not a date; "Emeka the first 2" only has its shape.
    new = "Text Emeka the first 2 lines of the lyrics of Fire Roads"
    assert fill_slot("See you at 7", "Message Alice: See you at 7", new) is None
    # A date keeps being found by its shape, unless it is of another kind.
    old, new = "Add lunch on Jun 22", "Put lunch in for Jul 7 please"
    assert fill_slot("Jun 22", old, new) == "Jul 7"
    assert fill_slot("Jun 22", old, new, foreign=lambda value: value == "Jul 7") is None


PRODUCTS = ["Zephyr headphones", "Pique kettle", "Lumen camera bag", "Nova lamp"]


def test_a_thing_of_a_known_kind_is_found_by_its_name_and_head_noun() -> None:
    old = "Add the Zephyr lamp to my cart"
    # No alignment ("the" is no anchor, "into" is not "to"), no known value named.
    new = "Put the Pique headphones into my cart"
    assert align_value("Zephyr lamp", old, new) is None
    assert fill_slot("Zephyr lamp", old, new, PRODUCTS) == "Pique headphones"
    assert fill_slot("Zephyr lamp", old, "I want the Orbit camera bag", PRODUCTS) == (
        "Orbit camera bag"
    )
    # A head noun no known thing has is no thing of the kind.
    assert fill_slot("Zephyr lamp", old, "Put the Pique song into my cart", PRODUCTS) is None


def test_a_named_thing_never_stands_for_plain_words_then_a_name() -> None:
    old = "Add the Zephyr lamp to my cart"
    song = "Could you add the track Glass Roads to Workout?"
    assert align_value("Zephyr lamp", old, song) is None
    assert align_value("Zephyr lamp", old, "Add the nova lamp to my cart") == "nova lamp"


def test_a_named_thing_never_stands_for_plain_words_alone() -> None:
    """Plain words that share a word of the recorded thing are no thing of its kind, while a
    pronoun still stands for one (``fill_slot`` finds what it refers to)."""
    old = "Purchase the Atlas camera bag"
    assert align_value("Atlas camera bag", old, "Open the camera and shoot a photo") is None
    assert align_value("Atlas camera bag", old, "Purchase the Nova camera bag") == (
        "Nova camera bag"
    )
    calendar = "Add Book club to my calendar on Jun 19 at 11:45"
    trip = "Plan a trip to Hanoi on Jul 7 at 09:00: add it to the calendar"
    assert align_value("Book club", calendar, trip) == "it"


def test_a_name_that_a_reworded_run_holds_is_taken_whole() -> None:
    """The proportional start inside a reworded run fell on the name's second word."""
    old = "Watch the video Bike Repair for beginners"
    new = "I want to watch Cat Compilation for beginners"
    assert align_value("Bike Repair for beginners", old, new) == "Cat Compilation for beginners"
    # A sentence's first word is capitalized whatever it is: no part of the name.
    timer = "Start a timer for 10 minutes"
    assert align_value("10 minutes", timer, "Count down 3 minutes for me") != (
        "Count down 3 minutes"
    )


def test_a_title_with_its_recorded_tail_keeps_its_words_in_lower_case() -> None:
    """Speech to text: no capital tells where the title starts; its unchanged tail ("for
    beginners") after unchanged words ("watch") does: as many words as it had."""
    old = "Watch the video Bike Repair for beginners"
    for new in ("i want to watch cat compilation for beginners",
                "watch the viewtube clip cat compilation for beginners"):  # fmt: skip
        assert align_value("Bike Repair for beginners", old, new) == (
            "cat compilation for beginners"
        )
    # No unchanged word before the run: its first words are no title's ("count down").
    video = "Watch the video Bike Repair in 5 minutes"
    assert align_value("Bike Repair in 5 minutes", video, "Count down 3 minutes for me") != (
        "Count down 3 minutes"
    )


def test_a_title_opening_with_a_name_drops_the_description_before_the_new_name() -> None:
    old = "Play 'Pasta Recipe in 5 minutes' on ViewTube"
    for new, title in (
        ("Play the video City Tour in 5 minutes on ViewTube", "City Tour in 5 minutes"),
        ("Play the ViewTube video Bike Repair in 5 minutes", "Bike Repair in 5 minutes"),
    ):
        assert align_value("Pasta Recipe in 5 minutes", old, new) == title
    # Only words in excess are description: a title as long as the example keeps its words.
    note = "Create a note titled Reading list that says buy a gift"
    assert align_value("buy a gift", note, "Create a note titled Work that says call Bo") == (
        "call Bo"
    )


def test_a_time_is_the_span_of_its_shape() -> None:
    old = "Add Book club to my calendar on Jun 19 at 11:45"
    new = "On Jun 19 at 06:00 I have Yoga class; put it in my calendar"
    assert align_value("11:45", old, new) == "06:00"


def test_a_name_follows_the_same_cue_word_in_another_word_order() -> None:
    old = "Set an alarm for 07:45 called Meds"
    assert fill_slot("Meds", old, "Please set an alarm called Laundry for 22:00") == "Laundry"
    # A cue said twice, or a stopword ("for"), pins nothing down.
    twice = "Please set an alarm called Laundry, called Bus, for 22:00"
    assert fill_slot("Meds", old, twice) is None
    assert fill_slot("Hiro", "Send a photo to Hiro", "Send to Ines and Bo a photo") is None


def test_what_follows_the_same_separating_mark_is_the_free_text() -> None:
    old = "Message Farah: On my way"
    # The name before the text changed too: no unchanged word touches the text.
    assert align_value("On my way", old, "Message Hiro: Call me back") == "Call me back"
    assert align_value("On my way", old, "Could you message Hiro: happy birthday!") == (
        "happy birthday!"
    )
    # Another mark, nothing shared before it, or a value that was not all that followed.
    assert align_value("On my way", old, "Message Hiro — Call me back") is None
    assert align_value("On my way", old, "Text Hiro: Call me back") is None
    assert align_value("my way", old, "Message Hiro: Call me back") is None


def test_a_quoted_text_takes_the_place_of_a_value_set_off_by_a_mark() -> None:
    # A mark and a pair of quotes both set free text off; the name before it changed too.
    old = "Message Greta: See you at 7"
    new = "Could you message Hiro 'Call me back'?"
    assert fill_slot("See you at 7", old, new) == "Call me back"
    # A recorded value neither quoted nor set off leaves the quoted text to another slot, and
    # only all that followed the mark was set off.
    assert fill_slot("See you at 7", "Send Greta a message saying See you at 7", new) is None
    assert fill_slot("you at 7", old, new) is None


def test_a_title_follows_the_same_cue_word_in_another_word_order_over_its_plain_words() -> None:
    old = "Set an alarm for 09:30 called Call mom"
    assert fill_slot("Call mom", old, "Please set an alarm called Meds for 05:00") == "Meds"
    new = "Please set an alarm called Doctor visit for 05:00"
    assert fill_slot("Call mom", old, new) == "Doctor visit"
    # A name of capitalized words takes none of the plain words after it; a title does.
    later = "Please set an alarm called Bus today for 22:00"
    assert _beside_anchors("Meds", "Set an alarm for 07:45 called Meds", later) == ["Bus"]
    assert _beside_anchors("Call mom", old, later) == ["Bus today"]


def test_a_plain_value_comes_before_the_same_meaningful_word_in_another_word_order() -> None:
    old = "Email Chen the headline of the jazz article on wikiverse.org"
    new = "Could you find the coffee article on dailyfacts.net and send its headline to Emeka?"
    assert fill_slot("jazz", old, new) == "coffee"
    assert fill_slot("jazz", old, "Find the deep sea article on dailyfacts.net") == "deep sea"
    # A name before the word, or nothing but glue: no plain value.
    assert fill_slot("jazz", old, "Open the Coffee article on dailyfacts.net") is None
    assert fill_slot("jazz", old, "Open an article on dailyfacts.net") is None


def test_a_page_name_stands_beside_the_same_word_on_the_side_free_of_glue() -> None:
    old = "Find the page budget with the search box and open it"
    new = "Use the search to find the support page and open it"
    assert fill_slot("budget", old, new) == "support"
    # As many plain words as the recorded value had, where the glue is further away; and a
    # name after a word giving it, past that word.
    old = "Log in and create the page hiking with the text Bring a map and water."
    new = "Please log in and write a page surfing whose content is Wax the board."
    assert fill_slot("hiking", old, new) == "surfing"
    old = "Look up what the Pique watch costs on ShopMall and save it in a note To do"
    new = "Record the cost of the Atlas watch in a note named Reading list"
    assert _beside_anchors("To do", old, new) == ["Reading list"]


def test_a_name_owning_the_cue_word_stands_where_the_recorded_name_came_after_it() -> None:
    old = "What is the weather like in Denver?"
    assert fill_slot("Denver", old, "Show me Rome's weather") == "Rome"
    assert fill_slot("Denver", old, "Show me New York's weather") == "New York"
    # The sentence's first word has its capital from the sentence; and the recorded name must
    # have come after the cue word.
    assert _beside_anchors("Denver", old, "Today's weather, please") == []
    before = "Denver weather: what is it like?"
    assert _beside_anchors("Denver", before, "Show me Rome's weather") == []


def test_a_pronoun_after_a_question_stands_for_the_one_name_the_question_holds() -> None:
    old = "Add Sydney to the world clock"
    assert fill_slot("Sydney", old, "What time is it in Oslo? Add it to my world clock") == "Oslo"
    clause = "I'd like to see what time it is in Oslo; add it to my clocks"
    assert fill_slot("Sydney", old, clause) == "Oslo"
    # Two names: which one "it" is, nothing tells.
    assert fill_slot("Sydney", old, "What time is it in Oslo or Lima? Add it to my clocks") is None


def test_what_a_pronoun_stands_for_is_no_value_of_another_kind() -> None:
    old = "Play 'City Tour in 5 minutes' on ViewTube"
    new = "Is Paper Waves in Tunes? Play it"
    assert fill_slot("City Tour in 5 minutes", old, new) == "Paper Waves in Tunes"
    in_another_app = lambda value: "Tunes" in value.split()  # noqa: E731
    assert fill_slot("City Tour in 5 minutes", old, new, foreign=in_another_app) is None


@pytest.mark.parametrize(
    ("example", "old", "new", "expected"),
    [
        (  # "the" and "Friday" in the new sentence are no anchors, nor a name
            "Review the quarterly numbers",
            "Log in, then append Review the quarterly numbers. at the end of the page budget",
            "Log in, then append Clean the fridge on Friday. at the end of the page kitchen",
            "Clean the fridge on Friday",
        ),
        (
            "Plan the summer party",
            "Log in and add the line Plan the summer party. to the page events",
            "Please log in and extend the page budget with the line Print the safety posters.",
            "Print the safety posters",
        ),
        (  # its start is the first capital after the unchanged words, not "Tuesday"
            "Bake at the top of the oven",
            "Log in and create the page recipes with the text Bake at the top of the oven.",
            "Log into the wiki and add a new page dancing reading Lessons are on Tuesday nights.",
            "Lessons are on Tuesday nights",
        ),
    ],
)
def test_a_value_that_is_a_sentence_runs_to_its_own_full_stop(
    example: str, old: str, new: str, expected: str
) -> None:
    assert fill_slot(example, old, new) == expected


def test_a_sentence_is_not_found_in_a_name_or_a_long_tail() -> None:
    old = "Log in and add the line Plan the summer party. to the page events"
    new = "Please log in and add Lucia Romano as the user lucia with email lucia.romano@example.org"
    assert fill_slot("Plan the summer party", old, new) != "Romano as the user lucia with email"
    assert not (fill_slot("Plan the summer party", old, new) or "").startswith("Lucia Romano")


def test_values_side_by_side_map_word_for_word_between_unchanged_words() -> None:
    old = "Log in, then register tomas (Tomas Berg, tomas.berg@example.org) in the group writers"
    new = "Log in, then register omar (Omar Haddad, omar.haddad@example.org) in the group editors"
    assert fill_slot("Tomas Berg", old, new) == "Omar Haddad"
    assert fill_slot("tomas", old, new) == "omar"


def test_an_address_and_a_new_name_are_found_whatever_the_wording() -> None:
    old = "Log in and add the user mina named Mina Okafor with the email mina@example.com"
    new = "As admin, add a user jonas called Jonas Weber (jonas.weber@example.org) to the guests"
    assert fill_slot("mina@example.com", old, new) == "jonas.weber@example.org"
    both = "Register Jonas Weber (jonas@example.org, jw@example.org)"
    assert fill_slot("mina@example.com", old, both) is None  # two addresses: no one value


def test_a_word_giving_a_name_is_not_the_name() -> None:
    old = "Log in and create the page hiking with the text Bring a map and water."
    new = "Sign in and start a new wiki page named poetry containing Read one poem every morning."
    assert fill_slot("hiking", old, new) == "poetry"
    called = "Log in, then make a new page called recipes that says Bake at 180 degrees."
    assert fill_slot("recipes", called, new) == "poetry"


def test_a_plain_value_comes_after_the_word_it_came_after() -> None:
    """The words around the value changed ("with the text" / "whose content is"), so the
    alignment has no anchor; the meaningful word before it did not."""
    old = "Log in and create the page hiking with the text Bring a map and water."
    new = "Please log in and write a page surfing whose content is Wax the board before going out."
    assert fill_slot("hiking", old, new) == "surfing"
    # Never a name.
    assert fill_slot("hiking", old, "Please log in and write a page The Sea") != "The"
    # The cue may name its thing from the other side: "the page [budget] with" / "the
    # [support] page and".
    old = "Find the page budget with the search box and open it"
    new = "Use the search to find the support page and open it"
    assert fill_slot("budget", old, new) == "support"


def test_a_name_after_any_word_that_names_it() -> None:
    old = "Log in and add the user mina named Mina Okafor with the email mina@example.com"
    new = "As admin, add a user jonas called Jonas Weber (jonas.weber@example.org) to the guests"
    assert fill_slot("Mina Okafor", old, new) == "Jonas Weber"


def test_a_thing_to_make_is_told_from_one_to_find() -> None:
    from guigraph.compiler.slots import introduced_as_new

    assert introduced_as_new("theatre", "Log in and add a new page theatre reading Hi there.")
    assert introduced_as_new("poetry", "Start a new wiki page named poetry")
    assert not introduced_as_new("Jonas", "Start a new chat with Jonas")
    assert not introduced_as_new("projects", "Add the line Hi there. to the page projects")


def test_a_word_of_the_recorded_wording_is_no_value_where_the_task_says_a_known_one() -> None:
    old = "Search the wiki for marketing and open that page"
    new = "Look up office in the wiki search and go to that page"
    assert fill_slot("marketing", old, new, ["marketing", "office", "projects"]) == "office"


def test_a_quoted_text_where_the_recorded_one_stood_is_typed_though_another_field_has_it() -> None:
    # "vina" was once typed as a username: the text field's quoted value is still "Vina".
    old = 'Enter "Agustina" into the text field and press Submit.'
    new = 'Enter "Vina" into the text field and press Submit.'
    assert fill_slot("Agustina", old, new, ["Agustina"], foreign={"Vina"}.__contains__) == "Vina"


def test_a_quoted_slot_takes_no_word_of_the_frame() -> None:
    # The recorded password was quoted; the new task quotes one text (taken by the
    # username) and says "Submit" as the button to press: no password is said.
    old = 'Enter the username "vina" and the password "US" into the text fields and press login.'
    new = 'Enter "Vina" into the text field and press Submit.'
    # The one quoted text, which binding then refuses as the username's value.
    assert fill_slot("US", old, new, ["Submit", "US"]) == "Vina"


def test_a_recorded_value_without_words_stands_nowhere_among_the_words() -> None:
    # "♥♥♥" has no word: it used to fail an IndexError that ended a whole evaluation.
    found = _beside_anchors("♥♥♥", 'Click on the "♥♥♥" button.', 'Click on the "確定" button.')
    assert found == []


@pytest.mark.parametrize(
    ("example", "old_quote", "new_quote", "expected"),
    [
        ("Sem", "Sem.", "Eu donec maecenas pretium.", "Eu donec maecenas pretium"),
        ("Eu donec maecenas pretium", "Eu donec maecenas pretium.", "Sem.", "Sem"),
        ("Sem.", "Sem.", "Eu donec maecenas pretium.", "Eu donec maecenas pretium."),
        ("Vel quis", "Vel quis", "Ac", "Ac"),
    ],
)
def test_a_quoted_text_is_filled_whole_whatever_its_length(
    example: str, old_quote: str, new_quote: str, expected: str
) -> None:
    # The run typed the quote less its end mark (the template keeps the "."): the new quote,
    # however many words, is the value less the same mark; not its first word.
    frame = 'Find the email by {} and reply to them with the text "{}".'
    old, new = frame.format("Alysia", old_quote), frame.format("Frayda", new_quote)
    assert fill_slot(example, old, new) == expected


def test_a_value_typed_as_its_quote_less_the_end_mark_is_a_quoted_slot() -> None:
    # The run typed "Sem" of the quote "Sem." (the template keeps the "."): its slot is a
    # quoted text's, so a known value the new task says outside its quotes ("Submit") is no
    # value there; the quote is, and of two quotes neither can be told.
    old = 'Type "Sem." in the box and press Submit'
    new = 'Press Submit after you type "Lorem." and "Ipsum."'
    assert fill_slot("Sem", old, new, ["Submit", "Sem"]) == "Lorem"
    two = 'Now the box wants "Lorem." or "Ipsum dolor." typed, then Submit'
    assert fill_slot("Sem", 'Type "Sem." in the box', two, ["Submit"]) is None


def test_a_recorded_value_without_words_aligns_with_nothing() -> None:
    # No word of "♥♥♥" can touch an unchanged word: the alignment finds no value ...
    assert align_value("♥♥♥", "Message Farah: ♥♥♥", "Message Hiro: Call me back") is None
    old, new = 'Click on the "♥♥♥" button.', 'Click on the "確定" button.'
    assert align_value("♥♥♥", old, new) is None
    # ... and a quoted text standing where it stood is still found as the quote it is.
    assert fill_slot("♥♥♥", old, new) == "確定"


def test_a_quote_opening_with_a_mark_the_run_did_not_type_drops_it_from_the_new_quote() -> None:
    # The run typed "Sem" of the quote "(Sem)": the new quote is typed less both marks.
    frame = 'Reply to {} with the text "{}".'
    old = frame.format("Ana", "(Sem)")
    assert fill_slot("Sem", old, frame.format("Bo", "(Lorem ipsum)")) == "Lorem ipsum"
    spanish = frame.format("Ana", "¡Hola!")
    assert fill_slot("Hola", spanish, frame.format("Bo", "¡Buenos días!")) == "Buenos días"


def test_a_task_of_plain_words_holds_no_sentence_value() -> None:
    # No capitalized word could open a sentence in the new task: there is none to find.
    old = "Log in and add the line Plan the summer party. to the page events"
    new = "log in and add the line print the posters. to the page events"
    assert fill_slot("Plan the summer party", old, new) is None


def test_a_sentence_value_is_looked_for_after_a_word_the_task_writes_otherwise() -> None:
    # "70 percent" is the word "70%", not found as written: the sentence is still looked for
    # from where the unchanged words end, never from a name before them ("Sam and add ...").
    old = "Log in and add the line Plan the summer party. to the page events"
    new = "Log in as Sam and add the line 70 percent: Print the safety posters. to the page events"
    assert fill_slot("Plan the summer party", old, new) == "Print the safety posters"


def test_a_value_whose_words_are_written_otherwise_is_cut_at_its_head_noun_in_words() -> None:
    from guigraph.compiler.slots import _cut_at_head

    assert _cut_at_head("Nova 70 percent kettle price", ("Lumen kettle",)) == "Nova 70% kettle"
    assert _cut_at_head("Nova kettle price", ("Lumen kettle",)) == "Nova kettle"


def test_a_language_without_possessive_endings_finds_no_name_owning_the_cue_word() -> None:
    from dataclasses import replace

    from guigraph.language import tables
    from guigraph.language.english import ENGLISH

    old = "What is the weather like in Denver?"
    assert _beside_anchors("Denver", old, "Show me Rome's weather") == ["Rome"]
    with tables.using(replace(ENGLISH, possessive_suffixes=())):
        assert _beside_anchors("Denver", old, "Show me Rome's weather") == []


def test_a_pronoun_after_a_one_word_clause_stands_for_nothing() -> None:
    # "Hello!" has no object for "it" to stand for, and no name.
    assert fill_slot("Sydney", "Add Sydney to the world clock", "Hello! Add it to my clock") is None


def test_a_naming_word_with_glue_after_it_gives_no_name() -> None:
    from guigraph.compiler.slots import _past_naming_word

    assert _past_naming_word("named", "hiking", "Start a page named poetry") == "poetry"
    # "the" is no name: the alignment stays as it was, for the ways after it to judge.
    assert _past_naming_word("named", "hiking", "Start a page named the poetry") == "named"
    assert _past_naming_word("named", "hiking", "Start a page named") == "named"


def test_a_value_that_now_lies_inside_a_quote_is_the_whole_quote() -> None:
    # The recording said the title unquoted; the new task quotes it, all in lower case and
    # given capitals back only where the knowledge base knew the word ("Guitar"). The quote
    # marks where the value starts and ends: not the alignment's proportions, not capitals.
    old = "Send Bruno the ViewTube video Bike Repair in 5 minutes"
    new = "Play 'Guitar lesson in 5 minutes' on Viewtube"
    assert align_value("Bike Repair in 5 minutes", old, new) == "Guitar lesson in 5 minutes"
    # A recorded value that was only part of a quote (a search for the title's first word)
    # stays a part of the new one.
    old_search = "Play 'Yoga Routine in 5 minutes' on ViewTube"
    new_search = "Play 'Cat Compilation for beginners' on ViewTube"
    assert align_value("Yoga", old_search, new_search) == "Cat"
