"""How a long-running recorder learns that the person is done.

A person stops a recording with Ctrl-C; a service manager, a CI launcher or ``kill`` stops it
with SIGTERM. Either must end the recording the same way, keeping what was recorded. Python
turns SIGINT into ``KeyboardInterrupt`` only when the process started with SIGINT handled: a
command started from a non-interactive shell (``cmd &``, ``nohup``, many CI runners) inherits
SIGINT *ignored*, and SIGTERM kills outright. ``stop_signals()`` installs one handler for both
for the span of a recording, so every recorder stops on either, however it was launched.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

#: The signals that mean "stop and keep what you have".
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise ``KeyboardInterrupt`` in the main thread.

    Outside the main thread (where Python cannot install handlers) it changes nothing: the
    caller's own stop event is the way to end the recording there. The previous handlers are
    restored on leaving, so a second Ctrl-C after the block behaves as before.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}

    def interrupt(number: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(signal.Signals(number).name)

    for number in STOP_SIGNALS:
        signal.signal(number, interrupt)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
