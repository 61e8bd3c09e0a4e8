"""MGA's semantic actions: what the planner proposes before anything is placed on a screen.

The planner names an action type and, for a pointing action, a *target described by what a
person sees* ("the button 'Save'", "the second field") instead of coordinates; the grounding
step (``agents.grounding``) places it on the current screen. Replies are parsed into these
pydantic records (never executed, never evaluated); :data:`PLANNER_SCHEMA` is the structured
output a server may enforce. A reply that does not fit raises ``ResponseParseError`` naming the
field, so the planner is told what to fix.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from guigraph.errors import ResponseParseError
from guigraph.types import ScrollDirection


class Verb(StrEnum):
    CLICK = "click"
    DOUBLE_CLICK = "double_click"
    LONG_PRESS = "long_press"
    TYPE = "type"
    KEY = "key"
    SCROLL = "scroll"
    OPEN_APP = "open_app"
    BACK = "back"
    HOME = "home"
    RECENT = "recent"
    WAIT = "wait"
    DONE = "done"
    FAIL = "fail"


#: Verbs that act on a described element (the grounding step places them).
POINTING = frozenset({Verb.CLICK, Verb.DOUBLE_CLICK, Verb.LONG_PRESS})

#: Other spellings models use for a verb (MGA's own ``hotkey``, the decider's ``complete``).
_SYNONYMS = {
    "tap": Verb.CLICK, "press": Verb.CLICK, "doubleclick": Verb.DOUBLE_CLICK,
    "double_tap": Verb.DOUBLE_CLICK, "long_click": Verb.LONG_PRESS, "hotkey": Verb.KEY,
    "keys": Verb.KEY, "press_key": Verb.KEY, "input": Verb.TYPE, "type_text": Verb.TYPE,
    "swipe": Verb.SCROLL, "open": Verb.OPEN_APP, "launch": Verb.OPEN_APP,
    "press_back": Verb.BACK, "press_home": Verb.HOME, "press_recent": Verb.RECENT,
    "recent_apps": Verb.RECENT, "app_switch": Verb.RECENT, "complete": Verb.DONE,
    "finish": Verb.DONE, "finished": Verb.DONE, "impossible": Verb.FAIL,
    "infeasible": Verb.FAIL, "sleep": Verb.WAIT,
}  # fmt: skip


class Target(BaseModel):
    """An element as a person would point at it: the words on or beside it, its kind, and
    which one when several look alike (``ordinal`` 2 = the second, top to bottom)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    text: str = ""
    role: str = ""
    ordinal: int | None = Field(default=None, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _from_words(cls, value: Any) -> Any:
        # "target": "Save" is a target named Save.
        return {"text": value} if isinstance(value, str) else value

    @field_validator("text", "role", mode="before")
    @classmethod
    def _words(cls, value: Any) -> str:
        return "" if value is None else " ".join(str(value).split())

    def describe(self) -> str:
        nth = f"#{self.ordinal} " if self.ordinal and self.ordinal > 1 else ""
        role = self.role or "element"
        return f"{nth}{role} {self.text!r}" if self.text else f"{nth}{role}"


class SemanticAction(BaseModel):
    """One step as the planner means it. Only the fields its verb uses count."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    action: Verb
    target: Target | None = None
    text: str | None = None
    keys: str | None = None
    direction: ScrollDirection | None = None
    app: str | None = None
    seconds: float | None = Field(default=None, ge=0)

    @field_validator("action", mode="before")
    @classmethod
    def _verb(cls, value: Any) -> Any:
        name = str(value or "").strip().lower().replace(" ", "_").replace("-", "_")
        return _SYNONYMS.get(name, name)

    @field_validator("keys", mode="before")
    @classmethod
    def _chord(cls, value: Any) -> Any:
        return "+".join(str(k) for k in value) if isinstance(value, list | tuple) else value

    @field_validator("direction", mode="before")
    @classmethod
    def _direction(cls, value: Any) -> Any:
        return str(value).strip().lower() if value else None

    @model_validator(mode="after")
    def _complete(self) -> SemanticAction:
        needs = {
            Verb.TYPE: ("text", self.text is not None),
            Verb.KEY: ("keys", bool(self.keys and self.keys.strip())),
            Verb.SCROLL: ("direction", self.direction is not None),
            Verb.OPEN_APP: ("app", bool(self.app and self.app.strip())),
        }
        if self.action in POINTING and (self.target is None or not _described(self.target)):
            raise ValueError(f"{self.action.value} needs a target (its text and/or role)")
        if self.action in needs and not needs[self.action][1]:
            raise ValueError(f"{self.action.value} needs {needs[self.action][0]}")
        return self

    def describe(self) -> str:
        """The action in a few words, as the verified history shows it."""
        verb = self.action.value
        if self.action in POINTING and self.target is not None:
            return f"{verb} {self.target.describe()}"
        detail = {
            Verb.TYPE: repr(self.text),
            Verb.KEY: self.keys or "",
            Verb.SCROLL: str(self.direction or ""),
            Verb.OPEN_APP: repr(self.app),
            Verb.WAIT: f"{self.seconds:g} s" if self.seconds is not None else "",
        }.get(self.action, "")
        into = f" into {self.target.describe()}" if self.action is Verb.TYPE and self.target else ""
        return " ".join(part for part in (verb, detail) if part) + into


class PlannerReply(BaseModel):
    """The planner's reply: one sentence of reasoning and the next semantic action."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    thought: str = ""
    action: SemanticAction

    @model_validator(mode="before")
    @classmethod
    def _flat(cls, value: Any) -> Any:
        # A flat {"action": "click", "target": ...} is the action itself.
        if isinstance(value, dict) and not isinstance(value.get("action"), dict):
            return {"thought": value.get("thought", ""), "action": value}
        return value

    @field_validator("thought", mode="before")
    @classmethod
    def _thought(cls, value: Any) -> str:
        return "" if value is None else str(value)


def _described(target: Target) -> bool:
    return bool(target.text or target.role)


def parse_semantic(text: str) -> PlannerReply:
    """The planner's reply as a typed record; ``ResponseParseError`` says what does not fit."""
    from guigraph.llm.parsing import extract_json

    value = extract_json(text)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        value = value[0]
    if not isinstance(value, dict):
        raise ResponseParseError("the reply is not a JSON object", text)
    try:
        return PlannerReply.model_validate(value)
    except ValidationError as exc:
        why = f"the reply's action does not fit: {_first_error(exc)}"
        raise ResponseParseError(why, text) from None


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"] if part != "action") or "action"
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "enum":
        return f"action must be one of {', '.join(v.value for v in Verb)}"
    return f"{where}: {message}" if error["loc"] else message


def planner_schema(verbs: frozenset[Verb]) -> dict[str, Any]:
    """The reply's JSON schema for structured output, no references (small servers' grammar
    converters read plain nested objects best), with the verbs this world can carry out."""
    text: dict[str, Any] = {"type": "string"}
    target = {
        "type": "object",
        "properties": {"text": text, "role": text, "ordinal": {"type": "integer"}},
    }
    action = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": [v.value for v in Verb if v in verbs]},
            "target": target,
            "text": text,
            "keys": text,
            "direction": {"type": "string", "enum": [d.value for d in ScrollDirection]},
            "app": text,
            "seconds": {"type": "number"},
        },
        "required": ["action"],
    }
    return {
        "type": "object",
        "properties": {"thought": text, "action": action},
        "required": ["thought", "action"],
    }
