"""Nameless fields named as a screen reader names them: by the label that labels them, by
their combo box's label, else by the label beside them."""

from __future__ import annotations

from guigraph.envs.desktop.atspi import Node
from guigraph.envs.desktop.naming import LABELLED_BY, label_beside, labelled_by, name_fields
from guigraph.envs.desktop.tree import to_elements
from guigraph.geometry import ScreenSize


def _node(role: str, name: str, box: tuple[int, int, int, int], *states: str) -> Node:
    return Node(role, name, "", "", frozenset({"showing", *states}), box, 1)


def test_a_field_is_named_by_its_label_or_its_combo_boxs() -> None:
    # Mousepad's Find and Replace: each label is "label-for" a combo box whose entry holds
    # the text; the relation set of the box says "labelled-by" the label.
    found = {
        "/l1": (_node("label", "Search for:", (10, 10, 90, 20)), []),
        "/c1": (_node("combo box", "", (110, 10, 300, 24)), ["/t1"]),
        "/t1": (_node("text", "", (112, 12, 280, 20), "editable", "single_line"), []),
        "/l2": (_node("label", "Replace with:", (10, 40, 90, 20)), []),
        "/c2": (_node("combo box", "", (110, 40, 300, 24)), ["/t2"]),
        "/t2": (_node("text", "", (112, 42, 280, 20), "editable", "single_line"), []),
    }
    relations = {
        "/c1": labelled_by([(1, []), (LABELLED_BY, [(":1.2", "/l1")])]),
        "/c2": labelled_by([(LABELLED_BY, [(":1.2", "/l2")])]),
    }
    named = name_fields(found, relations)
    assert named["/c2"][0].name == "Replace with:" and named["/t2"][0].name == "Replace with:"
    assert named["/t1"][0].name == "Search for:"
    elements = to_elements([n for n, _ in named.values()], ScreenSize(1280, 800), "mousepad")
    fields = [e for e in elements if e.editable]
    # Empty, the fields are told apart by their labels, whatever is typed into the other.
    assert [f.label for f in fields] == ["Search for:", "Replace with:"]
    assert [f.text for f in fields] == ["", ""]


def test_without_a_relation_the_label_beside_or_above_names_a_one_line_field() -> None:
    name = _node("label", "Name:", (10, 100, 60, 20))
    folder = _node("label", "Save in folder:", (10, 200, 120, 20))
    above = _node("label", "Comment", (200, 260, 80, 18))
    field = _node("text", "", (80, 98, 300, 24), "editable", "single_line")
    assert label_beside(field, [name, folder, above]) == "Name:"
    under = _node("text", "", (200, 280, 300, 24), "editable", "single_line")
    assert label_beside(under, [name, folder, above]) == "Comment"
    far = _node("text", "", (900, 500, 100, 24), "editable")
    assert label_beside(far, [name, folder, above]) == ""
    # A document is not named by the banner above it.
    banner = {"/b": (_node("label", "Warning: root", (0, 60, 800, 20)), [])}
    document = {"/d": (_node("text", "", (0, 82, 800, 600), "editable", "multi_line"), [])}
    assert name_fields({**banner, **document}, {})["/d"][0].name == ""
