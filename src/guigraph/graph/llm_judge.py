"""The paper's MLLM judges for the graph builder, on the model layer.

``LlmPageJumpJudge`` implements ``PageJumpJudge`` over ``(I_before, a, I_after)``: both
screenshots and their UI text. ``LlmStateVerifier`` implements ``StateVerifier``: it shows the
model the new screen and a candidate node's stored text and thumbnail. Both fall back to the
model-free judgement when a reply is unusable (and say so in the reason), so a flaky server
slows a build but never stops or corrupts it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from guigraph.errors import ModelCallError, ResponseParseError
from guigraph.graph.judge import Judgement, PageJumpJudge, RuleJudge, RuleJudgeSettings, Verdict
from guigraph.graph.matcher import Candidate, StateDescriptor, StateVerifier
from guigraph.graph.screen import ScreenView
from guigraph.types import Action

if TYPE_CHECKING:
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.llm.client import ChatClient

log = logging.getLogger("guigraph.graph")
MAX_TEXTS = 40


def screen_text(view: ScreenView) -> str:
    """The screen's UI text for a prompt, or its v2 description when there is no UI tree."""
    elements = view.elements or ()
    texts = [e.label for e in elements if e.label][:MAX_TEXTS]
    if texts:
        return "; ".join(dict.fromkeys(texts))
    return view.description or "(no text: see the screenshot)"


def _ask(client: ChatClient, prompt: str, images: list[bytes]) -> dict[str, Any] | str:
    """The reply as a JSON object, or the reason it is unusable."""
    from guigraph.llm.messages import user

    try:
        value = client.complete_json([user(*images, prompt)])
    except (ModelCallError, ResponseParseError) as exc:
        return str(exc)
    return value if isinstance(value, dict) else f"not a JSON object: {value!r}"


def _png(view: ScreenView) -> list[bytes]:
    observation = view.observation
    return [observation.png_bytes()] if observation.has_screenshot else []


class LlmPageJumpJudge:
    def __init__(self, client: ChatClient, fallback: PageJumpJudge | None = None):
        self.client = client
        self.fallback = fallback or RuleJudge()

    def judge(self, before: ScreenView, action: Action, after: ScreenView) -> Judgement:
        from guigraph.agents.prompting import fill, render_action

        prompt = fill(
            "judge", action=render_action(action), app_before=before.app or "unknown",
            before=screen_text(before), app_after=after.app or "unknown",
            after=screen_text(after),
        )  # fmt: skip
        reply = _ask(self.client, prompt, _png(before) + _png(after))
        if isinstance(reply, str) or not isinstance(reply.get("jump"), bool):
            ruled = self.fallback.judge(before, action, after)
            why = reply if isinstance(reply, str) else f"no boolean 'jump' in {reply!r}"
            return Judgement(ruled.verdict, f"model reply unusable ({why}); {ruled.reason}")
        verdict = Verdict.JUMP if reply["jump"] else Verdict.IN_PAGE
        return Judgement(verdict, f"model: {reply.get('reason', '')}".strip())


class LlmStateVerifier:
    """Same state? Apps must agree; then the model compares the screen with the node."""

    def __init__(self, client: ChatClient, kb: KnowledgeBase, fallback: StateVerifier):
        self.client, self.kb, self.fallback = client, kb, fallback

    def accepts(self, query: ScreenView, descriptor: StateDescriptor, candidate: Candidate) -> bool:
        from guigraph.agents.prompting import fill

        if descriptor.app and candidate.app and descriptor.app != candidate.app:
            return False
        node = next((n for n in self.kb.nodes() if n.node_id == candidate.node_id), None)
        if node is None:
            return self.fallback.accepts(query, descriptor, candidate)
        thumbnail = self.kb.node_thumbnail(node.node_id)
        prompt = fill(
            "state_match", app_a=query.app or "unknown", screen_a=screen_text(query),
            app_b=node.app or "unknown", screen_b=node.state_text or node.description,
        )  # fmt: skip
        images = _png(query) + ([_as_png(thumbnail)] if thumbnail else [])
        reply = _ask(self.client, prompt, images)
        if isinstance(reply, str) or not isinstance(reply.get("same"), bool):
            log.warning("state matcher reply unusable (%s); using the dual threshold", reply)
            return self.fallback.accepts(query, descriptor, candidate)
        return bool(reply["same"])


def _as_png(image: bytes) -> bytes:
    """Thumbnails are stored as JPEG; the model layer sends PNG."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(image)) as opened:
        out = io.BytesIO()
        opened.convert("RGB").save(out, format="PNG")
        return out.getvalue()


def judge_from_environment(settings: RuleJudgeSettings | None = None) -> LlmPageJumpJudge:
    """``--judge llm``: the model named by GUIGRAPH_MODEL at OPENAI_BASE_URL (role "judge")."""
    from guigraph.errors import ConfigError
    from guigraph.llm.client import ChatClient
    from guigraph.llm.config import ModelConfig

    try:
        client = ChatClient(ModelConfig(max_tokens=128), role="judge")
    except ConfigError as exc:
        raise ConfigError(
            f"--judge llm needs a model on the model layer: {exc}; or use --judge rule"
        ) from exc
    return LlmPageJumpJudge(client, RuleJudge(settings))
