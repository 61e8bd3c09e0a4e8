import asyncio
import multiprocessing
import sqlite3
from pathlib import Path

from guigraph.llm import messages as m
from guigraph.llm.cache import ResponseCache, request_key
from guigraph.llm.client import ChatClient
from guigraph.llm.usage import UsageLedger
from guigraph.testing import FakeModelServer, Reply
from tests.llm.conftest import fast_config, own_limit, png


def counter_reply(body: dict) -> Reply:
    # A different answer every time: a cache hit is the only way to see the same one twice.
    return Reply.of(f"answer number {id(body)}")


def run_evaluation(client: ChatClient) -> list[str]:
    prompts = [[m.user(f"question {i}", png(120, 200, (i, 0, 0)))] for i in range(5)]
    return [client.complete(p).text for p in prompts]


def test_second_run_is_identical_and_sends_no_request(tmp_path: Path) -> None:
    with FakeModelServer(counter_reply) as server:
        with ResponseCache(tmp_path / "cache.sqlite") as cache:
            first = run_evaluation(ChatClient(fast_config(server), cache=cache, limit=own_limit()))
        assert server.request_count == 5
        with ResponseCache(tmp_path / "cache.sqlite") as cache:
            ledger = UsageLedger()
            client = ChatClient(fast_config(server), cache=cache, ledger=ledger, limit=own_limit())
            second = run_evaluation(client)
        assert server.request_count == 5  # zero requests on the second run
    assert second == first
    assert ledger.total().cached_calls == 5 and ledger.total().cost_usd == 0


def test_key_covers_images_and_parameters(tmp_path: Path) -> None:
    with FakeModelServer(counter_reply) as server, ResponseCache(tmp_path / "c.sqlite") as cache:
        client = ChatClient(fast_config(server), cache=cache, limit=own_limit())
        client.complete([m.user("same text", png(100, 100, (1, 2, 3)))])
        client.complete([m.user("same text", png(100, 100, (1, 2, 4)))])  # one pixel value differs
        hot = ChatClient(fast_config(server, temperature=0.7), cache=cache, limit=own_limit())
        hot.complete([m.user("same text", png(100, 100, (1, 2, 3)))])
        assert server.request_count == 3
        client.complete([m.user("same text", png(100, 100, (1, 2, 3)))])
        assert server.request_count == 3


def test_async_callers_share_the_cache(tmp_path: Path) -> None:
    async def ask_all(client: ChatClient) -> list[str]:
        results = await asyncio.gather(*(client.acomplete([m.user(f"q{i}")]) for i in range(12)))
        return [r.text for r in results]

    with FakeModelServer(counter_reply) as server, ResponseCache(tmp_path / "c.sqlite") as cache:
        client = ChatClient(fast_config(server), cache=cache, limit=own_limit())
        first = asyncio.run(ask_all(client))
        second = asyncio.run(ask_all(client))
        assert server.request_count == 12
    assert first == second


def _write_many(path: str, worker: int) -> None:
    cache = ResponseCache(path)
    for i in range(60):
        cache.put(request_key({"worker": worker, "i": i}), "m", {"text": f"{worker}-{i}"})
    cache.close()


def test_concurrent_writer_processes_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    ResponseCache(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(path, w)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=60)
        assert process.exitcode == 0
    with ResponseCache(path) as cache:
        assert len(cache) == 240
        assert cache.get(request_key({"worker": 3, "i": 59})) == {"text": "3-59"}
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_request_key_is_order_independent() -> None:
    assert request_key({"a": 1, "b": [1, 2]}) == request_key({"b": [1, 2], "a": 1})
    assert request_key({"a": 1}) != request_key({"a": 2})


def test_concurrent_writer_threads_lose_nothing(tmp_path: Path) -> None:
    import threading

    with ResponseCache(tmp_path / "threads.sqlite") as cache:

        def write(worker: int) -> None:
            for i in range(50):
                key = request_key({"w": worker, "i": i})
                cache.put(key, "m", {"text": f"{worker}-{i}"})
                assert cache.get(key) == {"text": f"{worker}-{i}"}

        threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert len(cache) == 400
