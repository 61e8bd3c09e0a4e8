"""When the desktop recorder reads the screen: after the person acted and the screen stayed
still, and again when the application answers late, which a loaded machine makes common."""

from __future__ import annotations

import pytest

from guigraph.envs.desktop import recorder
from guigraph.envs.desktop.recorder import RECORDER_STILL_S, _Watch


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
