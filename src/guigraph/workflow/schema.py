"""The workflow file: what a person reads, edits and runs (``wf.yaml``), and its schema.

A workflow names its world and where it starts, its typed parameters, its steps (an action on
a target found by several locators, tried in the order written; the value typed, with
``{param}`` placeholders; the state expected after the step; values read off the screen into
variables) and the checks that end it. ``load_workflow`` validates a file with pydantic and
turns every problem into one line naming the file, the line and the field
(``wf.yaml:14: field 'steps[2].target.idd' expected ...``). docs/workflows.md is the guide.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from guigraph.errors import DatasetError

SCHEMA_VERSION = 1
#: A placeholder: ``{name}``; ``{{`` and ``}}`` are literal braces.
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class StepAction(StrEnum):
    TAP = "tap"
    LONG_PRESS = "long_press"
    TYPE = "type"
    SCROLL = "scroll"
    BACK = "back"
    HOME = "home"
    OPEN_APP = "open_app"
    WAIT = "wait"


#: Actions that touch an element, so their step needs a target.
TARGETED = frozenset({StepAction.TAP, StepAction.LONG_PRESS})


class ParamType(StrEnum):
    TEXT = "text"
    NUMBER = "number"
    DATE = "date"
    TIME = "time"
    CHOICE = "choice"  # one of a known set (``options``)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Position(_Strict):
    """The ``index``-th (0-based) element of ``role`` on the screen, in reading order."""

    role: str
    index: int = Field(ge=0)


class Target(_Strict):
    """How to find an element. Every locator given is one way; they are tried in the order
    the file writes them (``locator_order``); ``role`` narrows each of them."""

    id: str | None = None
    text: str | None = None
    description: str | None = None
    near: str | None = None  # the label beside it (a field's caption)
    position: Position | None = None
    box: tuple[float, float, float, float] | None = None  # last seen, 0..1000
    role: str | None = None
    #: The locators in the order the file wrote them.
    _order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _keep_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Target:
        target: Target = handler(data)
        keys = list(data) if isinstance(data, dict) else []
        target._order = tuple(k for k in keys if k in LOCATORS) + tuple(
            k for k in LOCATORS if k not in keys
        )
        return target

    @model_serializer(mode="wrap")
    def _in_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        order = [*self.locator_order(), "role"]
        return {k: data[k] for k in order if k in data} | {
            k: v for k, v in data.items() if k not in order
        }

    @field_validator("box")
    @classmethod
    def _box_on_screen(
        cls, box: tuple[float, float, float, float] | None
    ) -> tuple[float, float, float, float] | None:
        if box is not None and not (
            0 <= box[0] <= box[2] <= 1000 and 0 <= box[1] <= box[3] <= 1000
        ):
            raise ValueError("a box [x1, y1, x2, y2] inside 0..1000 with x1 <= x2 and y1 <= y2")
        return box

    def locator_order(self) -> list[str]:
        """The locators given, in the order they were written (the file's order)."""
        order = self._order or LOCATORS
        return [name for name in order if getattr(self, name) is not None]

    def texts(self) -> list[str]:
        return [v for v in (self.id, self.text, self.description, self.near) if v]


#: The locator kinds, in the order an export writes them (strong first).
LOCATORS = ("id", "text", "description", "near", "position", "box")


class Fact(_Strict):
    """One thing a screen shows: an element with this id, or with this text."""

    id: str | None = None
    text: str | None = None

    @model_validator(mode="after")
    def _one(self) -> Fact:
        if (self.id is None) == (self.text is None):
            raise ValueError("exactly one of id or text")
        return self


class Expect(_Strict):
    """The state after a step: the graph state it was (``state``, a KB node; ``screen`` its
    readable name), the app in front, and a few facts that identify the screen."""

    state: int | None = None
    screen: str = ""
    app: str | None = None
    shows: tuple[Fact, ...] = ()


class Step(_Strict):
    action: StepAction
    target: Target | None = None
    value: str | None = None  # the text typed: "{param}" placeholders
    direction: str | None = None  # scroll: up, down, left, right
    app: str | None = None  # open_app
    expect: Expect | None = None
    #: Values read off the screen after the step: variable -> where it is.
    read: dict[str, Target] = Field(default_factory=dict)
    #: Steps taken instead when the target, a value of the run, is not on the screen (the
    #: contact to text has no conversation yet: start a new one). The last of them leads
    #: where the step leads; the run lists the branch taken, which is no healing.
    otherwise: tuple[Step, ...] = ()
    note: str = ""

    @model_validator(mode="after")
    def _complete(self) -> Step:
        if self.action in TARGETED and self.target is None:
            raise ValueError(f"a {self.action.value} step needs a target")
        if self.action is StepAction.TYPE and self.value is None:
            raise ValueError("a type step needs a value")
        if self.action is StepAction.OPEN_APP and not self.app:
            raise ValueError("an open_app step needs an app")
        if self.action is StepAction.SCROLL and self.direction not in (
            "up",
            "down",
            "left",
            "right",
        ):
            raise ValueError("a scroll step needs a direction: up, down, left or right")
        for name in self.read:
            if not NAME.fullmatch(name):
                raise ValueError(f"read: {name!r} is not a variable name (letters, digits, _)")
        if self.otherwise and self.action not in TARGETED:
            raise ValueError("only a tap or long_press step (its target may be missing) has "
                             "otherwise steps")  # fmt: skip
        return self


class Parameter(_Strict):
    name: str
    type: ParamType = ParamType.TEXT
    examples: tuple[str, ...] = ()
    options: tuple[str, ...] = ()  # choice: the known set
    required: bool = True
    default: str | None = None

    @model_validator(mode="after")
    def _sane(self) -> Parameter:
        if not NAME.fullmatch(self.name):
            raise ValueError(f"{self.name!r} is not a parameter name (letters, digits, _)")
        if self.type is ParamType.CHOICE and not self.options:
            raise ValueError("a choice parameter lists its options")
        return self


class World(_Strict):
    """Where the workflow runs: a registered world (``guigraph.envs.make``) and its options;
    ``task`` is a task id the world sets up and checks (a SimPhone template), optional,
    ``seed`` the world's seed."""

    env: str = "simphone"
    options: dict[str, Any] = Field(default_factory=dict)
    task: str | None = None
    seed: int = 0
    #: The parameter values the task was given: the world's checker judges runs with these
    #: (it knows nothing of other values).
    values: dict[str, str] = Field(default_factory=dict)
    #: The world task's own parameters (a web task file's) as the workflow's parameters
    #: write them (``{page}``, ``{wiki_text}.``): a row's values become the task's, and the
    #: world's checker judges every row.
    task_params: dict[str, str] = Field(default_factory=dict)


class Start(_Strict):
    app: str | None = None
    url: str | None = None


class Check(_Strict):
    """What holds once the steps are done: a text shown on the last screen."""

    shows: str


class Workflow(_Strict):
    schema_version: int = SCHEMA_VERSION
    name: str
    description: str = ""  # the instruction it was exported from
    world: World = Field(default_factory=World)
    start: Start = Field(default_factory=Start)
    parameters: tuple[Parameter, ...] = ()
    steps: tuple[Step, ...]
    checks: tuple[Check, ...] = ()

    @field_validator("schema_version")
    @classmethod
    def _version(cls, version: int) -> int:
        if version != SCHEMA_VERSION:
            raise ValueError(f"schema_version {SCHEMA_VERSION}")
        return version

    @field_validator("steps")
    @classmethod
    def _some_steps(cls, steps: tuple[Step, ...]) -> tuple[Step, ...]:
        if not steps:
            raise ValueError("at least one step")
        return steps

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)

    def to_data(self) -> dict[str, Any]:
        """The file's content (defaults left out, so an export reads short)."""
        return self.model_dump(mode="json", exclude_defaults=True, exclude={"schema_version"}) | {
            "schema_version": SCHEMA_VERSION
        }


# -- placeholders ----------------------------------------------------------------------------
def placeholders(text: str | None) -> list[str]:
    return PLACEHOLDER.findall(text or "")


def fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each ``{name}`` replaced by its value (unknown names stay)."""
    filled = PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)
    return filled.replace("{{", "{").replace("}}", "}")


def _step_texts(step: Step) -> Iterator[tuple[str, str]]:
    """(field path below the step, text) of every text that may hold placeholders."""
    if step.value is not None:
        yield "value", step.value
    for where, target in [
        ("target", step.target),
        *((f"read.{k}", t) for k, t in step.read.items()),
    ]:
        if target is None:
            continue
        for name in ("id", "text", "description", "near"):
            value = getattr(target, name)
            if value:
                yield f"{where}.{name}", value


def undefined_placeholders(workflow: Workflow) -> list[tuple[str, str]]:
    """(field path, name) of every ``{name}`` that is neither a parameter nor a variable read
    by an earlier step."""
    known = {p.name for p in workflow.parameters}
    problems = _undefined(workflow.steps, "steps", known)
    for i, check in enumerate(workflow.checks):
        problems += [(f"checks[{i}].shows", n) for n in placeholders(check.shows) if n not in known]
    return problems


def _undefined(steps: Sequence[Step], path: str, known: set[str]) -> list[tuple[str, str]]:
    """Undefined placeholders of ``steps`` (and their otherwise steps); ``known`` grows by
    each step's reads."""
    problems: list[tuple[str, str]] = []
    for i, step in enumerate(steps):
        for where, text in _step_texts(step):
            problems += [(f"{path}[{i}].{where}", n) for n in placeholders(text) if n not in known]
        problems += _undefined(step.otherwise, f"{path}[{i}].otherwise", set(known))
        known |= set(step.read)
    return problems


# -- reading a file ----------------------------------------------------------------------------
def load_workflow(path: Path) -> Workflow:
    """The workflow in ``path``, validated; any problem is a ``DatasetError`` naming the file,
    the line and the field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(path, None, "a readable workflow file", exc.strerror) from None
    return parse_workflow(text, str(path))


def parse_workflow(text: str, where: str = "<workflow>") -> Workflow:
    import yaml

    try:
        data = yaml.safe_load(text)
        lines = _key_lines(yaml.compose(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}" if mark is not None else ""
        raise DatasetError(
            f"{where}{at}", None, "YAML", getattr(exc, "problem", str(exc))
        ) from None
    if not isinstance(data, dict):
        raise DatasetError(where, None, "a YAML mapping (name, steps, ...)", type(data).__name__)
    try:
        workflow = Workflow.model_validate(data)
    except ValidationError as exc:
        raise _first_problem(exc, where, lines) from None
    for path, name in undefined_placeholders(workflow):
        line = _line_of(_parse_path(path), lines)
        known = ", ".join(p.name for p in workflow.parameters) or "none"
        raise DatasetError(
            f"{where}:{line}" if line else where, path,
            f"a parameter or an earlier step's read variable (parameters: {known})",
            "{" + name + "}",
        )  # fmt: skip
    return workflow


def _first_problem(
    exc: ValidationError, where: str, lines: Mapping[tuple[Any, ...], int]
) -> DatasetError:
    error = exc.errors()[0]
    loc = tuple(
        part
        for part in error["loc"]
        if not (isinstance(part, str) and part.startswith("function-"))
    )
    line = _line_of(loc, lines)
    path = _dotted(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        expected = f"no key {loc[-1]!r} here (a known key: {_known_keys(loc)})"
        got: object = None
    elif kind == "missing":
        expected = "this key (it is required)"
        got = None
    else:
        expected = str(error["msg"]).removeprefix("Value error, ").removeprefix("Input should be ")
        got = error.get("input")
        got = got if isinstance(got, str | int | float | bool) else None
    return DatasetError(f"{where}:{line}" if line else where, path or None, expected, got)


_SECTIONS: dict[str, type[BaseModel]] = {
    "steps": Step, "target": Target, "expect": Expect, "shows": Fact, "parameters": Parameter,
    "world": World, "start": Start, "checks": Check, "position": Position, "read": Target,
    "otherwise": Step,
}  # fmt: skip


def _known_keys(loc: Sequence[Any]) -> str:
    """The keys the mapping holding ``loc[-1]`` takes."""
    model: type[BaseModel] = Workflow
    for part in loc[:-1]:
        if isinstance(part, str) and part in _SECTIONS:
            model = _SECTIONS[part]
    return ", ".join(model.model_fields)


def _dotted(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _parse_path(path: str) -> tuple[Any, ...]:
    parts: list[Any] = []
    for name, index in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]", path):
        parts.append(int(index) if index else name)
    return tuple(parts)


def _line_of(loc: tuple[Any, ...], lines: Mapping[tuple[Any, ...], int]) -> int | None:
    """The line of the deepest part of ``loc`` the file has."""
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def _key_lines(node: Any, path: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], int]:
    """1-based line of every key and list item, by its path."""
    import yaml

    lines: dict[tuple[Any, ...], int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            here = (*path, key.value)
            lines[here] = key.start_mark.line + 1
            lines.update(_key_lines(value, here))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            lines.update(_key_lines(item, (*path, i)))
    return lines


# -- writing a file ----------------------------------------------------------------------------
def dump_workflow(workflow: Workflow) -> str:
    """The YAML text of ``workflow``: keys in the schema's order, lists of short items flow."""
    import yaml

    data = _ordered(workflow.to_data())
    return yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)


_ORDER = (
    "schema_version",
    "name",
    "description",
    "world",
    "start",
    "parameters",
    "steps",
    "checks",
)


def _ordered(data: dict[str, Any]) -> dict[str, Any]:
    return {key: data[key] for key in _ORDER if key in data}


@functools.cache
def _dumper() -> type:
    """A YAML dumper that writes short lists of scalars on one line ([x1, y1, x2, y2])."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def flow_list(dumper: yaml.SafeDumper, value: Sequence[Any]) -> yaml.Node:
        short = len(value) <= 6 and all(
            isinstance(v, int | float) or (isinstance(v, str) and len(v) < 30) for v in value
        )
        return dumper.represent_sequence("tag:yaml.org,2002:seq", list(value), flow_style=short)

    Dumper.add_representer(list, flow_list)
    Dumper.add_representer(tuple, flow_list)
    return Dumper
