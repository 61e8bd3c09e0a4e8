"""The web world on pages that behave like real sites: server round trips, labels instead of
ids, names a page can shadow, dialogs, prefilled fields, shadow roots, frames, new tabs."""

from __future__ import annotations

import io
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from guigraph.envs.web.dialogs import ACCEPT_ID, DISMISS_ID, INPUT_ID
from guigraph.envs.web.env import WebEnv
from guigraph.graph.templates import target_element
from guigraph.types import Action, ActionType, Observation, ScrollDirection, UIElement

from .conftest import closed_after
from .site import serve

LOGIN = """<html><body>
<form id="search" action="/search"><input name="title" placeholder="Find a page">
  <input type="hidden" name="id" value="start"><button>Go</button></form>
<form method="post" action="/login" class="login">
  <label>Username <input name="u" class="field"></label>
  <label>Password <input name="p" type="password" class="field"></label>
  <button type="submit">Log In</button>
</form></body></html>"""

PAGES = {
    "/login": LOGIN,
    "/done": "<html><body><h1>Welcome back</h1><p>You are logged in.</p></body></html>",
    "/xhr": """<html><body><button onclick="fetch('/slow-data?s=0.4').then(r => r.text())
      .then(t => { document.getElementById('out').textContent = t; })">Load</button>
      <p id="out">nothing yet</p></body></html>""",
    "/dialogs": """<html><body>
      <button onclick="alert('Saved!')">Notify</button>
      <button onclick="document.getElementById('out').textContent =
        confirm('Delete the page?') ? 'deleted' : 'kept'">Delete</button>
      <button onclick="document.getElementById('out').textContent =
        'named ' + prompt('Your name?')">Name</button>
      <p id="out">untouched</p>
      <textarea aria-label="Draft"></textarea><a href="/done">Leave</a>
      <script>document.querySelector('textarea').addEventListener('input', () => {
        window.onbeforeunload = (e) => { e.preventDefault(); e.returnValue = ''; }; });
      </script></body></html>""",
    "/nagging": "<html><body><p>Nagging page</p><script>alert('Welcome!')</script></body></html>",
    "/still": """<html><head><title>Still page</title></head><body>
      <form name="title"><input name="q" aria-label="Query"></form>
      <script>window.jQuery = () => { throw new Error('unsupported pseudo: animated'); };
        window.jQuery.fn = {};</script></body></html>""",
    "/sliding": """<html><body><button onclick="const panel = document.getElementById('panel');
        panel.style.display = 'block'; panel.animate([{transform: 'translateX(-2000px)'},
        {transform: 'translateX(0)'}], {duration: 400, easing: 'ease-out'});">Show</button>
      <div id="panel" style="display: none"><button>Slid in</button></div></body></html>""",
    # Captions no <label> ties to their fields: each entry holds its box, then its caption
    # (under the box); a flat form's captions share one block with every field.
    "/captions": """<html><body>
      <div class="bar">Search the site <input id="q"> <a href="/done">Help</a></div>
      <div class="entry"><input id="genre"><div class="caption">Genre</div></div>
      <div class="entry"><input id="year"><div class="caption">Year</div></div>
      <div class="flat"><span>City</span> <input id="city"> <span>Zip</span> <input id="zip">
      </div></body></html>""",
    "/fields": """<html><body>
      <label>Title <input name="t" value="Old title"></label>
      <label>City <input name="c"></label>
      <label>Notes <textarea name="n">first line</textarea></label></body></html>""",
    "/editor": """<html><body><h1>Editing</h1>
      <textarea id="wiki__text" rows="10">====== Meetings ======
What the team keeps about meetings.</textarea>
      <select id="group"><option>editors</option><option>authors</option></select>
      <div style="height: 3000px">more of the page</div></body></html>""",
    "/inside": """<html><body><div id="host"></div>
      <iframe srcdoc="<label>Frame field <input></label>" style="width:400px;height:80px">
      </iframe><a href="/done" target="_blank">Open in a new tab</a>
      <p id="out">no press</p>
      <script>const root = document.getElementById('host').attachShadow({mode: 'open'});
        root.innerHTML = '<button>Shadow button</button>';
        root.querySelector('button').onclick = () => {
          document.getElementById('out').textContent = 'shadow pressed'; };</script>
      </body></html>""",
    "/popup": """<html><body><input id="when" readonly onclick="document.getElementById(
        'cal').style.display = 'block'"><br><button id="go">Submit</button><p id="out">0</p>
      <div id="cal" style="display: none; position: absolute; left: 0; top: 26px;
        width: 300px; height: 200px; background: white">
        <a id="prev" title="Prev" style="display: block; width: 16px; height: 16px"></a></div>
      <button id="under" style="position: absolute; left: 400px; top: 0; width: 100px">Below
        </button><button id="over" style="position: absolute; left: 440px; top: 0">Above
        </button>
      <script>document.getElementById('prev').addEventListener('click', () => {
        const out = document.getElementById('out');
        out.textContent = String(Number(out.textContent) - 1); });</script></body></html>""",
}


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, list[dict[str, list[str]]]]]:
    with serve(PAGES) as served:
        yield served


@pytest.fixture(scope="module")
def env() -> Iterator[WebEnv]:
    with closed_after(WebEnv(timeout=5.0, secrets={"password": "hunter2-secret"})) as world:
        yield world


def _open(env: WebEnv, url: str) -> Observation:
    return env.reset(env.make_task(url, 0), 0)


def _find(obs: Observation, label: str = "", rid: str = "", role: str = "") -> UIElement:
    for element in obs.elements or ():
        named = (label and label in (element.label, element.content_desc)) or (
            rid and element.resource_id == rid
        )
        if named and (not role or element.class_name == role):
            return element
    shown = [(e.label, e.bbox) for e in obs.elements or ()]
    raise AssertionError(f"no element {label or rid!r} in {shown}")


def _field(obs: Observation, name: str) -> UIElement:
    """The text field a label names (not the label itself)."""
    for element in obs.elements or ():
        if element.editable and element.content_desc == name:
            return element
    raise AssertionError(f"no field {name!r} in {[e.label for e in obs.elements or ()]}")


def _click(element: UIElement) -> Action:
    return Action.click(element.bbox.center.x, element.bbox.center.y)


def _texts(obs: Observation) -> str:
    return " | ".join(e.label for e in obs.elements or ())


def test_fields_named_by_labels_in_a_form_whose_fields_shadow_its_properties(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/login")
    assert _field(obs, "Find a page").editable  # <input name="title"> makes form.title an input
    user, password = _field(obs, "Username"), _field(obs, "Password")
    assert user.editable and password.editable and user.resource_id == ".field"
    assert _find(obs, "Log In", role="button").clickable


def test_a_field_no_label_names_is_named_by_its_own_groups_words_after_it_too(
    env: WebEnv, site: tuple[str, list]
) -> None:
    """A caption under its box in the same entry names that box, not the next one (read by
    place, "Genre" stands right above the year's box). Words of a block that holds other
    controls too name none of them: a search bar's words and its link are no field's group;
    in a flat form, the words left of a field on its row name it."""
    obs = _open(env, f"{site[0]}/captions")
    names = {e.resource_id: e.content_desc for e in obs.elements or () if e.editable}
    assert names == {"genre": "Genre", "year": "Year", "city": "City", "zip": "Zip", "q": ""}


def test_a_field_is_named_by_what_names_it_never_by_its_value_and_a_long_page_scrolls(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/editor")
    editor, group = _find(obs, rid="wiki__text"), _find(obs, rid="group")
    assert editor.content_desc == "" and editor.text.startswith("====== Meetings")
    assert group.content_desc == "" and group.text == "editors"
    # the page is taller than the window: its scroll bar is the element that scrolls
    bars = [e for e in obs.elements or () if e.scrollable]
    assert [e.class_name for e in bars] == ["scrollbar"] and bars[0].bbox.x2 == 1000
    assert bars[0].bbox.x1 > 980 and not bars[0].clickable
    scrolled = env.step(Action.scroll(ScrollDirection.UP)).observation
    assert _find(scrolled, "more of the page").bbox.y1 < _find(obs, "more of the page").bbox.y1
    short = _open(env, f"{site[0]}/done")
    assert not any(e.scrollable for e in short.elements or ())


def test_a_post_answered_by_a_redirect_is_observed_on_the_page_it_led_to(
    env: WebEnv, site: tuple[str, list]
) -> None:
    base, posted = site
    obs = _open(env, f"{base}/login")
    env.step(_click(_field(obs, "Username")))
    env.step(Action.type_text("olga"))
    env.step(_click(_field(obs, "Password")))
    shown = env.step(Action.type_text("{password}"))
    assert "hunter2" not in _texts(shown.observation)  # the field shows no secret
    result = env.step(Action.type_text("\n"))  # Enter submits; the server answers 303
    assert result.error is None
    assert result.observation.activity == "/done"
    assert "Welcome back" in _texts(result.observation)
    assert posted[-1]["u"] == ["olga"] and posted[-1]["p"] == ["hunter2-secret"]


def test_a_placeholder_of_a_secret_nobody_gave_is_a_step_error(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/login")
    env.step(_click(_field(obs, "Password")))
    result = env.step(Action.type_text("{pin}"))
    assert result.error and "'pin'" in result.error and "--param" in result.error


def test_what_an_xhr_brings_is_on_the_next_observation(env: WebEnv, site: tuple[str, list]) -> None:
    obs = _open(env, f"{site[0]}/xhr")
    result = env.step(_click(_find(obs, "Load")))
    assert "loaded late" in _texts(result.observation)


def test_a_confirmation_is_a_step_answered_by_its_buttons(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/dialogs")
    asked = env.step(_click(_find(obs, "Delete"))).observation
    assert _find(asked, rid=DISMISS_ID).label == "Cancel"
    assert "Delete the page?" in _texts(asked) and "untouched" not in _texts(asked)  # modal
    refused = env.step(Action.click(500, 100))  # the page behind cannot be reached
    assert refused.error and "answer it with OK or Cancel" in refused.error
    kept = env.step(_click(_find(asked, rid=DISMISS_ID))).observation
    assert "kept" in _texts(kept)
    asked = env.step(_click(_find(kept, "Delete"))).observation
    done = env.step(_click(_find(asked, rid=ACCEPT_ID))).observation
    assert "deleted" in _texts(done) and not any(
        e.resource_id == ACCEPT_ID for e in done.elements or ()
    )


def test_an_alert_and_a_prompt_are_steps(env: WebEnv, site: tuple[str, list]) -> None:
    obs = _open(env, f"{site[0]}/dialogs")
    alert = env.step(_click(_find(obs, "Notify"))).observation
    assert "Saved!" in _texts(alert) and _find(alert, rid=ACCEPT_ID).label == "OK"
    page = env.step(_click(_find(alert, rid=ACCEPT_ID))).observation
    asked = env.step(_click(_find(page, "Name"))).observation
    assert _find(asked, rid=INPUT_ID).editable
    typed = env.step(Action.type_text("Olga")).observation
    assert _find(typed, rid=INPUT_ID).text == "Olga"
    answered = env.step(_click(_find(typed, rid=ACCEPT_ID))).observation
    assert "named Olga" in _texts(answered)


def test_leaving_a_page_with_unsaved_text_asks_and_leave_leaves(
    env: WebEnv, site: tuple[str, list]
) -> None:
    base = site[0]
    obs = _open(env, f"{base}/dialogs")
    env.step(_click(_field(obs, "Draft")))
    env.step(Action.type_text("half a thought"))
    asked = env.step(_click(_find(obs, "Leave", role="link"))).observation
    assert _find(asked, rid=ACCEPT_ID).label == "Leave" and asked.activity == "/dialogs"
    left = env.step(_click(_find(asked, rid=ACCEPT_ID))).observation
    assert left.activity == "/done"


def test_a_page_that_alerts_on_every_load_opens_as_a_dialog_not_a_hang(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/nagging")
    assert "Welcome!" in _texts(obs)
    page = env.step(_click(_find(obs, rid=ACCEPT_ID))).observation
    assert "Nagging page" in _texts(page)


def test_typing_appends_a_long_press_replaces_and_keys_are_characters(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/fields")
    title, notes = _field(obs, "Title"), _field(obs, "Notes")
    env.step(_click(notes))
    appended = env.step(Action.type_text("\nsecond line")).observation
    assert _field(appended, "Notes").text == "first line\nsecond line"
    env.step(Action(ActionType.LONG_PRESS, point=title.bbox.center))
    replaced = env.step(Action.type_text("New title")).observation
    assert _field(replaced, "Title").text == "New title"
    fixed = env.step(Action.type_text("s\b\b!")).observation  # Backspace twice
    assert _field(fixed, "Title").text == "New titl!"
    moved = env.step(Action.type_text("\tParis")).observation  # Tab to the next field
    assert _field(moved, "City").text == "Paris" and _field(moved, "City").focused
    env.step(Action(ActionType.LONG_PRESS, point=title.bbox.center))
    cleared = env.step(Action.type_text("\b")).observation
    assert _field(cleared, "Title").text == ""


def test_shadow_roots_frames_and_new_tabs(env: WebEnv, site: tuple[str, list]) -> None:
    base = site[0]
    obs = _open(env, f"{base}/inside")
    pressed = env.step(_click(_find(obs, "Shadow button"))).observation
    assert "shadow pressed" in _texts(pressed)
    field = _field(pressed, "Frame field")
    env.step(_click(field))
    typed = env.step(Action.type_text("in a frame")).observation
    assert _field(typed, "Frame field").text == "in a frame"
    assert _field(typed, "Frame field").focused
    tab = env.step(_click(_find(typed, "Open in a new tab"))).observation
    assert tab.activity == "/done" and "Welcome back" in _texts(tab)


def _pixels(png: bytes) -> tuple[tuple[int, int], bytes]:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.size, image.tobytes()


def test_the_screenshot_shows_the_viewport_of_the_tab_acted_on(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/inside")
    assert obs.screenshot is not None and obs.screenshot.startswith(b"\x89PNG")
    shown = _pixels(obs.screenshot)
    assert shown[0] == (1280, 800) and shown == _pixels(env.page.screenshot())
    tab = env.step(_click(_find(obs, "Open in a new tab"))).observation
    assert tab.screenshot is not None and _pixels(tab.screenshot) != shown
    assert _pixels(tab.screenshot) == _pixels(env.page.screenshot())


def test_a_page_title_and_jquery_the_page_shadows_neither_break_an_observation(
    env: WebEnv, site: tuple[str, list]
) -> None:
    # <form name="title"> makes document.title that form; a jQuery that throws on ':animated'
    obs = _open(env, "data:text/html," + quote(PAGES["/still"]))
    assert obs.app == "Still page" and _field(obs, "Query").editable
    still = env.step(Action(ActionType.WAIT, seconds=0.0))
    assert still.error is None and still.observation.app == "Still page"


def test_what_an_animation_brings_is_observed_where_it_ends(
    env: WebEnv, site: tuple[str, list]
) -> None:
    obs = _open(env, f"{site[0]}/sliding")
    shown = env.step(_click(_find(obs, "Show"))).observation
    slid = _find(shown, "Slid in", role="button")
    assert slid.bbox.x1 < 20 and slid.bbox.width > 5  # at its place, not on its way there


def test_a_button_under_a_pop_up_is_not_clickable_and_a_tap_there_names_the_pop_ups_control(
    env: WebEnv, site: tuple[str, list]
) -> None:
    # A calendar opened over Submit takes the clicks there: Submit is shown but cannot be
    # clicked, and a recorded tap on the calendar's "Prev" (an <a> without href, its script
    # bound by addEventListener) names "Prev", not the button drawn under it.
    obs = _open(env, site[0] + "/popup")
    assert _find(obs, rid="go").clickable
    assert _find(obs, rid="under").clickable  # another button covers its centre, not all of it
    opened = env.step(_click(_find(obs, rid="when"))).observation
    assert not _find(opened, rid="go").clickable
    prev = _find(opened, label="Prev")
    tap = _click(prev)
    under = target_element(opened.elements, tap)
    assert under is not None and under.label == "Prev"
    after = env.step(tap).observation
    assert _find(after, rid="out").label == "-1"
