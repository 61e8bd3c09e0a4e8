"""Web pages in a real Chromium as an :class:`~guigraph.envs.base.Env` (extra ``web``).

Observation: a PNG screenshot of the viewport, the page's UI elements (``envs.web.dom``), the
site as the app and the URL as the activity. A site is an app: ``app`` is the host of an
http(s) page (``mail.example.com``: its pages are the app's screens); a local file (such as a
MiniWoB task page) is an app of its own, named by its file name (``login-user``: one word, so
that an instruction's "click" or "login" does not name it); any other page by its title.
``activity`` says which of the site's pages it is, not what the page shows: the URL's path and
the names of its query parameters (``/doku.php?do&id`` for ``/doku.php?id=garden&do=edit``),
so that the edit page of every wiki page is one screen of the graph, as an Android activity is
whatever it shows.

Actions: click at a point; long press (on a text field it selects the field's whole text, as
a phone's long press does, so that what is typed next replaces it); type into the focused
element: text goes after what the field holds (unless a long press selected it), the keys
Enter, Tab, Backspace and Escape are the characters ``\n``, ``\t``, ``\b`` and ``\x1b`` (a key
alone needs no focused field), a focused ``<select>`` chooses the option with that label, and
``{name}`` stands for the secret parameter ``name`` (a password: given to the world, never to the
team, never written); scroll (the finger's direction, as on a phone: ``up`` reveals what is
further down), back (history back), open a URL (``open_app`` with a URL), wait, complete /
impossible. There is no home or recent-apps button.

Every observation is taken once the page has settled (``envs.web.settle``: the navigation,
redirect or XHR the action started is over). A page's own dialogs are steps
(``envs.web.dialogs``); a link that opens a new tab moves the world to that tab.

Whatever goes wrong while acting — a page that never loads, a crashed browser, an element gone
before the click, a navigation away from the task page — comes back as ``StepResult.error``
for the team. One Chromium serves every episode of an environment; each episode gets a fresh
browser context (no cookies, storage or history carried over). ``close()`` ends Chromium.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.envs.conventions import WEB, Conventions
from guigraph.envs.web import checks, dom, miniwob, taskfile
from guigraph.envs.web.browser import Browser
from guigraph.envs.web.devtools import DevTools
from guigraph.envs.web.dialogs import Dialog, DialogDesk, overlay
from guigraph.envs.web.navigation import read_through_navigation
from guigraph.envs.web.origins import Origins, parse_rule
from guigraph.envs.web.page_js import (
    CLICKABLE_AT_JS,
    PREPARE_TYPING_JS,
    SELECT_FIELD_JS,
    SELECT_OPTION_JS,
)
from guigraph.envs.web.settle import STATE_JS, NotSettled, PageActivity
from guigraph.errors import ConfigError, EnvError
from guigraph.geometry import Point, ScreenSize
from guigraph.types import Action, ActionType, Observation, ScrollDirection, Task

DEFAULT_VIEWPORT = (1280, 800)
LONG_PRESS_MS = 600
#: Share of the viewport one scroll moves.
SCROLL_SHARE = 0.6
#: One round trip per observation: the DOM walk, and whether the page is done (loaded, still).
OBSERVE_JS = f"(args) => [({dom.WALK_JS})(args), ({STATE_JS})()]"
#: How often to look whether Playwright has announced a tab Chromium already opened.
TAB_POLL_MS = 10
#: Observing fails while a new document replaces the old one: settle and try again.
OBSERVE_TRIES = 4
_SCHEMES = ("http://", "https://", "file://", "about:", "data:")
#: Keys typed as the characters they send.
KEYS = {"\n": "Enter", "\t": "Tab", "\b": "Backspace", "\x1b": "Escape"}
_KEY_RUNS = re.compile("([\n\t\b\x1b])")
#: ``{name}``: a secret parameter (single braces, so wiki markup's ``{{image}}`` is text).
SECRET = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


class WebEnv(Env):
    """A browser world. ``executable``: the Chromium to drive (default ``/usr/bin/chromium``
    or ``GUIGRAPH_CHROMIUM``); ``timeout``: seconds a page may take to load or respond;
    ``secrets``: values typed for ``{name}`` (passwords), never shown to the team;
    ``allow_origins``: places every task may visit besides its own (``envs.web.origins``);
    ``tasks``: a task file (``envs.web.taskfile``) whose task names ``make_task`` takes, with
    ``params`` (``--param``) fixing parameters and giving secrets."""

    action_space = frozenset(ActionType) - {ActionType.PRESS_HOME, ActionType.PRESS_RECENT}

    def __init__(
        self,
        executable: str | None = None,
        headless: bool = True,
        timeout: float = 10.0,
        viewport: tuple[int, int] | list[int] = DEFAULT_VIEWPORT,
        start_url: str = "about:blank",
        secrets: Mapping[str, str] | None = None,
        allow_origins: Sequence[str] = (),
        tasks: str | Path | None = None,
        params: Mapping[str, str] | None = None,
    ) -> None:
        if timeout <= 0:
            raise ConfigError(f"timeout must be > 0 seconds, got {timeout}")
        width, height = (int(v) for v in viewport)
        if width < 200 or height < 200:
            raise ConfigError(f"viewport must be at least 200x200, got {width}x{height}")
        self.browser = Browser(executable, headless)
        self.timeout_ms = timeout * 1000.0
        self.viewport = (width, height)
        self.start_url = start_url
        self.secrets: dict[str, str] = dict(secrets or {})
        if isinstance(allow_origins, str):
            allow_origins = [allow_origins]
        self.allowed = tuple(parse_rule(origin) for origin in allow_origins)
        self.origins = Origins.for_task(start_url, self.allowed)
        self._refused: str | None = None  # a page left this step for being outside the task
        self.task_file = taskfile.load(tasks) if tasks is not None else None
        self.params: dict[str, str] = {str(k): str(v) for k, v in (params or {}).items()}
        if self.task_file is None:  # no file declares them: each is a secret to type
            self.secrets.update(self.params)
        self._drawn: dict[str, taskfile.Drawn] = {}  # tasks made from the file, by task id
        self.task: Task | None = None
        self._context: Any = None
        self._page: Any = None
        self._activity: PageActivity | None = None
        self._dialogs = DialogDesk()
        self._opened: list[Any] = []  # tabs the page opened since the last step
        self._primed: tuple[str, int] | None = None  # a task page already started by make_task
        self._last: Observation | None = None
        self._blank: bytes | None = None
        self._context_hooks: list[Callable[[Any], None]] = []
        self._devtools = DevTools(self.timeout_ms)

    # The Env interface --------------------------------------------------------------------
    @property
    def conventions(self) -> Conventions:
        return WEB

    def make_task(self, spec: str, seed: int) -> Task:
        """A task of the task file by name (seeded: its parameters), ``miniwob/<name>``
        (seeded: the page makes the instruction), a URL to start from, or a free instruction
        on the start page."""
        text = spec.strip()
        if self.task_file is not None:
            return self.add_task(self.task_file.draw(text, seed, self.params))
        if miniwob.is_miniwob(text):
            name = miniwob.name_of(text)
            url = miniwob.task_url(name)
            instruction = self._open_miniwob(url, seed)
            self._primed = (name, seed)
            return miniwob.make_task(name, seed, instruction)
        if text.startswith(_SCHEMES):
            return Task(task_id=f"url/{seed}", instruction=f"Open {text}", params={"url": text})
        return super().make_task(spec, seed)

    def add_task(self, drawn: taskfile.Drawn) -> Task:
        """Make a task drawn from a task file known to this world (its checks, its secrets)."""
        self._drawn[drawn.task.task_id] = drawn
        return drawn.task

    def reset(self, task: Task, seed: int) -> Observation:
        self.task = task
        self._dialogs.close()
        name = task.params.get("miniwob")
        if name:
            if self._primed != (name, seed) or self._page is None:
                shown = self._open_miniwob(miniwob.task_url(name), seed)
                if shown != task.instruction:
                    raise EnvError(f"MiniWoB {name} with seed {seed} shows another task: {shown!r}")
        else:
            self._new_page(self.viewport)
            url = task.params.get("url") or self.start_url
            self.origins = Origins.for_task(url, self.allowed)
            error = self._goto(url)
            if error:
                raise EnvError(error)
        self._primed = None
        try:
            return self._observe()
        except Exception as exc:
            raise EnvError(f"the page could not be observed: {_line(exc)}") from exc

    def step(self, action: Action) -> StepResult:
        if action.type not in self.action_space:
            return self._result(error=f"{action.type.value} is not an action of the web")
        if action.type in (ActionType.COMPLETE, ActionType.IMPOSSIBLE):
            return self._result(done=True)
        if self._page is None:
            return self._result(error="no page is open: reset the environment first")
        self._refused = None
        try:
            if self._dialogs.open is not None:
                error = self._answer_dialog(self._dialogs.open, action)
            else:
                self._dialogs.trigger = action
                error = self._act(action)
            # The network is quiet: whether the page is done is read with the observation.
            self._settle(started_action=action.type is not ActionType.WAIT, read_state=False)
            observation = self._observe(settled=False)
        except Exception as exc:  # Playwright's Error and TimeoutError: data for the team
            return self._failure(exc)
        error = self._refused or error or self._left_task()
        done, info = self._status()
        return StepResult(observation, done=done, info=info, error=error)

    def evaluate(self) -> Evaluation | None:
        drawn = self._drawn_task()
        if drawn is not None:
            return checks.evaluate(drawn.spec.checks, drawn.values, drawn.secrets, self._final())
        if self.task is None or not self.task.params.get("miniwob") or self._page is None:
            return None
        try:
            state = miniwob.status(self._page)
        except Exception as exc:
            return Evaluation(False, 0.0, f"the page is gone: {_line(exc)}")
        if not state.done:
            return Evaluation(False, 0.0, "the episode has not ended (no reward yet)")
        return Evaluation(state.reward > 0, state.reward, state.reason)

    def _drawn_task(self) -> taskfile.Drawn | None:
        if self.task is None or taskfile.TASK_KEY not in self.task.params:
            return None
        return self._drawn.get(self.task.task_id)

    def _final(self) -> checks.FinalPage | None:
        """The page the team ended on, for a task file's page checks."""
        page = self._page
        if page is None or page.is_closed():
            return None
        try:  # the text first: the URL is then the one of the document read
            text = self._read(lambda: "\n".join(frame.evaluate(_TEXT_JS) for frame in page.frames))
        except Exception:
            text = ""
        return checks.FinalPage(
            page.url, text, lambda css: self._read(lambda: page.locator(css).count())
        )

    def close(self) -> None:
        self._devtools.forget()
        self._context = self._page = self._activity = None
        self._opened.clear()
        self.browser.close()

    # Recording a person (``envs.web.recorder``) ----------------------------------------------
    def on_new_context(self, hook: Callable[[Any], None]) -> None:
        """Call ``hook`` with each browser context this world opens, before its first page
        (a recorder puts its listeners in every page that way)."""
        self._context_hooks.append(hook)

    @property
    def page(self) -> Any:
        """The page the world acts on and observes (Playwright's ``Page``), or None."""
        return self._page

    def use_page(self, page: Any) -> None:
        """Act on and observe ``page`` (another tab of the same context) from now on."""
        if page is not self._page:
            self._use_page(page)

    def capture(self) -> Observation:
        """The current page once settled, as an observation (no action taken)."""
        self._settle(started_action=False)
        return self._observe()

    # Pages ---------------------------------------------------------------------------------
    def _new_page(self, viewport: tuple[int, int]) -> Any:
        if self._context is not None:
            with contextlib.suppress(Exception):
                self._context.close()
        self._context = self._page = self._activity = None
        self._opened.clear()
        self._context = self.browser.new_context(*viewport)
        self._context.set_default_timeout(self.timeout_ms)
        self._context.on("page", self._on_new_tab)
        for hook in self._context_hooks:
            hook(self._context)
        self._use_page(self._context.new_page())
        self._opened.clear()
        return self._page

    def _on_new_tab(self, page: Any) -> None:
        self._opened.append(page)

    def _use_page(self, page: Any) -> None:
        self._page = page
        self._activity = PageActivity(page)
        self._dialogs.attach(page)

    def _open_miniwob(self, url: str, seed: int) -> str:
        page = self._new_page(miniwob.VIEWPORT)
        self.origins = Origins.for_task(url, self.allowed)
        error = self._goto(url)
        if error:
            raise EnvError(error)
        return miniwob.start_episode(page, seed, self.timeout_ms)

    def _goto(self, url: str) -> str | None:
        self._dialogs.trigger = Action.open_app(url)
        try:
            # "commit", then settle: a dialog the page opens while loading is answered, and
            # the redirects and XHR of the first screen are waited for like any other.
            self._page.goto(url, wait_until="commit", timeout=self.timeout_ms)
            self._settle(started_action=False)
        except Exception as exc:
            # A navigation still pending would hold every later call: replace it with a
            # blank page, which loads at once.
            with contextlib.suppress(Exception):
                self._page.goto("about:blank", timeout=self.timeout_ms)
            return f"the page did not load: {url} ({_line(exc)})"
        return None

    def _follow_tabs(self) -> None:
        """A tab the page opened becomes the page acted on; a closed page gives way to the
        last one still open."""
        opened = [p for p in self._opened if not p.is_closed()]
        self._opened.clear()
        if opened:
            self._use_page(opened[-1])
            with contextlib.suppress(Exception):
                self._page.wait_for_load_state("load", timeout=self.timeout_ms)
        elif self._page.is_closed() and self._context is not None:
            still = [p for p in self._context.pages if not p.is_closed()]
            if not still:
                raise EnvError("the page closed its window")
            self._use_page(still[-1])

    # Acting --------------------------------------------------------------------------------
    def _act(self, action: Action) -> str | None:
        kind = action.type
        if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
            assert action.point is not None
            return self._click(action.point, long=kind is ActionType.LONG_PRESS)
        if kind is ActionType.TYPE:
            return self._type(action.text or "")
        if kind is ActionType.SCROLL:
            return self._scroll(action)
        if kind is ActionType.PRESS_BACK:
            return self._back()
        if kind is ActionType.OPEN_APP:
            url = _as_url(action.app or "")
            if url is None:
                return f"open_app on the web takes a URL, got {action.app!r}"
            return self.origins.refusal(url) or self._goto(url)
        if kind is ActionType.WAIT:
            seconds = 1.0 if action.seconds is None else action.seconds
            if seconds > 0:  # a wait of 0 s only observes again
                self._page.wait_for_timeout(min(seconds, 10.0) * 1000)
            return None
        return f"{kind.value} is not an action of the web"

    def _answer_dialog(self, dialog: Dialog, action: Action) -> str | None:
        """An action while a dialog shows: its buttons answer it, typing fills a prompt, back
        closes it; the page behind cannot be reached."""
        desk = self._dialogs
        if action.type is ActionType.CLICK and action.point is not None:
            part = dialog.button_at(action.point)
            if part == "dismiss" or (part == "accept" and dialog.kind == "alert"):
                desk.close()
                return None
            if part == "accept":
                desk.close()
                if dialog.trigger is None:
                    return None
                desk.accept_next(dialog.typed)
                desk.trigger = dialog.trigger
                return self._act(dialog.trigger)
            if part == "box":
                return None
        if action.type is ActionType.TYPE and dialog.kind == "prompt":
            desk.typed(action.text or "")
            return None
        if action.type is ActionType.PRESS_BACK:
            desk.close()
            return None
        if action.type is ActionType.WAIT:
            return None
        buttons = " or ".join(b for b in dialog.buttons if b)
        return f"a dialog is open ({dialog.message_text[:80]!r}): answer it with {buttons}"

    def _back(self) -> str | None:
        """History back; the blank page every tab starts on is not a page to go back to.

        Where the tab's history says so, back is refused without moving: going back to the
        blank page and forward again would load the page anew (a MiniWoB++ task's page
        then shows another problem, or none)."""
        previous = self._previous_url()
        if previous is not None and (previous == "" or previous.startswith("about:blank")):
            return "there is no page to go back to"
        before = self._page.url
        self._page.go_back(wait_until="commit", timeout=self.timeout_ms)
        self._settle(started_action=False)
        if self._page.url == before:
            return "there is no page to go back to"
        if self._page.url.startswith("about:blank") and not before.startswith("about:blank"):
            self._page.go_forward(wait_until="commit", timeout=self.timeout_ms)
            return "there is no page to go back to"
        return None

    def _previous_url(self) -> str | None:
        """The URL back would open ("" when there is none), from the tab's own history
        (DevTools); None when the history cannot be read."""
        try:
            history = self._devtools.send(self._page, "Page.getNavigationHistory")
            index = int(history["currentIndex"])
            return str(history["entries"][index - 1]["url"]) if index > 0 else ""
        except Exception:  # not Chromium, or a page closing: go back and see
            return None

    def _click(self, point: Point, long: bool) -> str | None:
        width, height = self._size()
        if not point.in_bounds():
            return f"({point.x:.0f}, {point.y:.0f}) is outside the page"
        pixel = point.to_pixels(ScreenSize(width, height))
        gone = self._gone_at(point, pixel.x, pixel.y)
        if gone:
            return gone
        mouse = self._page.mouse
        # Selecting again is safe: a document that replaced the one selected in lost it.
        if long and self._read(lambda: self._page.evaluate(SELECT_FIELD_JS, [pixel.x, pixel.y])):
            return None  # a text field's whole text is selected: typing replaces it
        if long:
            mouse.move(pixel.x, pixel.y)
            mouse.down()
            self._page.wait_for_timeout(LONG_PRESS_MS)
            mouse.up()
        else:
            mouse.click(pixel.x, pixel.y)
        return None

    def _gone_at(self, point: Point, x: float, y: float) -> str | None:
        """The element the last observation showed under the point, if it is no longer there:
        a click now would land on whatever replaced it (or on nothing)."""
        shown = [
            e for e in (self._last.elements or ()) if e.clickable and e.bbox.contains(point)
        ] if self._last is not None else []  # fmt: skip
        if not shown:
            return None
        if self._read(lambda: self._page.evaluate(CLICKABLE_AT_JS, [x, y])):
            return None
        target = min(shown, key=lambda e: e.bbox.width * e.bbox.height)
        return (
            f"the element {target.label or target.class_name!r} is no longer there to click "
            "(gone, or covered by something else)"
        )

    def _type(self, text: str) -> str | None:
        text, missing = self._with_secrets(text)
        if missing:
            return (
                f"the text needs the secret {missing!r}: give it at run time (--param "
                f"{missing}=... or the task file's environment variable)"
            )
        # Preparing again is safe (the caret a replaced document had is gone with it); choosing
        # an option below is an action: the page may navigate on it, so it is never repeated.
        kind = self._read(lambda: self._page.evaluate(PREPARE_TYPING_JS))
        printable = _KEY_RUNS.sub("", text)
        if kind == "none" and printable:
            return "no element has the focus: click a field before typing"
        if kind == "select":
            chosen = self._page.evaluate(SELECT_OPTION_JS, printable.strip())
            return None if chosen else f"the list has no option {printable.strip()!r}"
        if kind == "segments":
            text = _segment_keys(text)
        keyboard = self._page.keyboard
        for run in _KEY_RUNS.split(text):
            if run in KEYS:
                keyboard.press(KEYS[run])
            elif run:
                keyboard.type(run)
        return None

    def _with_secrets(self, text: str) -> tuple[str, str | None]:
        """``text`` with each ``{name}`` of a known secret filled in; a text that is only
        an unknown placeholder (a recorded password) names the secret it needs."""
        drawn = self._drawn_task()
        known = {**self.secrets, **(drawn.secrets if drawn is not None else {})}
        core = _KEY_RUNS.sub("", text)
        whole = SECRET.fullmatch(core)
        if whole and whole.group(1) not in known:
            return text, whole.group(1)
        return SECRET.sub(lambda m: known.get(m.group(1), m.group(0)), text), None

    def _scroll(self, action: Action) -> str | None:
        width, height = self._size()
        at = (action.point or Point(500, 500)).to_pixels(ScreenSize(width, height))
        direction = action.direction or ScrollDirection.UP
        step_x, step_y = width * SCROLL_SHARE, height * SCROLL_SHARE
        dx, dy = {
            ScrollDirection.UP: (0.0, step_y),  # the finger moves up: content further down
            ScrollDirection.DOWN: (0.0, -step_y),
            ScrollDirection.LEFT: (step_x, 0.0),
            ScrollDirection.RIGHT: (-step_x, 0.0),
        }[direction]
        self._page.mouse.move(at.x, at.y)
        self._page.mouse.wheel(dx, dy)
        return None

    def _settle(self, started_action: bool, read_state: bool = True) -> None:
        """Let the page finish what the action started (``envs.web.settle``); a tab it opened
        becomes the page."""
        self._await_tabs()
        self._follow_tabs()
        assert self._activity is not None
        try:
            self._activity.settle(
                self.timeout_ms / 1000,
                started_action,
                lambda: self._dialogs.open is not None,
                read_state,
            )
        except NotSettled as exc:
            raise EnvError(str(exc)) from exc
        self._follow_tabs()
        self._confine()

    def _await_tabs(self) -> None:
        """Tabs the page opened that Chromium has and Playwright has not announced yet
        (``envs.web.devtools``): waited for, so that the world follows them."""
        page = self._page
        deadline = time.monotonic() + self.timeout_ms / 1000
        while (
            self._devtools.tabs_opened(page) > len(self._opened)
            and time.monotonic() < deadline
            and not page.is_closed()
        ):
            page.wait_for_timeout(TAB_POLL_MS)
        self._devtools.take_tabs()

    def _confine(self) -> None:
        """A page outside the task's origins (a link, a redirect, a tab it opened) is left
        before anything of it is read: back to where the run was, or its tab is closed."""
        refusal = self.origins.refusal(self._page.url)
        if refusal is None:
            return
        self._refused = refusal
        with contextlib.suppress(Exception):
            self._page.go_back(wait_until="load", timeout=self.timeout_ms)
        if self.origins.allows(self._page.url):
            return
        others = [p for p in self._context.pages if p is not self._page and not p.is_closed()]
        with contextlib.suppress(Exception):
            if others:
                self._page.close()
                self._use_page(others[-1])
            else:
                self._page.goto("about:blank", timeout=self.timeout_ms)

    # Observing -----------------------------------------------------------------------------
    def _observe(self, settled: bool = True) -> Observation:
        """The page as it is; ``settled=False``: the settle before it left out the page's load
        state and stillness, read here with the walk."""
        for attempt in range(OBSERVE_TRIES):
            try:
                observation = self._observe_once(settled or attempt > 0)
                break
            except Exception:
                # The page was not done (still loading or animating), or the document was
                # replaced while it was read (a late redirect, a reload): let it settle and
                # read again.
                if attempt == OBSERVE_TRIES - 1 or self._page.is_closed():
                    raise
                self._settle(started_action=False)
        dialog = self._dialogs.open
        if dialog is not None:
            observation = overlay(observation, dialog)
        self._last = observation
        return observation

    def _observe_once(self, settled: bool) -> Observation:
        """One observation; unless the page has just ``settled`` (as far as it will), a page
        not done loading or animating is not observed (``_NotDone``)."""
        page = self._page
        skip = miniwob.SKIP if self._is_miniwob() else ""
        raw, (ready, still) = page.evaluate(OBSERVE_JS, ["", skip])
        if not settled and (ready != "complete" or not still):
            raise _NotDone(f"the page is {ready}{'' if still else ', animating'}")
        walk = dom.read_walk(raw)
        png = self._screenshot(page)
        url = page.url
        return Observation(
            screen=ScreenSize(walk.width, walk.height),
            screenshot=png,
            elements=walk.elements,
            app=_app_of(url, walk.title),
            activity=page_of(url),
        )

    def _screenshot(self, page: Any) -> bytes:
        """The viewport as PNG, straight from DevTools (``envs.web.devtools``); Playwright's
        own capture when DevTools cannot answer (a page closing, a browser without it)."""
        try:
            return self._devtools.screenshot(page)
        except Exception:
            png: bytes = page.screenshot(type="png", animations="disabled", caret="hide")
            return png

    def _size(self) -> tuple[int, int]:
        if self._last is not None:
            return self._last.screen.width, self._last.screen.height
        size = self._page.viewport_size or {"width": 0, "height": 0}
        return int(size["width"]), int(size["height"])

    def _read(self, read: Callable[[], Any]) -> Any:
        """``read()`` of the page, read again on the new document when a navigation replaced
        the one read (``envs.web.navigation``); for reads only, never for an action."""
        return read_through_navigation(self._page, read, self.timeout_ms)

    def _is_miniwob(self) -> bool:
        return bool(self.task is not None and self.task.params.get("miniwob"))

    def _left_task(self) -> str | None:
        """A MiniWoB task lives on one page; a link that leaves it ends the task's chances."""
        if not self._is_miniwob() or self.task is None or self._page is None:
            return None
        here, home = self._page.url.split("#")[0], self.task.params["url"]
        if here != home:
            return f"the page navigated away from the task (now at {here})"
        return None

    def _status(self) -> tuple[bool, dict[str, Any]]:
        if not self._is_miniwob():
            return False, {}
        try:
            state = miniwob.status(self._page)
        except Exception:  # the page left the task: its globals are gone
            return False, {}
        return state.done, {"reward": state.reward, "reason": state.reason} if state.done else {}

    def _result(self, done: bool = False, error: str | None = None) -> StepResult:
        return StepResult(self._last or self._blank_observation(), done=done, error=error)

    def _failure(self, exc: BaseException) -> StepResult:
        """The browser or page broke under the action: a blank screen and the reason."""
        message = _line(exc)
        if not self.browser.running:
            self._context = self._page = None
            message = f"the browser crashed or was closed ({message})"
        elif self._page is not None and self._page.is_closed():
            message = f"the page was closed ({message})"
        observation = self._blank_observation()
        self._last = observation
        return StepResult(observation, done=False, error=message)

    def _blank_observation(self) -> Observation:
        width, height = self.viewport if not self._is_miniwob() else miniwob.VIEWPORT
        if self._blank is None:
            import io

            from PIL import Image

            buffer = io.BytesIO()
            Image.new("RGB", (width, height), "white").save(buffer, format="PNG")
            self._blank = buffer.getvalue()
        return Observation(ScreenSize(width, height), screenshot=self._blank, elements=())


_TEXT_JS = "() => document.body ? document.body.innerText : ''"


class _NotDone(Exception):
    """The page was read before it had finished loading or animating."""


def _as_url(target: str) -> str | None:
    text = target.strip()
    if text.startswith(_SCHEMES):
        return text
    host = text.split("/", 1)[0]
    if "." in host and " " not in text:
        return f"https://{text}"
    return None


def page_of(url: str) -> str:
    """Which page of its site ``url`` shows: the path and the sorted names of the query
    parameters. Their values and the fragment are what the page shows (the wiki page being
    edited, the words searched for); a recording and a run with other values, or on another
    port, are on the same pages."""
    parts = urlsplit(url)
    names = sorted({name for name, _ in parse_qsl(parts.query, keep_blank_values=True)})
    return parts.path + ("?" + "&".join(names) if names else "")


def _app_of(url: str, title: str) -> str:
    """The site of an http(s) page (its host); a local file is an app of its own, named by
    its file name without the extension (``login-user``); other pages by their title."""
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname:
        return parts.hostname
    if url.startswith("about:blank"):
        return ""
    if parts.scheme == "file":
        name = parts.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if name:
            return name
    return title.strip() or url


def _segment_keys(text: str) -> str:
    """What to type into a date or time field for ``text`` ("8:04 PM", "1/5/2020"): each
    number filling its segment ("08", "04"), the letters (AM/PM) and the keys, no
    separators. The field moves to the next segment as each fills; a separator typed after
    that would skip one."""
    padded = re.sub(r"\d+", lambda m: m.group(0).zfill(2), text)
    return "".join(c for c in padded if c.isalnum() or c in "\n\t\b\x1b")


def _line(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else type(exc).__name__
