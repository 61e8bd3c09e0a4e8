"""The MLLM judge and verifier against the loopback model server (real client, real HTTP)."""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.errors import ConfigError
from guigraph.graph.build import GraphBuilder
from guigraph.graph.judge import JumpVerdict, judge_from_name
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.matcher import describe
from guigraph.graph.model_judge import LLMJudge, LLMVerifier
from guigraph.graph.screen import ScreenView
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ModelConfig
from guigraph.testing import FakeModelServer, Reply
from tests.graph.conftest import sources
from tests.graph.world import Recorder, search_episode

TAP = search_episode("x", "Oslo").episode().steps[0].action


def client(server: FakeModelServer) -> ChatClient:
    config = ModelConfig(model="test-model", base_url=server.base_url, max_attempts=1)
    return ChatClient(config)


def views() -> tuple[ScreenView, ScreenView]:
    episode = search_episode("x", "Oslo").episode()
    return ScreenView(episode.steps[0].observation), ScreenView(episode.steps[1].observation)


def test_model_verdict_is_parsed_and_both_screens_are_sent() -> None:
    before, after = views()
    with FakeModelServer([Reply.of('{"verdict": "in_page", "reason": "same list"}')]) as server:
        judgement = LLMJudge(client(server)).judge(before, TAP, after)
        request = server.requests[0]
    assert judgement.verdict is JumpVerdict.IN_PAGE and "same list" in judgement.reason
    images = [
        p
        for m in request["messages"]
        for p in m["content"]
        if isinstance(m["content"], list) and p.get("type") == "image_url"
    ]
    assert len(images) == 2
    assert request["response_format"]["type"] == "json_schema"


@pytest.mark.parametrize("reply", ['{"verdict": "maybe"}', "I think it jumped", '["jump"]'])
def test_unusable_reply_falls_back_to_the_rule_judge(reply: str) -> None:
    before, after = views()  # launcher -> maps: the rule judge says jump
    with FakeModelServer([Reply.of(reply)]) as server:
        judgement = LLMJudge(client(server)).judge(before, TAP, after)
    assert judgement.verdict is JumpVerdict.JUMP
    assert judgement.reason.startswith("model reply unusable")


def test_dead_server_falls_back_too() -> None:
    before, after = views()
    with FakeModelServer([Reply.error(500)], default=Reply.error(500)) as server:
        judgement = LLMJudge(client(server)).judge(before, TAP, after)
    assert judgement.verdict is JumpVerdict.JUMP and "unusable" in judgement.reason


def test_verifier_asks_the_model_only_when_text_is_close(
    tmp_path: Path, recorders: list[Recorder]
) -> None:
    kb = KnowledgeBase.create(tmp_path / "kb")
    GraphBuilder(kb).build(sources(recorders))
    fresh = search_episode("new", "Zagreb", seed=5).episode()
    view = ScreenView(fresh.steps[4].observation, "", True)  # maps results
    descriptor = describe([view], kb.encoder)[0]
    candidates = kb.state_index.search(descriptor)
    close = next(c for c in candidates if (c.text_similarity or 0) > 0.9)
    far = min(candidates, key=lambda c: c.text_similarity or 0.0)
    assert (far.text_similarity or 0.0) < 0.6  # under the prefilter (0.8 - 0.2)
    with FakeModelServer(
        [Reply.of('{"same_state": false}'), Reply.of('{"same_state": true}')]
    ) as server:
        verifier = LLMVerifier(client(server), kb)
        assert verifier.accepts(view, descriptor, far) is False  # no call: text far too low
        assert server.request_count == 0
        assert verifier.accepts(view, descriptor, close) is False  # the model said no
        assert verifier.accepts(view, descriptor, close) is True
        assert server.request_count == 2


def test_llm_judge_needs_a_model_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GUIGRAPH_MODEL", raising=False)
    with pytest.raises(ConfigError, match="GUIGRAPH_MODEL"):
        judge_from_name("llm")
    monkeypatch.setenv("GUIGRAPH_MODEL", "some-model")
    assert isinstance(judge_from_name("llm"), LLMJudge)
