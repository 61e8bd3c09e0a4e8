"""The builder on real Android view trees: framework scaffolding counts little, titles and the
foreground activity tell pages apart, dialogs and sideways swipes are jumps the screens decide,
nodes are named by what they show; and on DroidBot-format SimPhone runs it keeps its quality
with and without the UI tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.data.droidbot import import_droidbot
from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.simphone.droidbot_writer import WriterSettings, write_droidbot
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.build import GraphBuilder
from guigraph.graph.judge import JumpVerdict, RuleJudge
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.screen import FRAMEWORK_WEIGHT, SCAFFOLD_WEIGHT, ScreenView
from guigraph.graph.settings import KBSettings
from guigraph.graph.truth import check
from guigraph.types import Action, Observation, ScrollDirection, UIElement

SCREEN = ScreenSize(1080, 2340)


def el(box: tuple[float, float, float, float], cls: str, rid: str = "", **kw: object) -> UIElement:
    return UIElement(BBox(*box), class_name=f"android.widget.{cls}", resource_id=rid, **kw)  # type: ignore[arg-type]


def scaffold() -> list[UIElement]:
    full = (0, 0, 1000, 1000)
    return [
        el(full, "FrameLayout"),
        el(full, "LinearLayout"),
        el(full, "FrameLayout", "android:id/content"),
        el((0, 30, 1000, 100), "Toolbar", "com.ex:id/toolbar"),
    ]


def settings_page(title: str, rows: list[str], activity: str = "com.ex.SubSettings") -> ScreenView:
    elements = [*scaffold(), el((100, 40, 600, 90), "TextView", text=title)]
    for i, label in enumerate(rows):
        top = 120 + 60 * i
        elements.append(el((0, top, 1000, top + 50), "LinearLayout", clickable=True))
        elements.append(
            el((40, top + 5, 800, top + 45), "TextView", "android:id/title", text=label)
        )
    observation = Observation(SCREEN, elements=tuple(elements), app="com.ex", activity=activity)
    return ScreenView(observation)


def with_dialog(view: ScreenView, title: str) -> ScreenView:
    dialog = [
        el((100, 400, 900, 600), "LinearLayout", "android:id/parentPanel"),
        el((120, 410, 880, 460), "TextView", "android:id/alertTitle", text=title),
        el((600, 540, 880, 590), "Button", "android:id/button1", text="OK", clickable=True),
    ]
    elements = (*(view.observation.elements or ()), *dialog)
    return ScreenView(Observation(SCREEN, elements=elements, app="com.ex", activity="com.ex.A"))


def test_framework_ids_and_containers_count_little() -> None:
    tokens = settings_page("Wi-Fi", ["Wi-Fi", "Saved networks"]).weighted_tokens()
    assert tokens["framelayout"] == SCAFFOLD_WEIGHT
    assert tokens["framelayout:android:content"] == FRAMEWORK_WEIGHT
    assert tokens["toolbar:com.ex:toolbar"] == 1.0  # the package stays in the token
    assert tokens["linearlayout:saved_networks"] == 1.0  # a row is named by the text in it
    assert tokens["title:wi-fi"] == 1.0


def test_titles_tell_framework_layout_pages_apart() -> None:
    wifi = settings_page("Wi-Fi", ["Use Wi-Fi", "Saved networks"])
    display = settings_page("Display", ["Brightness", "Dark theme"])
    assert (wifi.title(), display.title()) == ("wi-fi", "display")
    verdict = RuleJudge().judge(wifi, Action.click(500, 150), display)
    assert verdict.verdict is JumpVerdict.JUMP


def test_activity_is_a_jump_signal_and_dialogs_are_jumps() -> None:
    page = settings_page("Wi-Fi", ["Use Wi-Fi"], activity="com.ex.A")
    other = settings_page("Wi-Fi", ["Use Wi-Fi"], activity="com.ex.B")
    assert page.place != other.place
    assert RuleJudge().judge(page, Action.click(1, 1), other).verdict is JumpVerdict.JUMP
    dialog = with_dialog(page, "Forget network?")
    assert dialog.title() == "dialog:forget network?"
    assert dialog.windows() and not page.windows()
    judged = RuleJudge().judge(page, Action.long_press(500, 150), dialog)
    assert judged.verdict is JumpVerdict.JUMP and "dialog" in judged.reason


def test_sideways_swipes_are_decided_by_the_screens() -> None:
    alarms = settings_page("Clock", ["Alarm 7:00", "Alarm 8:00"])
    timer = settings_page("Clock", ["Start", "Reset", "Lap"])
    swipe = Action(Action.scroll(ScrollDirection.LEFT).type, direction=ScrollDirection.LEFT)
    assert RuleJudge().judge(alarms, swipe, timer).verdict is JumpVerdict.JUMP
    down = Action.scroll(ScrollDirection.UP)
    assert RuleJudge().judge(alarms, down, timer).verdict is JumpVerdict.IN_PAGE


def test_nodes_are_named_by_their_meaningful_elements() -> None:
    name = settings_page("Wi-Fi", ["Use Wi-Fi", "Saved networks"]).summary()
    assert name == "Wi-Fi: Use Wi-Fi, Saved networks"
    assert "framelayout" not in name and "toolbar" not in name


@pytest.fixture(scope="module")
def droidbot_logs(simphone_logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's shared recording (40 episodes, tests/conftest.py) as DroidBot runs, imported."""
    runs = write_droidbot(
        simphone_logs, tmp_path_factory.mktemp("droidbot"), WriterSettings(seed=2)
    )
    out = tmp_path_factory.mktemp("imported")
    import_droidbot(runs, out)
    return out


def build(logs: Path, kb_dir: Path, use_ui: bool) -> KnowledgeBase:
    dataset = OdysseyDataset(logs)
    kb = KnowledgeBase.create(kb_dir, KBSettings(use_ui=use_ui))
    ids = dataset.episode_ids()
    summary = GraphBuilder(kb).build([(i, lambda i=i: dataset.load(i)) for i in ids])
    assert summary.added == len(ids) and not summary.skipped
    return kb


@pytest.mark.slow
def test_droidbot_format_quality_with_the_ui_tree(droidbot_logs: Path, tmp_path: Path) -> None:
    report = check(build(droidbot_logs, tmp_path / "kb", use_ui=True), droidbot_logs)
    assert report.jump_accuracy >= 0.95 and report.purity >= 0.95 and report.ari >= 0.9


@pytest.mark.slow
def test_droidbot_format_quality_from_screenshots_only(droidbot_logs: Path, tmp_path: Path) -> None:
    report = check(build(droidbot_logs, tmp_path / "kb", use_ui=False), droidbot_logs)
    assert report.jump_accuracy >= 0.9 and report.purity >= 0.95 and report.ari >= 0.85
    assert report.nodes <= 1.5 * report.true_screens


def list_page(rows: list[str], extra: str = "Cart", title: str = "ShopMall") -> ScreenView:
    """An id-less shop page (text, role and bounds only): a title, a button, product rows."""
    elements = [
        el((0, 30, 500, 100), "TextView", text=title),
        el((800, 30, 1000, 100), "Button", text=extra, clickable=True),
    ]
    for i, label in enumerate(rows):
        top = 120 + 60 * i
        elements.append(el((0, top, 1000, top + 50), "LinearLayout", text=label, clickable=True))
    return ScreenView(Observation(SCREEN, elements=tuple(elements), app="ShopMall"))


def test_id_less_list_rows_are_content_and_controls_are_structure() -> None:
    """The products a page lists differ between visits; the page does not (on ids, the
    number in ``product_3`` is masked for the same reason)."""
    today = list_page(["Atlas backpack", "Lumen lamp", "Saved items"])
    tomorrow = list_page(["Orbit backpack"])
    assert today.structure_tokens() == tomorrow.structure_tokens()
    assert RuleJudge().judge(today, Action.scroll(ScrollDirection.UP), tomorrow).verdict is (
        JumpVerdict.IN_PAGE
    )
    # A button's label is what the button is: another button is another page.
    assert list_page(["Atlas backpack"], "Orders").structure_tokens() != (today.structure_tokens())
    # A layout framing a labelled view is a control named by it (a preference row).
    wifi = settings_page("Wi-Fi", ["Use Wi-Fi", "Saved networks"]).structure_tokens()
    assert "linearlayout:saved_networks" in wifi


def test_id_less_pages_are_told_apart_by_their_top_text_and_their_fields_names() -> None:
    """Without ids the text in the top row is the page's title: tapping a result that leads
    to a page with the same buttons is a jump; but the title is not part of the screen's
    skeleton (a page showing another city is the same page)."""
    results = list_page(["Origami, what to know"], title="origami")
    article = list_page([], title="lab-notes.io")
    assert (results.title(), article.title()) == ("origami", "lab-notes.io")
    tap = Action.click(500, 150)
    assert RuleJudge().judge(results, tap, article).verdict is JumpVerdict.JUMP
    assert list_page([], title="wikiverse.org").structure_tokens() == article.structure_tokens()
    # A field is named by what it is called, not by what is typed into it.

    def form(*names: str) -> ScreenView:
        fields = [
            el((0, 120 + 60 * i, 1000, 170 + 60 * i), "EditText", content_desc=n, text=f"typed {i}",
               editable=True, clickable=True)
            for i, n in enumerate(names)
        ]  # fmt: skip
        return ScreenView(Observation(SCREEN, elements=tuple(fields), app="Calendar"))

    event, reminder = form("Title", "Date (e.g. Jun 20)"), form("Reminder")
    assert "edittext:input:date_(e.g._jun_#)" in event.structure_tokens()
    assert event.structure_tokens() != reminder.structure_tokens()
    # With ids, the id names the field and the page's title (toolbar) counts as ever.
    assert settings_page("Wi-Fi", ["Use Wi-Fi"]).weighted_tokens()["title:wi-fi"] == 1.0
