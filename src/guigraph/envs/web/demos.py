"""MiniWoB++ demonstrations as ``record.js`` writes them -> GUIOdyssey-layout episodes.

A demonstration (``.json`` or ``.json.gz``) holds ``taskName``, ``utterance``, ``reward`` and
``states[]`` of ``{time, action, dom}``: ``action`` is one raw DOM event (``mousedown``,
``mouseup``, ``click``, ``dblclick``, ``keydown``, ``keypress``, ``keyup`` with
``keyCode``/``charCode``, ``scroll``), recorded once per listener phase (``timing``: 1 capture,
2 at the target, 3 bubble), and ``dom`` the page's element tree with boxes at that moment (the
capture phase's tree is the page before the page's own handlers ran). They become steps as a
person's gestures:

- a press and a release at one point is a tap (a long one a long press; one that moved, a
  swipe); ``click`` and ``dblclick`` are what the presses made, so a double click is its two
  taps, kept as the person made them;
- the key presses between two focus changes (a tap, Enter, Tab) are one typing of the text
  they produced (``keypress`` characters, backspaces applied; a backspace with nothing typed
  before it stays ``\\b``); Enter, Tab and Escape end the typing as ``\\n``, ``\\t`` and
  ``\\x1b``, the web world's keys;
- a scroll is a scroll, its direction read off how the boxes moved.

Each step's screen is the tree before its gesture, read as the web world reports elements
(``envs.web.recorded_dom``: role, accessible name, value, id or first class, box normalized to
the task area; a password's value is never written). record.js keeps no screenshot, so the
steps have none: the graph is built from the elements (``guigraph data check`` warns).
Stray clicks and corrections stay as the person made them.

A demonstration with reward <= 0 is skipped and counted; a bad file (unreadable, cut short,
another format, a task the ``miniwob`` package does not ship) is named in one line and skipped;
an unknown event or an element without a box is named in one line and left out, the rest of
the demonstration kept. Episodes already imported (ids are the file's content hash) are left
alone and each annotation is written whole (a temporary file renamed), so a killed import
resumes.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guigraph.data.odyssey import (
    ANNOTATIONS,
    SCREENSHOTS,
    SPLITS,
    episode_to_json,
    read_split,
    write_split,
)
from guigraph.envs.web import miniwob
from guigraph.envs.web.env import page_of
from guigraph.envs.web.recorded_dom import TreeReader, nx, ny, target_keys
from guigraph.errors import GuigraphError
from guigraph.geometry import Point, ScreenSize
from guigraph.types import Action, DeviceInfo, Episode, Observation, Step

WIDTH, HEIGHT = miniwob.VIEWPORT
SCREEN = ScreenSize(WIDTH, HEIGHT)
DEVICE = DeviceInfo("WebEnv", WIDTH, HEIGHT)  # what guigraph's own recorder writes
CATEGORY = "General_Tool"
#: The events record.js listens to.
EVENTS = frozenset(
    {"mousedown", "mouseup", "click", "dblclick", "keydown", "keypress", "keyup", "scroll"}
)
#: A press and release within this many pixels is a tap; held this long, a long press.
TAP_SLOP_PX = 5.0
LONG_PRESS_MS = 500
#: Keys that end a typing, as the web world's key characters (keyCode -> character).
ENDING_KEYS = {13: "\n", 9: "\t", 27: "\x1b"}
BACKSPACE = 8


class DemoError(GuigraphError):
    """A demonstration file that cannot be imported (the message names the file)."""


@dataclass
class ImportSummary:
    imported: list[str] = field(default_factory=list)  # episode ids written now
    already: int = 0
    skipped_reward: int = 0  # reward <= 0: the person did not succeed
    bad_files: list[str] = field(default_factory=list)  # one line each
    warnings: list[str] = field(default_factory=list)  # one line each: parts left out
    steps: int = 0


# Reading -----------------------------------------------------------------------------------


def demo_files(paths: Iterable[Path]) -> list[Path]:
    """The files named, and the ``.json``/``.json.gz`` files under the folders named."""
    found: list[Path] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if _is_demo_name(p) and p.is_file())
        else:
            found.append(path)
    return list(dict.fromkeys(found))


def _is_demo_name(path: Path) -> bool:
    return path.name.endswith((".json", ".json.gz")) and not path.name.startswith(".")


def read_bytes(path: Path) -> bytes:
    """The file's JSON text, gunzipped when it is gzip; DemoError naming what is wrong."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DemoError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise DemoError(f"{path}: not a whole gzip file ({exc}); cut short?") from exc
    return raw


def load_demo(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DemoError(f"{path}: not a JSON document ({exc})") from exc
    if not isinstance(data, dict):
        raise DemoError(
            f"{path}: expected a record.js demonstration object, got {type(data).__name__}"
        )
    for key, kind in (("taskName", str), ("states", list)):
        if not isinstance(data.get(key), kind):
            raise DemoError(
                f"{path}: {key}: expected {'a task name' if kind is str else 'a list of states'}"
                f" (a record.js demonstration), got {data.get(key)!r:.60}"
            )
    if data["taskName"] not in _shipped():
        raise DemoError(
            f"{path}: taskName {data['taskName']!r}: not a task the miniwob package ships "
            "(see: guigraph web tasks)"
        )
    return data


@functools.cache
def _shipped() -> frozenset[str]:
    return frozenset(miniwob.task_names())


# Events -> gestures ------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    index: int  # in states[]
    kind: str
    time: float
    data: Mapping[str, Any]

    @property
    def point(self) -> tuple[float, float]:
        return float(self.data.get("x") or 0), float(self.data.get("y") or 0)

    def code(self, name: str) -> int:
        value = self.data.get(name)
        return int(value) if isinstance(value, int | float) else 0


def events(path: Path, states: Sequence[Any], warnings: list[str]) -> list[Event]:
    """Each DOM event once (the copy the second listener phase recorded dropped); an event
    record.js never writes is named in ``warnings`` and left out."""
    out: list[Event] = []
    previous: tuple[Any, ...] | None = None
    for index, state in enumerate(states):
        action = state.get("action") if isinstance(state, Mapping) else None
        if not isinstance(action, Mapping):
            previous = None
            continue
        kind = action.get("type")
        if kind not in EVENTS:
            warnings.append(
                f"{path}: states[{index}].action.type: {kind!r} is not an event record.js "
                "writes; left out"
            )
            continue
        key = tuple(sorted((k, str(v)) for k, v in action.items() if k != "timing"))
        timing = action.get("timing")
        if previous is not None and key == previous[0] and previous[1] != 3 and timing in (2, 3):
            continue  # the same event seen by the other listener phase
        previous = (key, timing)
        time = state.get("time")
        out.append(
            Event(index, str(kind), float(time) if isinstance(time, int | float) else 0.0, action)
        )
    return out


@dataclass(frozen=True)
class Gesture:
    state: int  # the state whose tree is the screen before the gesture
    action: Action


def gestures(evs: Sequence[Event], states: Sequence[Any]) -> list[Gesture]:
    out: list[Gesture] = []
    typing: list[str] = []
    typing_state = -1
    pressed: Event | None = None

    def end_typing() -> None:
        nonlocal typing, typing_state
        if typing:
            out.append(Gesture(typing_state, Action.type_text("".join(typing))))
        typing, typing_state = [], -1

    def type_char(event: Event, char: str) -> None:
        nonlocal typing_state
        if not typing:
            typing_state = event.index
        typing.append(char)

    for event in evs:
        if event.kind == "mousedown":
            end_typing()
            pressed = event
        elif event.kind == "mouseup" and pressed is not None:
            out.append(Gesture(pressed.index, _pointer(pressed, event)))
            pressed = None
        elif event.kind == "scroll":
            end_typing()
            out.append(Gesture(event.index, Action.scroll(_scroll_direction(states, event.index))))
        elif event.kind == "keydown":
            code = event.code("keyCode")
            if code == BACKSPACE:
                if typing and typing[-1] not in "\b":
                    typing.pop()
                else:
                    type_char(event, "\b")
            elif code in ENDING_KEYS:
                type_char(event, ENDING_KEYS[code])
                end_typing()
        elif event.kind == "keypress":
            char = event.code("charCode")
            if char >= 32 and char != 127:
                type_char(event, chr(char))
    if pressed is not None:  # a press the demonstration ended on
        out.append(Gesture(pressed.index, _pointer(pressed, pressed)))
    end_typing()
    return out


def _pointer(down: Event, up: Event) -> Action:
    (x1, y1), (x2, y2) = down.point, up.point
    start = Point(nx(x1), ny(y1))
    if abs(x2 - x1) > TAP_SLOP_PX or abs(y2 - y1) > TAP_SLOP_PX:
        return Action.swipe(start, Point(nx(x2), ny(y2)))
    if up.time - down.time >= LONG_PRESS_MS:
        return Action.long_press(start.x, start.y)
    return Action.click(start.x, start.y)


def _scroll_direction(states: Sequence[Any], index: int) -> str:
    """The finger's direction: content that moved up (boxes higher in the next tree) was
    scrolled by a finger moving up, as on a phone; up when nothing tells."""
    before = _tops(states[index].get("dom"))
    after = next((_tops(s.get("dom")) for s in states[index + 1 :] if isinstance(s, Mapping)), {})
    moves = [after[ref] - top for ref, top in before.items() if ref in after]
    shift = sorted(moves)[len(moves) // 2] if moves else 0.0
    return "down" if shift > 0 else "up"


def _tops(node: Any, into: dict[Any, float] | None = None) -> dict[Any, float]:
    into = {} if into is None else into
    if isinstance(node, Mapping):
        if isinstance(node.get("top"), int | float) and node.get("ref") is not None:
            into[node["ref"]] = float(node["top"])
        for child in node.get("children") or ():
            _tops(child, into)
    return into


# Demonstrations -> episodes ----------------------------------------------------------------


def episode_id(raw: bytes) -> str:
    """16 digits from the demonstration's content, as GUIOdyssey's ids look: the same file
    imported twice is one episode."""
    return str(int(hashlib.sha256(raw).hexdigest(), 16) % 10**16).zfill(16)


def to_episode(path: Path, data: Mapping[str, Any], eid: str, warnings: list[str]) -> Episode:
    """The episode the demonstration shows; DemoError when no gesture is left."""
    states = data["states"]
    moves = gestures(events(path, states, warnings), states)
    if not moves:
        raise DemoError(f"{path}: states: no tap, typing or scroll to import")
    name = str(data["taskName"])
    url = miniwob.task_url(name)
    clicked: set[str] = set()
    for move in moves:
        if move.action.point is not None:
            target_keys(states[move.state].get("dom"), clicked)
    reader = TreeReader(frozenset(clicked))
    steps = []
    for index, move in enumerate(moves):
        dom = states[move.state].get("dom")
        observation = Observation(
            screen=SCREEN, elements=reader.elements(dom), app=name, activity=page_of(url)
        )
        steps.append(Step(index=index, observation=observation, action=move.action))
    if reader.unboxed:
        warnings.append(
            f"{path}: states[].dom: {reader.unboxed} elements without a box "
            "(left, top, width, height) left out"
        )
    utterance = data.get("utterance")
    if isinstance(utterance, Mapping):
        utterance = utterance.get("utterance")
    episode = Episode(
        episode_id=eid,
        instruction=" ".join(str(utterance or "").split()),
        category=CATEGORY,
        device=DEVICE,
        steps=tuple(steps),
        apps=(name,),
        meta_task=f"{miniwob.PREFIX}{name}",
    )
    return episode


def import_demos(paths: Iterable[Path], out: Path) -> ImportSummary:
    """Import every demonstration under ``paths`` into ``out`` (resumable)."""
    out = Path(out)
    (out / ANNOTATIONS).mkdir(parents=True, exist_ok=True)
    (out / SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    summary = ImportSummary()
    ids: list[str] = []
    for path in demo_files(paths):
        for eid in _import_one(path, out, summary):
            ids.append(eid)
    _add_to_train_split(out, ids)
    return summary


def _add_to_train_split(out: Path, ids: list[str]) -> None:
    """``splits/random_split.json`` names every imported episode in its train part (what
    ``guigraph build`` takes), after what it already held."""
    path = out / SPLITS / "random_split.json"
    parts = read_split(path) if path.is_file() else {"train": [], "test": []}
    train = list(dict.fromkeys([*parts["train"], *ids]))
    write_split(out, "random", train, parts["test"])


def _import_one(path: Path, out: Path, summary: ImportSummary) -> Iterator[str]:
    try:
        raw = read_bytes(path)
        eid = episode_id(raw)
        if (out / ANNOTATIONS / f"{eid}.json").is_file():
            summary.already += 1
            yield eid
            return
        data = load_demo(path, raw)
        reward = data.get("reward")
        if not isinstance(reward, int | float) or reward <= 0:
            summary.skipped_reward += 1
            return
        episode = to_episode(path, data, eid, summary.warnings)
    except DemoError as exc:
        summary.bad_files.append(str(exc))
        return
    # One line: the C encoder (an indented dump takes the pure-Python one, 3x slower).
    text = json.dumps(episode_to_json(episode), ensure_ascii=False) + "\n"
    _atomic(out / ANNOTATIONS / f"{eid}.json", text.encode("utf-8"))
    summary.imported.append(eid)
    summary.steps += len(episode.steps)
    yield eid


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
