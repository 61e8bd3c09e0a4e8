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
