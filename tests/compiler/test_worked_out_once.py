"""What planning works out once per knowledge base (docs/compiler.md) is kept per world and per
task language: a cached answer is never one another world or language would give otherwise."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx

from guigraph.compiler.controls import shown_words
from guigraph.compiler.fields import offered_fields
from guigraph.compiler.index import GraphView
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.slots import align_value
from guigraph.compiler.values import ValueIndex
from guigraph.envs import conventions
from guigraph.envs.conventions import ANDROID, WEB
from guigraph.geometry import BBox
from guigraph.graph.records import ActionTemplate, Edge, Node, TextSource, Trace
from guigraph.language import tables
from guigraph.language.parse import parse
from guigraph.language.spanish import SPANISH
from guigraph.types import ActionType, UIElement

APP = "Shop"


def _tap(label: str) -> ActionTemplate:
    return ActionTemplate(ActionType.CLICK, target_label=label, target_role="button")


def _view_with_a_dismissal() -> tuple[GraphView, Trace]:
    nodes = {n: Node(n, APP, APP, "", (), None, 1, "t") for n in (1, 2)}
    edge = Edge(10, 1, 2, (_tap("Not now"), _tap("Open")), (), "Open", 1)
    trace = Trace("t", "Open the cart", "c", (APP,), (1, 2), (10,), 1)
    return GraphView(nodes, {10: edge}, nx.DiGraph(), ValueIndex(), {}, [trace]), trace


def test_a_runs_script_is_made_once_per_world_and_again_in_another() -> None:
    view, trace = _view_with_a_dismissal()
    no_popups = replace(ANDROID, dismiss_labels=frozenset())
    with conventions.using(ANDROID):
        first = view.script(trace)
        assert view.script(trace) is first  # made once
        assert [s.label for s in first] == ["Open"]  # the pop-up's "Not now" is no step
    with conventions.using(no_popups):
        assert [s.label for s in view.script(trace)] == ["Not now", "Open"]
    with conventions.using(ANDROID):
        assert [s.label for s in view.script(trace)] == ["Open"]


def test_a_states_value_fields_are_read_under_the_world_in_force() -> None:
    price = UIElement(BBox(0, 0, 100, 50), text="$12", resource_id="shop:id/price")
    node = Node(1, APP, APP, "", (price,), None, 1, "t")
    step = ScriptStep(1, _tap("Buy"), None, APP, "t")
    shown = [TextSource.screen(node.element_keys[0])]
    with conventions.using(ANDROID):
        assert offered_fields([step], {"price"}, {1: node}) == shown
        assert offered_fields([step], {"price"}, {1: node}) == shown  # the same, remembered
    # A world where a "price" is a pop-up's text: never the workflow's value there.
    popups = replace(ANDROID, transient_words=frozenset({"price"}))
    with conventions.using(popups):
        assert offered_fields([step], {"price"}, {1: node}) == []


def test_a_text_showing_no_language_is_read_in_the_tasks_each_time() -> None:
    assert parse("Blue Roads").language.code == "en"
    with tables.using(SPANISH):
        assert parse("Blue Roads").language is SPANISH
    assert parse("Blue Roads").language.code == "en"


def test_a_controls_words_are_kept_per_task_language_and_id_scheme() -> None:
    """A control's shown words are worked out once, and again for another task language (a
    Spanish task glosses "Canciones" as "song") or another world's ids (Android's name the
    field after the app; a web page's whole id is its name)."""
    songs = ActionTemplate(
        ActionType.CLICK, target_label="Canciones", target_id="music:id/play_all"
    )
    with conventions.using(ANDROID):
        assert shown_words(songs) == {"cancione", "play", "all"}
        with tables.using(SPANISH):
            assert "song" in shown_words(songs)
        assert "song" not in shown_words(songs)
    with conventions.using(WEB):
        assert "music" in shown_words(songs)


def test_a_recorded_values_alignment_is_kept_per_task_language() -> None:
    # "el" is a word that means something in English and none in Spanish: only an alignment
    # anchored on a meaningful word gives a value, so the two languages answer differently
    recorded, task = "el jazz", "el rock"
    assert align_value("jazz", recorded, task) == "rock"
    with tables.using(SPANISH):
        assert align_value("jazz", recorded, task) is None
    assert align_value("jazz", recorded, task) == "rock"
