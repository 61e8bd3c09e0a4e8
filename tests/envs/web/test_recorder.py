"""`guigraph record --env web`: a person's real input (CDP mouse and keyboard events on the same
Chromium) becomes an episode holding every action in order, with the screen before each; a
password typed is the parameter {password} and nowhere in clear in the folder."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from guigraph.data.odyssey import read_episode
from guigraph.envs.web.browser import chromium_path
from guigraph.envs.web.cdp_person import Person, RecorderRun, browser_pids, connected, recorder

from .conftest import pids_of_process
from .site import serve

INSTRUCTION = "Log in as olga and look at the next page"

SECRET = "Tr0ub4dor&3-unique"

START = """<html><head><title>Start</title></head><body style="margin:0">
<form method="post" action="/login" style="padding:20px">
  <label>User <input id="user" name="u" style="width:300px"></label><br><br>
  <label>Password <input id="pw" name="p" type="password" style="width:300px"></label><br><br>
  <label>Summary <input id="summary" name="s" value="old text" style="width:300px"></label><br><br>
  <label>Colour <select id="colour" name="c"><option>red</option><option>green</option>
  <option>blue</option></select></label><br><br>
  <button id="go" type="button" aria-label="Check" onclick="document.title='clicked'"><svg
  width="80" height="24"><rect width="80" height="24" fill="#88c"/></svg></button>
  <span id="host"></span>
</form>
<iframe id="frame" srcdoc="<button id='inner' style='width:200px;height:40px'>Inside</button>"
  style="position:absolute;left:600px;top:40px;width:300px;height:100px;border:0"></iframe>
<div style="height:700px"></div><a id="next" href="/next">Next page</a>
<script>
  const root = document.getElementById('host').attachShadow({ mode: 'open' });
  root.innerHTML = '<button id="shadowed" style="width:160px;height:30px">Shadowed</button>';
</script></body></html>"""
NEXT = """<html><head><title>Next</title></head><body>
<p>Second page</p><input id="search" style="margin:20px;width:300px"></body></html>"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve({"/start": START, "/next": NEXT, "/done": "<p>done</p>"}) as (base, _posted):
        yield base


def _read_episode(out: Path) -> dict[str, Any]:
    annotations = list((out / "annotations").glob("*.json"))
    assert len(annotations) == 1, annotations
    return dict(json.loads(annotations[0].read_text()))


def _stopped_cleanly(run: RecorderRun) -> None:
    assert run.process.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert browser_pids(run.process.pid) == [], "the recorder left a Chromium behind"


def test_a_person_in_the_browser_is_recorded_action_by_action(site: str, tmp_path: Path) -> None:
    chromium_path()
    out = tmp_path / "episodes"
    with recorder(f"{site}/start", INSTRUCTION, out, stop_with=None) as run:  # noqa: SIM117
        with connected(run.port, "/start") as page:
            person = Person(page, pause_s=0.5)
            person.click(page.locator("#user"))
            person.type("olgx")  # a slip, corrected: one typing all the same
            person.key("Backspace")
            person.type("a")
            person.click(page.locator("#pw"))
            person.type(SECRET)
            person.key("Tab")
            person.click(
                page.locator("#summary")
            )  # prefilled: the person selects it all and overtypes
            person.key("Control+a")
            person.type("new text")
            person.click(page.locator("#colour"))
            person.key("ArrowDown")
            person.key("Enter")
            person.click(page.locator("#go"))
            person.click(page.frame_locator("#frame").locator("#inner"))
            person.click(page.locator("#shadowed"))
            person.wheel(500)
            person.click(page.locator("#next"))
            person.click(page.locator("#search"))
            person.type("orchids")
            person.key("Enter")
            time.sleep(3)  # a while later, the person goes back, then types an address
            page.go_back()
            time.sleep(3)
            page.goto(f"{site}/done")
            time.sleep(1)
            page.close()  # the person closes the window: the recording ends
    _stopped_cleanly(run)
    assert "19 actions" in run.stdout, run.stdout
    episode = _read_episode(out)
    steps = episode["steps"]
    assert [(s["action"], s["info"] if isinstance(s["info"], str) else "") for s in steps] == [
        ("CLICK", ""), ("TEXT", "olga"),
        ("CLICK", ""), ("TEXT", "{password}\t"),
        ("CLICK", ""), ("LONG_PRESS", ""), ("TEXT", "new text"),
        ("CLICK", ""), ("TEXT", "green"),
        ("CLICK", ""), ("CLICK", ""), ("CLICK", ""),
        ("SCROLL", ""), ("CLICK", ""),
        ("CLICK", ""), ("TEXT", "orchids\n"),
        ("CLICK", "KEY_BACK"), ("OPEN_APP", f"{site}/done"), ("COMPLETE", ""),
    ]  # fmt: skip
    # Each click lands on what the screen before it showed there.
    clicked = {0: "user", 2: "pw", 4: "summary", 7: "colour", 9: "go", 13: "Next page"}
    for index, name in clicked.items():
        step = steps[index]
        x, y = step["info"][0]
        under = [
            e for e in step["ui_elements"]
            if e["bbox"][0] <= x <= e["bbox"][2] and e["bbox"][1] <= y <= e["bbox"][3]
        ]  # fmt: skip
        assert any(name in (e.get("resource_id", ""), e.get("text", "")) for e in under), (
            index, name, under,
        )  # fmt: skip
    # The screen before an action is the one the person saw: the typing after the link shows
    # the second page, the click on the link the scrolled first one.
    assert steps[14]["activity"].endswith("/next") and steps[13]["activity"].endswith("/start")
    assert steps[17]["activity"].endswith("/start")  # back on the first page, then the address
    for step in steps:
        assert (out / "screenshots" / step["screenshot"]).is_file()
    # `guigraph build` reads it as it reads any GUIOdyssey episode.
    annotation = next((out / "annotations").glob("*.json"))
    read = read_episode(annotation, out / "screenshots")
    assert [s.action.type.value for s in read.steps][:2] == ["click", "type"]
    # The password is a parameter, and nowhere in clear.
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_ctrl_c_keeps_the_episode_however_the_recorder_was_launched(
    site: str, tmp_path: Path
) -> None:
    out = tmp_path / "episodes"
    with recorder(f"{site}/start", INSTRUCTION, out, stop_with=signal.SIGINT) as run:  # noqa: SIM117
        with connected(run.port, "/start") as page:
            Person(page, pause_s=0.5).click(page.locator("#go"))
    _stopped_cleanly(run)
    assert "2 actions (click, complete)" in run.stdout, run.stdout
    assert [s["action"] for s in _read_episode(out)["steps"]] == ["CLICK", "COMPLETE"]


def test_a_site_that_does_not_answer_is_one_clear_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from guigraph.cli.main import app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    result = CliRunner().invoke(
        app,
        ["record", "--env", "web", "--url", dead, "--instruction", "x", "--out",
         str(tmp_path), "--headless"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "the page did not load" in result.output and "Traceback" not in result.output
    assert pids_of_process(os.getpid()) == [], "a Chromium outlived the failed recording"
