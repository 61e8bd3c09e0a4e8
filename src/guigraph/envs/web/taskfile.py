"""Tasks users write for any site: a TOML task file, read into typed records.

A task file names, for each task, the page to start from, instruction templates whose
``{name}`` parameters are typed and drawn from pools or ranges by the seed, and the checks that
decide success, all without Python (``docs/web-recording.md`` has the reference)::

    [params]                                  # shared by every task of the file
    base = { type = "url", default = "http://127.0.0.1:8080" }
    password = { type = "secret", env = "WIKI_PASSWORD" }

    [tasks.create_page]
    start_url = "{base}/doku.php"
    instructions = ["Log in and create the page {page} with the text {text}"]
    params.page = { pool = ["garden", "recipes"] }
    params.text = { pool = ["Water on Mondays.", "Bake at 180 degrees."] }

    [[tasks.create_page.checks]]
    http_get = "{base}/doku.php?id={page}&do=export_raw"
    contains = "{text}"

A check is one of ``url`` (the final page's URL matches, ``*`` for any run of characters),
``text`` or ``element`` (a text, or a CSS selector, is on the final page), ``http_get`` (a GET
answers with ``contains``), ``command`` (a program's output has ``contains``; an argument list,
never a shell line) or ``file`` (a file holds ``contains``); ``present = false`` turns it round.
A ``secret`` parameter (a password) is never drawn, never in an instruction, never written: it
comes at run time from ``--param`` or the environment variable ``env`` names, and the world
types it where a recorded ``{name}`` stands. Errors name the file, the line and the field.
"""

from __future__ import annotations

import random
import re
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from guigraph.errors import ConfigError
from guigraph.types import Task

#: ``{name}``: a parameter (single braces: ``{{image}}`` and JSON stay text).
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
#: Where a task made from a file keeps its name, for the world to find its checks.
TASK_KEY = "task"
CHECK_KINDS = ("url", "text", "element", "http_get", "command", "file")
_NEEDS_CONTAINS = frozenset({"http_get", "command", "file"})
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Param(_Strict):
    """A typed parameter: drawn from ``pool`` or ``range`` by the seed, else ``default``."""

    type: Literal["text", "int", "email", "url", "secret"] = "text"
    pool: list[str | int] | None = Field(default=None, min_length=1)
    range: tuple[int, int] | None = None
    default: str | int | None = None
    env: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Param:
        if self.type == "secret":
            if self.pool is not None or self.range is not None or self.default is not None:
                raise ValueError(
                    "a secret is never drawn or written down: no pool, range or default "
                    "(give it with --param or the environment variable named by env)"
                )
            return self
        if self.env is not None:
            raise ValueError("env names where a secret comes from: only for type = 'secret'")
        if self.range is not None:
            if self.type != "int":
                raise ValueError("range is for type = 'int'")
            if self.range[0] > self.range[1]:
                raise ValueError(f"range {list(self.range)} is empty: low > high")
        for value in self.pool or ():
            check_value(self.type, str(value))
        return self


class Check(_Strict):
    """One success check; exactly one of the kinds in ``CHECK_KINDS``."""

    url: str | None = None
    text: str | None = None
    element: str | None = None
    http_get: str | None = None
    command: list[str] | None = Field(default=None, min_length=1)
    file: str | None = None
    contains: str | None = None
    present: bool = True
    timeout_s: float = Field(default=10.0, gt=0, le=600)

    @model_validator(mode="after")
    def _one_kind(self) -> Check:
        kinds = [k for k in CHECK_KINDS if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError(
                f"a check has exactly one of {', '.join(CHECK_KINDS)}; this one has "
                f"{', '.join(kinds) or 'none'}"
            )
        if kinds[0] in _NEEDS_CONTAINS and self.contains is None:
            raise ValueError(f"a {kinds[0]} check needs contains = '...' (the text to find)")
        if kinds[0] not in _NEEDS_CONTAINS and self.contains is not None:
            raise ValueError(f"contains goes with http_get, command or file, not {kinds[0]}")
        if self.http_get is not None and not re.match(r"^(https?://|\{)", self.http_get):
            raise ValueError(f"http_get takes an http(s) URL, got {self.http_get!r}")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in CHECK_KINDS if getattr(self, k) is not None)


class TaskSpec(_Strict):
    start_url: str
    instructions: list[str] = Field(min_length=1)
    params: dict[str, Param] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list)


class TaskFileModel(_Strict):
    schema_version: Literal[1] = 1
    params: dict[str, Param] = Field(default_factory=dict)
    tasks: dict[str, TaskSpec] = Field(min_length=1)


def check_value(kind: str, value: str) -> str:
    """``value`` as a parameter of type ``kind``; a ``ValueError`` says what is wrong."""
    if kind == "int":
        try:
            return str(int(value))
        except ValueError:
            raise ValueError(f"{value!r} is not a whole number") from None
    if kind == "email" and not _EMAIL.match(value):
        raise ValueError(f"{value!r} is not an email address")
    if kind == "url" and not re.match(r"^(https?|file)://", value):
        raise ValueError(f"{value!r} is not a URL (http://, https:// or file://)")
    return value


@dataclass(frozen=True)
class Drawn:
    """A task made from the file: the task the team sees, and what only the world knows."""

    task: Task
    spec: TaskSpec
    values: Mapping[str, str]  # every parameter but the secrets
    secrets: Mapping[str, str] = field(repr=False)


@dataclass(frozen=True)
class TaskFile:
    path: Path
    model: TaskFileModel

    @property
    def names(self) -> list[str]:
        return list(self.model.tasks)

    def spec(self, name: str) -> TaskSpec:
        found = self.model.tasks.get(name)
        if found is None:
            import difflib

            close = difflib.get_close_matches(name, self.names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"{self.path}: no task {name!r}{hint} (tasks: {', '.join(self.names)})"
            )
        return found

    def params_of(self, name: str) -> dict[str, Param]:
        return {**self.model.params, **self.spec(name).params}

    def draw(
        self,
        name: str,
        seed: int,
        given: Mapping[str, str] | None = None,
        environ: Mapping[str, str] | None = None,
        instruction: str | None = None,
    ) -> Drawn:
        """Task ``name`` with seed ``seed``: parameters from ``given`` (``--param``), else
        drawn by the seed (pools, ranges), else their default; secrets from ``given`` or the
        environment. ``instruction`` replaces the file's wordings (a rewording to evaluate)."""
        import os

        spec, params = self.spec(name), self.params_of(name)
        given = dict(given or {})
        unknown = sorted(set(given) - set(params))
        if unknown:
            raise ConfigError(
                f"{self.path}: task {name!r} has no parameter {', '.join(map(repr, unknown))} "
                f"(parameters: {', '.join(params) or 'none'})"
            )
        rng = random.Random(f"{name}/{seed}")
        values: dict[str, str] = {}
        secrets: dict[str, str] = {}
        env = os.environ if environ is None else environ
        for key, param in params.items():
            if param.type == "secret":
                secrets[key] = _secret(self.path, name, key, param, given, env)
            else:
                values[key] = self._value(name, key, param, given, rng)
        wording = instruction if instruction is not None else rng.choice(spec.instructions)
        task = Task(
            task_id=f"{name}/{seed}",
            instruction=fill(wording, values),
            template_id=name,
            params={**values, "url": fill(spec.start_url, values), TASK_KEY: name},
        )
        return Drawn(task, spec, values, secrets)

    def _value(
        self, task: str, key: str, param: Param, given: Mapping[str, str], rng: random.Random
    ) -> str:
        if key in given:
            try:
                return check_value(param.type, given[key])
            except ValueError as exc:
                raise ConfigError(f"--param {key}: {exc} (type {param.type})") from None
        if param.pool is not None:
            return str(rng.choice(param.pool))
        if param.range is not None:
            return str(rng.randint(*param.range))
        if param.default is not None:
            return str(param.default)
        raise ConfigError(
            f"{self.path}: task {task!r} needs a value for {key!r}: give --param {key}=... "
            "(or a pool, range or default in the file)"
        )


def _secret(
    path: Path, task: str, key: str, param: Param, given: Mapping[str, str],
    environ: Mapping[str, str],
) -> str:  # fmt: skip
    if key in given:
        return given[key]
    if param.env and environ.get(param.env):
        return environ[param.env]
    where = f" or set {param.env}" if param.env else ""
    raise ConfigError(f"{path}: task {task!r} needs the secret {key!r}: --param {key}=...{where}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` of ``values`` filled in (others left as they are)."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def load(path: Path | str) -> TaskFile:
    """Read and check a task file; a ``ConfigError`` names the file, line and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"task file {path}: cannot read it ({exc.strerror or exc})") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    try:
        model = TaskFileModel.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_first_error(path, text, exc)) from None
    task_file = TaskFile(path, model)
    _check_placeholders(task_file, text)
    return task_file


def _check_placeholders(task_file: TaskFile, text: str) -> None:
    """Every ``{name}`` names a parameter; every program a command check runs exists."""
    for name, spec in task_file.model.tasks.items():
        known = set(task_file.params_of(name))
        places: list[tuple[tuple[Any, ...], str]] = [(("start_url",), spec.start_url)]
        places += [(("instructions", i), t) for i, t in enumerate(spec.instructions)]
        for i, check in enumerate(spec.checks):
            for key in (*CHECK_KINDS, "contains"):
                value = getattr(check, key)
                for part in value if isinstance(value, list) else [value]:
                    if isinstance(part, str):
                        places.append((("checks", i, key), part))
            program = check.command[0] if check.command else ""
            if program and not PLACEHOLDER.search(program) and shutil.which(program) is None:
                loc = ("tasks", name, "checks", i, "command")
                raise ConfigError(
                    f"{_where(task_file.path, text, loc)}: no program {program!r} to run "
                    "(not on PATH)"
                )
        secrets = {k for k, p in task_file.params_of(name).items() if p.type == "secret"}
        for loc, value in places:
            for placeholder in PLACEHOLDER.findall(value):
                if loc[0] == "instructions" and placeholder in secrets:
                    full = ("tasks", name, *loc)
                    raise ConfigError(
                        f"{_where(task_file.path, text, full)}: an instruction never says a "
                        f"secret ({{{placeholder}}} is type = 'secret')"
                    )
                if placeholder not in known:
                    full = ("tasks", name, *loc)
                    raise ConfigError(
                        f"{_where(task_file.path, text, full)}: {{{placeholder}}} names no "
                        f"parameter (parameters: {', '.join(sorted(known)) or 'none'})"
                    )


def _first_error(path: Path, text: str, exc: ValidationError) -> str:
    # A misspelt key explains the required one that is then missing: name it first.
    error = min(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        message = f"unknown key {loc[-1]!r}"
    elif kind == "missing":
        message = f"{loc[-1]!r} is required"
    else:
        message = str(error["msg"]).removeprefix("Value error, ")
    return f"{_where(path, text, loc)}: {message}"


def _where(path: Path, text: str, loc: tuple[Any, ...]) -> str:
    """``file:line: field`` for a location like ``("tasks", "x", "checks", 1, "contains")``."""
    line = locate(text, loc)
    field_name = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    return f"{path}:{line}: {field_name}" if line else f"{path}: {field_name}"


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")


def locate(text: str, loc: tuple[Any, ...]) -> int:
    """The line (1-based) of the deepest part of ``loc`` the TOML text spells out: a key's
    line, else its table's header; 0 when nothing of it is in the text."""
    best, best_depth = 0, 0
    table: list[Any] = []
    arrays: dict[tuple[Any, ...], int] = {}
    target = [str(p) for p in loc]
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            parts = _split_key(header.group(2))
            if header.group(1) == "[[":
                index = arrays[tuple(parts)] = arrays.get(tuple(parts), -1) + 1
                table = [*parts, str(index)]
            else:
                table = parts
            path = table
        else:
            key = _KEY.match(line)
            if not key:
                continue
            path = [*table, *_split_key(key.group(1))]
        depth = _common(path, target)
        if depth == len(path) and depth > best_depth:
            best, best_depth = number, depth
    return best


def _split_key(key: str) -> list[str]:
    return [part.strip().strip("\"'") for part in key.split(".")]


def _common(path: list[Any], target: list[str]) -> int:
    depth = 0
    for mine, wanted in zip(path, target, strict=False):
        if str(mine) != wanted:
            break
        depth += 1
    return depth
