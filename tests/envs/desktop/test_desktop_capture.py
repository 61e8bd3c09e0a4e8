"""When the desktop recorder reads the screen: after the person acted and the screen stayed
still, and again when the application answers late, which a loaded machine makes common; and
which reading an action is recorded with when the person acted while the screen was read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from guigraph.envs.desktop import recorder
from guigraph.envs.desktop.env import DesktopEnv
from guigraph.envs.desktop.gestures import Gesture
from guigraph.envs.desktop.recorder import RECORDER_STILL_S, DesktopRecorder, _Watch
from guigraph.geometry import ScreenSize
from guigraph.types import Action, Observation


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    clock = _Clock()
    monkeypatch.setattr(recorder.time, "monotonic", clock)
    return clock


def test_a_late_answer_is_captured_and_so_is_an_action_that_changed_nothing(
    clock: _Clock,
) -> None:
    watch = _Watch(b"frame")
    idle = 0.3
    clock.now += 5
    assert not watch.look(b"frame", idle)  # nothing new: no capture
    watch.acted(clock.now)  # ctrl+r
    clock.now += 0.1
    assert not watch.look(b"frame", idle)  # the person may still be acting
    clock.now += RECORDER_STILL_S + idle
    assert watch.look(b"frame", idle)  # the screen after the key (no dialog yet)
    watch.captured(b"frame")
    assert not watch.look(b"frame", idle)
    clock.now += 0.5  # the dialog opens late ...
    assert not watch.look(b"dialog", idle)  # ... and is read once it stopped changing
    clock.now += RECORDER_STILL_S + 0.05
    assert watch.look(b"dialog", idle)
    watch.captured(b"dialog")
    assert not watch.look(b"dialog", idle)


def test_a_screen_that_keeps_changing_is_captured_all_the_same(clock: _Clock) -> None:
    watch = _Watch(b"0")
    watch.acted(clock.now)
    for tick in range(1, 40):  # a clock redrawn every 0.1 s
        clock.now += 0.1
        if watch.look(str(tick).encode(), 0.3):
            break
    assert recorder.CHANGING_MAX_S <= tick * 0.1 < recorder.CHANGING_MAX_S + 0.5


class _SlowTree:
    """A display whose accessibility tree takes a second to read; ``meanwhile`` runs half-way
    through the read (the person acts, a clock ticks) and may change what is shown."""

    def __init__(self, clock: _Clock, app: str) -> None:
        self.clock, self.app, self.pixels = clock, app, app.encode()
        self.meanwhile: Callable[[], None] = lambda: None

    def show(self, app: str, pixels: bytes | None = None) -> None:
        self.app, self.pixels = app, pixels or app.encode()

    def _observe(self) -> tuple[Observation, None]:
        self.clock.now += 0.5
        self.meanwhile()
        self.meanwhile = lambda: None
        self.clock.now += 0.5
        return Observation(ScreenSize(800, 600), app=self.app), None


def _recorder(
    display: _SlowTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DesktopRecorder:
    rec = DesktopRecorder(cast(DesktopEnv, display), "calc", "copy the sum to notes", tmp_path)
    monkeypatch.setattr(rec, "_pixels", lambda: display.pixels)
    return rec


def _press(rec: DesktopRecorder, when: float, chord: str) -> None:
    rec._take(Gesture(Action.key_chord(chord), when))


def test_a_key_pressed_while_the_screen_is_read_is_recorded_on_the_screen_before_it(
    clock: _Clock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured under load (galculator/sum-to-note): ctrl+c changed nothing, the recorder
    read the calculator again, and alt+tab, pressed during that read, brought the editor up
    before the tree was read: that reading is no view of the screen before alt+tab."""
    display = _SlowTree(clock, "calc")
    rec = _recorder(display, tmp_path, monkeypatch)
    rec._capture()
    watch = _Watch(display.pixels)
    clock.now += 2
    _press(rec, clock.now, "ctrl+c")
    watch.acted(clock.now)
    clock.now += 0.6
    alt_tab: list[float] = []

    def person_switches() -> None:
        alt_tab.append(clock.now)
        display.show("notes")

    display.meanwhile = person_switches
    rec._capture(watch)
    assert rec._screens[-1].obs.app == "notes" and rec._screens[-1].torn
    _press(rec, alt_tab[0], "alt+tab")
    watch.acted(alt_tab[0])
    assert [s.observation.app for s in rec._steps] == ["calc", "calc"]
    clock.now += 0.1
    assert not watch.look(display.pixels, 0.3)  # new to the watch: read once it stays
    clock.now += RECORDER_STILL_S + 0.05
    assert watch.look(display.pixels, 0.3)  # the screen alt+tab brought up is read next
    rec._capture(watch)
    _press(rec, clock.now + 1, "ctrl+v")
    assert rec._steps[-1].observation.app == "notes"


def test_a_reading_the_person_did_not_interrupt_is_kept_when_the_screen_changed_under_it(
    clock: _Clock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    display = _SlowTree(clock, "calc")
    rec = _recorder(display, tmp_path, monkeypatch)
    rec._capture()
    clock.now += 2
    _press(rec, clock.now, "ctrl+o")
    display.show("dialog", b"dialog 12:00")
    clock.now += 0.6
    display.meanwhile = lambda: display.show("dialog", b"dialog 12:01")  # a clock ticks
    rec._capture()
    assert rec._screens[-1].torn
    _press(rec, clock.now + 0.5, "enter")  # after the reading: it shows the dialog
    rec._capture()  # still the dialog: a key pressed during this reading is recorded on it
    _press(rec, rec._screens[-1].ended - 0.5, "escape")
    assert [s.observation.app for s in rec._steps] == ["calc", "dialog", "dialog"]


def test_a_reading_torn_after_a_visible_change_is_the_only_view_of_that_change(
    clock: _Clock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured under load: alt+tab brought the editor up, and ctrl+v, pressed while that
    screen was read, pasted into it. The reading before it shows the calculator, another
    screen: the torn reading, the editor, is still the screen ctrl+v was pressed on."""
    display = _SlowTree(clock, "calc")
    rec = _recorder(display, tmp_path, monkeypatch)
    rec._capture()
    clock.now += 2
    _press(rec, clock.now, "alt+tab")
    display.show("notes")
    clock.now += 0.6
    pasted: list[float] = []

    def person_pastes() -> None:
        pasted.append(clock.now)
        display.show("notes", b"notes 716")

    display.meanwhile = person_pastes
    rec._capture()
    assert rec._screens[-1].torn
    _press(rec, pasted[0], "ctrl+v")
    assert [s.observation.app for s in rec._steps] == ["calc", "notes"]
