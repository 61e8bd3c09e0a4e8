"""Episodes made by the tests themselves, in GUIOdyssey v1 and v2 form."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from guigraph.geometry import BBox, Point
from guigraph.types import (
    Action,
    ActionType,
    DeviceInfo,
    Episode,
    Observation,
    Step,
    UIElement,
)

V2_ID = "1234567890123456"
V1_ID = "6543210987654321"


def png(color: tuple[int, int, int], size: tuple[int, int] = (9, 16)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def make_v2_episode() -> Episode:
    device = DeviceInfo("Pixel Fold", 1840, 2208, "felix", "14", "34")
    elements = (
        UIElement(BBox(10, 20, 300, 80), text="Search", clickable=True, editable=True),
        UIElement(BBox(0, 900, 1000, 1000), content_desc="nav bar", scrollable=True),
    )
    actions = [
        (Action.click(287, 259), BBox(271, 233, 298, 277)),
        (Action.type_text("gym: near me"), None),
        (Action.swipe(Point(500, 800), Point(510, 200)), None),
        (Action.long_press(12.5, 990), BBox(0, 980, 30, 1000)),
        (Action.key(ActionType.PRESS_HOME), None),
        (Action(ActionType.COMPLETE), None),
    ]
    steps = tuple(
        Step(
            index=i,
            observation=Observation(
                screen=device.screen,
                screenshot=png((i * 40, 10, 200)),
                elements=elements if i == 0 else None,
                app="Waze" if i < 4 else None,
            ),
            action=action,
            sam2_bbox=box,
            description=f"screen {i}",
            intention=f"why {i}",
            context=f"so far {i}",
            low_level_instruction=f"do {i}",
            ps="[287, 259]" if i == 0 else "",
        )
        for i, (action, box) in enumerate(actions)
    )
    return Episode(
        episode_id=V2_ID,
        instruction="Find a gym with Waze, then ride there with Uber.",
        category="Multi_Apps",
        device=device,
        steps=steps,
        apps=("Waze", "Uber"),
        meta_task="Find a {place} with {app1}, then ride there with {app2}.",
        task="Find a gym with Waze, then ride there with Uber.",
    )


def v1_episode_json() -> dict[str, Any]:
    """A version 1 annotation: no description/intention/context/low-level instruction/box."""
    return {
        "episode_id": V1_ID,
        "device_info": {
            "product": "husky",
            "release_version": "14",
            "sdk_version": 34,
            "h": 2992,
            "w": 1344,
            "device_name": "Pixel 8 Pro",
        },
        "task_info": {
            "category": "Web_Shopping",
            "app": ["Amazon"],
            "meta_task": "Buy {item} on {app}",
            "task": "Buy socks on Amazon",
            "instruction": "Order a pair of socks on Amazon.",
        },
        "step_length": 4,
        "steps": [
            {"step": 0, "screenshot": f"{V1_ID}_0.png", "action": "CLICK",
             "info": [[120, 540], [120, 540]], "ps": "[120, 540]"},
            {"step": 1, "screenshot": f"{V1_ID}_1.png", "action": "TEXT",
             "info": "socks", "ps": ""},
            {"step": 2, "screenshot": f"{V1_ID}_2.png", "action": "CLICK",
             "info": "KEY_BACK", "ps": ""},
            {"step": 3, "screenshot": f"{V1_ID}_3.png", "action": "INCOMPLETE",
             "info": "", "ps": "out of stock"},
        ],
    }  # fmt: skip


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def v2_episode() -> Episode:
    return make_v2_episode()
