"""Tolerant parsing of model replies into JSON values and tool calls.

Real replies wrap what we asked for in prose, code fences, thinking traces (``<think>…
</think>`` or just a trailing ``</think>`` when the template opened it) and Qwen's
``<tool_call>…</tool_call>`` blocks, sometimes with Python-style literals or trailing commas.
Nothing here evaluates model text: JSON goes through ``json``, Python-style literals through
``ast.literal_eval`` (which only builds literals). A reply that holds nothing usable raises
``ResponseParseError`` carrying the raw text, so the agent loop can tell the model why.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from guigraph.errors import ResponseParseError

_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(</tool_call>|\Z)", re.DOTALL | re.IGNORECASE)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_MAX_LITERAL_TRIES = 8


def strip_thinking(text: str) -> str:
    """The answer part of a thinking model's reply (what follows the last ``</think>``)."""
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        return text[closes[-1].end() :].strip()
    if _THINK_OPEN.search(text):
        raise ResponseParseError("the reply ended inside its thinking (no </think>)", text)
    return text.strip()


def extract_json(text: str) -> Any:
    """The first JSON object or array in a reply, wherever it sits.

    Tries, in order: the whole answer, each fenced code block, then every ``{`` or ``[`` in
    the text (so prose before and after is ignored), each also with light repairs (trailing
    commas, Python-style literals). Raises ``ResponseParseError`` when none parses, saying
    whether the reply looks cut off.
    """
    answer = strip_thinking(text)
    candidates = [answer] + [m.group(2) for m in _FENCE.finditer(answer)]
    for candidate in candidates:
        value = _loads(candidate.strip())
        if value is not _NOTHING:
            return value
    value = _scan(answer)
    if value is not _NOTHING:
        return value
    if _looks_truncated(answer):
        raise ResponseParseError("the reply's JSON is cut off (truncated output?)", text)
    raise ResponseParseError("no JSON object found in the reply", text)


def extract_tool_calls(text: str) -> list[dict[str, Any]]:
    """The ``{"name": …, "arguments": {…}}`` objects of Qwen-style ``<tool_call>`` blocks.

    ``arguments`` given as a JSON string (as some servers re-encode it) is decoded. Returns an
    empty list when the reply has no tool-call block.
    """
    answer = strip_thinking(text)
    calls = []
    for match in _TOOL_CALL.finditer(answer):
        body, closed = match.group(1), bool(match.group(2))
        value = _loads(body)
        if value is _NOTHING:
            value = _scan(body)
        if value is _NOTHING or not isinstance(value, dict):
            why = "is cut off" if not closed or _looks_truncated(body) else "is not a JSON object"
            raise ResponseParseError(f"a <tool_call> block {why}", text)
        arguments = value.get("arguments", {})
        if isinstance(arguments, str):
            arguments = _loads(arguments)
            if not isinstance(arguments, dict):
                raise ResponseParseError("tool-call arguments are not a JSON object", text)
        calls.append({"name": str(value.get("name", "")), "arguments": arguments})
    return calls


class _Nothing:
    pass


_NOTHING: Any = _Nothing()


def _loads(candidate: str) -> Any:
    if not candidate or candidate[0] not in "{[":
        return _NOTHING
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            return json.loads(attempt)
        except (json.JSONDecodeError, RecursionError):
            pass
    return _literal(candidate)


def _literal(candidate: str) -> Any:
    """Python-style dicts (single quotes, True/None); ``literal_eval`` builds literals only."""
    try:
        value = ast.literal_eval(_TRAILING_COMMA.sub(r"\1", candidate))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _NOTHING
    return value if isinstance(value, dict | list) else _NOTHING


def _scan(text: str) -> Any:
    """The first decodable object or array starting at any brace, ignoring what follows."""
    decoder = json.JSONDecoder()
    literal_tries = _MAX_LITERAL_TRIES  # each costs a pass over the text: bound the total
    for start, char in enumerate(text):
        if char not in "{[":
            continue
        try:
            value, _ = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            if literal_tries == 0:
                continue
            literal_tries -= 1
            value = _balanced_literal(text, start)
            if value is _NOTHING:
                continue
        if isinstance(value, dict) or (isinstance(value, list) and value):
            return value
    return _NOTHING


def _balanced_literal(text: str, start: int) -> Any:
    end = _matching_close(text, start)
    return _NOTHING if end is None else _loads(text[start : end + 1])


def _matching_close(text: str, start: int) -> int | None:
    """Index of the bracket closing ``text[start]``, skipping brackets inside strings."""
    depth, quote, escaped = 0, "", False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index
    return None


def _looks_truncated(text: str) -> bool:
    first = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    return first >= 0 and _matching_close(text, first) is None
