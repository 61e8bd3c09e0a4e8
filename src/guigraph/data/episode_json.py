"""GUIOdyssey annotation JSON <-> ``Episode``, field by field.

Parsing goes through a ``FieldReader``: it raises at the first problem when reading, and
collects every problem when ``guigraph data check`` runs it. Serializing writes the v2
layout plus the optional extension fields (``ui_elements``, ``app``, ``activity``).
"""

from __future__ import annotations

from collections.abc import Mapping
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

ANNOTATION_TEXTS = ("description", "intention", "context", "low_level_instruction")


#: Screenshot file types a step may have; any other suffix is written as ``.png``.
SCREENSHOT_SUFFIXES = (".png", ".jpg", ".jpeg")


def screenshot_name(episode_id: str, step: int, suffix: str = ".png") -> str:
    """``<id>_<step>.png``; JPEG screenshots (real phones, DroidBot) keep ``.jpg``."""
    suffix = suffix.lower() if suffix.lower() in SCREENSHOT_SUFFIXES else ".png"
    return f"{episode_id}_{step}{suffix}"


def step_screenshot_name(episode_id: str, step: Step) -> str:
    """The file name a step's screenshot is written under (its source's type kept)."""
    path = step.observation.screenshot_path
    return screenshot_name(episode_id, step.index, Path(path).suffix if path else ".png")


def parse_episode(
    data: Any, reader: FieldReader, screenshots_dir: Path, *, elements: bool = True
) -> Episode | None:
    """Parse an episode's JSON; in collecting mode every problem lands in ``reader.problems``.

    ``elements=False`` leaves the UI trees unread (``Observation.elements`` None): a build
    that ignores them need not pay for parsing them.
    """
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
    steps = _parse_steps(data, reader, episode_id, device, screenshots_dir, elements)
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
        world=reader.string(data, "world", "world", required=False) or "",
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
    with_elements: bool = True,
) -> list[Step] | None:
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list):
        reader.fail("steps", "a list of steps", raw_steps if "steps" in data else "nothing")
        return None
    length = reader.integer(data, "step_length", "step_length", minimum=0)
    if length is not None and length != len(raw_steps):
        reader.fail("step_length", f"the number of steps ({len(raw_steps)})", length)
    steps = [
        _parse_step(raw, position, reader, episode_id, device, screenshots_dir, with_elements)
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
    with_elements: bool = True,
) -> Step | None:
    here = f"steps[{position}]"
    if not isinstance(raw, Mapping):
        reader.fail(here, "a step object", type(raw).__name__)
        return None
    problems_before = len(reader.problems)
    index = reader.integer(raw, "step", f"{here}.step", minimum=0)
    if index is not None and index != position:
        reader.fail(f"{here}.step", f"the step's position {position}", index)
    # A world that keeps no pixels (MiniWoB's recorder) writes steps without a screenshot.
    shot = reader.string(raw, "screenshot", f"{here}.screenshot", required=False)
    action = _parse_action(raw, reader, here)
    box = _parse_box(raw, reader, here)
    texts = {
        name: reader.string(raw, name, f"{here}.{name}", required=False)
        for name in ("ps", *ANNOTATION_TEXTS)
    }
    elements = _parse_elements(raw, reader, here) if with_elements else None
    app = reader.string(raw, "app", f"{here}.app", required=False)
    if len(reader.problems) > problems_before or None in (index, action, device, episode_id):
        return None
    if any(value is None for value in texts.values()):
        return None
    assert device is not None and action is not None
    observation = Observation(
        screen=device.screen,
        screenshot_path=screenshots_dir / shot if shot else None,
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
        where = f"{here}.ui_elements[{number}]"
        try:
            box = _screen_box(item, reader, where)
            if box is None:
                continue  # no area on the screen: dropped, with a warning
            elements.append(UIElement.from_dict({**item, "bbox": box}))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            reader.fail(where, "a UI element with a bbox [x1, y1, x2, y2]", str(exc))
    return tuple(elements)


def _screen_box(item: Any, reader: FieldReader, where: str) -> list[float] | None:
    """The element's box clipped to the screen (0..1000); None, with a warning, when the
    box is inverted or off screen. Real UI trees have such views; one must not cost the
    episode."""
    box = item["bbox"]
    if not isinstance(box, list) or len(box) != 4:
        raise ValueError(f"bbox {box!r} is not [x1, y1, x2, y2]")
    x1, y1, x2, y2 = (float(v) for v in box)
    if x2 < x1 or y2 < y1:
        reader.warn(f"{where}.bbox", "x1<=x2 and y1<=y2 (element dropped)", box)
        return None
    clipped = [min(max(v, 0.0), 1000.0) for v in (x1, y1, x2, y2)]
    if clipped[2] <= clipped[0] or clipped[3] <= clipped[1]:
        reader.warn(f"{where}.bbox", "a box on the screen (element dropped)", box)
        return None
    if clipped != [x1, y1, x2, y2]:
        reader.warn(f"{where}.bbox", "a box within 0..1000 (clipped)", box)
    return clipped


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
        **({"world": episode.world} if episode.world else {}),
    }


def _step_to_json(episode_id: str, step: Step) -> dict[str, Any]:
    action, info = action_to_raw(step.action)
    box = step.sam2_bbox
    out: dict[str, Any] = {"step": step.index}
    if step.observation.has_screenshot:  # a world that keeps no pixels writes none
        out["screenshot"] = step_screenshot_name(episode_id, step)
    out |= {
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
