"""Reading a chat completion, whole or streamed, into the fields guigraph keeps."""

from __future__ import annotations

from typing import Any

from guigraph.llm.retry import MalformedResponse


def _usage_numbers(usage: Any) -> tuple[int, int]:
    if usage is None:  # some servers omit usage; count nothing rather than guess
        return 0, 0
    return int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)


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

    def add(self, chunk: Any) -> None:
        if not hasattr(chunk, "choices"):
            raise MalformedResponse(f"expected a completion chunk, got {str(chunk)[:200]!r}")
        self.model = str(getattr(chunk, "model", "") or self.model)
        if getattr(chunk, "usage", None) is not None:
            self.usage = chunk.usage
        for choice in chunk.choices or ():
            if choice.delta and choice.delta.content:
                self.parts.append(choice.delta.content)
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
