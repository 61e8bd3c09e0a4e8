"""A tapped value the screen writes within marks (a topic "hiking" as the tag "#hiking"): the
exported workflow taps the row's value within the same marks, never the recording's own."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from guigraph.compiler.index import GraphView
from guigraph.compiler.values import ValueIndex, named_part
from guigraph.data.odyssey import write_episode, write_split
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase
from guigraph.types import Action, ActionType, DeviceInfo, Episode, Observation, Step, UIElement
from guigraph.workflow.export import plan_for, to_workflow
from guigraph.workflow.schema import StepAction, World, placeholders

W, H = 200, 400
DEVICE = DeviceInfo("Test Phone", W, H)
#: (topic, note) of each recording.
RECORDED = (
    ("hiking", "Bring a map and water"),
    ("garden", "Water the tomatoes daily"),
    ("chess", "The club meets on Fridays"),
    ("library", "Return books within a month"),
)
COLORS = {"main": (30, 120, 200), "results": (200, 90, 30), "editor": (40, 160, 60)}


def _box(x1: float, y1: float, x2: float, y2: float) -> BBox:
    return BBox(x1 * 1000 / W, y1 * 1000 / H, x2 * 1000 / W, y2 * 1000 / H)


def _center(box: BBox) -> tuple[float, float]:
    return ((box.x1 + box.x2) / 2, (box.y1 + box.y2) / 2)


def _screen(kind: str, elements: list[UIElement]) -> Observation:
    image = Image.new("RGB", (W, H), (245, 245, 245))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, W, 40), fill=COLORS[kind])
    for element in elements:
        b = element.bbox
        draw.rectangle((b.x1 * W / 1000, b.y1 * H / 1000, b.x2 * W / 1000, b.y2 * H / 1000),
                       outline=(0, 0, 0))  # fmt: skip
    out = io.BytesIO()
    image.save(out, format="PNG")
    return Observation(ScreenSize(W, H), screenshot=out.getvalue(), elements=tuple(elements),
                       app="notes")  # fmt: skip


def _episode(number: int, topic: str, note: str) -> Episode:
    """Search the topic, tap its tag "#topic" among the results, type the note, save."""
    title = UIElement(_box(0, 0, 200, 40), text="Notes", resource_id="notes:id/title")
    search = UIElement(_box(10, 50, 190, 70), content_desc="Search", resource_id="notes:id/search",
                       clickable=True, editable=True)  # fmt: skip
    go = UIElement(_box(150, 80, 190, 100), text="Go", resource_id="notes:id/go", clickable=True)
    recent = [
        UIElement(_box(10, 120 + 30 * i, 190, 140 + 30 * i), text=name,
                  resource_id=f"notes:id/recent_{i}", clickable=True)
        for i, name in enumerate(("Projects", "Meetings", "Travel"))
    ]  # fmt: skip
    main = [title, search, go, *recent]
    heading = UIElement(_box(0, 0, 200, 40), text="Results", resource_id="notes:id/title")
    tag = UIElement(_box(10, 60, 120, 80), text=f"#{topic}", resource_id="notes:id/newtag",
                    clickable=True)  # fmt: skip
    others = [
        UIElement(_box(10, 100 + 30 * i, 190, 120 + 30 * i), text=text,
                  resource_id=f"notes:id/hint_{i}", clickable=True)
        for i, text in enumerate(("Help", "Index"))
    ]  # fmt: skip
    results = [heading, tag, *others]
    editor_title = UIElement(_box(0, 0, 200, 40), text="Editor", resource_id="notes:id/title")
    body = UIElement(_box(10, 60, 190, 200), resource_id="notes:id/body", clickable=True,
                     editable=True)  # fmt: skip
    save = UIElement(_box(10, 220, 80, 240), text="Save", resource_id="notes:id/save",
                     clickable=True)  # fmt: skip
    editor = [editor_title, body, save]
    actions = [
        ("main", main, Action.click(*_center(search.bbox))),
        ("main", main, Action.type_text(topic)),
        ("main", main, Action.click(*_center(go.bbox))),
        ("results", results, Action.click(*_center(tag.bbox))),
        ("editor", editor, Action.click(*_center(body.bbox))),
        ("editor", editor, Action.type_text(f"{note}.")),
        ("editor", editor, Action.click(*_center(save.bbox))),
        ("main", main, Action(ActionType.COMPLETE)),
    ]
    steps = tuple(
        Step(i, _screen(kind, elements), action, description=f"{kind} screen")
        for i, (kind, elements, action) in enumerate(actions)
    )
    instruction = f"Add to the topic {topic} the note {note}."
    return Episode(f"n{number:02d}", instruction, "General_Tool", DEVICE, steps, apps=("notes",))


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("marks")
    episodes = [_episode(i, topic, note) for i, (topic, note) in enumerate(RECORDED)]
    for episode in episodes:
        write_episode(root / "logs", episode)
    write_split(root / "logs", "random", [e.episode_id for e in episodes], [])
    build_from_logs(root / "logs", root / "kb")
    return root / "kb"


def test_a_label_named_within_marks_is_the_value_it_marks() -> None:
    said = "Add to the topic hiking the note Bring a map and water."
    assert named_part("#hiking", said) == ("#", "hiking", "")
    assert named_part("hiking", said) == ("", "hiking", "")
    assert named_part("#garden", said) == ("", "", "")
    assert named_part("Save", said) == ("", "", "")
    values = ValueIndex()
    for topic, _ in RECORDED:
        values.visits[5] += 1
        values.tapped[(5, f"#{topic}")] = [1, 1]
        values.by_site[(5, "click")].add(f"#{topic}")
    assert values.is_value_label(5, "#hiking", said)


@pytest.mark.parametrize(
    "topic", ["marathon", "chess"], ids=["a new value", "a value a recording tapped"]
)
def test_the_tag_of_the_searched_value_is_tapped_as_the_rows_value(kb: Path, topic: str) -> None:
    instruction = f"Add to the topic {topic} the note Stretch before running."
    with KnowledgeBase.open(kb) as opened:
        view = GraphView.load(opened)
        script = plan_for(opened, view, instruction, "notes")
        workflow = to_workflow(script, view, instruction, World(env="simphone"))
    typed = [s.value for s in workflow.steps if s.action is StepAction.TYPE]
    (searched,) = [p for p in placeholders(typed[0] or "")]
    tags = [
        s.target.text for s in workflow.steps
        if s.action is StepAction.TAP and s.target is not None and (s.target.text or "")[:1] == "#"
    ]  # fmt: skip
    # The tag is the searched value within the recorded marks: one parameter for both.
    assert tags == ["#{" + searched + "}"], workflow.steps
    parameter = next(p for p in workflow.parameters if p.name == searched)
    assert parameter.default == topic
