"""Recording a person working in Chromium: their input becomes a GUIOdyssey episode.

A listener in every document of the browser (``envs.web.record_js``: every frame, every page
loaded later, events from open shadow roots) reports the person's input events; this module
turns them into the web world's actions, each with the screenshot and UI elements captured
*before* it. The page is captured at the start and again whenever the person pauses after an
action (``idle_s``), once the page has settled, so the capture before an action shows what the
person saw when they acted.

What becomes an action:

- a click (a double click is the second click of a pair);
- a visit to a text field: what the person typed there is one ``type`` action, whatever keys
  they pressed on the way (corrections included). Text added at the end of what the field held
  is typed as is; a field whose text was replaced (selected and overtyped, or cleared) is a long
  press on the field (which selects its text) and then the new text. Enter or Tab that ends the
  visit is typed with it (``"garden\\n"``). A password field's text is never read: the typing
  is the parameter ``{password}``, given at run time;
- Enter, Tab, Escape or Backspace pressed outside a field (as the characters the world types);
- a run of wheel scrolls in one direction: one scroll;
- an option chosen in a list: its label typed into the list (what the world does with it);
- a page the person opened themselves (the address bar, a new tab): ``open_app`` with its URL;
  back or forward through history: ``press_back``. Pages that a click, a key or a redirect led
  to are the effect of that action, not actions.

Stopping (Ctrl-C, SIGTERM, ``stop``, or closing the browser) ends the episode with ``complete``
on the last screen and writes it; ``guigraph build`` takes the folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from guigraph.envs.web.env import WebEnv
from guigraph.envs.web.record_js import BINDING, RECORD_JS
from guigraph.errors import EnvError
from guigraph.geometry import Point
from guigraph.types import (
    Action,
    ActionType,
    DeviceInfo,
    Episode,
    Observation,
    ScrollDirection,
    Step,
    Task,
)

#: The parameter a password typed by the person becomes.
PASSWORD = "password"
#: Keys recorded as the characters the web world types for them.
KEY_CHARS = {"Enter": "\n", "Tab": "\t", "Escape": "\x1b", "Backspace": "\b"}
#: A page loaded this soon after an action (a slow server) or after the page before (a
#: redirect) is their effect; later, with nothing done, the person opened it themselves.
CAUSE_S = 2.5
#: The signals that mean "stop and keep what was recorded".
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: How long the recorder waits for the browser's events at a time.
POLL_MS = 50


@dataclass
class Recording:
    """What a recording made: the episode's annotation file and its actions."""

    path: Path | None
    episode_id: str
    actions: list[Action] = field(default_factory=list)


@dataclass(frozen=True)
class PageEvent:
    """One event the listener reported, with the page and frame it came from."""

    data: dict[str, Any]
    page: Any
    frame: Any
    at: float

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def page_time(self) -> float:
        """When it happened, by the page's clock (seconds; arrival time if unstamped)."""
        stamp = self.data.get("t")
        return float(stamp) / 1000 if isinstance(stamp, int | float) else time.time()

    @property
    def field(self) -> dict[str, Any]:
        return dict(self.data.get("f") or {})


@dataclass
class FieldVisit:
    """The person typing in one field: what it held when they began, and holds now."""

    key: tuple[int, str]  # (frame, the field's token in its document)
    before: Observation
    at: Point
    initial: str
    value: str
    secret: bool
    typed: bool = False
    ending: str = ""  # Enter or Tab that ended the visit


class WebPersonRecorder:
    """``WebPersonRecorder(env, url, instruction, out).run()`` records until stopped."""

    def __init__(
        self,
        env: WebEnv,
        url: str,
        instruction: str,
        out: Path,
        category: str = "General_Tool",
        idle_s: float = 0.3,
    ) -> None:
        if not instruction.strip():
            raise ValueError("--instruction is empty: say what the recorded task is")
        self.env, self.url, self.instruction = env, url, instruction.strip()
        self.out, self.category, self.idle_s = Path(out), category, idle_s
        self.captures = 0
        self._events: deque[PageEvent] = deque()
        self._steps: list[Step] = []
        self._before: Observation | None = None
        self._visit: FieldVisit | None = None
        self._scrolling: ScrollDirection | None = None  # the direction of a scroll run
        # When, by the page's clock, the person last acted and a page last loaded: what came
        # in long after the recorder got to it must still count from when it happened.
        self._acted_at = 0.0
        self._loaded_at = 0.0
        self._happened_at = 0.0  # the page's time of the event being taken
        self._last_event_at = 0.0
        self._pending = False  # an action since the last capture
        self._ended = False  # the person closed the browser
        self._frames: dict[int, Any] = {}

    # Running --------------------------------------------------------------------------------
    def run(
        self, stop: threading.Event | None = None, on_ready: Callable[[], None] | None = None
    ) -> Recording:
        """Record until ``stop`` is set, Ctrl-C, SIGTERM or the browser closes; the episode
        is written either way. ``on_ready`` is called once the first page is up and captured:
        what the person does from then on is recorded."""
        stop = stop or threading.Event()
        self.env.on_new_context(self._install)
        task = Task(task_id="recorded", instruction=self.instruction, params={"url": self.url})
        self._before = self._captured(self.env.reset(task, 0))
        self._events.clear()  # the start page's own load is not the person's
        self._loaded_at = time.time()
        if on_ready is not None:
            on_ready()
        with _stop_on_signals(stop):  # Ctrl-C or SIGTERM, however the command was launched
            try:
                while not stop.is_set() and not self._ended:
                    self._wait()
                    while self._events:
                        self._take(self._events.popleft())
                    if self._pending and time.monotonic() - self._last_event_at >= self.idle_s:
                        self._capture()
            except KeyboardInterrupt:
                pass  # the person is done: keep what was recorded
            self._drain()
            last = self._last_screen()
        return self._write(last)

    def _drain(self) -> None:
        """Take the events already reported when the recording stopped (the last click came
        just before Ctrl-C); the browser may be gone by now, which changes nothing here."""
        if not self._ended:
            with contextlib.suppress(Exception):
                self._wait()
        while self._events:
            with contextlib.suppress(Exception):
                self._take(self._events.popleft())

    def _install(self, context: Any) -> None:
        context.expose_binding(BINDING, self._on_event)
        context.add_init_script(RECORD_JS)
        context.on("page", self._on_page)
        context.browser.on("disconnected", lambda _browser: self._end())

    def _on_event(self, source: dict[str, Any], data: Any) -> None:
        # Called by Playwright while this thread waits on the browser: only queue it.
        if isinstance(data, dict):
            event = PageEvent(data, source.get("page"), source.get("frame"), time.monotonic())
            self._events.append(event)

    def _on_page(self, page: Any) -> None:
        page.on("close", lambda closed: self._events.append(self._closed_event(closed)))

    def _closed_event(self, page: Any) -> PageEvent:
        return PageEvent({"kind": "closed"}, page, None, time.monotonic())

    def _end(self) -> None:
        self._ended = True

    def _wait(self) -> None:
        """Let the browser deliver events for a moment (Playwright's sync API delivers them
        only while it is called)."""
        page = self.env.page
        try:
            if page is None or page.is_closed():
                self._follow_open_page()
                return
            page.wait_for_timeout(POLL_MS)
        except KeyboardInterrupt:
            raise
        except Exception:
            if not self.env.browser.running:
                self._ended = True
            else:
                self._follow_open_page()

    def _follow_open_page(self) -> None:
        page = self.env.page
        context = page.context if page is not None else None
        still = [p for p in context.pages if not p.is_closed()] if context is not None else []
        if not still:
            self._ended = True  # the person closed the window
            return
        self.env.use_page(still[-1])
        self._pending = True

    def _capture(self) -> None:
        seen = len(self._events)
        try:
            observation = self.env.capture()
        except KeyboardInterrupt:
            raise
        except Exception:
            return  # the page was between documents: the next pause captures it
        taken_at = time.time()
        # Events that came in meanwhile: the capture is the screen before them only if they
        # happened after it was taken (the page stamps each event with its time).
        meanwhile = list(self._events)[seen:]
        if all(float(e.data.get("t", 0)) / 1000 >= taken_at for e in meanwhile):
            self._before = self._captured(observation)
            self._pending = False

    def _captured(self, observation: Observation) -> Observation:
        self.captures += 1
        return observation

    def _last_screen(self) -> Observation:
        """The screen after the last action, to end the episode on; the last capture when
        the browser is gone (or the person presses Ctrl-C again meanwhile)."""
        assert self._before is not None
        self._flush_typing()
        if self._pending and not self._ended:
            with contextlib.suppress(KeyboardInterrupt, EnvError, Exception):
                return self.env.capture()
        return self._before

    # Events into actions ------------------------------------------------------------------
    def _take(self, event: PageEvent) -> None:
        kind = event.kind
        if kind == "closed":
            if event.page is self.env.page:
                self._follow_open_page()
            return
        if kind == "load":
            self._loaded(event)
            return
        page = event.page
        if page is not None and page is not self.env.page and not page.is_closed():
            self.env.use_page(page)  # the person works in another tab now
            self._pending = True
        if kind == "activate":
            return
        self._last_event_at = event.at
        self._happened_at = event.page_time
        handler = {
            "click": self._click,
            "dblclick": self._click,
            "key": self._key,
            "beforeinput": self._typing,
            "input": self._typing,
            "choose": self._choose,
            "wheel": self._wheel,
        }.get(kind)
        if handler is not None:
            handler(event)

    def _add(self, action: Action, before: Observation | None = None) -> None:
        observation = before or self._before
        assert observation is not None
        if action.type is not ActionType.SCROLL:
            self._scrolling = None
        self._steps.append(Step(len(self._steps), observation, action))
        self._pending = True
        self._acted_at = max(self._acted_at, self._happened_at)

    def _click(self, event: PageEvent) -> None:
        target = event.field
        visit = self._visit
        inside = target.get("kind") in ("text", "multiline")
        if inside and visit is not None and self._field_key(event, target) == visit.key:
            return  # a click inside the field being typed in: part of the typing
        self._flush_typing()
        point = self._point(event, float(event.data["x"]), float(event.data["y"]))
        self._add(Action(ActionType.CLICK, point=point))

    def _key(self, event: PageEvent) -> None:
        data, target = event.data, event.field
        if data.get("ctrl") or data.get("alt") or data.get("meta"):
            return  # a chord: what it did to a field shows in the field's text
        key = str(data.get("key", ""))
        kind = target.get("kind", "")
        if kind == "select":
            return  # arrows through a list: the option chosen is the action
        if kind in ("text", "multiline"):
            if key in ("Enter", "Tab") and not (kind == "multiline" and key == "Enter"):
                visit = self._visit_of(event, target)
                visit.ending = KEY_CHARS[key]
                self._flush_typing()
            elif key == "Escape":
                self._flush_typing()
                self._add(Action.type_text(KEY_CHARS[key]))
            return  # other keys edit the text: the visit's text tells what they did
        if key in KEY_CHARS:
            self._flush_typing()
            self._add(Action.type_text(KEY_CHARS[key]))

    def _typing(self, event: PageEvent) -> None:
        target = event.field
        visit = self._visit_of(event, target)
        if event.kind == "input":
            visit.value, visit.typed = str(target.get("value", "")), True

    def _choose(self, event: PageEvent) -> None:
        self._flush_typing()
        label = str(event.data.get("label", "")).strip()
        if label:
            self._add(Action.type_text(label))

    def _wheel(self, event: PageEvent) -> None:
        dx, dy = float(event.data.get("dx", 0)), float(event.data.get("dy", 0))
        if abs(dy) >= abs(dx):  # the finger's direction: content further down is "up"
            direction = ScrollDirection.UP if dy > 0 else ScrollDirection.DOWN
        else:
            direction = ScrollDirection.LEFT if dx > 0 else ScrollDirection.RIGHT
        if direction is self._scrolling and not self._pending_typing():
            return  # the same scroll run
        self._flush_typing()
        start = self._point(event, float(event.data["x"]), float(event.data["y"]))
        self._add(Action(ActionType.SCROLL, start, _finger_end(start, direction), direction))
        self._scrolling = direction

    def _loaded(self, event: PageEvent) -> None:
        """A document loaded in a page's top frame: an action of its own only when nothing the
        person did just before led to it (they typed an address, or went back)."""
        if not event.data.get("top") or event.page is None:
            return
        if event.page is self.env.page:
            self._flush_typing()  # a new document: the field typed in is gone
        now = event.page_time
        caused = now - max(self._acted_at, self._loaded_at) < CAUSE_S
        self._loaded_at = now
        if event.page is not self.env.page and not event.page.is_closed():
            self.env.use_page(event.page)
        self._pending = True
        if caused:
            return
        self._flush_typing()
        if event.data.get("how") == "back_forward":
            self._add(Action(ActionType.PRESS_BACK))
        elif event.data.get("how") == "navigate":
            self._add(Action.open_app(str(event.data.get("url", ""))))

    # Typing --------------------------------------------------------------------------------
    def _field_key(self, event: PageEvent, target: dict[str, Any]) -> tuple[int, str]:
        return (id(event.frame), str(target.get("field", "")))

    def _visit_of(self, event: PageEvent, target: dict[str, Any]) -> FieldVisit:
        key = self._field_key(event, target)
        if self._visit is not None and self._visit.key == key:
            return self._visit
        self._flush_typing()
        assert self._before is not None
        value = str(target.get("value", ""))
        at = self._point(event, float(target.get("x", 0)), float(target.get("y", 0)))
        self._visit = FieldVisit(key, self._before, at, value, value, bool(target.get("secret")))
        return self._visit

    def _pending_typing(self) -> bool:
        return self._visit is not None and (self._visit.typed or bool(self._visit.ending))

    def _flush_typing(self) -> None:
        visit, self._visit = self._visit, None
        if visit is None or not (visit.typed or visit.ending):
            return
        if visit.secret:
            text = "{" + PASSWORD + "}" if visit.typed else ""
        elif visit.value.startswith(visit.initial):
            text = visit.value[len(visit.initial) :]
        else:  # the text was replaced: select it (a long press), then type the new text
            self._add(Action(ActionType.LONG_PRESS, point=visit.at), visit.before)
            text = visit.value or "\b"
        text += visit.ending
        if text:
            self._add(Action.type_text(text), visit.before)

    # Geometry and writing ------------------------------------------------------------------
    def _point(self, event: PageEvent, x: float, y: float) -> Point:
        """A frame's viewport point as a point of the page's screenshot (0..1000)."""
        dx, dy = self._frame_offset(event)
        assert self._before is not None
        width, height = self._before.screen.width, self._before.screen.height
        return _clamped((x + dx) * 1000 / width, (y + dy) * 1000 / height)

    def _frame_offset(self, event: PageEvent) -> tuple[float, float]:
        frame, page = event.frame, event.page
        if frame is None or page is None or frame is page.main_frame:
            return 0.0, 0.0
        try:
            box = frame.frame_element().bounding_box()
        except Exception:
            return 0.0, 0.0
        return (float(box["x"]), float(box["y"])) if box else (0.0, 0.0)

    def _write(self, last: Observation) -> Recording:
        from guigraph.data.odyssey import write_episode
        from guigraph.envs.wrappers import _add_to_train_split

        self._flush_typing()
        episode_id = _episode_id(self.instruction)
        if not self._steps:
            return Recording(None, episode_id)
        steps = [*self._steps, Step(len(self._steps), last, Action(ActionType.COMPLETE))]
        apps = [s.observation.app or "" for s in steps]
        width, height = self.env.viewport
        episode = Episode(
            episode_id=episode_id,
            instruction=self.instruction,
            category=self.category,
            device=DeviceInfo("Chromium", width, height, product="web"),
            steps=tuple(steps),
            apps=tuple(dict.fromkeys(a for a in apps if a)),
        )
        path = write_episode(self.out, episode)
        _add_to_train_split(self.out, episode_id)
        return Recording(path, episode_id, [s.action for s in steps])


#: How far (0..1000) a recorded scroll's finger moves.
_SWIPE = 300.0


def _finger_end(start: Point, direction: ScrollDirection) -> Point:
    dx, dy = {
        ScrollDirection.UP: (0.0, -_SWIPE),
        ScrollDirection.DOWN: (0.0, _SWIPE),
        ScrollDirection.LEFT: (-_SWIPE, 0.0),
        ScrollDirection.RIGHT: (_SWIPE, 0.0),
    }[direction]
    return _clamped(start.x + dx, start.y + dy)


def _clamped(x: float, y: float) -> Point:
    return Point(min(max(x, 0.0), 1000.0), min(max(y, 0.0), 1000.0))


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM set ``stop`` (in the main thread; elsewhere the
    caller's event is the way to stop). A flag, not an exception: an exception raised in the
    middle of a Playwright call breaks its connection (and prints its traceback), while the
    loop sees the flag within one poll. Installed even where the command was launched with
    SIGINT ignored (a non-interactive shell), as a person's Ctrl-C must still stop it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}

    def ask_to_stop(number: int, frame: FrameType | None) -> None:
        stop.set()

    for number in STOP_SIGNALS:
        signal.signal(number, ask_to_stop)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _episode_id(instruction: str) -> str:
    key = f"web/{instruction}/{time.time_ns()}"
    return str(int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10**16).zfill(16)
