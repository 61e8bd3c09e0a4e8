"""Run folders in the format ``guigraph eval`` writes, made up for the report and viewer tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from guigraph.types import CATEGORIES

HOSTILE = "<!--<script>alert(1)</script> </script><b>bold</b> & \u2028"

# (gt command, predicted action) per step of an episode; the first is a hit, then a near
# miss, a swipe, typed text, a key and the end.
PLAN: list[tuple[str, dict[str, Any], list[float]]] = [
    ("CLICK: (300, 200)", {"type": "click", "point": [305, 210]}, [250, 150, 350, 250]),
    ("CLICK: (700, 600)", {"type": "click", "point": [200, 820]}, [650, 550, 750, 650]),
    ("SCROLL: UP", {"type": "scroll", "direction": "up"}, []),
    ("TYPE: milk", {"type": "type", "text": "milk"}, []),
    ("PRESS_BACK", {"type": "press_back"}, []),
    ("COMPLETE", {"type": "complete"}, []),
]


def command_of(action: dict[str, Any]) -> str:
    kind = action["type"]
    if kind == "click":
        return f"CLICK: ({action['point'][0]:.0f}, {action['point'][1]:.0f})"
    if kind == "scroll":
        return f"SCROLL: {action['direction'].upper()}"
    if kind == "type":
        return f"TYPE: {action['text']}"
    return kind.upper()


def screenshot(path: Path, label: str) -> str:
    image = Image.new("RGB", (360, 780), (236, 240, 248))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 360, 60), fill=(60, 90, 160))
    draw.text((12, 20), label, fill=(255, 255, 255))
    for row in range(6):
        draw.rectangle((20, 90 + 90 * row, 340, 160 + 90 * row), outline=(150, 150, 170))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return str(path.resolve())


def make_run(
    root: Path,
    episodes: int = 6,
    *,
    live: bool = False,
    hostile: bool = False,
    wrong_every: int = 2,
    split: str = "random",
) -> Path:
    """``episodes`` episodes cycling through the six categories; in every ``wrong_every``-th
    episode step 1 misses. ``live`` drops ground truth, as ``eval sim`` writes."""
    root.mkdir(parents=True, exist_ok=True)
    steps, rows = [], []
    for index in range(episodes):
        episode_id = f"ep{index:03d}"
        category = CATEGORIES[index % len(CATEGORIES)]
        instruction = f"Buy milk in the shop, task {index}"
        if hostile:
            instruction += " " + HOSTILE
        right = 0
        for number, (gt, action, box) in enumerate(PLAN):
            action = dict(action)
            if hostile and action["type"] == "type":
                action["text"] = HOSTILE
            if number == 1 and index % wrong_every:
                action = {"type": "click", "point": [700, 600]}  # this episode gets it right
            pred = command_of(action)
            correct = None if live else (gt == pred or (number == 0))
            right += bool(correct)
            steps.append(
                {
                    "episode_id": episode_id,
                    "step": number,
                    "category": category,
                    "step_length": None if live else len(PLAN),
                    "gt": None if live else gt,
                    "pred": pred,
                    "sam2_bbox": box,
                    "correct": correct,
                    "action": action,
                    "screenshot": screenshot(
                        root / "shots" / f"{episode_id}_{number}.png", f"{episode_id} {number}"
                    ),
                    "screen": [360, 780],
                    "instruction": instruction,
                    "subgoal": f"sub-goal {number}" + (" " + HOSTILE if hostile else ""),
                    "proposals": [
                        {
                            "action": {"type": "click", "point": [100, 900]},
                            "accepted": False,
                            "feedback": "that is the ad banner" + (HOSTILE if hostile else ""),
                            "source": "model",
                            "reason": "the cart icon" + (HOSTILE if hostile else ""),
                        },
                        {"action": action, "accepted": True, "feedback": "", "source": "graph"},
                    ],
                    "narrative": "The shop opened." + (HOSTILE if hostile else ""),
                    "outcome": "success",
                    "outcome_note": "the cart shows milk" + (HOSTILE if hostile else ""),
                    "tokens": {"prompt": 1200, "completion": 40},
                    "calls": 2,
                    "seconds": 1.25,
                }
            )
        success = None if live else right == len(PLAN)
        if live:
            success = index % wrong_every == 1
        rows.append(
            {
                "episode_id": episode_id,
                "category": category,
                "instruction": instruction,
                "steps": len(PLAN),
                "correct_steps": None if live else right,
                "success": success,
                "seconds": 7.5,
                "tokens": {"prompt": 7200, "completion": 240},
            }
        )
    manifest = {
        "schema_version": 1,
        "suite": "sim" if live else "odyssey",
        "config": {"split": split, "policy": "graph", "concurrency": 4},
        "guigraph_version": "0.1.0",
        "git_commit": "abc1234",
        "kb_id": "kb-test",
        "model": {"name": "none"},
        "seeds": [0],
        "started": "2026-12-01T10:00:00Z",
        "ended": "2026-12-01T10:05:00Z",
    }
    (root / "manifest.json").write_text(json.dumps(manifest))
    # As guigraph eval writes them: UTF-8, text as it is (a U+2028 stays one raw character).
    (root / "steps.jsonl").write_text(
        "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in steps), encoding="utf-8"
    )
    (root / "episodes.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    summary = {
        "schema_version": 1,
        "episodes": episodes,
        "usage": {"calls": 12 * episodes, "prompt_tokens": 7200 * episodes,
                  "completion_tokens": 240 * episodes, "cost_usd": 0.01 * episodes},
        "faults": {"decider": {"retried": 3, "given_up": 0, "unparseable": 1},
                   "verifier": {"retried": 0, "given_up": 0, "unparseable": 0}},
    }  # fmt: skip
    (root / "summary.json").write_text(json.dumps(summary))
    return root
