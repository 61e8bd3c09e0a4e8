"""The paper's model-backed stages: an MLLM page-jump judge and an MLLM same-state verifier.

Both implement the Protocols of ``judge.py`` and ``matcher.py``, so ``GraphBuilder`` takes them
as it takes the rule-based ones. Replies are JSON parsed into a verdict, never executed; a
reply that cannot be used falls back to the model-free decision and says so in the reason,
so one bad answer does not drop an episode.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.errors import GuigraphError, ResponseParseError
from guigraph.graph.judge import Judgement, JumpVerdict, RuleJudge
from guigraph.graph.matcher import (
    Candidate,
    DualThresholdVerifier,
    MatchSettings,
    StateDescriptor,
)
from guigraph.graph.screen import ScreenView
from guigraph.types import Action

if TYPE_CHECKING:
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.llm.client import ChatClient

JUDGE_PROMPT = (
    "You compare two screenshots of a phone, taken before and after one action. Decide "
    'whether the action moved to another GUI state ("jump": another screen or page of the '
    "app, another app, a dialog opening or closing) or changed the same page in place "
    '("in_page": typing, a keyboard shown or hidden, scrolling, a toggle or selection, '
    'content updating). Answer only JSON: {"verdict": "jump" | "in_page", "reason": "..."}.'
)
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"enum": ["jump", "in_page"]}, "reason": {"type": "string"}},
    "required": ["verdict"],
}
SAME_STATE_PROMPT = (
    "You see two phone screenshots. Are they the same GUI state: the same screen of the same "
    "app, even if its content (texts, list items, typed values) differs? Answer only JSON: "
    '{"same_state": true | false, "reason": "..."}.'
)
SAME_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"same_state": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["same_state"],
}


class LLMJudge:
    """Stage 1 by a multimodal model over ``(I_before, a, I_after)``."""

    def __init__(self, client: ChatClient, fallback: RuleJudge | None = None):
        self.client = client
        self.fallback = fallback or RuleJudge()

    def judge(self, before: ScreenView, action: Action, after: ScreenView) -> Judgement:
        from guigraph.data.commands import action_to_command
        from guigraph.llm.messages import system, user

        messages = [
            system(JUDGE_PROMPT),
            user(
                f"Action: {action_to_command(action)}",
                "Before:",
                before.observation.png_bytes(),
                "After:",
                after.observation.png_bytes(),
            ),
        ]
        try:
            reply = self.client.complete(messages, json_schema=JUDGE_SCHEMA)
            verdict = _field(reply.json(), "verdict", reply.text)
            if verdict not in ("jump", "in_page"):
                raise ResponseParseError(f"verdict {verdict!r} is not jump or in_page", reply.text)
        except GuigraphError as exc:
            rule = self.fallback.judge(before, action, after)
            return Judgement(rule.verdict, f"model reply unusable ({exc}); rule: {rule.reason}")
        reason = str(reply.json().get("reason", ""))[:200]
        return Judgement(JumpVerdict(verdict), f"model: {reason}")


class LLMVerifier:
    """Stage 2's merge decision by a multimodal model, after a cheap text prefilter.

    Candidates whose text is far below the threshold (``prefilter_margin`` under it) are
    refused without a call; the model sees the new screen and the node's representative one.
    """

    def __init__(
        self,
        client: ChatClient,
        kb: KnowledgeBase,
        settings: MatchSettings | None = None,
        prefilter_margin: float = 0.2,
    ):
        self.client = client
        self.kb = kb
        self.settings = settings or kb.settings.match
        self.prefilter_margin = prefilter_margin
        self.fallback = DualThresholdVerifier(self.settings)

    def accepts(self, query: ScreenView, descriptor: StateDescriptor, candidate: Candidate) -> bool:
        from guigraph.llm.messages import system, user

        if descriptor.app and candidate.app and descriptor.app != candidate.app:
            return False
        text = candidate.text_similarity
        if text is not None and text < self.settings.text_threshold - self.prefilter_margin:
            return False
        reference = self._node_png(candidate.node_id)
        if reference is None:
            return self.fallback.accepts(query, descriptor, candidate)
        messages = [
            system(SAME_STATE_PROMPT),
            user("First:", query.observation.png_bytes(), "Second:", reference),
        ]
        try:
            reply = self.client.complete(messages, json_schema=SAME_STATE_SCHEMA)
            same = _field(reply.json(), "same_state", reply.text)
            if not isinstance(same, bool):
                raise ResponseParseError(f"same_state {same!r} is not true or false", reply.text)
        except GuigraphError:
            return self.fallback.accepts(query, descriptor, candidate)
        return same

    def _node_png(self, node_id: int) -> bytes | None:
        """The node's screenshot as PNG: the file when it is still there, else its thumbnail."""
        from PIL import Image

        node = next((n for n in self.kb.nodes() if n.node_id == node_id), None)
        if node is not None and node.screenshot_path and Path(node.screenshot_path).is_file():
            return Path(node.screenshot_path).read_bytes()
        jpeg = self.kb.node_thumbnail(node_id)
        if jpeg is None:
            return None
        out = io.BytesIO()
        with Image.open(io.BytesIO(jpeg)) as image:
            image.save(out, format="PNG")
        return out.getvalue()


def _field(data: Any, name: str, raw: str) -> Any:
    if not isinstance(data, dict) or name not in data:
        raise ResponseParseError(f"expected a JSON object with {name!r}", raw)
    return data[name]
