"""Reading a chat completion, whole or streamed, into the fields guigraph keeps: within the
request's deadline, and no more of it than a reply may hold."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from guigraph.errors import ModelCallError
from guigraph.llm.retry import MalformedResponse

log = logging.getLogger("guigraph.llm")


def _usage_numbers(usage: Any) -> tuple[int, int]:
    if usage is None:  # some servers omit usage; count nothing rather than guess
        return 0, 0
    return int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)


#: The most reply text a call keeps (some 16k tokens, far past any role's answer): a longer
#: reply is cut here, and the cut is said, so that it is never stored whole or fed to prompts.
MAX_REPLY_CHARS = 65_536
#: The most bytes of a non-streamed reply read: its text at worst escaped, and the JSON around.
MAX_BODY_BYTES = 8 * MAX_REPLY_CHARS + 65_536


class ReplyTooLarge(ModelCallError):
    """A non-streamed reply past ``MAX_BODY_BYTES``: reading stopped, nothing of it is used."""


def past_deadline(deadline: float) -> bool:
    return time.monotonic() > deadline


def read_body(chunks: Iterable[bytes], deadline: float, late: Callable[[], Exception]) -> bytes:
    """A response body read chunk by chunk: ``late()`` is raised when more of it comes after
    ``deadline`` (monotonic seconds), however steadily the server trickles; a body past
    ``MAX_BODY_BYTES`` is refused unread."""
    parts: list[bytes] = []
    size = 0
    for chunk in chunks:
        # The first bytes come within the SDK's own timeout; what follows must come in time.
        if parts and past_deadline(deadline):
            raise late()
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ReplyTooLarge(
                f"the reply is larger than {MAX_BODY_BYTES} bytes: reading stopped there, and "
                "nothing of it is used"
            )
        parts.append(chunk)
    return b"".join(parts)


def completion_of(body: bytes) -> Any:
    """A chat completion built from a response body (as the SDK builds it, unvalidated)."""
    from guigraph.errors import require

    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedResponse(f"the reply is not JSON: {body[:200]!r} ({exc})") from None
    if not isinstance(data, dict):
        raise MalformedResponse(f"expected a chat completion, got {body[:200]!r}")
    return require("openai.types.chat", "llm").ChatCompletion.construct(**data)


def capped(text: str, what: str) -> tuple[str, bool]:
    """``text`` cut to ``MAX_REPLY_CHARS`` (and whether it was), the cut logged for ``what``."""
    if len(text) <= MAX_REPLY_CHARS:
        return text, False
    log.warning(
        "%s: the reply of %d characters was cut to its first %d", what, len(text), MAX_REPLY_CHARS
    )
    return text[:MAX_REPLY_CHARS], True


def read_completion(response: Any) -> dict[str, Any]:
    """The reply text, finish reason and usage of a non-streamed completion."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedResponse(f"expected a chat completion, got {str(response)[:200]!r}")
    choice = choices[0]
    prompt, completion = _usage_numbers(getattr(response, "usage", None))
    return {
        "text": choice.message.content or "",
        "model": str(getattr(response, "model", "") or ""),
        "finish_reason": str(choice.finish_reason or ""),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
    }


class StreamCollector:
    """Joins streamed deltas; usage arrives in a last chunk with no choices."""

    def __init__(self, model: str):
        self.model = model
        self.parts: list[str] = []
        self.finish_reason = ""
        self.usage: Any = None
        self._chars = 0
        self._chunks = 0

    @property
    def started(self) -> bool:
        """Some of the reply has come (the first chunk is bounded by the SDK's timeout)."""
        return self._chunks > 0

    @property
    def full(self) -> bool:
        """Holds ``MAX_REPLY_CHARS`` already: reading further would only be cut."""
        return self._chars > MAX_REPLY_CHARS

    def add(self, chunk: Any) -> None:
        if not hasattr(chunk, "choices"):
            raise MalformedResponse(f"expected a completion chunk, got {str(chunk)[:200]!r}")
        self._chunks += 1
        self.model = str(getattr(chunk, "model", "") or self.model)
        if getattr(chunk, "usage", None) is not None:
            self.usage = chunk.usage
        for choice in chunk.choices or ():
            if choice.delta and choice.delta.content:
                self.parts.append(choice.delta.content)
                self._chars += len(choice.delta.content)
            if choice.finish_reason:
                self.finish_reason = str(choice.finish_reason)

    def result(self) -> dict[str, Any]:
        prompt, completion = _usage_numbers(self.usage)
        return {
            "text": "".join(self.parts),
            "model": self.model,
            "finish_reason": self.finish_reason,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
        }
