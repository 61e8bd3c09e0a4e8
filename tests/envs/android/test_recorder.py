"""Recording a person over ADB: getevent gestures become the actions they were."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.android.env import AndroidEnv
from guigraph.envs.android.getevent import GestureReader, touch_ranges
from guigraph.envs.android.recorder import PersonRecorder
from guigraph.envs.simphone.gestures import describe_devices, gesture_events
from guigraph.geometry import Point, ScreenSize
from guigraph.testing.adb_server import FakeAdbServer
from guigraph.types import Action, ActionType
from tests.envs.android.person import do_task, set_up

SCREEN = ScreenSize(360, 780)


def _read(gesture: dict[str, object]) -> list[Action]:
    reader = GestureReader(SCREEN, touch_ranges(describe_devices()))
    lines, _ = gesture_events(gesture, SCREEN, 100.0)
    return [a for line in lines for a in reader.feed(line)]


def test_gestures_read_back_as_taps_long_presses_swipes_keys_and_text() -> None:
    [tap] = _read({"tap": (90.0, 390.0)})
    assert tap.type is ActionType.CLICK and tap.point is not None
    assert abs(tap.point.x - 250) < 1 and abs(tap.point.y - 500) < 1
    assert _read({"long": (90.0, 390.0)})[0].type is ActionType.LONG_PRESS
    [swipe] = _read({"swipe": (180.0, 600.0, 180.0, 200.0)})
    assert swipe.type is ActionType.SCROLL and swipe.direction is not None
    assert swipe.direction.value == "up"
    assert [a.type for a in _read({"key": "BACK"})] == [ActionType.PRESS_BACK]
    assert [a.type for a in _read({"key": "HOME"})] == [ActionType.PRESS_HOME]
    typed = "".join(a.text or "" for a in _read({"text": "Hi, Dana! 42 ok?"}))
    assert typed == "Hi, Dana! 42 ok?"
    assert touch_ranges(describe_devices(labels=False)) == (32767, 32767)


#: What a person does after the task: a swipe, a long press, recent apps, back and home.
AFTERWARDS: list[tuple[dict[str, object], Action]] = [
    ({"swipe": (180.0, 600.0, 180.0, 250.0)}, Action.swipe(Point(500, 769.23), Point(500, 320.51))),
    ({"long": (90.0, 390.0)}, Action.long_press(250, 500)),
    ({"key": "APPSELECT"}, Action(ActionType.PRESS_RECENT)),
    ({"key": "BACK"}, Action(ActionType.PRESS_BACK)),
    ({"key": "HOME"}, Action(ActionType.PRESS_HOME)),
]


def _record(
    server: FakeAdbServer, out: Path, template: str, seed: int, afterwards: bool = False
) -> tuple[list[Action], list[Action]]:
    set_up(server.device, template, seed)  # the phone as the person finds it
    env = AndroidEnv()
    captures: list[int] = []
    recorder = PersonRecorder(
        env, "placeholder", out, idle_s=0.15, refresh_s=0.3, on_capture=captures.append
    )
    stop = threading.Event()
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(recorder.run(stop)), daemon=True)

    def settle() -> None:  # wait until the recorder has captured the screen after a gesture
        seen = len(captures)
        deadline = time.monotonic() + 10
        while len(captures) == seen and time.monotonic() < deadline:
            time.sleep(0.02)

    from guigraph.envs.simphone.tasks import make_task

    recorder.instruction = make_task(template, seed).instruction
    worker.start()
    deadline = time.monotonic() + 10
    while not captures and time.monotonic() < deadline:
        time.sleep(0.02)
    performed = do_task(server.device, template, seed, settle)
    for gesture, action in AFTERWARDS if afterwards else ():
        server.device.perform(gesture)
        performed.append(action)
        settle()
    stop.set()
    worker.join(timeout=20)
    [recording] = result
    return performed, recording.actions  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_recorded_demonstration_reproduces_what_the_person_did(
    adb_server: FakeAdbServer, tmp_path: Path
) -> None:
    performed, recorded = _record(adb_server, tmp_path / "rec", "info.note", 5, afterwards=True)
    kinds = {a.type for a in performed}
    assert {
        ActionType.CLICK,
        ActionType.TYPE,
        ActionType.SCROLL,
        ActionType.LONG_PRESS,
        ActionType.PRESS_BACK,
        ActionType.PRESS_HOME,
        ActionType.PRESS_RECENT,
    } <= kinds
    assert recorded[-1].type is ActionType.COMPLETE
    recorded = recorded[:-1]
    assert [a.type for a in recorded] == [a.type for a in performed]
    for did, got in zip(performed, recorded, strict=True):
        for name in ("point", "end"):
            a, b = getattr(did, name), getattr(got, name)
            if a is not None:
                assert b is not None and abs(a.x - b.x) <= 10 and abs(a.y - b.y) <= 10  # 1%
        assert did.text == got.text and did.direction == got.direction
    data = OdysseyDataset(tmp_path / "rec")
    [episode_id] = data.episode_ids("random", "train")
    episode = data.load(episode_id)
    assert all(step.observation.elements for step in episode.steps)
    assert episode.steps[0].observation.app == "com.android.launcher3"


@pytest.mark.parametrize("ending", ["second Ctrl-C", "device gone"])
def test_the_episode_is_kept_when_the_last_screen_cannot_be_captured(
    adb_server: FakeAdbServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    """Stopping captures the screen after the last action; a person who presses Ctrl-C again
    while that capture runs, or a phone unplugged by then, must not cost the recording (before,
    the KeyboardInterrupt or EnvError left ``run`` and nothing was written)."""
    from guigraph.errors import EnvError
    from guigraph.types import Task

    set_up(adb_server.device, "info.note", 5)
    env = AndroidEnv()
    recorder = PersonRecorder(env, "Open the notes", tmp_path / "rec")
    before = env.attach(Task(task_id="recorded", instruction="Open the notes"))
    device_info = recorder._device_info()  # read at the start, as ``run`` does
    recorder._take(Action.click(250, 500), before)

    def fails(*_: object) -> object:
        if ending == "second Ctrl-C":
            raise KeyboardInterrupt
        raise EnvError("device emulator-5554: not found")

    monkeypatch.setattr(env, "observe", fails)
    monkeypatch.setattr(env.device, "summary", fails)
    monkeypatch.setattr(env.device, "prop", fails)
    recording = recorder._write(recorder._last_screen(before), device_info)
    assert recording.path is not None
    assert [a.type for a in recording.actions] == [ActionType.CLICK, ActionType.COMPLETE]
    data = OdysseyDataset(tmp_path / "rec")
    [episode_id] = data.episode_ids("random", "train")
    episode = data.load(episode_id)
    assert len(episode.steps) == 2 and episode.steps[-1].observation.elements
