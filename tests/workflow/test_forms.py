"""Forms whose page rewords, rearranges and reorders its fields: captions matched to what the
task says around each value (pure), and a workflow exported on one layout healing on another in
the real Chromium."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from guigraph.envs.web.env import WebEnv
from guigraph.types import Task
from guigraph.workflow.forms import assign, value_words
from guigraph.workflow.heal import GraphHealer
from guigraph.workflow.runner import run_workflow, values_from
from guigraph.workflow.schema import parse_workflow

INSTRUCTION = "Search for horror movies directed by Durham from year 2016."
VALUES = {"genre": "horror", "director": "Durham", "year": "2016"}
LAYOUTS = (
    {"genre": "Genre", "director": "Director", "year": "Year"},
    {"genre": "Movie Genre", "director": "Director Name", "year": "Released Date"},
)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_order_of_a_forms_captions_gets_each_value_its_field(layout: dict) -> None:
    wanted = [value_words(INSTRUCTION, value) for value in VALUES.values()]
    for order in itertools.permutations(layout.values()):
        picks = assign(order, wanted)
        got = {
            name: order[pick] for name, pick in zip(VALUES, picks, strict=True) if pick is not None
        }
        assert got == layout, order


def test_a_recorded_caption_counts_and_fewer_fields_leave_a_value_without_one() -> None:
    words = value_words("Book it for Ann", "Ann", caption="Guest name")
    assert words["guest"] == 1.0 and words["book"] > 0
    assert assign(["Guest"], [words, value_words("Book it for Ann", "it")]) == [0, None]


#: The page as a redesign left it: captions below their fields, reworded, in another order, and
#: the button renamed; the inputs' ids are only for the test to read what was typed.
PAGE = """<!doctype html><html><body style="font: 16px sans-serif; width: 400px">
<div><input id="g" style="width: 300px"></div><div>Movie Genre</div><br>
<div><input id="y" style="width: 300px"></div><div>Released Date</div><br>
<div><input id="d" style="width: 300px"></div><div>Director Name</div><br>
<button onclick="document.title='sent'">Go!</button>
</body></html>"""

#: As exported on the layout the recordings saw: captions to the left, a Submit button.
WORKFLOW = """\
schema_version: 1
name: movie-search
description: Search for horror movies directed by Durham from year 2016.
parameters:
- {name: year, default: '2016'}
- {name: genre, default: horror}
- {name: director, default: Durham}
steps:
- {action: tap, target: {near: Year, role: field}}
- {action: type, value: '{year}'}
- {action: tap, target: {near: Genre, role: field}}
- {action: type, value: '{genre}'}
- {action: tap, target: {near: Director, role: field}}
- {action: type, value: '{director}'}
- {action: tap, target: {id: .final, text: Submit, role: button}}
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[WebEnv]:
    env = WebEnv(timeout=5.0)
    try:
        yield env
    finally:
        env.close()


def test_a_form_reworded_and_reordered_heals_field_by_field(
    browser: WebEnv, tmp_path: Path
) -> None:
    page = tmp_path / "search.html"
    page.write_text(PAGE)
    workflow = parse_workflow(WORKFLOW)
    instruction = "Search for crime movies directed by Curry from year 1995."
    values = values_from(workflow, instruction)
    assert values == {"year": "1995", "genre": "crime", "director": "Curry"}
    task = Task("form", instruction, params={"url": page.as_uri()})
    result = run_workflow(workflow, browser, values, task, 0, GraphHealer())
    assert result.completed, result.failure
    typed = browser.page.evaluate("['g', 'y', 'd'].map(i => document.getElementById(i).value)")
    assert typed == ["crime", "1995", "Curry"]
    assert browser.page.title() == "sent"
    hows = [h.how for h in result.healings if h.healed]
    assert "took the field captioned 'Released Date' (no other value claims it)" in hows
    assert any("'Director Name' (its caption is like" in how for how in hows)
    assert "took the screen's only control" in hows and result.model_calls == 0
    # Nothing heals with --heal off: the first step names its missing caption.
    off = run_workflow(workflow, browser, values, task, 0, None)
    assert not off.completed and off.failure.startswith("step 1 (tap 'Year')")


def test_rows_run_side_by_side_in_browsers_of_their_own(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from guigraph.cli.main import app

    page = tmp_path / "search.html"
    page.write_text(PAGE)
    workflow = tmp_path / "wf.yaml"
    workflow.write_text(WORKFLOW)
    rows = tmp_path / "rows.csv"
    rows.write_text("year,genre,director\n1995,crime,Curry\n1980,satire,Mejia\n2001,drama,Lee\n")
    args = ["workflow", "run", str(workflow), "--env", "web", "--data", str(rows)]
    args += ["--env-option", f"start_url={page.as_uri()}", "--concurrency", "2", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["successes"] == 3 and summary["failures"] == []
    assert {h["row"] for h in summary["healed_steps"]} == {1, 2, 3}
