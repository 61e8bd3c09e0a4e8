"""The report, the trajectory viewer and the KB explorer in headless Chromium (1400x1000).

Each page must open with no console error, show what it is for (the steps, every node inside
the window) and show hostile text as text. Screenshots go to the test's tmp folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.graph.build import GraphBuilder
from guigraph.graph.kb import KnowledgeBase
from tests.graph.conftest import sources
from tests.graph.world import search_episode, shop_episode
from tests.report.conftest import open_page, shot
from tests.report.runs import HOSTILE, PLAN, make_run

pytestmark = pytest.mark.slow  # a browser per module

runner = CliRunner()
SCRIPT_TEXT = "<!--<script>alert(1)</script>"


def _run(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def sim_kb(simphone_kb: Path) -> Path:
    """The run's shared SimPhone KB (tests/conftest.py; 32 episodes built, 62 states)."""
    return simphone_kb


def _inside(rect: dict[str, float], box: dict[str, float]) -> bool:
    return (
        rect["left"] >= box["left"] - 0.5
        and rect["top"] >= box["top"] - 0.5
        and rect["right"] <= box["right"] + 0.5
        and rect["bottom"] <= box["bottom"] + 0.5
    )


def test_report_page_shows_table_and_plots(browser: Any, tmp_path: Path) -> None:
    runs = [make_run(tmp_path / "graph", 6), make_run(tmp_path / "trace", 6, wrong_every=3)]
    out = tmp_path / "report.html"
    _run(["report", *map(str, runs), "--html", str(out)])
    with open_page(browser, out) as (page, problems):
        shot(page, tmp_path / "report.png", full_page=True)
        headers = page.locator("thead th").all_inner_texts()
        assert headers[:8] == ["Run", "Tool", "Information", "Shopping", "Media", "Social",
                               "Multi-Apps", "Overall"]  # fmt: skip
        assert page.locator("tbody tr").all_inner_texts()[0].startswith("graph")
        widths = page.eval_on_selector_all("figure img", "els => els.map(e => e.naturalWidth)")
        assert len(widths) == 3 and min(widths) > 400  # the three plots decoded
        assert problems == []


def test_viewer_shows_every_step_with_its_action(browser: Any, tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", 4)
    _run(["view", str(run)])
    with open_page(browser, run / "viewer" / "index.html") as (page, problems):
        shot(page, tmp_path / "index.png")
        assert page.locator("tbody tr").count() == 4
        assert page.locator("a[href='episodes/ep000.html#step-2']").inner_text() == "step 2"
        page.select_option("#filter", "False")
        assert page.locator("tbody tr:visible").count() == 2  # episodes 0 and 2 failed
        page.click("text=ep000")
        page.wait_for_load_state("load")
        shot(page, tmp_path / "episode.png", full_page=True)
        page.keyboard.press("j")
        page.keyboard.press("j")
        assert page.evaluate("location.hash") == "#step-2"  # keys step through the episode
        steps = page.locator("section.step")
        assert steps.count() == len(PLAN)
        assert page.locator("section.step.wrong").count() == 1
        loaded = page.eval_on_selector_all(
            ".shot img", "els => els.map(e => e.complete && e.naturalWidth > 0)"
        )
        assert loaded == [True] * len(PLAN)
        first, swipe, typed = (steps.nth(i) for i in (0, 2, 3))
        assert first.locator("circle.tap").count() == 3  # prediction, truth, rejected proposal
        assert swipe.locator("line.swipe").count() == 2  # prediction and truth
        assert "⌨ milk" in typed.locator("text.typed").first.text_content()
        for name in ("sub-goal", "action", "ground truth", "proposals", "narrative", "outcome"):
            assert name in first.inner_text()
        assert "rejected — that is the ad banner" in first.inner_text()
        assert "1200 prompt + 40 completion tokens · 2 calls · 1.25 s" in first.inner_text()
        # the tap is drawn where the step says: 305/1000 of the screenshot's width
        circle = first.locator("circle.tap").last.bounding_box()
        image = first.locator(".shot img").bounding_box()
        assert circle and image
        assert abs(circle["x"] + circle["width"] / 2 - image["x"] - 0.305 * image["width"]) < 2
        assert problems == []


def test_hostile_text_shows_as_text_everywhere(browser: Any, tmp_path: Path) -> None:
    run = make_run(tmp_path / "evil", 2, hostile=True)
    _run(["view", str(run)])
    _run(["report", str(run), "--html", str(tmp_path / "report.html")])
    pages = [run / "viewer" / "index.html", run / "viewer" / "episodes" / "ep000.html"]
    for path in [*pages, tmp_path / "report.html"]:
        with open_page(browser, path) as (page, problems):
            assert problems == []  # no alert, no broken script
            assert page.locator("b:text('bold')").count() == 0  # markup stayed text
            if path.name == "ep000.html":
                body = page.inner_text("main")
                assert SCRIPT_TEXT in page.inner_text("h1")
                assert "⌨ " + SCRIPT_TEXT[:31] in body or page.locator("text.typed").count()
                assert body.count(SCRIPT_TEXT) >= 3 * len(PLAN)  # sub-goal, feedback, narrative
                page.click("#raw summary")
                raw = page.eval_on_selector("#raw-text", "e => JSON.parse(e.textContent)")
                assert raw["episode"]["instruction"].endswith(HOSTILE)
                shot(page, tmp_path / "hostile.png")


def test_explorer_fits_every_node_in_the_window(browser: Any, sim_kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "graph.html"
    _run(["kb", "export", str(sim_kb), "--format", "html", "--out", str(out)])
    with KnowledgeBase.open(sim_kb) as kb:
        count, traces = len(kb.nodes()), kb.traces()
    assert count >= 50
    with open_page(browser, out) as (page, problems):
        shot(page, tmp_path / "explorer.png")
        view = page.eval_on_selector("#view", "e => e.getBoundingClientRect().toJSON()")
        boxes = page.eval_on_selector_all(
            "g.node", "els => els.map(e => e.getBoundingClientRect().toJSON())"
        )
        assert len(boxes) == count
        window = {"left": 0, "top": 0, "right": 1400, "bottom": 1000}
        assert all(_inside(b, window) and _inside(b, view) for b in boxes)
        for i, a in enumerate(boxes):  # no two states drawn over each other
            for b in boxes[i + 1 :]:
                assert (a["right"] <= b["left"] or b["right"] <= a["left"]
                        or a["bottom"] <= b["top"] or b["bottom"] <= a["top"])  # fmt: skip
        labels = page.eval_on_selector_all(
            "text.label", "els => els.map(e => [e.textContent, e.getBoundingClientRect().height])"
        )
        assert all(name.strip() for name, _ in labels)
        assert min(height for _, height in labels) >= 9  # readable at fit, before any zoom
        assert "Home screen" in [name for name, _ in labels]
        groups = page.locator("text.app").all_text_contents()
        assert any(g.startswith("ShopMall") for g in groups)
        # a trace lights up its states; a click shows a state's screenshot and transitions
        page.select_option("#trace", "0")
        assert page.locator("g.node.on").count() == len(set(traces[0].node_path))
        page.click("g.node >> nth=0")
        assert page.locator("#info img").count() == 1 and "Leads to" in page.inner_text("#info")
        page.fill("#find", "weather")  # the search box marks matching states
        assert page.locator("g.node.on").count() >= 2 and "states match" in page.inner_text("#info")
        page.fill("#find", "")
        before = page.get_attribute("#view", "viewBox")
        page.mouse.move(600, 500)
        page.mouse.wheel(0, -400)
        assert page.get_attribute("#view", "viewBox") != before
        page.click("#fit")
        assert page.get_attribute("#view", "viewBox") == before
        assert problems == []


def test_explorer_marks_the_subgraph_retrieved_for_a_task(
    browser: Any, sim_kb: Path, tmp_path: Path
) -> None:
    out = tmp_path / "graph.html"
    task = "Check the temperature in Lima and save it in a note titled Trip"
    _run(["kb", "export", str(sim_kb), "--format", "html", "--out", str(out),
          "--highlight-task", task])  # fmt: skip
    from guigraph.retrieval.context import retrieve

    with KnowledgeBase.open(sim_kb) as kb:
        context = retrieve(kb, task, k=4)
    with open_page(browser, out) as (page, problems):
        shot(page, tmp_path / "retrieved.png")
        assert page.locator("g.node.on").count() == len(context.nodes)
        assert task in page.inner_text("#info")
        assert problems == []


def test_explorer_shows_hostile_kb_text_as_text(browser: Any, tmp_path: Path) -> None:
    city = "<!--<script>alert(1)</script></script>"
    kb = KnowledgeBase.create(tmp_path / "kb")
    episodes = [
        search_episode("s0", city),
        search_episode("s1", "Paris"),
        shop_episode("p0", "tea"),
    ]
    GraphBuilder(kb).build(sources(episodes))
    out = tmp_path / "graph.html"
    from guigraph.graph.export import export

    export(kb, "html", out)
    kb.close()
    with open_page(browser, out) as (page, problems):
        page.select_option("#trace", label=f"General_Tool · Find {city} on the map")
        assert city in page.inner_text("#info")
        shot(page, tmp_path / "hostile-kb.png")
        assert problems == []
