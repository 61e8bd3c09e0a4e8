"""Fields the page gives no name, named as a person reads a form (no browser needed)."""

from __future__ import annotations

from guigraph.envs.web.dom import named_by_neighbours
from guigraph.geometry import BBox
from guigraph.types import UIElement


def words(text: str, box: BBox, role: str = "text") -> UIElement:
    return UIElement(box, text=text, class_name=role)


def field(box: BBox, name: str = "") -> UIElement:
    return UIElement(box, content_desc=name, class_name="textbox", editable=True, clickable=True)


def test_a_field_takes_the_words_left_of_it_on_its_row_else_right_above_it() -> None:
    elements = (
        words("Movie Search", BBox(10, 100, 990, 150)),
        words("Director:", BBox(50, 200, 300, 260), role="cell"),
        field(BBox(320, 190, 950, 270)),
        words("Year", BBox(50, 300, 300, 360), role="cell"),
        field(BBox(320, 290, 950, 370)),
        words("Comments", BBox(320, 400, 600, 440)),
        field(BBox(320, 450, 950, 600)),
        field(BBox(320, 700, 950, 760), name="Email"),  # its own name stays
        UIElement(BBox(50, 800, 300, 860), text="Submit", class_name="button", clickable=True),
        field(BBox(320, 800, 950, 860)),  # a button beside it is no label
    )
    named = [e.label for e in named_by_neighbours(elements) if e.editable]
    assert named == ["Director", "Year", "Comments", "Email", ""]
    # A heading titles the page, not the editor under it.
    page = (
        words("Editing", BBox(10, 100, 990, 150), role="heading"),
        field(BBox(10, 160, 990, 900)),
    )
    assert named_by_neighbours(page)[1].label == ""


def test_the_same_form_in_another_order_keeps_each_fields_name() -> None:
    def form(order: list[str]) -> dict[str, BBox]:
        elements = []
        for row, name in enumerate(order):
            y = 100 + 100 * row
            elements += [words(name, BBox(50, y, 300, y + 60)), field(BBox(320, y, 950, y + 60))]
        return {e.label: e.bbox for e in named_by_neighbours(tuple(elements)) if e.editable}

    first, second = form(["Genre", "Year"]), form(["Year", "Genre"])
    assert set(first) == set(second) == {"Genre", "Year"}
    assert first["Genre"] == second["Year"] and first["Year"] == second["Genre"]


def _node(
    tag: str, top: float, children: list[dict] | None = None, text: str = "", **kw: object
) -> dict:
    """A node of record.js's element tree (``core.getDOMInfo``)."""
    node: dict = {"tag": tag, "left": 10, "top": top, "width": 140, "height": 20, **kw}
    if text:
        node["text"] = text
    if children:
        node["children"] = children
    return node


def test_a_recorded_field_no_label_names_takes_its_own_groups_words_as_the_live_walk_does() -> None:
    """record.js's trees name a field as the live page's walk does: a caption under its box in
    the same entry names that box (read by place alone, "Genre" stands right above the year's
    box); words of a block holding other controls name none of them."""
    from guigraph.envs.web.recorded_dom import TreeReader

    search, go = _node("INPUT_text", 5, id="q"), _node("BUTTON", 5, text="Go")
    entries = [
        _node("DIV", 40, [_node("INPUT_text", 40, id="genre"), _node("DIV", 62, text="Genre")]),
        _node("DIV", 90, [_node("INPUT_text", 90, id="year"), _node("DIV", 112, text="Year")]),
        _node("DIV", 5, [_node("t", 5, text="Search the site"), search, go]),
    ]
    tree = _node("DIV", 0, entries, id="area")
    names = {e.resource_id: e.content_desc for e in TreeReader().elements(tree) if e.editable}
    assert names == {"genre": "Genre", "year": "Year", "q": ""}
