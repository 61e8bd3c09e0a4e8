"""A concurrency limit shared by threads and event loops alike.

``threading.Semaphore`` would block an event loop, and ``asyncio.Semaphore`` belongs to one
loop; agents run in worker threads *and* in asyncio tasks against the same server, so one
limit must serve both. Waiters queue first-in first-out; a release hands the slot directly to
the next waiter (a thread event, or a future on its own loop), so no waiter can be overtaken.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager


class ConcurrencyLimit:
    def __init__(self, limit: int):
        if limit < 1:
            raise ValueError(f"concurrency limit must be >= 1, got {limit}")
        self.limit = limit
        self._lock = threading.Lock()
        self._in_use = 0
        self._waiters: deque[
            threading.Event | tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]
        ]
        self._waiters = deque()

    @property
    def in_use(self) -> int:
        return self._in_use

    def acquire(self) -> None:
        with self._lock:
            if self._in_use < self.limit and not self._waiters:
                self._in_use += 1
                return
            event = threading.Event()
            self._waiters.append(event)
        event.wait()  # the releaser counted us in before setting the event

    async def acquire_async(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._in_use < self.limit and not self._waiters:
                self._in_use += 1
                return
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, future))
        try:
            await future
        except asyncio.CancelledError:
            self._abandon(future)
            raise

    def _abandon(self, future: asyncio.Future[None]) -> None:
        """A cancelled waiter leaves the queue, or passes on a slot it was already handed."""
        with self._lock:
            for waiter in self._waiters:
                if isinstance(waiter, tuple) and waiter[1] is future:
                    self._waiters.remove(waiter)
                    return
        if future.done() and not future.cancelled():
            self.release()

    def release(self) -> None:
        with self._lock:
            while self._waiters:
                waiter = self._waiters.popleft()
                if isinstance(waiter, threading.Event):
                    waiter.set()
                    return
                loop, future = waiter
                if loop.is_closed():
                    continue
                if _running_loop() is loop:  # same thread: no need to wake it through a pipe
                    loop.call_soon(_hand_over, future, self)
                else:
                    loop.call_soon_threadsafe(_hand_over, future, self)
                return
            if self._in_use <= 0:
                raise RuntimeError("release() without acquire()")
            self._in_use -= 1

    @contextmanager
    def slot(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()

    @asynccontextmanager
    async def slot_async(self) -> AsyncIterator[None]:
        await self.acquire_async()
        try:
            yield
        finally:
            self.release()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _hand_over(future: asyncio.Future[None], limit: ConcurrencyLimit) -> None:
    # Runs on the waiter's loop. If it was cancelled meanwhile, pass the slot on.
    if future.cancelled():
        limit.release()
    else:
        future.set_result(None)
