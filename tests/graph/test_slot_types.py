"""Slot types learned from recorded values, stored by the build, checked case aside."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from guigraph.errors import KnowledgeBaseError
from guigraph.graph import slot_types
from guigraph.graph.kb import DB_FILE, KnowledgeBase
from guigraph.graph.slot_types import Shape, SlotType, learn, shape_of


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        ("07:30", Shape.TIME), ("9.15 pm", Shape.TIME), ("$12.50", Shape.PRICE),
        ("30%", Shape.NUMBER), ("3", Shape.NUMBER), ("Jun 27", Shape.DATE),
        ("27 de junio", Shape.DATE), ("Paper Roads", Shape.NAME), ("Dana", Shape.NAME),
        ("buy a gift", Shape.TEXT), ("Lovely morning run", Shape.TEXT),
    ],
)  # fmt: skip
def test_a_value_has_the_shape_its_characters_show(value: str, shape: Shape) -> None:
    assert shape_of(value) is shape


def test_a_slot_takes_the_shape_most_of_its_values_have() -> None:
    times = learn(["06:30", "21:00", "07:45"])
    assert times is not None and times.shape is Shape.TIME and times.vocabulary[0] == "06:30"
    names = learn(["Paper Roads", "Glass Skies", "Paper Roads"])
    assert names is not None and (names.shape, names.min_words, names.max_words) == (
        Shape.NAME, 2, 2,
    )  # fmt: skip
    assert names.vocabulary[0] == "Paper Roads" and names.count == 3
    mixed = learn(["07:30", "Meds", "buy a gift", "Jun 3"])
    assert mixed is not None and mixed.shape is Shape.TEXT
    assert learn(["", "  "]) is None


def test_a_type_accepts_values_of_its_kind_case_aside() -> None:
    name = SlotType(Shape.NAME, 1, 2, ("Meds", "Laundry"))
    assert name.accepts("laundry") and name.accepts("Blue Stars") and name.accepts("MEDS")
    assert not name.accepts("07:30")  # a time is no name
    assert not name.accepts("the whole of a long sentence said")  # far longer than names
    time = SlotType(Shape.TIME, 1, 1, ("06:30",))
    assert time.accepts("21:15") and not time.accepts("laundry")
    assert name.describe() == "a name of 1 to 2 words, like 'Meds', 'Laundry'"


def test_the_build_stores_each_slot_type_and_the_kb_reads_them(simphone_kb: Path) -> None:
    with KnowledgeBase.open(simphone_kb) as kb:
        traces = kb.traces()
        stored = kb.conn.execute(
            "SELECT value FROM settings WHERE key = ?", (slot_types.SETTING,)
        ).fetchone()
        assert stored is not None, "the build stored no slot types"
        types, count = slot_types.decode(stored[0], "kb")
        assert count == len(traces)
        assert types == kb.slot_types()
        # every slot any trace gave a value to has a type, and its values are its vocabulary
        keys = {key for trace in traces for key, value in trace.values.items() if value.strip()}
        assert keys == set(types)
        shapes = {kind.shape for kind in types.values()}
        assert {Shape.TIME, Shape.NAME} <= shapes


def test_types_of_fewer_traces_are_learned_again(tmp_path: Path, simphone_kb: Path) -> None:
    import shutil

    shutil.copytree(simphone_kb, tmp_path / "kb")
    conn = sqlite3.connect(tmp_path / "kb" / DB_FILE)
    with conn:  # as a build cut short leaves it: types of one trace only
        conn.execute(
            "UPDATE settings SET value = ? WHERE key = ?",
            (slot_types.encode({}, 1), slot_types.SETTING),
        )
    conn.close()
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert kb.slot_types() == slot_types.learn_slot_types(kb.traces())


def test_a_stored_record_of_another_version_is_a_clear_error() -> None:
    with pytest.raises(KnowledgeBaseError, match=r"kb.sqlite: field 'slot_types.schema_version'"):
        slot_types.decode('{"schema_version": 99, "traces": 1, "types": {}}', "kb.sqlite")
    with pytest.raises(KnowledgeBaseError, match="not a slot-type record"):
        slot_types.decode('{"schema_version": 1}', "kb.sqlite")
