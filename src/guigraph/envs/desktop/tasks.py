"""The desktop suite: office workflows in real applications, checked on the files they wrote.

A task is pure data (its template id and parameters); the template says which files the home
folder holds before the episode, which applications start (and with which file), and what the
files must hold after it. ``guigraph run --env desktop --task mousepad/save-note`` runs one.

Values are drawn per seed from pools; :data:`HELD_OUT_FROM` splits every pool so that a
benchmark can demonstrate a workflow on some values and test it on values it never saw
(``make(template, seed, new_values=True)``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from guigraph.envs.base import Evaluation
from guigraph.errors import EnvError
from guigraph.types import Task

Params = dict[str, str]
T = TypeVar("T")

FILE_STEMS = (
    "notes", "todo", "plan", "ideas", "minutes", "budget", "letter", "draft", "agenda",
    "summary", "report", "diary", "groceries", "recipes", "contacts", "reading",
)  # fmt: skip
PHRASES = (
    "buy milk and eggs", "call the bank at noon", "meeting moved to friday",
    "water the plants", "book the train tickets", "send the invoice", "pick up the parcel",
    "renew the library card", "pay the electricity bill", "email the landlord",
    "order new printer ink", "plan the team lunch", "back up the laptop",
    "fix the kitchen tap", "check the tyre pressure", "return the borrowed ladder",
)  # fmt: skip
#: (old word, new word) pairs of the replace task.
WORD_PAIRS = (
    ("monday", "tuesday"), ("red", "blue"), ("cat", "dog"), ("apple", "pear"),
    ("north", "south"), ("summer", "winter"), ("coffee", "tea"), ("car", "bike"),
    ("london", "paris"), ("small", "large"), ("morning", "evening"), ("gold", "silver"),
    ("river", "lake"), ("piano", "guitar"), ("bread", "rice"), ("green", "yellow"),
)  # fmt: skip
#: Share of each pool the development seeds draw from; new values come from the rest.
HELD_OUT_FROM = 0.5


def _pick(rng: random.Random, pool: tuple[T, ...], new_values: bool) -> T:
    cut = round(len(pool) * HELD_OUT_FROM)
    return rng.choice(pool[cut:] if new_values else pool[:cut])


def _file(rng: random.Random, new: bool, avoid: str = "") -> str:
    while True:
        name = f"{_pick(rng, FILE_STEMS, new)}.txt"
        if name != avoid:
            return name


@dataclass(frozen=True, slots=True)
class DesktopTemplate:
    """One workflow: how to draw its values, the instruction, the files before and after."""

    template_id: str
    apps: tuple[str, ...]
    instruction: str
    draw: Callable[[random.Random, bool], Params]
    expect: Callable[[Mapping[str, str]], Mapping[str, str]]
    files: Callable[[Mapping[str, str]], Mapping[str, str]] = lambda p: {}
    #: App -> the files it starts with (names in the home folder).
    opens: Callable[[Mapping[str, str]], Mapping[str, tuple[str, ...]]] = lambda p: {}
    category: str = "General_Tool"
    description: str = field(default="")


def _document(p: Mapping[str, str]) -> str:
    return f"{p['phrase']}\nremember the {p['old']} one\n"


def _draw_note(rng: random.Random, new: bool) -> Params:
    return {"text": _pick(rng, PHRASES, new), "name": _file(rng, new)}


def _draw_replace(rng: random.Random, new: bool) -> Params:
    old, replacement = _pick(rng, WORD_PAIRS, new)
    phrase = _pick(rng, PHRASES, new)
    return {"old": old, "new": replacement, "name": _file(rng, new), "phrase": phrase}


def _draw_append(rng: random.Random, new: bool) -> Params:
    first = _pick(rng, PHRASES, not new)
    return {"text": _pick(rng, PHRASES, new), "name": _file(rng, new), "first": first}


def _draw_copy(rng: random.Random, new: bool) -> Params:
    name = _file(rng, new)
    return {"name": name, "copy": _file(rng, new, avoid=name), "text": _pick(rng, PHRASES, new)}


def _draw_product(rng: random.Random, new: bool) -> Params:
    a = rng.randint(51, 99) if new else rng.randint(11, 49)
    return {"a": str(a), "b": str(rng.randint(2, 9)), "name": _file(rng, new)}


def _draw_sum(rng: random.Random, new: bool) -> Params:
    a = rng.randint(500, 999) if new else rng.randint(100, 499)
    return {"a": str(a), "b": str(rng.randint(10, 99)), "name": _file(rng, new)}


TEMPLATES: dict[str, DesktopTemplate] = {
    t.template_id: t
    for t in (
        DesktopTemplate(
            "mousepad/save-note",
            ("mousepad",),
            "Write '{text}' in Mousepad and save it as {name}",
            _draw_note,
            lambda p: {p["name"]: p["text"]},
            description="type a text into a new document, save it under a name",
        ),
        DesktopTemplate(
            "mousepad/replace-word",
            ("mousepad",),
            "In {name}, replace '{old}' with '{new}' and save the file",
            _draw_replace,
            lambda p: {p["name"]: _document(p).replace(p["old"], p["new"])},
            files=lambda p: {p["name"]: _document(p)},
            opens=lambda p: {"mousepad": (p["name"],)},
            description="find and replace a word in an open file, save it",
        ),
        DesktopTemplate(
            "mousepad/append-line",
            ("mousepad",),
            "Add the line '{text}' at the end of {name} and save it",
            _draw_append,
            lambda p: {p["name"]: f"{p['first']}\n{p['text']}"},
            files=lambda p: {p["name"]: f"{p['first']}\n"},
            opens=lambda p: {"mousepad": (p["name"],)},
            description="go to the end of an open file, add a line, save it",
        ),
        DesktopTemplate(
            "mousepad/save-copy",
            ("mousepad",),
            "Save a copy of {name} as {copy}",
            _draw_copy,
            lambda p: {p["name"]: p["text"], p["copy"]: p["text"]},
            files=lambda p: {p["name"]: p["text"]},
            opens=lambda p: {"mousepad": (p["name"],)},
            description="save an open file under a second name (Save As)",
        ),
        DesktopTemplate(
            "galculator/product-to-note",
            ("mousepad", "galculator"),
            "Compute {a}*{b} with Galculator and save the result in Mousepad as {name}",
            _draw_product,
            lambda p: {p["name"]: str(int(p["a"]) * int(p["b"]))},
            category="Multi_Apps",
            description="compute in the calculator, copy the result, paste it into a new "
            "document, save it",
        ),
        DesktopTemplate(
            "galculator/sum-to-note",
            ("mousepad", "galculator"),
            "Add {a}+{b} with Galculator and save the sum in Mousepad as {name}",
            _draw_sum,
            lambda p: {p["name"]: str(int(p["a"]) + int(p["b"]))},
            category="Multi_Apps",
            description="add in the calculator, copy the sum into a new document, save it",
        ),
    )
}


def template(template_id: str) -> DesktopTemplate:
    try:
        return TEMPLATES[template_id]
    except KeyError:
        raise EnvError(
            f"unknown desktop task {template_id!r}; known: {', '.join(sorted(TEMPLATES))}"
        ) from None


#: A task spec ending so draws its values from the held-out half (``mousepad/save-note@new``).
NEW_VALUES = "@new"


def make(spec: str, seed: int, new_values: bool = False) -> Task | None:
    """The suite's task ``spec`` (a template id, ``@new`` for held-out values) for ``seed``,
    or None for any other text."""
    spec = spec.strip()
    if spec.endswith(NEW_VALUES):
        spec, new_values = spec.removesuffix(NEW_VALUES), True
    tpl = TEMPLATES.get(spec)
    if tpl is None:
        return None
    rng = random.Random(f"{tpl.template_id}/{seed}/{'new' if new_values else 'dev'}")
    params = tpl.draw(rng, new_values)
    return Task(
        task_id=f"{tpl.template_id}/{seed}" + ("/new" if new_values else ""),
        instruction=tpl.instruction.format(**params),
        category=tpl.category,
        apps=tpl.apps,
        template_id=tpl.template_id,
        params=params,
    )


def prepare(task: Task, home: Path) -> dict[str, tuple[str, ...]]:
    """Write the task's files into ``home``; the files each application starts with."""
    tpl = TEMPLATES.get(task.template_id)
    if tpl is None:
        return {}
    for name, text in tpl.files(task.params).items():
        (home / name).write_text(text, encoding="utf-8")
    opens = tpl.opens(task.params)
    return {app: tuple(str(home / n) for n in names) for app, names in opens.items()}


def check(task: Task, home: Path) -> Evaluation | None:
    """Whether every file the task names holds what it should (a final newline aside)."""
    tpl = TEMPLATES.get(task.template_id)
    if tpl is None:
        return None
    for name, expected in tpl.expect(task.params).items():
        path = home / name
        if not path.is_file():
            return Evaluation(False, 0.0, f"{name} was not saved")
        got = path.read_text(encoding="utf-8", errors="replace")
        if got.rstrip("\n") != expected.rstrip("\n"):
            return Evaluation(False, 0.0, f"{name} holds {got[:80]!r}, not {expected[:80]!r}")
    return Evaluation(True, 1.0, "every file holds what the task asked")
