"""A value of several parts, and a read value typed once.

The logs hold lyrics posts (the first line of a song's lyrics, read in Tunes and posted on
Chirp), price notes, texts of a song's artist, plain posts and songs played. No run reads two
lines, writes a lyric into a note or texts one. "The first two lines" counts parts of the
field the lyrics posts read: the plan types that line and the one shown below it. A plan that
notes a lyric down has no reason to post it as well (before, the lyrics post's Chirp segment
rode along: the checker passed the note, the user got a post nobody asked for). And the text
that sent an artist ("Fire Hearts is by {artist}") sends the lines alone, not its donor's song
name around them.
"""

from __future__ import annotations

import pytest

from guigraph.compiler.slots import Count, counts
from guigraph.envs.simphone.generalize import Item, Kind, item_task
from guigraph.envs.simphone.pairings import PAIRINGS, READINGS, USES, pairing_template
from guigraph.language.numbers import with_digits
from tests.compiler.recorded import KBView, kb_of, run_task

RECORDED = (
    "multi.lyrics_post", "multi.price_note", "multi.song_message", "social.post", "media.play",
)  # fmt: skip
SEEDS = (4301, 4302, 4303)
OF_SONG = "of the lyrics of {song}"
INTO_NOTE = "into a new note {title}"


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("Write the first two lines of the lyrics", (Count("line", 2, frozenset({"2"})),)),
        ("Send Bo lines one and two of the lyrics", (Count("line", 2, frozenset({"1", "2"})),)),
        ("Post the 3 opening verses", (Count("verse", 3, frozenset({"3"})),)),
        ("Post the first line of the lyrics", ()),  # one line: nothing counted
        ("Set a 5 minute timer", ()),  # a singular: a quantity, no parts
        ("Start a timer for 45 minutes", ()),  # too many to be parts of one value
        ("Post lines 2 and 3", ()),  # not counted from one: which lines is not said
    ],
)
def test_the_parts_a_task_counts(instruction: str, expected: tuple[Count, ...]) -> None:
    assert counts(with_digits(instruction, "en")) == expected


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("parts"), RECORDED, 60, seed=8)


def _item(monkeypatch: pytest.MonkeyPatch, reading: str, use: str, wording: str) -> Item:
    template = pairing_template(f"test.{reading}_{use}", READINGS[reading], USES[use], (wording,))
    monkeypatch.setitem(PAIRINGS, template.template_id, template)
    return Item(f"{template.template_id}#0", Kind.PAIRING, template.template_id, wording, "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("reading", "use", "wording"),
    [
        ("first_lyric", "note", f"Write the first line {OF_SONG} {INTO_NOTE}"),
        ("first_two_lyrics", "note", f"Write the first two lines {OF_SONG} {INTO_NOTE}"),
        ("first_two_lyrics", "message", f"Text {{contact}} the first 2 lines {OF_SONG}"),
    ],
)  # fmt: skip
def test_a_lyric_is_typed_where_the_task_says_and_nowhere_else(
    kb_view: KBView, monkeypatch: pytest.MonkeyPatch, reading: str, use: str, wording: str
) -> None:
    item = _item(monkeypatch, reading, use, wording)
    solved, posted = [], []
    for seed in SEEDS:
        success, result = run_task(kb_view, item_task(item, seed), seed)
        solved.append(success)
        posted.append("Chirp" in {step.app for step in result.steps})
    # One of the three note titles is "Reading list", which no run of this small KB typed:
    # the binder keeps the name's capitalized run, "Reading", and that note fails.
    assert sum(solved) >= 2, solved
    assert not any(posted), posted


@pytest.mark.slow
def test_the_trace_baseline_reads_the_line_its_trace_read(
    kb_view: KBView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the next lines are is what the graph's states show: the trace baseline, which
    follows one recorded lyrics post as recorded, posts the one line it read."""
    wording = f"Post the first two lines {OF_SONG} on Chirp"
    item = _item(monkeypatch, "first_two_lyrics", "post", wording)
    graph = [run_task(kb_view, item_task(item, seed), seed)[0] for seed in SEEDS]
    trace = [run_task(kb_view, item_task(item, seed), seed, memory="trace")[0] for seed in SEEDS]
    assert all(graph), graph
    assert not any(trace), trace


def test_the_lines_below_a_field_are_those_of_its_column_on_a_screen_showing_as_many() -> None:
    from guigraph.compiler.fields import column_below
    from guigraph.geometry import BBox
    from guigraph.graph.records import Node
    from guigraph.types import UIElement

    lines = tuple(
        UIElement(BBox(100, 300 + 60 * i, 900, 350 + 60 * i), text=f"line {i}",
                  class_name="text", resource_id=f"tunes:id/line{i}")
        for i in range(3)
    )  # fmt: skip
    node = Node(4, "Tunes", "lyrics", "", lines, None, 1, "e")
    first, *below = node.element_keys
    assert column_below(first, {4: node}, 2) == below
    assert column_below(first, {4: node}, 3) == []  # no recorded screen shows three below it
