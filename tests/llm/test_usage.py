import asyncio
import json
from pathlib import Path

import pytest

from guigraph.llm import messages as m
from guigraph.llm.client import ChatClient
from guigraph.llm.config import Prices
from guigraph.llm.usage import UsageLedger, UsageTags
from guigraph.testing import FakeModelServer, Reply
from guigraph.testing.server import IMAGE_TOKENS
from tests.llm.conftest import fast_config, own_limit, png


def varied_reply(body: dict) -> Reply:
    words = len(str(body["messages"][-1]["content"]).split())
    return Reply.of(" ".join(["word"] * (words + 1)))


def test_totals_equal_what_the_server_reported(tmp_path: Path) -> None:
    ledger = UsageLedger()
    prices = Prices(input_per_million=2.0, output_per_million=8.0)
    with FakeModelServer(varied_reply) as server:
        planner = ChatClient(
            fast_config(server, prices=prices), role="planner", ledger=ledger, limit=own_limit()
        )
        judge = ChatClient(
            fast_config(server, stream=True), role="judge", ledger=ledger, limit=own_limit()
        )
        for episode in ("ep1", "ep2"):
            for step in range(3):
                tags = UsageTags(episode=episode, step=step)
                planner.complete([m.user("plan the next " * (step + 1))], tags=tags)
                asyncio.run(
                    judge.acomplete([m.user("did the page change?", png(64, 64))], tags=tags)
                )
        reported = list(server.reported_usage)
    run = ledger.total()
    assert run.calls == len(reported) == 12
    assert run.prompt_tokens == sum(p for p, _ in reported)
    assert run.completion_tokens == sum(c for _, c in reported)
    roles = ledger.by_role()
    assert set(roles) == {"planner", "judge"}
    assert roles["judge"].images == 6
    assert roles["judge"].prompt_tokens >= 6 * IMAGE_TOKENS
    assert roles["judge"].cost_usd == 0.0
    expected_cost = roles["planner"].prompt_tokens * 2 + roles["planner"].completion_tokens * 8
    assert roles["planner"].cost_usd == pytest.approx(expected_cost / 1e6)
    assert sum(t.total_tokens for t in ledger.by_episode().values()) == run.total_tokens
    steps = ledger.by_step("ep2")
    assert sorted(steps) == [0, 1, 2] and all(t.calls == 2 for t in steps.values())

    saved = json.loads(ledger.save(tmp_path / "run" / "usage.json").read_text())
    assert saved["schema_version"] == 2
    assert saved["run"]["total_tokens"] == run.total_tokens
    assert "planner" in ledger.summary() and "run" in ledger.summary()


def test_cached_replies_count_calls_but_cost_nothing(tmp_path: Path) -> None:
    from guigraph.llm.cache import ResponseCache

    ledger = UsageLedger()
    with FakeModelServer() as server, ResponseCache(tmp_path / "c.sqlite") as cache:
        client = ChatClient(
            fast_config(server, prices=Prices(1.0, 1.0)),
            ledger=ledger,
            cache=cache,
            limit=own_limit(),
        )
        client.complete([m.user("hi")])
        client.complete([m.user("hi")])
    total = ledger.total()
    assert (total.calls, total.cached_calls) == (2, 1)
    assert total.prompt_tokens == server.reported_usage[0][0]
