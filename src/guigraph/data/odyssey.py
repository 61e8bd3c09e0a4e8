"""GUIOdyssey folders: read episodes lazily, write them back in the same layout.

A folder holds ``annotations/<id>.json``, ``screenshots/<id>_<step>.png`` and
``splits/<name>_split.json`` (see ``docs/evaluation.md`` and the dataset's own docs). Version 1
files lack the per-step ``description``/``intention``/``context``/``low_level_instruction`` and
``sam2_bbox``; they read the same way. Screenshots are never opened here: an ``Observation``
carries the path and the image is read when someone asks for it.

Two optional per-step fields extend the format for worlds that have a UI tree (the simulated
phone, a real device): ``ui_elements`` (``UIElement.to_dict()`` list) and ``app`` (the app in
the foreground). The real dataset lacks them, and readers treat them as optional.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from guigraph.data.commands import action_to_raw, raw_to_action
from guigraph.data.fields import FieldReader
from guigraph.errors import DatasetError
from guigraph.geometry import BBox
from guigraph.types import (
    CATEGORIES,
    Action,
    DeviceInfo,
    Episode,
    Observation,
    Step,
    UIElement,
)

ANNOTATIONS = "annotations"
SCREENSHOTS = "screenshots"
SPLITS = "splits"
SPLIT_PARTS = ("train", "test")
ANNOTATION_TEXTS = ("description", "intention", "context", "low_level_instruction")


def screenshot_name(episode_id: str, step: int) -> str:
    return f"{episode_id}_{step}.png"


def load_json(path: Path, reader: FieldReader) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        reader.fail(None, "an existing file", "nothing")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reader.fail(None, "a UTF-8 JSON document", str(exc))
    return None


# ---------------------------------------------------------------------------------- reading
def read_episode(annotation_path: Path, screenshots_dir: Path) -> Episode:
    """One episode file as an ``Episode``; DatasetError at the first problem found."""
    reader = FieldReader(annotation_path)
    episode = parse_episode(load_json(Path(annotation_path), reader), reader, screenshots_dir)
    assert episode is not None  # a non-collecting reader raises instead of returning None
    return episode


def parse_episode(data: Any, reader: FieldReader, screenshots_dir: Path) -> Episode | None:
    """Parse an episode's JSON; in collecting mode every problem lands in ``reader.problems``."""
    if not isinstance(data, Mapping):
        if data is not None:
            reader.fail(None, "a JSON object at the top level", type(data).__name__)
        return None
    episode_id = reader.string(data, "episode_id", "episode_id")
    device = _parse_device(data, reader)
    task_info = reader.mapping(data, "task_info", "task_info")
    category = instruction = None
    apps: tuple[str, ...] = ()
    meta_task: str | None = ""
    task: str | None = ""
    if task_info is not None:
        category = reader.string(task_info, "category", "task_info.category")
        if category is not None and category not in CATEGORIES:
            reader.fail("task_info.category", f"one of {', '.join(CATEGORIES)}", category)
            category = None
        instruction = reader.string(task_info, "instruction", "task_info.instruction")
        apps = _parse_apps(task_info, reader)
        meta_task = reader.string(task_info, "meta_task", "task_info.meta_task", required=False)
        task = reader.string(task_info, "task", "task_info.task", required=False)
    steps = _parse_steps(data, reader, episode_id, device, screenshots_dir)
    if reader.problems or None in (
        episode_id,
        device,
        category,
        instruction,
        steps,
        meta_task,
        task,
    ):
        return None
    assert episode_id and device and category and instruction is not None and steps is not None
    return Episode(
        episode_id=episode_id,
        instruction=instruction,
        category=category,
        device=device,
        steps=tuple(steps),
        apps=apps,
        meta_task=meta_task or "",
        task=task or "",
    )


def _parse_device(data: Mapping[str, Any], reader: FieldReader) -> DeviceInfo | None:
    info = reader.mapping(data, "device_info", "device_info")
    if info is None:
        return None
    width = reader.integer(info, "w", "device_info.w", minimum=1)
    height = reader.integer(info, "h", "device_info.h", minimum=1)
    if width is None or height is None:
        return None
    return DeviceInfo(
        name=reader.loose_string(info, "device_name"),
        width=width,
        height=height,
        product=reader.loose_string(info, "product"),
        release_version=reader.loose_string(info, "release_version"),
        sdk_version=reader.loose_string(info, "sdk_version"),
    )


def _parse_apps(task_info: Mapping[str, Any], reader: FieldReader) -> tuple[str, ...]:
    apps = task_info.get("app", [])
    if isinstance(apps, str):
        return (apps,)
    if not isinstance(apps, list) or not all(isinstance(a, str) for a in apps):
        reader.fail("task_info.app", "a list of app names", apps)
        return ()
    return tuple(apps)


def _parse_steps(
    data: Mapping[str, Any],
    reader: FieldReader,
    episode_id: str | None,
    device: DeviceInfo | None,
    screenshots_dir: Path,
) -> list[Step] | None:
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list):
        reader.fail("steps", "a list of steps", raw_steps if "steps" in data else "nothing")
        return None
    length = reader.integer(data, "step_length", "step_length", minimum=0)
    if length is not None and length != len(raw_steps):
        reader.fail("step_length", f"the number of steps ({len(raw_steps)})", length)
    steps = [
        _parse_step(raw, position, reader, episode_id, device, screenshots_dir)
        for position, raw in enumerate(raw_steps)
    ]
    return None if any(step is None for step in steps) else steps  # type: ignore[return-value]


def _parse_step(
    raw: Any,
    position: int,
    reader: FieldReader,
    episode_id: str | None,
    device: DeviceInfo | None,
    screenshots_dir: Path,
) -> Step | None:
    here = f"steps[{position}]"
    if not isinstance(raw, Mapping):
        reader.fail(here, "a step object", type(raw).__name__)
        return None
    problems_before = len(reader.problems)
    index = reader.integer(raw, "step", f"{here}.step", minimum=0)
    if index is not None and index != position:
        reader.fail(f"{here}.step", f"the step's position {position}", index)
    shot = reader.string(raw, "screenshot", f"{here}.screenshot")
    action = _parse_action(raw, reader, here)
    box = _parse_box(raw, reader, here)
    texts = {
        name: reader.string(raw, name, f"{here}.{name}", required=False)
        for name in ("ps", *ANNOTATION_TEXTS)
    }
    elements = _parse_elements(raw, reader, here)
    app = reader.string(raw, "app", f"{here}.app", required=False)
    if len(reader.problems) > problems_before or None in (index, shot, action, device, episode_id):
        return None
    if any(value is None for value in texts.values()):
        return None
    assert device is not None and action is not None and shot is not None
    observation = Observation(
        screen=device.screen,
        screenshot_path=screenshots_dir / shot,
        elements=elements,
        app=app or None,
        activity=reader.string(raw, "activity", f"{here}.activity", required=False) or None,
    )
    return Step(
        index=position,
        observation=observation,
        action=action,
        sam2_bbox=box,
        **{name: value or "" for name, value in texts.items()},
    )


def _parse_action(raw: Mapping[str, Any], reader: FieldReader, here: str) -> Action | None:
    name = reader.string(raw, "action", f"{here}.action")
    if name is None:
        return None
    try:
        return raw_to_action(name, raw.get("info"))
    except DatasetError as error:
        reader.absorb(error, f"{here}.")
        return None


def _parse_box(raw: Mapping[str, Any], reader: FieldReader, here: str) -> BBox | None:
    value = raw.get("sam2_bbox")
    if value is None or value == []:
        return None
    if not isinstance(value, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        reader.fail(f"{here}.sam2_bbox", "[x1, y1, x2, y2] of numbers or []", value)
        return None
    try:
        return BBox.from_list(value)
    except ValueError:
        reader.fail(f"{here}.sam2_bbox", "[x1, y1, x2, y2] with x1<=x2 and y1<=y2", value)
        return None


def _parse_elements(
    raw: Mapping[str, Any], reader: FieldReader, here: str
) -> tuple[UIElement, ...] | None:
    value = raw.get("ui_elements")
    if value is None:
        return None
    if not isinstance(value, list):
        reader.fail(f"{here}.ui_elements", "a list of UI elements", value)
        return None
    elements = []
    for number, item in enumerate(value):
        try:
            elements.append(UIElement.from_dict(item))
        except (KeyError, TypeError, ValueError) as exc:
            reader.fail(f"{here}.ui_elements[{number}]", "a UI element with a valid bbox", str(exc))
    return tuple(elements)


class OdysseyDataset:
    """A GUIOdyssey folder. Lists episode ids cheaply; reads an episode only when asked."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.annotations = self.root / ANNOTATIONS
        self.screenshots = self.root / SCREENSHOTS
        if not self.annotations.is_dir():
            raise DatasetError(self.annotations, None, "a folder of <episode_id>.json files")
        self._all_ids: list[str] | None = None

    def _ids(self) -> list[str]:
        if self._all_ids is None:
            self._all_ids = sorted(p.stem for p in self.annotations.glob("*.json"))
        return self._all_ids

    def split_path(self, split: str) -> Path:
        name = split if split.endswith("_split") else f"{split}_split"
        return self.root / SPLITS / f"{name}.json"

    def episode_ids(self, split: str | None = None, part: str | None = None) -> list[str]:
        """All episode ids, or those of a split (``"random"``) and part (``"train"``/``"test"``)."""
        if split is None:
            if part is not None:
                raise ValueError("a part needs a split")
            return list(self._ids())
        path = self.split_path(split)
        parts = read_split(path)
        if part is not None:
            if part not in parts:
                raise DatasetError(path, part, f"one of the parts {', '.join(SPLIT_PARTS)}")
            return list(parts[part])
        return [episode for name in SPLIT_PARTS for episode in parts[name]]

    def load(self, episode_id: str) -> Episode:
        return read_episode(self.annotations / f"{episode_id}.json", self.screenshots)

    def __iter__(self) -> Iterator[Episode]:
        return (self.load(episode_id) for episode_id in self.episode_ids())

    def __len__(self) -> int:
        return len(self._ids())


def split_entry_id(entry: str) -> str:
    """Split files name annotation files (``<id>.json``); a bare id is accepted too."""
    return entry[:-5] if entry.endswith(".json") else entry


def read_split(path: Path, reader: FieldReader | None = None) -> dict[str, list[str]]:
    """A split file's parts as lists of episode ids."""
    reader = reader or FieldReader(path)
    data = load_json(Path(path), reader)
    if not isinstance(data, Mapping):
        if data is not None:
            reader.fail(None, 'an object {"train": [...], "test": [...]}', type(data).__name__)
        return {part: [] for part in SPLIT_PARTS}
    parts: dict[str, list[str]] = {}
    for part in SPLIT_PARTS:
        entries = data.get(part, [])
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            reader.fail(part, "a list of annotation file names", entries)
            entries = []
        parts[part] = [split_entry_id(entry) for entry in entries]
    return parts


# ---------------------------------------------------------------------------------- writing
def episode_to_json(episode: Episode) -> dict[str, Any]:
    """An episode in the v2 annotation layout (plus the optional extension fields)."""
    device = episode.device
    return {
        "episode_id": episode.episode_id,
        "device_info": {
            "product": device.product,
            "release_version": device.release_version,
            "sdk_version": device.sdk_version,
            "h": device.height,
            "w": device.width,
            "device_name": device.name,
        },
        "task_info": {
            "category": episode.category,
            "app": list(episode.apps),
            "meta_task": episode.meta_task,
            "task": episode.task,
            "instruction": episode.instruction,
        },
        "step_length": len(episode.steps),
        "steps": [_step_to_json(episode.episode_id, step) for step in episode.steps],
    }


def _step_to_json(episode_id: str, step: Step) -> dict[str, Any]:
    action, info = action_to_raw(step.action)
    box = step.sam2_bbox
    out: dict[str, Any] = {
        "step": step.index,
        "screenshot": screenshot_name(episode_id, step.index),
        "action": action,
        "info": info,
        "ps": step.ps,
        **{name: getattr(step, name) for name in ANNOTATION_TEXTS},
        "sam2_bbox": [] if box is None else [_plain(v) for v in box.as_list()],
    }
    observation = step.observation
    if observation.elements is not None:
        out["ui_elements"] = [element.to_dict() for element in observation.elements]
    if observation.app is not None:
        out["app"] = observation.app
    if observation.activity is not None:
        out["activity"] = observation.activity
    return out


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def write_episode(root: Path, episode: Episode) -> Path:
    """Write ``annotations/<id>.json`` and each step's screenshot; returns the annotation path.

    A step whose observation has no screenshot (or a path to a file that does not exist, as in
    an annotations-only download) gets none on disk; ``guigraph data check`` reports it. A
    screenshot already at its destination is left alone.
    """
    root = Path(root)
    (root / ANNOTATIONS).mkdir(parents=True, exist_ok=True)
    (root / SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    for step in episode.steps:
        target = root / SCREENSHOTS / screenshot_name(episode.episode_id, step.index)
        _write_screenshot(step.observation, target)
    path = root / ANNOTATIONS / f"{episode.episode_id}.json"
    text = json.dumps(episode_to_json(episode), ensure_ascii=False, indent=1)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _write_screenshot(observation: Observation, target: Path) -> None:
    if observation.screenshot is not None:
        target.write_bytes(observation.screenshot)
    elif observation.screenshot_path is not None:
        source = Path(observation.screenshot_path)
        # An annotations-only copy has no images to carry over; `data check` reports them.
        if source.exists() and source.resolve() != target.resolve():
            shutil.copyfile(source, target)


def write_split(root: Path, name: str, train: list[str], test: list[str]) -> Path:
    """Write ``splits/<name>_split.json`` naming annotation files, as the dataset does."""
    path = Path(root) / SPLITS / f"{name.removesuffix('_split')}_split.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "train": [f"{split_entry_id(e)}.json" for e in train],
        "test": [f"{split_entry_id(e)}.json" for e in test],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path
