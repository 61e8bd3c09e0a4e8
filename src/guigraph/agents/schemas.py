"""The JSON shapes the model roles ask for, as JSON schemas for structured output.

Each matches the "Reply with JSON only" line of the role's prompt template, so a server that
enforces it (vLLM's guided decoding, llama.cpp's grammars) makes even a small model answer in
a shape the roles read. Replies are still parsed tolerantly: a server may ignore the schema.
Kept loose on purpose (no ``additionalProperties: false``, few required fields): a schema is a
help to the model, not a second validator.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from guigraph.types import ActionType

_TEXT: dict[str, Any] = {"type": "string"}

#: What a sub-goal's "app" takes when it names none ("null" and "home" read the same).
NO_APP = "none"


def planner(apps: Collection[str] = ()) -> dict[str, Any]:
    """``{"subgoals": [{"description", "app"}], "rationale"}``; with ``apps``, a sub-goal's
    app is one of them (or :data:`NO_APP`): a team whose steps come from recorded workflows can
    only follow apps they visit, and a small model under guided decoding then picks among them
    instead of naming an app nobody recorded."""
    app: dict[str, Any] = {"type": "string", "enum": [*apps, NO_APP]} if apps else _TEXT
    return {
        "type": "object",
        "properties": {
            "subgoals": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"description": _TEXT, "app": app},
                    "required": ["description"],
                },
            },
            "rationale": _TEXT,
        },
        "required": ["subgoals"],
    }


PROGRESS: dict[str, Any] = {
    "type": "object",
    "properties": {"complete": {"type": "boolean"}, "subgoal": _TEXT, "app": _TEXT},
    "required": ["complete", "subgoal"],
}
VERIFIER: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "feedback": _TEXT},
    "required": ["approved"],
}
OUTCOME: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["success", "failure", "no_effect", "uncertain"]},
        "note": _TEXT,
        "recovery": {"type": "object", "properties": {"action": _TEXT}},
    },
    "required": ["status"],
}


def decider(space: Collection[ActionType]) -> dict[str, Any]:
    """``{"thought": ..., "action": {...}}`` with the action names the environment accepts."""
    names = [kind.value for kind in ActionType if kind in set(space)]
    action = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": names},
            "coordinate": {
                "type": "array",
                "items": {"type": "number"},
                "minItems": 2,
                "maxItems": 2,
            },
            "direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
            "text": _TEXT,
            "app_name": _TEXT,
            "seconds": {"type": "number"},
        },
        "required": ["action"],
    }
    return {
        "type": "object",
        "properties": {"thought": _TEXT, "action": action},
        "required": ["thought", "action"],
    }
