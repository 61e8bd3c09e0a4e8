"""Web pages in a real Chromium as an :class:`~guigraph.envs.base.Env` (extra ``web``).

Observation: a PNG screenshot of the viewport, the page's UI elements (``envs.web.dom``), the
site as the app and the URL as the activity. A site is an app: ``app`` is the host of an
http(s) page (``mail.example.com``: its pages are the app's screens); a local file (such as a
MiniWoB task page) is an app of its own, named by its file name (``login-user``: one word, so
that an instruction's "click" or "login" does not name it); any other page by its title.
``activity`` is the full URL.

Actions: click / long press at a point, type into the focused element (a focused ``<select>``
chooses the option with that label; a trailing newline presses Enter), scroll (the finger's
direction, as on a phone: ``up`` reveals what is further down), back (history back), open a URL
(``open_app`` with a URL), wait, complete / impossible. There is no home or recent-apps button.

Whatever goes wrong while acting — a page that never loads, a crashed browser, an element gone
before the click, a navigation away from the task page — comes back as ``StepResult.error``
for the team. One Chromium serves every episode of an environment; each episode gets a fresh
browser context (no cookies, storage or history carried over). ``close()`` ends Chromium.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import urlsplit

from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.envs.conventions import WEB, Conventions
from guigraph.envs.web import dom, miniwob
from guigraph.envs.web.browser import Browser
from guigraph.errors import ConfigError, EnvError
from guigraph.geometry import Point, ScreenSize
from guigraph.types import Action, ActionType, Observation, ScrollDirection, Task

DEFAULT_VIEWPORT = (1280, 800)
LONG_PRESS_MS = 600
#: Share of the viewport one scroll moves.
SCROLL_SHARE = 0.6
_SCHEMES = ("http://", "https://", "file://", "about:", "data:")


class WebEnv(Env):
    """A browser world. ``executable``: the Chromium to drive (default ``/usr/bin/chromium``
    or ``GUIGRAPH_CHROMIUM``); ``timeout``: seconds a page may take to load or respond."""

    action_space = frozenset(ActionType) - {ActionType.PRESS_HOME, ActionType.PRESS_RECENT}

    def __init__(
        self,
        executable: str | None = None,
        headless: bool = True,
        timeout: float = 10.0,
        viewport: tuple[int, int] = DEFAULT_VIEWPORT,
        start_url: str = "about:blank",
    ) -> None:
        if timeout <= 0:
            raise ConfigError(f"timeout must be > 0 seconds, got {timeout}")
        self.browser = Browser(executable, headless)
        self.timeout_ms = timeout * 1000.0
        self.viewport = viewport
        self.start_url = start_url
        self.task: Task | None = None
        self._context: Any = None
        self._page: Any = None
        self._primed: tuple[str, int] | None = None  # a task page already started by make_task
        self._last: Observation | None = None
        self._blank: bytes | None = None

    # The Env interface --------------------------------------------------------------------
    @property
    def conventions(self) -> Conventions:
        return WEB

    def make_task(self, spec: str, seed: int) -> Task:
        """``miniwob/<name>`` (seeded: the page makes the instruction), a URL to start from,
        or a free instruction on the start page."""
        text = spec.strip()
        if miniwob.is_miniwob(text):
            name = miniwob.name_of(text)
            url = miniwob.task_url(name)
            instruction = self._open_miniwob(url, seed)
            self._primed = (name, seed)
            return miniwob.make_task(name, seed, instruction)
        if text.startswith(_SCHEMES):
            return Task(task_id=f"url/{seed}", instruction=f"Open {text}", params={"url": text})
        return super().make_task(spec, seed)

    def reset(self, task: Task, seed: int) -> Observation:
        self.task = task
        name = task.params.get("miniwob")
        if name:
            if self._primed != (name, seed) or self._page is None:
                shown = self._open_miniwob(miniwob.task_url(name), seed)
                if shown != task.instruction:
                    raise EnvError(f"MiniWoB {name} with seed {seed} shows another task: {shown!r}")
        else:
            self._new_page(self.viewport)
            url = task.params.get("url") or self.start_url
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
        try:
            error = self._act(action)
            self._settle()
            observation = self._observe()
        except Exception as exc:  # Playwright's Error and TimeoutError: data for the team
            return self._failure(exc)
        error = error or self._left_task()
        done, info = self._status()
        return StepResult(observation, done=done, info=info, error=error)

    def evaluate(self) -> Evaluation | None:
        if self.task is None or not self.task.params.get("miniwob") or self._page is None:
            return None
        try:
            state = miniwob.status(self._page)
        except Exception as exc:
            return Evaluation(False, 0.0, f"the page is gone: {_line(exc)}")
        if not state.done:
            return Evaluation(False, 0.0, "the episode has not ended (no reward yet)")
        return Evaluation(state.reward > 0, state.reward, state.reason)

    def close(self) -> None:
        self._context = self._page = None
        self.browser.close()

    # Pages ---------------------------------------------------------------------------------
    def _new_page(self, viewport: tuple[int, int]) -> Any:
        if self._context is not None:
            with contextlib.suppress(Exception):
                self._context.close()
        self._context = self._page = None
        self._context = self.browser.new_context(*viewport)
        self._context.set_default_timeout(self.timeout_ms)
        self._page = self._context.new_page()
        return self._page

    def _open_miniwob(self, url: str, seed: int) -> str:
        page = self._new_page(miniwob.VIEWPORT)
        error = self._goto(url)
        if error:
            raise EnvError(error)
        return miniwob.start_episode(page, seed, self.timeout_ms)

    def _goto(self, url: str) -> str | None:
        try:
            self._page.goto(url, wait_until="load", timeout=self.timeout_ms)
        except Exception as exc:
            # A navigation still pending would hold every later call: replace it with a
            # blank page, which loads at once.
            with contextlib.suppress(Exception):
                self._page.goto("about:blank", timeout=self.timeout_ms)
            return f"the page did not load: {url} ({_line(exc)})"
        return None

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
            return self._goto(url)
        if kind is ActionType.WAIT:
            seconds = 1.0 if action.seconds is None else action.seconds
            self._page.wait_for_timeout(min(seconds, 10.0) * 1000)
            return None
        return f"{kind.value} is not an action of the web"

    def _back(self) -> str | None:
        """History back; the blank page every tab starts on is not a page to go back to."""
        before = self._page.url
        self._page.go_back(wait_until="load", timeout=self.timeout_ms)
        if self._page.url == before:
            return "there is no page to go back to"
        if self._page.url.startswith("about:blank") and not before.startswith("about:blank"):
            self._page.go_forward(wait_until="load", timeout=self.timeout_ms)
            return "there is no page to go back to"
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
        if self._page.evaluate(_CLICKABLE_AT_JS, [x, y]):
            return None
        target = min(shown, key=lambda e: e.bbox.width * e.bbox.height)
        return (
            f"the element {target.label or target.class_name!r} is no longer there to click "
            "(gone, or covered by something else)"
        )

    def _type(self, text: str) -> str | None:
        kind = self._page.evaluate(_FOCUS_JS)
        if kind == "none":
            return "no element has the focus: click a field before typing"
        if kind == "select":
            chosen = self._page.evaluate(_SELECT_JS, text.strip())
            return None if chosen else f"the list has no option {text.strip()!r}"
        enter = text.endswith("\n")
        body = text[:-1] if enter else text
        if body:
            self._page.keyboard.type(body)
        if enter:
            self._page.keyboard.press("Enter")
        return None

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

    def _settle(self) -> None:
        """Let the page finish what the action started: a navigation, then two frames."""
        try:
            self._page.wait_for_load_state("load", timeout=self.timeout_ms)
        except Exception as exc:
            raise EnvError(f"the page did not finish loading ({_line(exc)})") from exc
        with contextlib.suppress(Exception):  # still animating after a second: observe anyway
            self._page.wait_for_function(_QUIET_JS, polling="raf", timeout=ANIMATION_MS)

    # Observing -----------------------------------------------------------------------------
    def _observe(self) -> Observation:
        page = self._page
        skip = miniwob.SKIP if self._is_miniwob() else ""
        width, height, elements = dom.to_elements(page.evaluate(dom.WALK_JS, ["", skip]))
        png = page.screenshot(type="png", animations="disabled", caret="hide")
        url = page.url
        observation = Observation(
            screen=ScreenSize(width, height),
            screenshot=png,
            elements=elements,
            app=_app_of(url, page.title()),
            activity=url,
        )
        self._last = observation
        return observation

    def _size(self) -> tuple[int, int]:
        if self._last is not None:
            return self._last.screen.width, self._last.screen.height
        size = self._page.viewport_size or {"width": 0, "height": 0}
        return int(size["width"]), int(size["height"])

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


_CLICKABLE_AT_JS = """
([x, y]) => {
  let el = document.elementFromPoint(x, y);
  for (; el && el !== document.body && el !== document.documentElement; el = el.parentElement) {
    const tag = el.tagName.toLowerCase();
    const tags = ['a', 'button', 'input', 'select', 'textarea', 'label', 'option'];
    if (tags.includes(tag)) return true;
    if (el.hasAttribute('onclick') || el.getAttribute('role') || el.isContentEditable) return true;
    if (getComputedStyle(el).cursor === 'pointer') return true;
  }
  return false;
}
"""

_FOCUS_JS = """
() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return 'none';
  const tag = el.tagName.toLowerCase();
  if (tag === 'select') return 'select';
  if (tag === 'input' || tag === 'textarea' || el.isContentEditable) return 'text';
  return 'other';
}
"""

_SELECT_JS = """
(label) => {
  const el = document.activeElement;
  const want = label.toLowerCase();
  const option = Array.from(el.options).find(o => o.text.trim().toLowerCase() === want ||
    o.value.toLowerCase() === want);
  if (!option) return false;
  el.value = option.value;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}
"""

# True once no finite animation runs (CSS, or jQuery's, common on older pages): a click that
# expands a section has not finished when it returns. Polled every frame, for at most
# ANIMATION_MS (an endless animation does not hold the team up).
_QUIET_JS = """
() => {
  const css = document.getAnimations ? document.getAnimations().some(a =>
    a.playState === 'running' && isFinite(a.effect?.getComputedTiming().endTime)) : false;
  const jq = window.jQuery && window.jQuery.fn && window.jQuery(':animated').length > 0;
  return !(css || jq);
}
"""
ANIMATION_MS = 1000


def _as_url(target: str) -> str | None:
    text = target.strip()
    if text.startswith(_SCHEMES):
        return text
    host = text.split("/", 1)[0]
    if "." in host and " " not in text:
        return f"https://{text}"
    return None


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


def _line(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else type(exc).__name__
