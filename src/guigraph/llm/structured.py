"""Structured output in the form the server accepts, detected once per server and model.

Servers differ in how a reply's JSON shape is asked for:

- ``json_schema``: ``{"type": "json_schema", "json_schema": {"name": ..., "schema": ...}}``
  (OpenAI, vLLM's guided decoding, Ollama, llama.cpp's own server);
- ``json_object``: ``{"type": "json_object", "schema": ...}`` (llama-cpp-python's server, which
  rejects ``json_schema`` and turns the schema into a grammar);
- ``none``: no ``response_format`` at all; the tolerant parser reads what comes back.

With ``structured: auto`` a request tries the forms in that order, starting from the one last
seen to work for the server and model; a form the server rejects (an error whose message names
``response_format``, ``json_schema``, ...) is dropped for the rest of the process and the same
request is sent at once in the next form. Replies are parsed tolerantly in every form, so a
server that accepts a form and ignores it costs nothing.
"""

from __future__ import annotations

import threading
from typing import Any

from guigraph.llm.config import ModelConfig

FORMS = ("json_schema", "json_object", "none")

_WORKING: dict[tuple[str, str], str] = {}
_REJECTED: dict[tuple[str, str], set[str]] = {}
_LOCK = threading.Lock()


def response_format(form: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The ``response_format`` body field of ``form`` (None for ``none``)."""
    if form == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


def forms_to_try(config: ModelConfig) -> list[str]:
    """The forms a request with a schema tries, in order."""
    if config.structured != "auto":
        return [config.structured]
    key = (config.base_url, config.model)
    with _LOCK:
        working = _WORKING.get(key)
        rejected = set(_REJECTED.get(key, ()))
    order = [form for form in FORMS if form not in rejected]
    if working in order:
        order.remove(working)
        order.insert(0, working)
    return order or ["none"]


def remember(config: ModelConfig, form: str, *, worked: bool) -> None:
    key = (config.base_url, config.model)
    with _LOCK:
        if worked:
            _WORKING[key] = form
        else:
            _REJECTED.setdefault(key, set()).add(form)
            if _WORKING.get(key) == form:
                del _WORKING[key]


def detected(config: ModelConfig) -> str | None:
    """The form last seen to work for this server and model (None before any call)."""
    with _LOCK:
        return _WORKING.get((config.base_url, config.model))


def forget() -> None:
    """Drop what was learned (tests start from a clean slate)."""
    with _LOCK:
        _WORKING.clear()
        _REJECTED.clear()
