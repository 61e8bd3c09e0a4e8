"""HTML building blocks: JSON in script blocks, page names, action drawings."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from guigraph.htmlsafe import script_json, text
from guigraph.report.overlay import Canvas, describe
from guigraph.report.viewer import page_name

HOSTILE = "<!--<script>alert(1)</script></script>&amp;\u2028"


@given(
    st.recursive(st.text() | st.integers(), lambda c: st.lists(c) | st.dictionaries(st.text(), c))
)
def test_script_json_round_trips_and_holds_no_markup(value: object) -> None:
    encoded = script_json(value)
    assert json.loads(encoded) == value
    assert not re.search(r"[<>&\u2028\u2029]", encoded)


def test_hostile_text_is_inert() -> None:
    assert "<" not in script_json({"instruction": HOSTILE})
    assert text(HOSTILE).startswith("&lt;!--&lt;script&gt;")
    assert text('" onload="x') == "&quot; onload=&quot;x"


def test_page_names_stay_in_the_folder_and_differ() -> None:
    assert page_name("0999598944204512") == "0999598944204512.html"
    names = {page_name(x) for x in ("../etc/passwd", "a/b", "a_b", "a b", "", ".hidden")}
    assert len(names) == 6
    assert all("/" not in n and not n.startswith(".") for n in names)


def test_actions_in_words_and_drawn() -> None:
    assert describe({"type": "click", "point": [120.4, 540]}) == "tap (120, 540)"
    assert describe({"type": "type", "text": "milk"}) == "type 'milk'"
    assert describe({"type": "scroll", "direction": "up"}) == "swipe up"
    assert describe(None) == "—"
    canvas = Canvas(200, 400)
    canvas.action({"type": "click", "point": [500, 500]}, "red")
    canvas.action({"type": "scroll", "direction": "left"}, "red")
    canvas.action({"type": "type", "text": HOSTILE}, "red")
    canvas.action({"type": "click", "point": ["x", None]}, "red")  # a bad point draws nothing
    drawn = canvas.svg()
    assert 'cx="100.0" cy="200.0"' in drawn and 'class="swipe"' in drawn
    assert "<script" not in drawn and "&lt;!--" in drawn
