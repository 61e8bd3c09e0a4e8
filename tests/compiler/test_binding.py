"""Binding a recorded script to a new task: which values it takes, and which it refuses."""

from __future__ import annotations

from collections.abc import Iterator

from guigraph.compiler import fillers
from guigraph.compiler.fillers import SlotRequest
from guigraph.compiler.script import Binding, Candidates, KindClues, ScriptStep, bind, slot_values
from guigraph.compiler.values import ValueIndex, type_site
from guigraph.graph.records import ActionTemplate, SlotKey, TextSource, Trace
from guigraph.types import ActionType

ALIASES = {"shopmall": "ShopMall", "viewtube": "ViewTube", "camera": "Camera"}
KINDS = KindClues(ALIASES)
#: Types the one value the instruction gives.
TYPES_FROM_TASK = ActionTemplate(
    ActionType.TYPE, text="{text1}", text_sources=(("text1", TextSource.instruction()),)
)
DONOR = "Find the price of the Lumen camera bag and note it down under Work"


def typing_step(node: int, app: str, trace_id: str, edge_id: int) -> ScriptStep:
    """A step typing one value the instruction gives."""
    return ScriptStep(node, TYPES_FROM_TASK, None, app, trace_id, edge_id=edge_id)


def search_step() -> tuple[ScriptStep, Trace]:
    step = typing_step(28, "ShopMall", "t1", 7)
    trace = Trace("t1", DONOR, "Multi_Apps", ("ShopMall",), (1, 28), (7,), 3,
                  values={SlotKey(7, "text1"): "Lumen camera bag"})  # fmt: skip
    return step, trace


def test_a_value_naming_another_app_is_not_this_apps_value() -> None:
    step, trace = search_step()
    task = "Find the price of the ViewTube video City Tour and note it down under Work"
    binding = bind([step], trace, task, ValueIndex(), kinds=KINDS)
    assert binding.unfilled == 1 and binding.steps[0].text == "Lumen camera bag"


def test_a_common_noun_that_is_also_an_app_does_not_count() -> None:
    step, trace = search_step()
    task = "Find the price of the Nova camera bag and note it down under Work"
    binding = bind([step], trace, task, ValueIndex(), kinds=KINDS)
    assert binding.unfilled == 0 and binding.steps[0].text == "Nova camera bag"


def test_a_question_is_not_the_message_when_the_task_asks_for_its_answer() -> None:
    step = typing_step(25, "Messages", "t2", 9)
    donor = "Send Bruno a message saying running late"
    trace = Trace("t2", donor, "Social_Sharing", ("Messages",), (1, 25), (9,), 3,
                  values={SlotKey(9, "text1"): "running late"})  # fmt: skip
    sent = "Send Dana a message saying who sings Gold Hearts"
    told = bind([step], trace, sent, ValueIndex(), kinds=KINDS)
    assert told.unfilled == 0 and told.steps[0].text == "who sings Gold Hearts"
    answer = "Tell Dana in a message saying who sings Gold Hearts"
    asked = bind([step], trace, answer, ValueIndex(), kinds=KINDS)
    assert asked.unfilled == 1  # the answer is wanted: the artist, read off the player
    # Which verbs want the answer is the task language's: with none, the question is typed.
    from dataclasses import replace

    from guigraph.language import tables
    from guigraph.language.english import ENGLISH

    with tables.using(replace(ENGLISH, answer_verbs=frozenset())):
        plain = bind([step], trace, answer, ValueIndex(), kinds=KINDS)
    assert plain.unfilled == 0 and plain.steps[0].text == "who sings Gold Hearts"


def test_each_slot_of_an_edge_that_types_twice_is_read_from_its_own_step() -> None:
    """A note's title and body are typed on one edge: each slot's value is the one bound in
    the step that types it, and a value read off a screen is left to acting."""
    title = TYPES_FROM_TASK
    body = ActionTemplate(
        ActionType.TYPE, text="{text2} {text3}",
        text_sources=(
            ("text2", TextSource.instruction()), ("text3", TextSource.screen("weather:id/temp"))
        ),
    )  # fmt: skip
    steps = [ScriptStep(18, t, None, "Notes", "t3", edge_id=83) for t in (title, body)]
    donor = "Check the temperature in Oslo and save it in a note titled Trip plan"
    trace = Trace("t3", donor, "Multi_Apps", ("Notes",), (18, 19), (83,), 4,
                  values={SlotKey(83, "text1"): "Trip plan", SlotKey(83, "text2"): "Oslo",
                          SlotKey(83, "text3"): "20°C"})  # fmt: skip
    task = "Check the temperature in Rome and save it in a note titled Reading list"
    binding = bind(steps, trace, task, ValueIndex())
    values, missing = slot_values(trace, binding)
    assert values == {SlotKey(83, "text1"): "Reading list", SlotKey(83, "text2"): "Rome"}
    assert missing == ()
    assert binding.steps[1].text == "Rome {text3}"


def test_a_donor_part_the_task_does_not_fill_is_dropped_beside_a_value_read_off_a_screen() -> None:
    """The weather note typed "{city} {temperature}"; a note of an event's time names no city,
    so only the value read is typed, never the donor's "Lima"."""
    temperature = TextSource.screen("weather:id/temperature")
    typing = ActionTemplate(
        ActionType.TYPE, text="{text2} {text3}",
        text_sources=(("text2", TextSource.instruction()), ("text3", temperature)),
    )  # fmt: skip
    step = ScriptStep(18, typing, None, "Notes", "t3", edge_id=11)
    donor = "Check the temperature in Lima and save it in a note titled Work"
    trace = Trace("t3", donor, "Multi_Apps", ("Weather", "Notes"), (1, 18), (11,), 5,
                  values={SlotKey(11, "text2"): "Lima"})  # fmt: skip
    task = "Check when Dentist is and save the time in a new note Work"
    binding = bind([step], trace, task, ValueIndex(), kinds=KINDS)
    assert binding.unfilled == 1
    assert binding.steps[0].text == "{text3}"
    # A task that names its city keeps both parts.
    named = bind([step], trace, donor.replace("Lima", "Oslo"), ValueIndex(), kinds=KINDS)
    assert named.steps[0].text == "Oslo {text3}"


def test_one_field_of_one_task_takes_one_value() -> None:
    """The recipient "Message Jonas ..." names aligns with "Message Farah: On my way" and not
    with "... text what it says to Hiro": the second trace types into the same field, so it
    takes the value the first found there (a shared fill cache, as retrieval keeps per task)."""
    typing = TYPES_FROM_TASK
    task = "Message Jonas the contents of the Groceries note"

    def trace_to(contact: str, donor: str, tid: str) -> tuple[ScriptStep, Trace]:
        step = ScriptStep(35, typing, None, "Messages", tid, edge_id=11)
        trace = Trace(tid, donor, "Multi_Apps", ("Messages",), (1, 35), (11,), 3,
                      values={SlotKey(11, "text1"): contact})  # fmt: skip
        return step, trace

    reading = trace_to("Hiro", "Open the note Groceries and text what it says to Hiro", "t3")
    # Alone, the trace finds no recipient: "Jonas" and "Shopping" are both names it could be.
    other = "Message Jonas the contents of my Shopping note"
    alone = bind([reading[0]], reading[1], other, ValueIndex(), cache={})
    assert alone.unfilled == 1 and alone.steps[0].text == "Hiro"
    # Where the task's one name the recorded wording does not say is left, it is the one.
    left = bind([reading[0]], reading[1], task, ValueIndex(), cache={})
    assert left.steps[0].text == "Jonas"
    fills: dict = {}
    plain = trace_to("Farah", "Message Farah: On my way", "t4")
    assert bind([plain[0]], plain[1], task, ValueIndex(), cache=fills).steps[0].text == "Jonas"
    shared = bind([reading[0]], reading[1], task, ValueIndex(), cache=fills)
    assert shared.unfilled == 0 and shared.steps[0].text == "Jonas"


def test_a_search_typed_with_part_of_a_name_types_the_new_name_whole() -> None:
    """The recorded run searched "Bike" for the video "Bike Repair for beginners" it tapped;
    a rewording the typed part does not align with types the task's whole title."""
    typing = TYPES_FROM_TASK
    title = "Bike Repair for beginners"
    tap = ActionTemplate(ActionType.CLICK, target_label=title)
    steps = [
        ScriptStep(43, typing, None, "ViewTube", "t5", edge_id=9),
        ScriptStep(70, tap, None, "ViewTube", "t5", edge_id=10),
    ]
    trace = Trace("t5", f"Watch the video {title}", "Media", ("ViewTube",), (43, 70), (9, 10), 3,
                  values={SlotKey(9, "text1"): "Bike"})  # fmt: skip
    values = ValueIndex()
    for label in (title, "Pasta Recipe for beginners"):
        values.by_site[(70, "click")].add(label)
    task = "I want to watch Cat Compilation for beginners"
    binding = bind(steps, trace, task, values)
    assert binding.unfilled == 0
    assert [s.text for s in binding.steps] == ["Cat Compilation for beginners", None]
    assert binding.steps[1].label == "Cat Compilation for beginners"
    # A title the task writes small is no name: the typed part stays unfilled, though the
    # tapped title takes it.
    lower = bind(steps, trace, "Watch the video cat tricks for beginners", values)
    assert lower.steps[1].label == "cat tricks for beginners"
    assert lower.steps[0].text == "Bike" and lower.unfilled == 1
    # A task written all in lower case (speech to text) tells no name by its case: the
    # search types the task's whole title.
    spoken = values.casing.restore("watch the video cat tricks for beginners")
    heard = bind(steps, trace, spoken, values)
    assert heard.steps[0].text == "cat tricks for beginners" and heard.unfilled == 0


def test_a_value_placed_for_one_recorded_value_does_not_stand_in_for_another() -> None:
    """The recorded run opened the note "Ideas" and texted Hiro; "Delete the note Call Alice"
    names the note, and "Call Alice" (half of it a known contact's name) is no recipient as
    well. Two note titles are too few to make notes a kind, so only the binding can tell."""
    to = ActionTemplate(ActionType.CLICK, target_label="To")
    typing = TYPES_FROM_TASK
    note = ActionTemplate(ActionType.CLICK, target_label="Ideas")
    steps = [
        ScriptStep(18, note, None, "Notes", "t6", edge_id=20),
        ScriptStep(28, to, None, "Messages", "t6", edge_id=21),
        ScriptStep(28, typing, None, "Messages", "t6", edge_id=21),
    ]
    donor = "Open the note Ideas and text what it says to Hiro"
    trace = Trace("t6", donor, "Multi_Apps", ("Notes", "Messages"), (18, 28), (20, 21), 4,
                  values={SlotKey(21, "text1"): "Hiro"})  # fmt: skip
    values = ValueIndex()
    values.by_site[(18, "click")] |= {"Ideas", "Call Alice"}
    values.by_site[type_site(28, "To")] |= {"Hiro", "Alice Wong", "Chen"}
    binding = bind(steps, trace, "Delete the note Call Alice", values, cache={})
    assert binding.steps[0].label == "Call Alice"
    assert binding.steps[2].text == "Hiro" and binding.unfilled == 1
    # A task naming both fills both.
    both = bind(steps, trace, "Open the note Call Alice and text what it says to Chen", values)
    assert (both.steps[0].label, both.steps[2].text, both.unfilled) == ("Call Alice", "Chen", 0)


def typed_once(
    node: int, app: str, edge_id: int, donor: str, category: str, value: str
) -> tuple[ScriptStep, Trace]:
    """A one-step recorded run of ``app`` that typed ``value`` for ``donor``."""
    tid = f"t{edge_id}"
    trace = Trace(tid, donor, category, (app,), (1, node), (edge_id,), 3,
                  values={SlotKey(edge_id, "text1"): value})  # fmt: skip
    return typing_step(node, app, tid, edge_id), trace


def post_step() -> tuple[ScriptStep, Trace]:
    donor = "Share a Chirp post saying Lovely morning run"
    return typed_once(61, "Chirp", 12, donor, "Social_Sharing", "Lovely morning run")


def test_a_quoted_text_no_slot_took_goes_to_the_one_free_text_slot_left_open() -> None:
    step, trace = post_step()
    binding = bind([step], trace, "Could you post 'Trying a new recipe' to Chirp?", ValueIndex())
    assert binding.unfilled == 0 and binding.steps[0].text == "Trying a new recipe"
    assert slot_values(trace, binding)[0] == {SlotKey(12, "text1"): "Trying a new recipe"}


def test_a_quoted_text_is_left_where_it_is_another_kind_or_another_parts() -> None:
    step, trace = post_step()
    # A quoted text of another case than the recorded one (a topic is no sentence).
    lower = bind([step], trace, "Could you post 'trying a new recipe' to Chirp?", ValueIndex())
    assert lower.unfilled == 1 and lower.steps[0].text == "Lovely morning run"
    # In a task of several parts, the quoted text may be another part's.
    task = "Put 'Trip to Tokyo' in my calendar for Jul 22, and post the temperature on Chirp"
    several = bind([step], trace, task, ValueIndex())
    assert several.unfilled == 1 and several.steps[0].text == "Lovely morning run"
    # Two quoted texts: which one, nothing tells.
    two = bind([step], trace, "Post 'Trying a new recipe' or 'Back home' on Chirp", ValueIndex())
    assert two.unfilled == 1


def test_a_text_set_off_by_its_one_mark_is_a_value_as_a_quoted_one_is() -> None:
    step, trace = post_step()
    binding = bind([step], trace, "Publish a post on Chirp: Trying a new recipe", ValueIndex())
    assert binding.unfilled == 0 and binding.steps[0].text == "Trying a new recipe"
    # What follows the mark refers back with a pronoun: it says what to do, it is no text.
    told = bind([step], trace, "The post on Chirp can go: Delete it", ValueIndex())
    assert told.unfilled == 1 and told.steps[0].text == "Lovely morning run"


def test_a_one_word_value_takes_no_set_off_text() -> None:
    """A timer's minutes or an article's topic is no sentence: "Set a reminder: buy a gift"
    on a KB with no reminder run types no "buy a gift" as a timer's minutes."""
    step = typing_step(14, "Clock", "t7", 21)
    trace = Trace("t7", "Set a 15 minute timer", "General_Tool", ("Clock",), (1, 14), (21,), 3,
                  values={SlotKey(21, "text1"): "15"})  # fmt: skip
    binding = bind([step], trace, "Set a reminder: buy a gift", ValueIndex())
    assert binding.unfilled == 1 and binding.steps[0].text == "15"


def alarm_label_step() -> tuple[ScriptStep, Trace]:
    donor = "Wake me at 15:00 with an alarm named Bus"
    return typed_once(35, "Clock", 30, donor, "General_Tool", "Bus")


def test_a_name_no_slot_took_goes_to_the_one_name_slot_left_open() -> None:
    """No word of the recorded wording stands beside the new name ("named Bus" / "name it
    Laundry"), but it is the one name the task says that nothing else took."""
    step, trace = alarm_label_step()
    for task in (
        "At 10:00 pm I need an alarm, name it Laundry",
        "Could you please wake me up at 22:00? Call the alarm Laundry",
    ):
        binding = bind([step], trace, task, ValueIndex())
        assert binding.steps[0].text == "Laundry", task
        # It fills the slot but weighs nothing in ranking: it explains no word of the task,
        # and the slot counts as open.
        assert "laundry" not in binding.claimed and binding.unfilled == 1


def test_a_leftover_name_is_no_app_no_placed_value_and_never_one_of_two() -> None:
    step, trace = alarm_label_step()
    # An app's name is no label.
    app = bind([step], trace, "Set a 22:00 alarm in Clock, name it after nothing", ValueIndex(),
               kinds=KindClues({"clock": "Clock"}))  # fmt: skip
    assert app.unfilled == 1 and app.steps[0].text == "Bus"
    # Two names: which one, nothing tells.
    two = bind([step], trace, "At 22:00 I need an alarm, Gym or Laundry", ValueIndex())
    assert two.unfilled == 1 and two.steps[0].text == "Bus"
    # A name the sentence opens with has the sentence's capital; quoted text is another's.
    opening = bind([step], trace, "Laundry alarm needed at 22:00 'Now'", ValueIndex())
    assert opening.unfilled == 1


def test_a_name_inside_a_value_refused_as_another_apps_is_no_leftover() -> None:
    """The alignment found "ViewTube video City Tour" and refused it (it names another app):
    "City Tour" inside it is no product for the one open slot either."""
    donor = "Find the price of the Zephyr lamp and note it down under Work"
    step, trace = typed_once(28, "ShopMall", 7, donor, "Multi_Apps", "Zephyr lamp")
    task = "Find the price of the ViewTube video City Tour and note it down under Work"
    binding = bind([step], trace, task, ValueIndex(), kinds=KINDS)
    assert binding.unfilled == 1 and binding.steps[0].text == "Zephyr lamp"
    # Without another app's name, the new product is the one name left.
    task = "Find the price of the Pique kettle and note it down under Work"
    assert bind([step], trace, task, ValueIndex(), kinds=KINDS).steps[0].text == "Pique kettle"


def test_a_sentence_to_type_keeps_its_number_words() -> None:
    """Numbers are written as screens write them ("thirty percent" is the "30%" to tap), but
    a sentence the task gives to type is typed as said."""
    from guigraph.compiler.forms import in_screen_forms

    donor = "Log in and create the page hiking with the text Bring a map and water."
    step, trace = typed_once(10, "wiki", 11, donor, "General_Tool", "Bring a map and water")
    values = ValueIndex()
    said = "Log into the wiki and add a new page theatre reading Rehearsals start at six."
    written = in_screen_forms(said, values)
    assert "at 6." in written  # the task as the screens write numbers
    binding = bind([step], trace, written, values)
    assert binding.unfilled == 0 and binding.steps[0].text == "Rehearsals start at six"


def test_a_login_made_of_the_name_does_not_hide_the_name() -> None:
    """The login "lucia" is placed; the name "Lucia Romano" is the one name left for the
    open name slot, whatever the case of the login's word."""
    donor = "Log in and add the user mina named Mina Okafor with the email mina@example.com"
    login = typing_step(6, "wiki", "t9", 20)
    name = typing_step(6, "wiki", "t9", 21)
    trace = Trace("t9", donor, "General_Tool", ("wiki",), (1, 6), (20, 21), 3,
                  values={SlotKey(20, "text1"): "mina",
                          SlotKey(21, "text1"): "Mina Okafor"})  # fmt: skip
    task = "Please log in and add Lucia Romano as the user lucia with email lucia@example.org"
    binding = bind([login, name], trace, task, ValueIndex())
    assert [s.text for s in binding.steps] == ["lucia", "Lucia Romano"]
    # A name opening a clause after a colon keeps its first word.
    task = "Log into the wiki and set up the user maya: Maya Cohen, maya@example.org"
    binding = bind([login, name], trace, task, ValueIndex())
    assert [s.text for s in binding.steps] == ["maya", "Maya Cohen"]


def test_a_value_made_of_a_word_of_another_takes_that_word_of_the_new_one() -> None:
    """The recorded run typed the login "mina" for the user "Mina Okafor": where the task
    words the login so that nothing finds it ("an account kofi for Kofi Mensah"), it is the
    new name's word, in the login's case."""
    donor = "Log in and add the user mina named Mina Okafor with the email mina@example.com"
    login = typing_step(6, "wiki", "t9", 20)
    name = typing_step(6, "wiki", "t9", 21)
    trace = Trace("t9", donor, "General_Tool", ("wiki",), (1, 6), (20, 21), 3,
                  values={SlotKey(20, "text1"): "mina",
                          SlotKey(21, "text1"): "Mina Okafor"})  # fmt: skip
    task = "Sign in and create an account kofi for Kofi Mensah, email kofi@example.org"
    binding = bind([login, name], trace, task, ValueIndex())
    assert [s.text for s in binding.steps] == ["kofi", "Kofi Mensah"]


def test_a_run_that_only_closed_a_dialog_keeps_its_one_step() -> None:
    """A pop-up's "Close" tapped on the way is an accident of that run; a run that did nothing
    else ("Close the dialog box by clicking the x") was recorded to close it."""
    from guigraph.compiler.script import ScriptStep, without_detours
    from guigraph.envs import conventions
    from guigraph.graph.records import ActionTemplate
    from guigraph.types import ActionType

    label = next(iter(conventions.active().dismiss_labels)).title()

    def tap(text: str) -> ScriptStep:
        template = ActionTemplate(ActionType.CLICK, target_label=text, target_role="button")
        return ScriptStep(1, template, None, "dialog", "t1", in_tail=True, label=text)

    assert [s.label for s in without_detours([tap(label)], {})] == [label]
    assert [s.label for s in without_detours([tap(label), tap("Save")], {})] == ["Save"]


class _Answers:
    """A slot filler answering from a table: recorded value -> the task's value."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    def prepare(self, instruction: str, donors: object) -> None:
        return None

    def fill(self, request: SlotRequest) -> str | None:
        return self.answers.get(request.recorded)


class _Ranked(_Answers):
    """A slot filler answering from a table with several values per slot, best first."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        super().__init__({k: v[0] for k, v in answers.items()})
        self.ranked = answers

    def candidates(self, request: SlotRequest) -> Iterator[tuple[str, int]]:
        yield from (
            (value, rank) for rank, value in enumerate(self.ranked.get(request.recorded, []))
        )


def _message_then_note() -> tuple[list[ScriptStep], Trace]:
    """A run that texted Hiro (the "To" field) and saved a note titled Ideas."""
    typing = TYPES_FROM_TASK
    to, title = (
        ActionTemplate(ActionType.CLICK, target_label="To"),
        ActionTemplate(ActionType.CLICK, target_label="Title"),
    )
    steps = [
        ScriptStep(28, to, None, "Messages", "t7", edge_id=30),
        ScriptStep(28, typing, None, "Messages", "t7", edge_id=30),
        ScriptStep(40, title, None, "Notes", "t7", edge_id=31),
        ScriptStep(40, typing, None, "Notes", "t7", edge_id=31),
    ]
    donor = "Text Hiro and save a note titled Ideas"
    trace = Trace("t7", donor, "Multi_Apps", ("Messages", "Notes"), (28, 40), (30, 31), 4,
                  values={SlotKey(30, "text1"): "Hiro", SlotKey(31, "text1"): "Ideas"})  # fmt: skip
    return steps, trace


def _typed(binding: Binding) -> list[str | None]:
    return [s.text for s in binding.steps if s.template.type is ActionType.TYPE]


def test_a_contested_value_goes_to_the_slot_that_found_it_not_the_one_first_in_line() -> None:
    """The recipient field took "Jonas" when the task was bound to another run (the fill
    cache); here its own answer is none, so "Jonas" is only spread to it. The note title typed
    after it is the filler's own answer "Jonas": that slot keeps it, whatever their order, and
    the recipient stays open."""
    steps, trace = _message_then_note()
    task = "Save a note titled Jonas"
    other_run = ("Farah", "Message Farah: On my way", type_site(28, "To"), False)
    with fillers.using(_Answers({"Ideas": "Jonas"})):
        binding = bind(
            steps, trace, task, ValueIndex(), cache={other_run: Candidates(("Jonas", 0))}
        )
    assert [s.text for s in binding.steps if s.template.type is ActionType.TYPE] == [
        "Hiro",
        "Jonas",
    ]
    assert binding.unfilled == 1
    # Spread alone, with no slot finding it of its own, the recipient takes it.
    with fillers.using(_Answers({})):
        spread = bind(steps, trace, task, ValueIndex(), cache={other_run: Candidates(("Jonas", 0))})
    assert [s.text for s in spread.steps if s.template.type is ActionType.TYPE] == [
        "Jonas",
        "Ideas",
    ]


class _Remembering(_Answers):
    """A filler that remembers its answers by request, as a model filler might."""

    def __init__(self, answers: dict[str, str]) -> None:
        super().__init__(answers)
        self.asked: dict[SlotRequest, str | None] = {}

    def fill(self, request: SlotRequest) -> str | None:
        if request not in self.asked:
            self.asked[request] = super().fill(request)
        return self.asked[request]


def test_a_filler_may_remember_its_answers_by_request() -> None:
    """The requests binding makes are hashable: their kind check is equal only to itself."""
    steps, trace = _message_then_note()
    filler = _Remembering({"Hiro": "Mara", "Ideas": "Jonas"})
    with fillers.using(filler):
        binding = bind(steps, trace, "Text Mara and save a note titled Jonas", ValueIndex())
    assert _typed(binding) == ["Mara", "Jonas"]
    assert len(filler.asked) == 2


def test_one_assignment_gives_the_slot_that_loses_its_best_value_its_next() -> None:
    """Both slots' best value is "Jonas"; one value goes to one of two unrelated slots, and the
    assignment with the most score in all gives the note its own best ("Jonas", found first
    by the better way) and the recipient its next ("Mara"), not nothing."""
    steps, trace = _message_then_note()
    task = "Text Mara and save a note titled Jonas"
    filler = _Ranked({"Hiro": ["Jonas", "Mara"], "Ideas": ["Jonas"]})
    with fillers.using(filler):
        binding = bind(steps, trace, task, ValueIndex())
    assert _typed(binding) == ["Mara", "Jonas"]
    assert binding.unfilled == 0
    # With no next value, the recipient stays open, as before.
    with fillers.using(_Ranked({"Hiro": ["Jonas"], "Ideas": ["Jonas"]})):
        alone = bind(steps, trace, task, ValueIndex())
    assert _typed(alone).count("Jonas") == 1


def test_a_value_the_slot_type_refuses_gives_way_to_the_next() -> None:
    """The slot's type is learned from the values recorded at its site: clock times there
    ("06:30", "21:00") refuse a name, so the next value of the right shape fills it."""
    typing = TYPES_FROM_TASK
    field_tap = ActionTemplate(ActionType.CLICK, target_label="Time")
    steps = [
        ScriptStep(12, field_tap, None, "Clock", "t3", edge_id=5),
        ScriptStep(12, typing, None, "Clock", "t3", edge_id=5),
    ]
    trace = Trace("t3", "Set an alarm for 06:30", "General_Tool", ("Clock",), (12,), (5,), 2,
                  values={SlotKey(5, "text1"): "06:30"})  # fmt: skip
    values = ValueIndex()
    values.by_site[type_site(12, "Time")] |= {"06:30", "21:00"}
    filler = _Ranked({"06:30": ["Lumen", "07:45"]})
    with fillers.using(filler):
        binding = bind(steps, trace, "Set an alarm Lumen for 07:45", values)
    assert _typed(binding) == ["07:45"]


def _searched_and_tapped(shown: str) -> tuple[list[ScriptStep], Trace, ValueIndex]:
    """A recorded run that searched the topic "hiking" and tapped it as ``shown`` ("{topic}"
    within marks or not) among other topics."""
    typing = TYPES_FROM_TASK
    tap = ActionTemplate(ActionType.CLICK, target_label=shown.format(topic="hiking"))
    steps = [
        ScriptStep(4, typing, None, "Notes", "t7", edge_id=30),
        ScriptStep(5, tap, None, "Notes", "t7", edge_id=31),
    ]
    trace = Trace("t7", "Add to the topic hiking the note Bring water.", "General_Tool",
                  ("Notes",), (4, 5), (30, 31), 3,
                  values={SlotKey(30, "text1"): "hiking"})  # fmt: skip
    values = ValueIndex()
    for topic in ("hiking", "garden", "chess"):
        label = shown.format(topic=topic)
        values.visits[5] += 1
        values.tapped[(5, label)] = [1, 1]
        values.by_site[(5, "click")].add(label)
    return steps, trace, values


def test_a_value_typed_then_tapped_within_marks_is_one_open_value() -> None:
    """The topic a task does not give, typed into a search and then tapped as its tag
    "#hiking", is one value the binding lacks; tapped as a plain result among those found it
    is used twice (searched, then picked), and weighs twice."""
    task = "Add the note Stretch before running."
    steps, trace, values = _searched_and_tapped("#{topic}")
    marked = bind(steps, trace, task, values, cache={})
    assert marked.steps[1].open_value and marked.unfilled == 1
    steps, trace, values = _searched_and_tapped("{topic}")
    plain = bind(steps, trace, task, values, cache={})
    assert plain.steps[1].open_value and plain.unfilled == 2
