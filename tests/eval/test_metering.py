"""The metered client counts each call once, by either entry point: answered, cached, given up."""

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from guigraph.errors import ModelCallError
from guigraph.eval.metering import Meter, MeteredClient
from guigraph.llm import messages as m
from guigraph.llm.cache import ResponseCache
from guigraph.llm.client import ChatClient, ChatResult
from guigraph.llm.usage import UsageTags
from guigraph.testing import FakeModelServer, Reply
from tests.llm.conftest import fast_config, own_limit

HELLO = [m.user("Answer in JSON.")]
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}}
TAGS = UsageTags(episode="ep-1", step=2)


def sync_call(client: ChatClient, **kwargs: Any) -> ChatResult:
    return client.complete(HELLO, tags=TAGS, **kwargs)


def async_call(client: ChatClient, **kwargs: Any) -> ChatResult:
    return asyncio.run(client.acomplete(HELLO, tags=TAGS, **kwargs))


CALLS = pytest.mark.parametrize("call", [sync_call, async_call], ids=["sync", "async"])


def metered(server: FakeModelServer, meter: Meter, **overrides: Any) -> MeteredClient:
    cache = overrides.pop("cache", None)
    return MeteredClient(
        fast_config(server, **overrides), role="planner", limit=own_limit(), meter=meter,
        cache=cache,
    )  # fmt: skip


@CALLS
def test_a_rejected_form_falls_back_and_the_call_is_metered_once(
    call: Callable[..., ChatResult], tmp_path: Path
) -> None:
    meter = Meter()
    with FakeModelServer(default=Reply.of('{"a": 1}'), response_formats=("json_object",)) as server:
        client = metered(server, meter, cache=ResponseCache(tmp_path / "cache.sqlite"))
        first = call(client, json_schema=SCHEMA)
        again = call(client, json_schema=SCHEMA)
        kinds = [request["response_format"]["type"] for request in server.requests]
    assert first.json() == {"a": 1} and not first.cached
    assert again.cached and again.json() == {"a": 1}
    assert kinds == ["json_schema", "json_object"]  # the second call came from the cache
    counts = meter.episode("ep-1").roles["planner"]
    assert (counts.calls, counts.retried, counts.given_up) == (2, 0, 0)
    assert meter.episode("ep-1").step_usage(2)[0] == 2
    records = client.ledger.snapshot()
    assert [(r.cached, r.error) for r in records] == [(False, ""), (True, "")]


@CALLS
def test_a_call_that_gives_up_is_metered_with_its_retries(
    call: Callable[..., ChatResult],
) -> None:
    meter = Meter()
    crashes = iter(range(1, 100))
    with FakeModelServer(default=lambda _: Reply.error(502, f"worker {next(crashes)}")) as server:
        client = metered(server, meter, max_attempts=3)
        with pytest.raises(ModelCallError, match="3 attempt"):
            call(client)
        assert server.request_count == 3
    counts = meter.episode("ep-1").roles["planner"]
    assert (counts.calls, counts.retried, counts.given_up) == (0, 2, 1)
    (record,) = client.ledger.snapshot()
    assert record.attempts == 3 and "3 attempt" in record.error


def test_a_cancelled_call_is_neither_retried_nor_metered_and_frees_its_slot() -> None:
    meter = Meter()
    limit = own_limit(1)

    async def cancel_midway(client: ChatClient) -> None:
        task = asyncio.create_task(client.acomplete(HELLO, tags=TAGS))
        # Cancelled once the request is in flight at the slow server, however loaded the
        # machine is (a fixed sleep cancelled it before it left on a busy one).
        for _ in range(200):
            if server.request_count:
                break
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await client.aclose()

    with FakeModelServer(default=Reply.slow(2.0)) as server:
        client = MeteredClient(
            fast_config(server, timeout_s=5.0), role="planner", limit=limit, meter=meter
        )
        asyncio.run(cancel_midway(client))
        assert server.request_count == 1
    assert limit.in_use == 0
    assert client.ledger.snapshot() == [] and meter.episode("ep-1").roles == {}
