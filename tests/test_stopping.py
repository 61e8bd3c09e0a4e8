from __future__ import annotations

import os
import signal
import threading

import pytest

from guigraph.stopping import stop_signals


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_interrupts_even_when_sigint_was_ignored(number: signal.Signals) -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a non-interactive launch
    try:
        with pytest.raises(KeyboardInterrupt), stop_signals():
            os.kill(os.getpid(), number)
            signal.sigtimedwait([], 0.1)  # give the handler a point to run at
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # restored on leaving
    finally:
        signal.signal(signal.SIGINT, before)


def test_outside_the_main_thread_nothing_changes() -> None:
    seen: list[object] = []

    def record() -> None:
        with stop_signals():
            seen.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=record)
    thread.start()
    thread.join()
    assert seen == [signal.getsignal(signal.SIGTERM)]
