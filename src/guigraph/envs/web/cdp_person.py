"""A scripted person at a recording browser: real input events through the DevTools protocol.

``guigraph record --env web`` is started as a user starts it, with Chromium's remote debugging
port open (``GUIGRAPH_CHROMIUM_ARGS``); the person connects to that same Chromium and works
through Playwright's mouse and keyboard, which send ``Input.dispatchMouseEvent`` /
``Input.dispatchKeyEvent`` / ``Input.insertText``: the page receives trusted events exactly as
from a person's hands, and the recorder sees nothing else. People are not scripts: the person
pauses between actions, and can hesitate, slip and correct a typing, or click beside a target.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guigraph.envs.web.browser import EXTRA_ARGS_VAR
from guigraph.errors import EnvError

#: How long a person looks at a page that just loaded before acting on it.
READ_S = 0.6


@dataclass
class RecorderRun:
    """A running ``guigraph record --env web`` and, once stopped, what it printed."""

    process: subprocess.Popen[str]
    port: int
    stdout: str = ""
    stderr: str = ""


def browser_pids(recorder_pid: int) -> list[int]:
    """Chromium processes the process ``recorder_pid`` launched (``--guigraph-owner``)."""
    needle = f"--guigraph-owner={recorder_pid}-".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def devtools_port(recorder_pid: int, timeout_s: float = 20.0) -> int:
    """The remote debugging port of the Chromium the recorder launched (Chromium writes it
    to ``DevToolsActivePort`` in its profile folder)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for pid in browser_pids(recorder_pid):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            for arg in argv:
                if arg.startswith(b"--user-data-dir="):
                    port_file = Path(arg.split(b"=", 1)[1].decode()) / "DevToolsActivePort"
                    text = port_file.read_text() if port_file.is_file() else ""
                    if text.strip():
                        return int(text.split()[0])
        time.sleep(0.1)
    raise EnvError("the recorder's Chromium never opened its debugging port")


@contextmanager
def recorder(
    url: str, instruction: str, out: Path, stop_with: signal.Signals | None = signal.SIGTERM
) -> Iterator[RecorderRun]:
    """``guigraph record --env web --headless`` running on ``url``; on leaving, stopped with
    ``stop_with`` (None: the person closed the window) and waited for, the episode written."""
    command = [
        sys.executable, "-m", "guigraph", "record", "--env", "web", "--url", url,
        "--instruction", instruction, "--out", str(out), "--headless",
    ]  # fmt: skip
    env = {**os.environ, EXTRA_ARGS_VAR: "--remote-debugging-port=0"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,  # a signal for the recorder reaches it alone
    )  # fmt: skip
    run: RecorderRun | None = None
    try:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline()
        if not line.startswith("recording"):
            raise EnvError(f"the recorder did not start: {line}{process.stderr.read()[-2000:]}")
        run = RecorderRun(process, devtools_port(process.pid))
        yield run
    finally:
        stdout, stderr = stop_recorder(process, stop_with if run is not None else signal.SIGTERM)
        if run is not None:
            run.stdout, run.stderr = stdout, stderr


def stop_recorder(process: subprocess.Popen[str], how: signal.Signals | None) -> tuple[str, str]:
    """Stop the recorder with ``how`` (None: it ends by itself) and wait; its output."""
    try:
        if how is not None and process.poll() is None:
            process.send_signal(how)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0:
        raise EnvError(f"the recorder failed ({process.returncode}): {stderr[-2000:]}")
    return stdout, stderr


#: How long connecting to the recorder's browser, or a page the person waits for, may take.
CONNECT_TIMEOUT_MS = 120_000


@contextmanager
def connected(port: int, url_ends: str = "") -> Iterator[Any]:
    """The recorder's page, over CDP (the first whose URL ends with ``url_ends``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # A loaded machine takes its time to answer (30 s, Playwright's default, ran out).
        browser = playwright.chromium.connect_over_cdp(
            f"http://127.0.0.1:{port}", timeout=CONNECT_TIMEOUT_MS
        )
        try:
            pages = [p for c in browser.contexts for p in c.pages if p.url.endswith(url_ends)]
            if not pages:
                raise EnvError(f"no page ending with {url_ends!r} in the recorder's browser")
            pages[0].set_default_timeout(CONNECT_TIMEOUT_MS)  # its waits for pages, too
            yield pages[0]
        finally:
            browser.close()  # disconnects; the recorder's own browser stays up


class Person:
    """Real input on ``page``, with a person's pauses (``pause_s``, longer when ``rng``
    makes them hesitate) and, when asked, their slips."""

    def __init__(self, page: Any, pause_s: float = 0.45, rng: random.Random | None = None) -> None:
        self.page, self.pause_s, self.rng = page, pause_s, rng or random.Random(0)

    def rest(self, extra_s: float = 0.0) -> None:
        time.sleep(self.pause_s + extra_s)

    def hesitate(self) -> None:
        self.rest(self.rng.uniform(0.5, 1.5))

    def centre(self, target: Any) -> tuple[float, float]:
        box = target.bounding_box()
        if box is None:
            raise EnvError(f"nothing to click: {target}")
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def click(self, target: Any, waits_for_page: bool = False) -> None:
        """Click the middle of ``target`` (a Playwright locator); ``waits_for_page``: the
        click loads another page, which the person waits for before going on."""
        self._then_wait(lambda: self.page.mouse.click(*self.centre(target)), waits_for_page)
        self.rest()

    def click_beside(self, x: float, y: float) -> None:
        """A click on nothing (a margin): the extra click people make."""
        self.page.mouse.click(x, y)
        self.rest()

    def type(self, text: str, slip: bool = False) -> None:
        """Type ``text``; ``slip``: a wrong character first, seen and erased."""
        if slip and text:
            self.page.keyboard.type(text[: len(text) // 2] + "x", delay=25)
            time.sleep(0.2)
            self.page.keyboard.press("Backspace")
            self.page.keyboard.type(text[len(text) // 2 :], delay=25)
        else:
            self.page.keyboard.type(text, delay=25)
        self.rest()

    def key(self, key: str, waits_for_page: bool = False) -> None:
        self._then_wait(lambda: self.page.keyboard.press(key), waits_for_page)
        self.rest()

    def wheel(self, dy: float) -> None:
        self.page.mouse.move(640, 400)
        self.page.mouse.wheel(0, dy)
        self.rest(READ_S)  # what scrolled into view is read before acting on it

    def _then_wait(self, act: Callable[[], None], waits_for_page: bool) -> None:
        if not waits_for_page:
            act()
            return
        with self.page.expect_navigation(wait_until="load"):
            act()
        self.rest(READ_S)
