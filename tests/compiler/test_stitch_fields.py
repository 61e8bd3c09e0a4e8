"""What a task asks for, and the screen fields a stitched segment can carry to the next app."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx

from guigraph.compiler.fields import (
    FieldKnowledge,
    asked_fields,
    carry_asked_fields,
    learn_field_words,
    offered_fields,
    until_shown,
)
from guigraph.compiler.index import GraphView
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.stitch import source_app
from guigraph.graph.records import ActionTemplate, Edge, Node, SourceKind, TextSource, Trace
from guigraph.types import UIElement

ALIASES = {"messages": "Messages", "message": "Messages", "tunes": "Tunes"}


def ui(*fields: dict[str, object]) -> tuple[UIElement, ...]:
    """Elements as a node keeps them, from their stored fields (a box anywhere)."""
    return tuple(UIElement.from_dict({"bbox": [0, 0, 100, 100], **f}) for f in fields)


def player() -> Node:
    elements = [
        {"resource_id": "music:id/title", "text": "Now playing"},
        {"resource_id": "music:id/song_title", "text": "Gold Hearts"},
        {"resource_id": "music:id/artist", "text": "Oscar Lune"},
        {"resource_id": "music:id/like", "text": "Like", "clickable": True},
        {"resource_id": "music:id/dialog_message", "text": "Rate Tunes?"},
    ]
    return Node(
        node_id=42, app="Tunes", description="Tunes: Now playing", state_text="",
        screenshot_path=None, visits=1, first_episode="e1", example_elements=ui(*elements),
    )  # fmt: skip


def test_a_question_word_asks_for_the_fields_that_answer_it() -> None:
    assert {"artist", "author"} <= asked_fields("Tell Dana who sings Gold Hearts", ALIASES)
    assert "price" in asked_fields("Tell Bo how much the Nova lamp costs", ALIASES)
    # A word that names an app says where to go, not what to read.
    assert "message" not in asked_fields("Tell Bo the temperature by message", ALIASES)


def test_a_segment_offers_the_asked_field_it_passes_but_not_headers_buttons_or_popups() -> None:
    step = ScriptStep(
        41, ActionTemplate(type="click", target_label="Gold Hearts"), 42, "Tunes", "t"
    )
    nodes = {42: player()}

    def offered(instruction: str) -> list[str]:
        return offered_fields([step], asked_fields(instruction, ALIASES), nodes)

    assert offered("Tell Dana who sings Gold Hearts") == [TextSource.screen("music:id/artist")]
    assert offered("Message Dana the song title") == [TextSource.screen("music:id/song_title")]
    # "title" alone is a screen's header; "like" is a button; a pop-up's message is no value.
    assert offered("Message Dana: like it, rate it, dialog") == []


def shop_node(node_id: int, *rids: str) -> Node:
    elements = [{"resource_id": rid, "text": "x"} for rid in rids]
    return Node(
        node_id=node_id, app="ShopMall", description="ShopMall", state_text="",
        screenshot_path=None, visits=1, first_episode="e1", example_elements=ui(*elements),
    )  # fmt: skip


def test_a_segment_read_only_for_its_field_stops_where_the_field_is_shown() -> None:
    """The donor bought the product; a task that asks its price stops on the product page."""
    nodes = {
        4: shop_node(4, "shop:id/search"),
        5: shop_node(5, "shop:id/product_1"),
        6: shop_node(6, "shop:id/price", "shop:id/add_to_cart"),
        9: shop_node(9, "shop:id/total"),
    }

    def tap(node: int, label: str, to: int | None) -> ScriptStep:
        return ScriptStep(
            node, ActionTemplate(type="click", target_label=label), to, "ShopMall", "t"
        )

    typing = ScriptStep(
        4, ActionTemplate(type="type", text="{text1}"), None, "ShopMall", "t",
        bound_values={"text1": "Atlas lamp"},
    )  # fmt: skip
    steps = [typing, tap(4, "Go", 5), tap(5, "Atlas lamp", 6), tap(6, "Add to cart", None),
             tap(6, "Cart", 9), tap(9, "Checkout", 10)]  # fmt: skip
    asked = asked_fields("Tell Hiro how much the Atlas lamp costs", ALIASES)
    cut = until_shown(steps, offered_fields(steps, asked, nodes), nodes)
    assert [s.template.target_label for s in cut] == ["", "Go", "Atlas lamp"]
    assert offered_fields(cut, asked, nodes) == [TextSource.screen("shop:id/price")]


def test_an_id_less_field_is_named_by_the_instructions_that_read_it() -> None:
    """Without ids the product page's "$12.99" is a price because the runs that typed it
    said "price"; each run's own product name is not the field's name."""
    key = "@shopmall/textview:9$.#0"
    note = ActionTemplate(
        type="type", text="{text1}", text_sources=(("text1", TextSource.screen(key)),)
    )
    edge = Edge(7, 1, 2, (note,), (), "", 2)
    traces = [
        Trace(
            f"e{i}",
            f"Check the {name} price on ShopMall and note it",
            "Multi_Apps",
            ("ShopMall", "Notes"),
            (1, 2),
            (7,),
            4,
        )
        for i, name in enumerate(("Nova lamp", "Atlas kettle", "Orbit bag"))
    ]
    # Tasks that write notes without reading a price: "note" is what they do, not the field.
    others = [
        Trace(f"n{i}", f"Write a note called {title}", "Notes", ("Notes",), (2,), (), 2)
        for i, title in enumerate(("Groceries", "Ideas", "Trip", "Books"))
    ]
    learned = learn_field_words([*traces, *others], {7: edge})
    assert {"price", "check"} <= learned[key]
    assert not {"nova", "atlas", "orbit"} & learned[key]
    assert "note" not in learned[key]  # said by 7 instructions, only 3 of them read a price
    assert "note" in learn_field_words(traces, {7: edge})[key]  # said only by those that do
    # A name nearly every reading run says: "check" is said by two of three here.
    traces[2] = replace(traces[2], instruction="Note the price of the Orbit bag")
    strict = learn_field_words([*traces, *others], {7: edge}, share=0.8)
    assert strict[key] == {"price"}
    page = Node(
        node_id=6, app="ShopMall", description="", state_text="", screenshot_path=None,
        visits=1, first_episode="e1",
        example_elements=ui({"class_name": "android.widget.TextView", "text": "$12.99"},
                            {"class_name": "android.widget.Button", "text": "Buy",
                             "clickable": True}),
    )  # fmt: skip
    step = ScriptStep(
        5, ActionTemplate(type="click", target_label="Atlas lamp"), 6, "ShopMall", "t"
    )
    asked = asked_fields("Tell Hiro the Atlas lamp price", ALIASES)
    assert offered_fields([step], asked, {6: page}, learned) == [TextSource.screen(key)]
    assert offered_fields([step], asked, {6: page}) == []  # nothing names the field


def test_text_naming_a_field_read_in_another_app_describes_a_value_and_is_none() -> None:
    from guigraph.compiler.fields import read_field_apps
    from guigraph.compiler.script import describes_field

    typed = ActionTemplate(
        type="type",
        text="{text1}",
        text_sources=(("text1", TextSource.screen("weather:id/temperature")),),
    )
    edge = Edge(7, 1, 2, (typed,), (), "", 2)
    trace = Trace("e1", "Note the temperature in Oslo", "Multi_Apps", ("Weather", "Notes"),
                  (1, 2), (7,), 4)  # fmt: skip
    read = read_field_apps([trace], {7: edge}, lambda source: "weather")
    assert read == {"temperature": frozenset({"weather"})}
    assert describes_field("the temperature in Hanoi", "Chirp", read)
    # In the app that shows the field, and for text naming no read field, it is a value.
    assert not describes_field("temperature", "Weather", read)
    assert not describes_field("Lovely morning run", "Chirp", read)


def test_a_field_shown_beside_the_one_the_donor_carried_is_not_carried_instead() -> None:
    from guigraph.compiler.stitch import _adds_to, _Context

    def context(instruction: str) -> _Context:
        return replace(_Context.of(instruction, knowledge(), {}, True), wanted=set())

    lyrics = context("Text Bo the first line of the lyrics of Gold Hearts")
    screen = TextSource.screen
    assert not _adds_to(screen("music:id/lyric_3"), [screen("music:id/lyric_0")], lyrics)
    when = context("Write the time of my Dentist event in a note")
    carried = [screen("calendar:id/event_time")]
    assert not _adds_to(screen("calendar:id/event_date"), carried, when)
    # A field answering what the carried one does not is still offered.
    assert _adds_to(
        screen("music:id/artist"),
        [screen("music:id/song_title")],
        context("Tell Bo who sings Gold Hearts"),
    )


def knowledge() -> GraphView:
    """A knowledge base of no recorded run, naming the apps ``ALIASES`` names."""
    from guigraph.compiler.values import ValueIndex

    return GraphView({}, {}, nx.DiGraph(), ValueIndex(), ALIASES)


def lyrics_node() -> Node:
    elements = [
        {"resource_id": "music:id/title", "text": "Lyrics"},
        {"resource_id": "music:id/lyric_0", "text": "Slow sky again"},
        {"resource_id": "music:id/lyric_1", "text": "Under we on"},
    ]
    return Node(
        node_id=55, app="Tunes", description="Tunes: Lyrics", state_text="",
        screenshot_path=None, visits=1, first_episode="e1", example_elements=ui(*elements),
    )  # fmt: skip


def test_a_trace_carries_the_field_the_task_asks_for_where_it_passes_one() -> None:
    """The donor posted a song's first lyric line; "who sings" asks for the artist the player
    showed on the way. A task asking for the first line keeps the donor's field, known by
    what the recorded tasks reading it called it."""
    lyric = TextSource.screen("music:id/lyric_0")
    steps = [
        ScriptStep(41, ActionTemplate(type="click", target_label="Gold Hearts"), 42, "Tunes", "t"),
        ScriptStep(42, ActionTemplate(type="click", target_label="Lyrics"), 55, "Tunes", "t"),
        ScriptStep(9, ActionTemplate(type="type", text="{text1}"), None, "Chirp", "t",
                   screen_slots=(("text1", lyric),)),
    ]  # fmt: skip
    nodes = {42: player(), 55: lyrics_node()}
    said = {"music:id/lyric_0": frozenset({"first", "line", "lyric"})}

    def carried(instruction: str) -> TextSource:
        asked = asked_fields(instruction, ALIASES)
        result = carry_asked_fields(
            steps, asked, lambda s: "tunes", FieldKnowledge(nodes, said=said)
        )
        return result[-1].screen_slots[0][1]

    assert carried("Post on Chirp who sings Gold Hearts") == TextSource.screen("music:id/artist")
    assert carried("Look up the artist of Gold Hearts and share the name") == TextSource.screen(
        "music:id/artist"
    )
    assert carried("Chirp the first line of the song Gold Hearts") == lyric
    # Nothing shown answers the task: the donor's field stays.
    assert carried("Share Gold Hearts on Chirp") == lyric


def test_a_segment_claims_the_words_of_the_donor_clause_that_holds_its_value() -> None:
    """The messaging part of "Open the note Ideas and text what it says to Chen" is what
    "text ... to Chen" said: a new task saying "text" asks for that part."""
    from guigraph.compiler.stitch import _context_words

    donor = "Open the note Ideas and text what it says to Chen"
    trace = Trace("t", donor, "multi", ("Notes", "Messages"), (1, 2), (7,), 4)
    tap_chen = ScriptStep(
        25, ActionTemplate(type="click", target_label="Chen"), 26, "Messages", "t"
    )
    tap_note = ScriptStep(16, ActionTemplate(type="click", target_label="Ideas"), 17, "Notes", "t")
    assert {"text", "says", "chen"} <= _context_words(donor, [tap_chen], trace)
    assert "says" not in _context_words(donor, [tap_note], trace)
    # A donor of one clause claims only the words near its value.
    single = "Send Chen a long text about what the weather says"
    assert "weather" not in _context_words(single, [tap_chen], trace)


def test_an_id_less_field_is_offered_only_on_the_states_runs_read_it_on() -> None:
    """Without ids, the player's artist line and the lyrics' first line share one key; the
    lyrics posts read it on the lyrics screen, so the player does not offer it."""
    from guigraph.compiler.fields import learn_read_states
    from guigraph.graph.records import SlotKey

    key = "@tunes/textview:a#2"

    def screen(node_id: int, text: str) -> Node:
        node = Node(
            node_id=node_id, app="Tunes", description="Tunes", state_text="",
            screenshot_path=None, visits=1, first_episode="e1",
            example_elements=ui({"text": text}),
        )  # fmt: skip
        object.__setattr__(node, "element_keys", (key,))  # the key both screens share
        return node

    nodes = {42: screen(42, "Oscar Lune"), 55: screen(55, "Slow sky again")}
    lyrics = ActionTemplate(type="click", target_label="Lyrics")
    post = ActionTemplate(
        type="type", text="{text1}", text_sources=(("text1", TextSource.screen(key)),)
    )
    edges = {
        1: Edge(1, 42, 55, (lyrics,), (), "Lyrics", 1),
        2: Edge(2, 55, 9, (ActionTemplate(type="press_home"),), (), "", 1),
    }
    trace = Trace(
        "t", "Post the first line of the lyrics of Gold Hearts", "multi", ("Tunes", "Chirp"),
        (42, 55, 9), (1, 2), 3, tail=(post,), values={SlotKey(None, "text1"): "Slow sky"},
    )  # fmt: skip
    read_at = learn_read_states([trace], edges, nodes)
    assert read_at == {key: frozenset({55})}
    learned = {key: frozenset({"first", "line", "lyric"})}
    asked = asked_fields("Text Bo the first line of the lyrics of Gold Hearts", ALIASES)
    to_player = ScriptStep(41, ActionTemplate(type="click", target_label="Gold Hearts"), 42,
                           "Tunes", "t")  # fmt: skip
    to_lyrics = ScriptStep(42, lyrics, 55, "Tunes", "t")
    assert offered_fields([to_player], asked, nodes, learned, read_at) == []
    assert offered_fields([to_player, to_lyrics], asked, nodes, learned, read_at) == [
        TextSource.screen(key)
    ]


def test_a_field_asked_only_by_a_question_word_is_not_carried_over_one_the_task_names() -> None:
    """ "Check when Dentist is and save the time": "when" asks for the time or the date, the
    task says "time", and the donor read the time; the date beside it is not carried."""
    from guigraph.compiler.stitch import _adds_to, _Context

    time, date = (
        TextSource.screen("calendar:id/event_time"),
        TextSource.screen("calendar:id/event_date"),
    )

    def adds(instruction: str, carried: list[TextSource]) -> bool:
        return _adds_to(date, carried, _Context.of(instruction, knowledge(), {}, True))

    assert not adds("Check when Dentist is and save the time in a new note Work", [time])
    assert adds("Check when Dentist is and save the date in a new note Work", [time])
    # Nothing carried answers the task yet: the question word is enough.
    lyric = TextSource.screen("music:id/lyric_0")
    assert adds("Tell Bo when Dentist is", [lyric])


def test_an_id_less_field_belongs_to_the_app_its_key_names() -> None:
    """A note's body read without ids is keyed ``@notes/edittext:a#1``; the recorded screens
    may show it under another rank, and the stitch must still see that Notes produces it."""
    body = TextSource(SourceKind.SCREEN, "@notes/edittext:a#1")
    assert source_app(body, {}) == "notes"
    assert source_app(body, {"notes": "Notes"}) == "notes"
    assert source_app(body, {"@notes/edittext:a#1": "Messages"}) == "messages"  # as recorded
