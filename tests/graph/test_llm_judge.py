"""The MLLM page-jump judge and state verifier against the loopback server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from guigraph.errors import ConfigError
from guigraph.geometry import BBox, ScreenSize
from guigraph.graph.judge import PageJumpJudge, Verdict, judge_from_name
from guigraph.graph.llm_judge import LlmPageJumpJudge, judge_from_environment
from guigraph.graph.screen import ScreenView
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ModelConfig
from guigraph.testing import FakeModelServer, Reply
from guigraph.types import Action, Observation, UIElement


def screen(app: str, *labels: str) -> ScreenView:
    elements = tuple(
        UIElement(BBox(0, 100 * i, 1000, 100 * i + 90), text=label, clickable=True)
        for i, label in enumerate(labels)
    )
    return ScreenView(Observation(ScreenSize(100, 200), elements=elements, app=app))


def client_for(server: FakeModelServer) -> ChatClient:
    return ChatClient(ModelConfig(model="test-model", base_url=server.base_url, max_attempts=1))


def by_titles(body: dict[str, Any]) -> Reply:
    """Jump iff the first label (the page title) differs between the two screens."""
    text = body["messages"][0]["content"]
    text = text if isinstance(text, str) else " ".join(p.get("text", "") for p in text)
    before = text.split("Screen before")[1].split("\n")[1].split(";")[0]
    after = text.split("Screen after")[1].split("\n")[1].split(";")[0]
    return Reply.of(json.dumps({"jump": before != after, "reason": f"{before} vs {after}"}))


def test_llm_judge_reads_both_screens_and_returns_its_verdict() -> None:
    with FakeModelServer(by_titles) as server:
        judge = LlmPageJumpJudge(client_for(server))
        assert isinstance(judge, PageJumpJudge)
        inbox, mail = screen("Mail", "Inbox", "Compose"), screen("Mail", "New mail", "Send")
        jump = judge.judge(inbox, Action.click(500, 150), mail)
        same = judge.judge(inbox, Action.scroll("up"), screen("Mail", "Inbox", "Older"))
    assert jump.verdict is Verdict.JUMP and "Inbox vs New mail" in jump.reason
    assert same.verdict is Verdict.IN_PAGE


def test_unusable_reply_falls_back_to_the_rule_judge_and_says_so() -> None:
    with FakeModelServer([Reply.of("maybe?")]) as server:
        judge = LlmPageJumpJudge(client_for(server))
        result = judge.judge(screen("Mail", "Inbox"), Action.click(5, 5), screen("Notes", "Notes"))
    assert result.verdict is Verdict.JUMP  # the rule judge: the app changed
    assert "model reply unusable" in result.reason and "app changed" in result.reason


def test_judge_llm_by_name_needs_a_configured_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GUIGRAPH_MODEL", raising=False)
    with pytest.raises(ConfigError, match="model layer"):
        judge_from_name("llm")
    monkeypatch.setenv("GUIGRAPH_MODEL", "test-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert isinstance(judge_from_environment(), LlmPageJumpJudge)


def test_llm_state_verifier_decides_merges_during_a_build(tmp_path, recorders) -> None:  # type: ignore[no-untyped-def]
    from guigraph.graph.build import GraphBuilder
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.llm_judge import LlmStateVerifier
    from guigraph.graph.matcher import DualThresholdVerifier
    from tests.graph.conftest import sources

    counts = {}
    for answer in (True, False):
        with FakeModelServer(default=Reply.of(json.dumps({"same": answer}))) as server:
            kb = KnowledgeBase.create(tmp_path / f"kb-{answer}")
            with kb:
                verifier = LlmStateVerifier(
                    client_for(server), kb, DualThresholdVerifier(kb.settings.match)
                )
                GraphBuilder(kb, verifier=verifier).build(sources(recorders[:2]))
                counts[answer] = kb.stats()["nodes"]
            asked = [json.dumps(r) for r in server.requests]
        assert asked and all("Role: state matcher." in r for r in asked)
    assert counts[False] > counts[True]  # refusing every merge makes a node per screen
