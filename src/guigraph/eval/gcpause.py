"""Pausing Python's cyclic garbage collector around bulk record building."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of records.

    The records hold no cycles, but every new dict or tuple counts towards the collector's
    thresholds, and its repeated full passes over the growing list cost more than the
    parsing itself (measured: 7.5 vs 1.7 us per JSON line at 300,000 lines).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
