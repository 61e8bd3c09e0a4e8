"""Recording a person at the desktop: their clicks, typing and keys become an episode.

The recorder starts the application on the world's display, then records the display's input
(``envs.desktop.xrecord``: X RECORD sees what a keyboard and a mouse send, XTEST's included),
turns it into actions (``envs.desktop.gestures``) and keeps, for each action, the screenshot
and accessibility tree captured before it. The screen is captured at the start and whenever
it has changed and then stayed still while the person is not acting: after an action once the
application has answered it, and again when the application answers late (a dialog that opens
a second after the key on a loaded machine), so typed text becomes one ``type`` action and the
screen before the next action shows what the last one did. An action takes the last capture
that started before its first event, after the action before it, unless the action started
while that capture read the tree and the screen changed meanwhile (the capture is torn): its
tree, read slowly on a loaded machine, may show what the action did (the window Alt+Tab
brought up). Where the capture before it started on the same pixels (the action before
changed nothing visible, as Ctrl+C does), that one is taken instead; otherwise the torn one
is still the only view of what the action before did. The screen the action left is read
again. A torn capture no action started during (a clock ticked) is used as any other.
Ctrl-C or SIGTERM (or ``stop``) ends the episode with ``complete`` on the last screen and
writes it as the other recorders do (GUIOdyssey layout), so ``guigraph build`` takes it.
"""

from __future__ import annotations

import hashlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from guigraph.envs.desktop import screen
from guigraph.envs.desktop.env import DesktopEnv
from guigraph.envs.desktop.gestures import Gesture, GestureReader
from guigraph.envs.desktop.xrecord import InputListener
from guigraph.errors import EnvError
from guigraph.stopping import stop_signals
from guigraph.types import Action, ActionType, DeviceInfo, Episode, Observation, Step, Task

#: How long the screen must stay still before the recorder reads it: the person's pause is
#: most of the wait already, and a long one would run into their next action.
RECORDER_STILL_S = 0.3
#: How often the recorder looks at the screen while the person is not acting.
LOOK_EVERY_S = 0.1
#: A screen that keeps changing (a clock, a progress bar) is captured all the same this long
#: after its first change.
CHANGING_MAX_S = 2.0
#: Typed characters that are keys when no text is being typed.
_KEYS_OF_TEXT = {"\n": "enter", "\t": "tab", "\b": "backspace"}


@dataclass
class Recording:
    """What a recording made: the episode's folder entry and its actions."""

    path: Path | None
    episode_id: str
    actions: list[Action] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Capture:
    """One reading of the screen: when it started and ended, what it saw, a digest of its
    pixels when it started, and whether they changed before it ended (torn)."""

    started: float
    ended: float
    obs: Observation
    pixels: bytes
    torn: bool = False

    def read_through(self, when: float) -> bool:
        """Whether the screen changed under this capture while it was still being read at
        ``when``: its tree may show what happened then."""
        return self.torn and self.started <= when <= self.ended


class _Watch:
    """When to capture: the person acted or the screen differs from the last capture, it has
    stayed still for ``RECORDER_STILL_S`` (or kept changing for ``CHANGING_MAX_S``), and the
    person has not acted for ``idle_s``."""

    def __init__(self, pixels: bytes) -> None:
        self.captured_pixels = pixels
        self.seen, self.seen_since = pixels, time.monotonic()
        self.changed_since: float | None = None
        self.last_input = 0.0
        self.acted_since_capture = False

    def acted(self, when: float) -> None:
        self.last_input = max(self.last_input, when)
        self.acted_since_capture = True

    def look(self, pixels: bytes, idle_s: float) -> bool:
        now = time.monotonic()
        if pixels != self.seen:
            self.seen, self.seen_since = pixels, now
        new = pixels != self.captured_pixels or self.acted_since_capture
        if not new:
            self.changed_since = None
            return False
        if self.changed_since is None:
            self.changed_since = now
        idle = now - self.last_input >= idle_s
        still = now - self.seen_since >= RECORDER_STILL_S
        changing_long = now - max(self.changed_since, self.last_input) >= CHANGING_MAX_S
        return idle and (still or changing_long)

    def captured(self, pixels: bytes) -> None:
        self.captured_pixels = pixels
        self.changed_since = None
        self.acted_since_capture = False


class DesktopRecorder:
    """``DesktopRecorder(env, app, instruction, out).run()`` records until stopped."""

    def __init__(
        self,
        env: DesktopEnv,
        app: str,
        instruction: str,
        out: Path,
        category: str = "General_Tool",
        idle_s: float = 0.3,
        task: Task | None = None,
    ) -> None:
        if not instruction.strip():
            raise ValueError("--instruction is empty: say what the recorded task is")
        if not app.strip() and task is None:
            raise ValueError("--app is empty: name the application to record in")
        self.env, self.out, self.idle_s = env, Path(out), idle_s
        self.instruction = instruction.strip()
        self.task = task or Task(
            task_id="recorded", instruction=self.instruction, category=category, apps=(app,)
        )
        self.category = self.task.category or category
        #: Captures so far (a test waits on it to know the recorder looks at the screen).
        self.captures = 0
        self.ready = threading.Event()
        self._screens: list[Capture] = []
        self._steps: list[Step] = []
        self._text = ""
        self._text_before: Observation | None = None

    def run(
        self, stop: threading.Event | None = None, on_ready: Callable[[str], None] | None = None
    ) -> Recording:
        """Record until ``stop`` is set, Ctrl-C or SIGTERM; the episode is written either way.
        ``on_ready`` hears the display's name once the input is being recorded."""
        stop = stop or threading.Event()
        first = self.env.reset(self.task, 0)
        listener = InputListener(self.env.display.name)
        reader = GestureReader(self.env.size)
        self._keep(Capture(time.monotonic(), time.monotonic(), first, self._pixels()))
        watch = _Watch(self._screens[-1].pixels)
        with stop_signals():  # Ctrl-C or SIGTERM, however the command was launched
            try:
                self.ready.set()
                if on_ready is not None:
                    on_ready(self.display)
                while not stop.is_set():
                    try:
                        event = listener.events.get(timeout=LOOK_EVERY_S)
                    except queue.Empty:  # no input: look whether the screen shows something new
                        if watch.look(self._pixels(), self.idle_s):
                            self._capture(watch)
                        continue
                    watch.acted(event.arrived)
                    for gesture in reader.feed(event):
                        self._take(gesture)
            except KeyboardInterrupt:
                pass  # the person is done: keep what was recorded
            finally:
                listener.close()
            while not listener.events.empty():  # what came while the last screen was read
                for gesture in reader.feed(listener.events.get_nowait()):
                    self._take(gesture)
                    watch.acted(gesture.started)
            last = self._last_screen() if watch.acted_since_capture else self._screens[-1].obs
        return self._write(last)

    @property
    def display(self) -> str:
        return self.env.display.name

    def _pixels(self) -> bytes:
        return hashlib.blake2b(screen.raw_pixels(self.display)[2], digest_size=16).digest()

    def _capture(self, watch: _Watch | None = None) -> None:
        """Read the screen and its tree, kept with the time the reading started and ended and
        whether the screen changed meanwhile."""
        started = time.monotonic()
        pixels = self._pixels()
        observation, _ = self.env._observe()
        ended = time.monotonic()
        # The tree is read after the screenshot and slowly: a screen that changed meanwhile
        # (the person pressed a key) may be in the tree and not in the screenshot.
        torn = self._pixels() != pixels
        self._keep(Capture(started, ended, observation, pixels, torn))
        if watch is not None:
            # The pixels it started with: a screen that changed since is new, read again.
            watch.captured(pixels)

    def _keep(self, capture: Capture) -> None:
        self._screens.append(capture)
        self.captures += 1

    def _last_screen(self) -> Observation:
        """The screen after the last action; the one before it if capturing fails."""
        try:
            self.env.reconnect()  # the stop may have cut a request to the display short
            self.env._settle(RECORDER_STILL_S)
            self._capture()
        except (KeyboardInterrupt, EnvError):
            pass
        return self._screens[-1].obs

    def _before(self, gesture: Gesture) -> Observation:
        """The screen the person saw when starting ``gesture``: the last capture that started
        before it. One the gesture interrupted is still the newest view of what the last
        action did (an older one shows the screen before that action), unless the screen
        changed under it: then it may show what the gesture did, and the one before is taken
        where its pixels were the same (the last action changed nothing visible, so it is as
        new a view). Otherwise the torn one is the only view of what the last action did."""
        earlier = [c for c in self._screens if c.started <= gesture.started]
        if not earlier:
            return self._screens[0].obs
        last = earlier[-1]
        if last.read_through(gesture.started) and len(earlier) > 1:
            before = earlier[-2]
            return before.obs if before.pixels == last.pixels else last.obs
        return last.obs

    def _take(self, gesture: Gesture) -> None:
        action = gesture.action
        if action.type is ActionType.TYPE and action.text is not None:
            if self._text or action.text not in _KEYS_OF_TEXT:
                if not self._text:
                    self._text_before = self._before(gesture)
                self._text = self._text[:-1] if action.text == "\b" else self._text + action.text
                return
            action = Action.key_chord(_KEYS_OF_TEXT[action.text])
        self._flush_text()
        if gesture.replaces_last and self._steps:
            last = self._steps.pop()
            self._steps.append(Step(last.index, last.observation, action))
            return
        self._steps.append(Step(len(self._steps), self._before(gesture), action))

    def _flush_text(self) -> None:
        if self._text and self._text_before is not None:
            action = Action.type_text(self._text)
            self._steps.append(Step(len(self._steps), self._text_before, action))
        self._text, self._text_before = "", None

    def _write(self, last: Observation) -> Recording:
        from guigraph.data.odyssey import write_episode
        from guigraph.envs.wrappers import _add_to_train_split

        self._flush_text()
        episode_id = _episode_id(self.instruction)
        if not self._steps:
            return Recording(None, episode_id)
        steps = [*self._steps, Step(len(self._steps), last, Action(ActionType.COMPLETE))]
        apps = [s.observation.app or "" for s in steps]
        size = self.env.size
        episode = Episode(
            episode_id=episode_id,
            instruction=self.instruction,
            category=self.category,
            device=DeviceInfo("desktop", size.width, size.height, product="xvfb"),
            steps=tuple(steps),
            apps=tuple(dict.fromkeys(a for a in apps if a)),
        )
        path = write_episode(self.out, episode)
        _add_to_train_split(self.out, episode_id)
        return Recording(path, episode_id, [s.action for s in steps])


def _episode_id(instruction: str) -> str:
    key = f"desktop/{instruction}/{time.time_ns()}"
    return str(int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10**16).zfill(16)
