import asyncio
import threading

import pytest

from guigraph.llm import messages as m
from guigraph.llm.client import ChatClient, shared_limit
from guigraph.llm.limits import ConcurrencyLimit
from guigraph.testing import FakeModelServer
from tests.llm.conftest import fast_config


def test_limit_is_never_exceeded_by_threads_and_event_loops_together() -> None:
    limit = ConcurrencyLimit(4)
    with FakeModelServer(latency_s=0.03) as server:
        # The limit is under test, not timeouts: on a loaded machine (make test runs two
        # workers beside other jobs) a 0.5 s timeout fired and its retry counted twice.
        config = fast_config(server, timeout_s=10.0)
        clients = [ChatClient(config, limit=limit, role=r) for r in ("a", "b")]

        def in_thread(i: int) -> None:
            clients[i % 2].complete([m.user(f"thread {i}")])

        async def in_loop() -> None:
            await asyncio.gather(
                *(clients[i % 2].acomplete([m.user(f"task {i}")]) for i in range(16))
            )

        threads = [threading.Thread(target=in_thread, args=(i,)) for i in range(12)]
        threads.append(threading.Thread(target=asyncio.run, args=(in_loop(),)))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert server.request_count == 28
        assert server.max_in_flight == 4  # reached, never exceeded
    assert limit.in_use == 0


def test_clients_of_one_server_share_the_process_wide_limit() -> None:
    with FakeModelServer(latency_s=0.05) as server:
        config = fast_config(server, max_concurrency=3)
        a, b = ChatClient(config), ChatClient(config)
        assert a.limit is b.limit is shared_limit(server.base_url, 99)

        async def burst() -> None:
            await asyncio.gather(*(c.acomplete([m.user("x")]) for c in [a, b] * 6))

        asyncio.run(burst())
        assert server.max_in_flight == 3


def test_cancelled_waiters_do_not_leak_slots() -> None:
    limit = ConcurrencyLimit(1)

    async def scenario() -> None:
        await limit.acquire_async()
        waiter = asyncio.ensure_future(limit.acquire_async())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        limit.release()
        await asyncio.wait_for(limit.acquire_async(), timeout=1)
        limit.release()

    asyncio.run(scenario())
    assert limit.in_use == 0


def test_limit_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match=">= 1"):
        ConcurrencyLimit(0)
