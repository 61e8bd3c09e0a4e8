"""Recording a person using an Android device: their gestures become a GUIOdyssey episode.

The recorder reads the device's input events (``getevent -lt``) as they happen, turns them
into actions (``envs.android.getevent``) and keeps, for each action, the screenshot and UI tree
captured before it: the screen is captured at the start and again whenever the person pauses
after an action (``idle_s``), so typed text becomes one ``type`` action and the screen before
the next action shows it; a long pause captures again every ``refresh_s`` (a loading screen
that finished by itself). Stopping (Ctrl-C, or ``stop``) ends the episode with ``complete`` on
the last screen and writes it, so ``guigraph build`` takes it.
"""

from __future__ import annotations

import hashlib
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from guigraph.envs.android.env import AndroidEnv
from guigraph.envs.android.getevent import GestureReader, touch_ranges
from guigraph.errors import EnvError
from guigraph.stopping import stop_signals
from guigraph.types import Action, ActionType, DeviceInfo, Episode, Observation, Step, Task


@dataclass
class Recording:
    """What a recording made: the episode's folder entry and its actions."""

    path: Path | None
    episode_id: str
    actions: list[Action] = field(default_factory=list)


class PersonRecorder:
    """``PersonRecorder(env, instruction, out).run()`` records until stopped."""

    def __init__(
        self,
        env: AndroidEnv,
        instruction: str,
        out: Path,
        category: str = "General_Tool",
        idle_s: float = 0.3,
        refresh_s: float = 3.0,
        on_capture: Callable[[int], None] | None = None,
    ) -> None:
        if not instruction.strip():
            raise ValueError("--instruction is empty: say what the recorded task is")
        self.env, self.instruction, self.out = env, instruction.strip(), Path(out)
        self.category, self.idle_s, self.on_capture = category, idle_s, on_capture
        self.refresh_s = refresh_s
        self.captures = 0
        self._captured_at = 0.0
        self._steps: list[Step] = []
        self._text = ""
        self._text_before: Observation | None = None

    def run(self, stop: threading.Event | None = None) -> Recording:
        """Record until ``stop`` is set, Ctrl-C or SIGTERM; the episode is written either way."""
        stop = stop or threading.Event()
        device = self.env.device
        task = Task(task_id="recorded", instruction=self.instruction, category=self.category)
        before = self.env.attach(task)
        # Read while the device surely answers: the episode is written with it even when the
        # device is gone by the time the person stops.
        device_info = self._device_info()
        reader = GestureReader(self.env.screen, touch_ranges(device.shell("getevent -lp")))
        stream = device.stream("getevent -lt")
        sock = stream.conn
        before = self._capture(before)
        pending, buffer = False, b""
        with stop_signals():  # Ctrl-C or SIGTERM, however the command was launched
            try:
                while not stop.is_set():
                    ready, _, _ = select.select([sock], [], [], self.idle_s)
                    if not ready:  # a pause: the screen the next action starts from
                        stale = time.monotonic() - self._captured_at > self.refresh_s
                        if pending or stale:
                            before, pending = self._capture(None), False
                        continue
                    chunk = sock.recv(65536)
                    if not chunk:
                        raise EnvError(f"device {device.serial}: the input event stream ended")
                    buffer += chunk
                    *lines, rest = buffer.split(b"\n")
                    buffer = rest
                    for line in lines:
                        for action in reader.feed(line.decode("utf-8", "replace")):
                            self._take(action, before)
                            pending = True
            except KeyboardInterrupt:
                pass  # the person is done: keep what was recorded
            finally:
                stream.close()
            last = self._last_screen(before) if pending else before
        return self._write(last, device_info)

    def _last_screen(self, before: Observation) -> Observation:
        """The screen after the last action, to end the episode on; if the person presses
        Ctrl-C again while it is captured, or the device stops answering, the screen before
        that action stands in for it: the actions recorded are kept either way."""
        try:
            return self._capture(None)
        except (KeyboardInterrupt, EnvError):
            return before

    def _capture(self, observation: Observation | None) -> Observation:
        if observation is None:
            observation, _ = self.env.observe()
        self.captures += 1
        self._captured_at = time.monotonic()
        if self.on_capture is not None:
            self.on_capture(self.captures)
        return observation

    def _take(self, action: Action, before: Observation) -> None:
        if action.type is ActionType.TYPE:
            if not self._text:
                self._text_before = before
            text = action.text or ""
            self._text = self._text[:-1] if text == "\b" else self._text + text
            return
        self._flush_text()
        self._steps.append(Step(index=len(self._steps), observation=before, action=action))

    def _flush_text(self) -> None:
        if self._text and self._text_before is not None:
            action = Action.type_text(self._text)
            self._steps.append(Step(len(self._steps), self._text_before, action))
        self._text, self._text_before = "", None

    def _device_info(self) -> DeviceInfo:
        summary = self.env.device.summary()
        return DeviceInfo(
            summary.model or self.env.serial,
            summary.width,
            summary.height,
            product=self.env.device.prop("ro.product.device"),
            release_version=summary.android,
        )

    def _write(self, last: Observation, device: DeviceInfo) -> Recording:
        from guigraph.data.odyssey import write_episode
        from guigraph.envs.wrappers import _add_to_train_split

        self._flush_text()
        episode_id = _episode_id(self.instruction)
        if not self._steps:
            return Recording(None, episode_id)
        steps = [*self._steps, Step(len(self._steps), last, Action(ActionType.COMPLETE))]
        apps = [s.observation.app or "" for s in steps]
        episode = Episode(
            episode_id=episode_id,
            instruction=self.instruction,
            category=self.category,
            device=device,
            steps=tuple(steps),
            apps=tuple(dict.fromkeys(a for a in apps if a and not self.env.conventions.is_home(a))),
            world=self.env.conventions.name,
        )
        path = write_episode(self.out, episode)
        _add_to_train_split(self.out, episode_id)
        return Recording(path, episode_id, [s.action for s in steps])


def _episode_id(instruction: str) -> str:
    key = f"android/{instruction}/{time.time_ns()}"
    return str(int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10**16).zfill(16)
