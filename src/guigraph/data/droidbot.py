"""DroidBot output folders -> GUIOdyssey-layout logs (``guigraph import droidbot``).

A DroidBot run writes ``events/event_<tag>.json`` (``start_state``, ``stop_state``,
``event``), ``states/state_<tag>.json`` with ``screen_<tag>.jpg`` or ``.png`` (a state's file
only the first time the state is seen, so events name states by ``state_str``), and
``utg.js`` (``var utg = {...}``). The events, in tag order, form chains of states; an episode
is one unbroken chain:

- it ends where a ``kill_app`` event (DroidBot's restart), a restarting intent (``am start
  -S``), an event with no GUIOdyssey action (``exit``, ``manual``, a MENU key) or a break in
  the chain (an event that does not start where the previous one stopped, a state whose file
  or screenshot is missing) is;
- an intent that starts an app stays inside as an ``OPEN_APP`` step naming the package;
- touches, long touches, scrolls and swipes, text and keys become CLICK, LONG_PRESS, SCROLL
  (finger direction, DroidBot names the content's), TEXT and the KEY_* presses;
- the last state gets a ``COMPLETE`` step, as every GUIOdyssey episode ends with one.

Each step carries the state's views as ``ui_elements`` (bounds clipped to the screen; a view
with inverted or off-screen bounds is dropped and counted), its app (the package) and
activity. ``truth/<id>.json`` gets DroidBot's structure-only identity,
``state_str_content_free``, so ``guigraph kb check`` can score a build of the import.

Episodes already written are skipped, and every file is written to a temporary name and
renamed, the annotation last, so a killed import resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guigraph.data.odyssey import (
    ANNOTATIONS,
    SCREENSHOTS,
    episode_to_json,
    screenshot_name,
    write_split,
)
from guigraph.errors import DatasetError
from guigraph.geometry import NORM_MAX, BBox, Point, ScreenSize
from guigraph.graph.truth import truth_document
from guigraph.types import (
    Action,
    ActionType,
    DeviceInfo,
    Episode,
    Observation,
    Step,
    UIElement,
)

logger = logging.getLogger(__name__)

TRUTH = "truth"
#: GUIOdyssey needs a category; an exploration has no task, so the most general one.
CATEGORY = "General_Tool"
_KEYS = {
    "BACK": ActionType.PRESS_BACK,
    "HOME": ActionType.PRESS_HOME,
    "APP_SWITCH": ActionType.PRESS_RECENT,
}
#: DroidBot's scroll direction says where the content goes; the finger moves the other way.
_FINGER = {"UP": (0, 1), "DOWN": (0, -1), "LEFT": (1, 0), "RIGHT": (-1, 0)}
_SWIPE_REACH = 0.4  # DroidBot drags 2/5 of the view's size each way from its centre
_TAG = re.compile(r"^(?:event|state)_(.+)\.json$")


@dataclass
class State:
    """One ``states/state_<tag>.json``, read when first needed."""

    path: Path
    data: Mapping[str, Any]

    @property
    def screenshot(self) -> Path | None:
        tag = _TAG.match(self.path.name)
        if tag is None:
            return None
        for suffix in (".jpg", ".jpeg", ".png"):
            candidate = self.path.with_name(f"screen_{tag.group(1)}{suffix}")
            if candidate.is_file():
                return candidate
        return None


@dataclass
class ImportSummary:
    out: Path
    episodes: list[str] = field(default_factory=list)
    already_imported: int = 0
    steps: int = 0
    dropped_elements: int = 0
    clipped_elements: int = 0
    #: Events left out of every episode: (folder, event file, why).
    cuts: list[tuple[str, str, str]] = field(default_factory=list)
    #: State files that could not be read (the error, naming file and field).
    bad_states: list[str] = field(default_factory=list)


@dataclass
class _Event:
    path: Path
    start: str
    stop: str
    event: Mapping[str, Any]


def import_droidbot(
    folders: Iterable[Path],
    out: Path,
    on_episode: Callable[[str], None] | None = None,
) -> ImportSummary:
    """Import DroidBot output folders into ``out`` (created, or resumed)."""
    out = Path(out)
    summary = ImportSummary(out)
    folders = [Path(f) for f in folders]
    for folder in folders:  # check every folder before writing anything
        if not (folder / "events").is_dir() or not (folder / "states").is_dir():
            raise DatasetError(folder, None, "a DroidBot output folder with events/ and states/")
    for d in (ANNOTATIONS, SCREENSHOTS, TRUTH):
        (out / d).mkdir(parents=True, exist_ok=True)
    for folder in folders:
        _import_folder(folder, out, summary, on_episode)
    all_ids = sorted(p.stem for p in (out / ANNOTATIONS).glob("*.json"))
    write_split(out, "random", train=all_ids, test=[])
    return summary


def _import_folder(
    folder: Path,
    out: Path,
    summary: ImportSummary,
    on_episode: Callable[[str], None] | None,
) -> None:
    states = _index_states(folder, summary)
    run = _run(folder)
    events = []
    for path in sorted((folder / "events").glob("event_*.json")):
        try:
            events.append(_read_event(path))
        except DatasetError as exc:  # one broken file costs its event, not the run
            summary.cuts.append((str(folder), path.name, str(exc)))
    prefix = _id_prefix(folder, events)
    chains = _chains(events, states, folder, summary)
    for number, chain in enumerate(chains):
        episode_id = f"{prefix}{number:08d}"
        if (out / ANNOTATIONS / f"{episode_id}.json").is_file():
            summary.already_imported += 1
            continue
        episode, screens = _episode(episode_id, chain, states, run, summary)
        _write(out, episode, screens)
        summary.episodes.append(episode_id)
        summary.steps += len(episode.steps)
        if on_episode is not None:
            on_episode(episode_id)


def _id_prefix(folder: Path, events: list[_Event]) -> str:
    """8 digits that name the run (folder name and first event), so a resume finds its ids."""
    first = events[0].path.name if events else ""
    digest = hashlib.sha256(f"{folder.resolve().name}/{first}".encode()).hexdigest()
    return f"{1 + int(digest, 16) % 9}{int(digest, 16) % 10**7:07d}"


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(path, None, "a readable JSON file", str(exc)) from exc


def _index_states(folder: Path, summary: ImportSummary) -> dict[str, State]:
    """Every readable state by ``state_str``; a broken state file is reported, and the
    events that name its state are cut where they would use it."""
    states: dict[str, State] = {}
    for path in sorted((folder / "states").glob("state_*.json")):
        try:
            data = _read_state(path)
        except DatasetError as exc:
            summary.bad_states.append(str(exc))
            continue
        states.setdefault(data["state_str"], State(path, data))
    return states


def _read_state(path: Path) -> Mapping[str, Any]:
    data = _load(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("state_str"), str):
        raise DatasetError(path, "state_str", "a DroidBot state with a state_str")
    for key in ("views", "foreground_activity", "state_str_content_free"):
        if key not in data:
            raise DatasetError(path, key, "a DroidBot state field", "nothing")
    _screen(data, path)
    return data


def _read_event(path: Path) -> _Event:
    data = _load(path)
    if not isinstance(data, Mapping):
        raise DatasetError(path, None, "a JSON object", type(data).__name__)
    for key in ("start_state", "stop_state"):
        if not isinstance(data.get(key), str):
            raise DatasetError(path, key, "a state_str", data.get(key))
    event = data.get("event")
    if not isinstance(event, Mapping) or not isinstance(event.get("event_type"), str):
        raise DatasetError(path, "event", "an event with an event_type", event)
    return _Event(path, data["start_state"], data["stop_state"], event)


def read_utg(folder: Path) -> dict[str, Any]:
    """``utg.js`` as a dict (``var utg = {...}``); {} when the file is absent."""
    path = Path(folder) / "utg.js"
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8").strip()
    _, equals, body = text.partition("=")
    try:
        data = json.loads(body.strip().rstrip(";")) if equals else None
    except json.JSONDecodeError as exc:
        raise DatasetError(path, None, "'var utg = {...}' with a JSON object", str(exc)) from exc
    if not isinstance(data, dict):
        raise DatasetError(path, None, "'var utg = {...}' with a JSON object", text[:40])
    return data


@dataclass(frozen=True)
class _Run:
    """What ``utg.js`` says of the run: the device and the app explored."""

    device: str
    package: str


def _run(folder: Path) -> _Run:
    utg = read_utg(folder)
    return _Run(
        str(utg.get("device_model_number") or "DroidBot device"),
        str(utg.get("app_package") or ""),
    )


# Chains of events -------------------------------------------------------------------------


def _chains(
    events: list[_Event], states: dict[str, State], folder: Path, summary: ImportSummary
) -> list[list[tuple[_Event, Action]]]:
    chains: list[list[tuple[_Event, Action]]] = []
    current: list[tuple[_Event, Action]] = []

    def cut(event: _Event, why: str) -> None:
        nonlocal current
        if current:
            chains.append(current)
        current = []
        if why:
            summary.cuts.append((str(folder), event.path.name, why))

    for event in events:
        if event.start not in states or event.stop not in states:
            cut(event, "a state without a state file")
            continue
        blind = next(
            (states[s] for s in (event.start, event.stop) if not states[s].screenshot), None
        )
        if blind is not None:  # a step without its screen is no step (nothing to link to)
            cut(event, f"{blind.path.name} has no screenshot (screen_<tag>.jpg or .png)")
            continue
        if current and current[-1][0].stop != event.start:
            cut(event, "")  # a break in the chain: a new episode from here
        kind = event.event["event_type"]
        if kind == "kill_app" or _restarts(event.event):
            cut(event, "")
            if kind == "kill_app":
                continue
        try:
            action = _action(event.event, states[event.start].data)
        except (DatasetError, ValueError) as exc:
            cut(event, str(exc))
            continue
        if action is None:
            cut(event, f"a {kind} event has no GUIOdyssey action")
            continue
        current.append((event, action))
    cut(events[-1] if events else _Event(folder, "", "", {}), "")
    return chains


def _restarts(event: Mapping[str, Any]) -> bool:
    intent = str(event.get("intent") or "")
    return event.get("event_type") == "intent" and ("force-stop" in intent or " -S" in intent)


def _screen(state: Mapping[str, Any], path: Path | None = None) -> ScreenSize:
    width, height = state.get("width"), state.get("height")
    if not isinstance(width, int) or not isinstance(height, int) or width < 1 or height < 1:
        raise DatasetError(path, "width", "the state's screen size in pixels", [width, height])
    return ScreenSize(width, height)


def _norm(x: float, y: float, screen: ScreenSize) -> Point:
    nx = min(max(x / screen.width * NORM_MAX, 0.0), NORM_MAX)
    ny = min(max(y / screen.height * NORM_MAX, 0.0), NORM_MAX)
    return Point(round(nx, 1), round(ny, 1))


def _center(view: Any) -> tuple[float, float] | None:
    box = _bounds(view)
    if box is None:
        return None
    x1, y1, x2, y2 = box
    return (x1 + x2) / 2, (y1 + y2) / 2


def _bounds(view: Any) -> tuple[float, float, float, float] | None:
    if not isinstance(view, Mapping):
        return None
    try:
        (x1, y1), (x2, y2) = view["bounds"]
        return float(x1), float(y1), float(x2), float(y2)
    except (KeyError, TypeError, ValueError):
        return None


def _point(event: Mapping[str, Any], x: str, y: str, view: str) -> tuple[float, float] | None:
    if isinstance(event.get(x), int | float) and isinstance(event.get(y), int | float):
        return float(event[x]), float(event[y])
    return _center(event.get(view))


def _action(event: Mapping[str, Any], state: Mapping[str, Any]) -> Action | None:
    """The GUIOdyssey action of a DroidBot event; None when it has none."""
    kind = event["event_type"]
    screen = _screen(state)
    if kind in ("touch", "long_touch"):
        point = _point(event, "x", "y", "view")
        if point is None:
            raise DatasetError(None, "event", "a touch with x/y or a view with bounds", event)
        where = _norm(*point, screen)
        return (
            Action.click(where.x, where.y)
            if kind == "touch"
            else Action.long_press(where.x, where.y)
        )
    if kind == "scroll":
        return _scroll(event, screen)
    if kind == "swipe":
        start = _point(event, "start_x", "start_y", "start_view")
        end = _point(event, "end_x", "end_y", "end_view")
        if start is None or end is None or start == end:
            raise DatasetError(None, "event", "a swipe with two different points", event)
        return Action.swipe(_norm(*start, screen), _norm(*end, screen))
    if kind == "set_text":
        return Action.type_text(str(event.get("text") or ""))
    if kind == "key":
        key = _KEYS.get(str(event.get("name", "")).upper())
        return Action.key(key) if key is not None else None
    if kind == "intent":
        package = intent_package(str(event.get("intent") or ""))
        return Action.open_app(package) if package else None
    return None


def _scroll(event: Mapping[str, Any], screen: ScreenSize) -> Action:
    direction = str(event.get("direction") or "DOWN").upper()
    if direction not in _FINGER:
        raise DatasetError(None, "event.direction", "UP, DOWN, LEFT or RIGHT", direction)
    box = _bounds(event.get("view")) or (0.0, 0.0, float(screen.width), float(screen.height))
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    dx, dy = _FINGER[direction]
    reach_x, reach_y = abs(x2 - x1) * _SWIPE_REACH, abs(y2 - y1) * _SWIPE_REACH
    start = _norm(cx - dx * reach_x, cy - dy * reach_y, screen)
    end = _norm(cx + dx * reach_x, cy + dy * reach_y, screen)
    if start == end:  # a view with no extent: DroidBot's direction alone
        start, end = Point(500, 500), Point(500 + 200 * dx, 500 + 200 * dy)
    return Action.swipe(start, end)


def intent_package(intent: str) -> str:
    """The package an ``am start`` command starts (``-n pkg/.Act``, or a bare component)."""
    try:
        words = shlex.split(intent)
    except ValueError:
        words = intent.split()
    if "start" not in words:
        return ""
    for i, word in enumerate(words):
        if word in ("-n", "--component") and i + 1 < len(words):
            return words[i + 1].split("/", 1)[0]
    components = [w for w in words if "/" in w and not w.startswith("-")]
    return components[-1].split("/", 1)[0] if components else ""


# Episodes -----------------------------------------------------------------------------------


def _episode(
    episode_id: str,
    chain: list[tuple[_Event, Action]],
    states: dict[str, State],
    run: _Run,
    summary: ImportSummary,
) -> tuple[Episode, list[str]]:
    names = [event.start for event, _ in chain] + [chain[-1][0].stop]
    actions = [action for _, action in chain] + [Action(ActionType.COMPLETE)]
    first = states[names[0]].data
    screen = _screen(first)
    steps = []
    for index, (name, action) in enumerate(zip(names, actions, strict=True)):
        state = states[name]
        steps.append(Step(index=index, observation=_observation(state, summary), action=action))
    apps = tuple(dict.fromkeys(s.observation.app for s in steps if s.observation.app))
    # The app DroidBot explored, else the one most of the episode is in.
    seen = [s.observation.app for s in steps if s.observation.app]
    target = run.package or (max(set(seen), key=seen.count) if seen else "the app")
    episode = Episode(
        episode_id=episode_id,
        instruction=f"Explore {target}",
        category=CATEGORY,
        device=DeviceInfo(run.device, screen.width, screen.height),
        steps=tuple(steps),
        apps=apps,
    )
    return episode, [str(states[n].data["state_str_content_free"]) for n in names]


def split_activity(foreground: str) -> tuple[str, str]:
    """``pkg/.Main`` -> (pkg, pkg.Main); ``pkg/pkg.Main`` -> (pkg, pkg.Main)."""
    package, _, activity = foreground.partition("/")
    if activity.startswith("."):
        activity = package + activity
    return package, activity


def _observation(state: State, summary: ImportSummary) -> Observation:
    data = state.data
    screen = _screen(data)
    package, activity = split_activity(str(data.get("foreground_activity") or ""))
    views = data.get("views")
    elements = []
    for view in views if isinstance(views, list) else []:
        element = view_element(view, screen, summary)
        if element is not None:
            elements.append(element)
    return Observation(
        screen=screen,
        screenshot_path=state.screenshot,
        elements=tuple(elements),
        app=package or None,
        activity=activity or None,
    )


def view_element(view: Any, screen: ScreenSize, summary: ImportSummary) -> UIElement | None:
    """A DroidBot view as a UI element, its bounds clipped to the screen; None when it has no
    area on the screen (inverted, empty or off-screen bounds) or is invisible."""
    if not isinstance(view, Mapping) or view.get("visible") is False:
        return None
    box = _bounds(view)
    if box is None:
        summary.dropped_elements += 1
        return None
    x1, y1, x2, y2 = box
    cx1, cy1 = max(x1, 0.0), max(y1, 0.0)
    cx2, cy2 = min(x2, float(screen.width)), min(y2, float(screen.height))
    if cx2 <= cx1 or cy2 <= cy1:
        summary.dropped_elements += 1
        return None
    if (cx1, cy1, cx2, cy2) != box:
        summary.clipped_elements += 1
    sx, sy = NORM_MAX / screen.width, NORM_MAX / screen.height
    cls = str(view.get("class") or "")
    return UIElement(
        bbox=BBox(cx1 * sx, cy1 * sy, cx2 * sx, cy2 * sy),
        text=str(view.get("text") or ""),
        content_desc=str(view.get("content_description") or ""),
        class_name=cls,
        resource_id=str(view.get("resource_id") or ""),
        clickable=bool(view.get("clickable") or view.get("long_clickable")),
        editable=bool(view.get("editable")) or cls.endswith("EditText"),
        scrollable=bool(view.get("scrollable")),
        focused=bool(view.get("focused")),
        checked=bool(view.get("checked")),
    )


def _write(out: Path, episode: Episode, screens: list[str]) -> None:
    """Screenshots, truth, then the annotation: the annotation's presence means done."""
    for step in episode.steps:
        source = step.observation.screenshot_path
        if source is None:
            continue
        name = screenshot_name(episode.episode_id, step.index, Path(source).suffix)
        _atomic_bytes(out / SCREENSHOTS / name, Path(source).read_bytes())
    truth = truth_document(episode.episode_id, screens, source="droidbot state_str_content_free")
    _atomic_bytes(out / TRUTH / f"{episode.episode_id}.json", _json_bytes(truth))
    annotation = _json_bytes(episode_to_json(episode))
    _atomic_bytes(out / ANNOTATIONS / f"{episode.episode_id}.json", annotation)


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _atomic_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
