"""The log recorder: the expert on seeded tasks, written in the GUIOdyssey v2 layout.

Besides ``annotations/``, ``screenshots/`` and ``splits/random_split.json`` it writes
``truth/<episode_id>.json`` (the true screen identity of every step and whether its action
jumped to another identity; only for measuring the graph builder, which must never read it)
and ``simphone.json`` (how the logs were made: device, version, noise, held-out templates).

Loading screens are waited out and not recorded, as a person recording a phone does not
record a spinner; :func:`replay` waits the same way.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.expert import Expert
from guigraph.envs.simphone.phone import describe
from guigraph.envs.simphone.tasks import TEMPLATES, get_template, make_task, meta_task, plan_for
from guigraph.errors import EnvError
from guigraph.geometry import BBox
from guigraph.graph.truth import truth_document
from guigraph.types import Action, ActionType, Episode, Observation, Step, Task

MAX_STEPS = 120
LOADING_TEXT = "Loading..."
BASE_POPUP_RATE = 0.1


@dataclass
class Recorded:
    episode: Episode
    truth: dict[str, Any]
    task: Task
    succeeded: bool


@dataclass
class RecordSummary:
    out: Path
    episodes: list[str] = field(default_factory=list)
    templates: dict[str, int] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)
    steps: int = 0
    failures: list[str] = field(default_factory=list)


def episode_id(seed: int, index: int) -> str:
    """16 digits like GUIOdyssey's ids: 8 from the run's seed, 8 from the episode's index."""
    head = int(hashlib.sha256(f"simphone/{seed}".encode()).hexdigest(), 16) % 10**7
    return f"{1 + head % 9}{head:07d}{index:08d}"[:16]


def task_seed(seed: int, index: int) -> int:
    return seed * 100_003 + index


def popup_rate_for(noise: float) -> float:
    """Noisier logs also meet more pop-ups."""
    return min(0.6, BASE_POPUP_RATE + noise)


def _box(expert: Expert, env: SimPhone) -> BBox | None:
    if expert.last_target is None:
        return None
    x1, y1, x2, y2 = expert.last_target.box
    sx, sy = 1000 / env.device.width, 1000 / env.device.height
    # Integers as the dataset stores them, widened outwards so the tap stays inside.
    return BBox(
        max(0, math.floor(x1 * sx)),
        max(0, math.floor(y1 * sy)),
        min(1000, math.ceil(x2 * sx)),
        min(1000, math.ceil(y2 * sy)),
    )


def _low_level(action: Action, expert: Expert) -> str:
    target = expert.last_target
    label = (target.widget.text or target.widget.placeholder or target.widget.key) if target else ""
    kind = action.type
    if kind is ActionType.CLICK:
        return f"Tap '{label}'"
    if kind is ActionType.LONG_PRESS:
        return f"Long press '{label}'"
    if kind is ActionType.TYPE:
        return f"Type '{action.text}'"
    if kind is ActionType.SCROLL:
        assert action.direction is not None
        return f"Swipe {action.direction.value}"
    return {
        ActionType.PRESS_BACK: "Go back",
        ActionType.PRESS_HOME: "Go to the home screen",
        ActionType.PRESS_RECENT: "Open recent apps",
    }.get(kind, "The task is complete")


def record_episode(
    template_id: str,
    seed: int,
    index: int,
    device: str,
    version: int,
    noise: float,
    skin: str = "standard",
) -> Recorded:
    """Run the expert on one seeded task; the episode ends with COMPLETE. ``skin`` is how the
    recorded observations report elements (``android``: as a phone's uiautomator dump)."""
    world_seed = task_seed(seed, index)
    task = make_task(template_id, world_seed)
    env = SimPhone(device, version=version, popup_rate=popup_rate_for(noise), skin=skin)
    observation = env.reset(task, world_seed)
    expert = Expert(env, plan_for(task, env.world), world_seed, noise)
    eid = episode_id(seed, index)
    steps: list[Step] = []
    identities: list[str] = []
    context: list[str] = []
    for _ in range(MAX_STEPS):
        action = expert.next_action()
        if action.type is ActionType.WAIT:
            observation = env.step(action).observation
            continue
        identities.append(env.screen_identity())
        description = describe(env.view())
        low = _low_level(action, expert)
        steps.append(
            Step(
                index=len(steps),
                observation=observation,
                action=action,
                sam2_bbox=_box(expert, env),
                description=description,
                intention=f"{low} to get on with: {task.instruction}",
                context="; ".join(context[-4:]),
                low_level_instruction=low,
            )
        )
        context.append(low)
        result = env.step(action)
        if result.error is not None:
            raise EnvError(f"{template_id} seed {world_seed}: expert action failed: {result.error}")
        observation = result.observation
        if result.done:
            break
    else:
        raise EnvError(f"{template_id} seed {world_seed}: no COMPLETE within {MAX_STEPS} steps")
    tpl = get_template(template_id)
    meta, filled = meta_task(task)
    episode = Episode(
        episode_id=eid,
        instruction=task.instruction,
        category=tpl.category,
        device=env.device.info(),
        steps=tuple(steps),
        apps=tpl.apps,
        meta_task=meta,
        task=filled,
        world=env.conventions.name,
    )
    truth = truth_document(eid, identities, template_id=template_id)
    succeeded = env.task_succeeded()
    env.close()
    return Recorded(episode, truth, task, succeeded)


def choose_templates(count: int, seed: int, holdout: Sequence[str] = ()) -> list[str]:
    """Round-robin over a seeded shuffle of the kept templates, so every category appears."""
    unknown = [t for t in holdout if t not in TEMPLATES]
    if unknown:
        raise ValueError(f"unknown templates to hold out: {unknown}; see `guigraph sim tasks`")
    kept = [t for t in TEMPLATES if t not in set(holdout)]
    if not kept:
        raise ValueError("every template is held out; nothing to record")
    rng = random.Random(seed)
    order: list[str] = []
    while len(order) < count:
        batch = list(kept)
        rng.shuffle(batch)
        order.extend(batch)
    return order[:count]


def record(
    out: Path,
    episodes: int,
    seed: int,
    device: str = "Pixel 7 Pro",
    version: int = 1,
    noise: float = 0.0,
    holdout: Sequence[str] = (),
    test_fraction: float = 0.2,
    on_episode: Callable[[str], None] | None = None,
    skin: str = "standard",
) -> RecordSummary:
    from guigraph.data.odyssey import write_episode, write_split

    out = Path(out)
    (out / "truth").mkdir(parents=True, exist_ok=True)
    summary = RecordSummary(out)
    plan = choose_templates(episodes, seed, holdout)
    manifest_episodes = []
    for index, template_id in enumerate(plan):
        recorded = record_episode(template_id, seed, index, device, version, noise, skin)
        if not recorded.succeeded:
            summary.failures.append(f"{recorded.episode.episode_id} ({template_id})")
        write_episode(out, recorded.episode)
        eid = recorded.episode.episode_id
        (out / "truth" / f"{eid}.json").write_text(json.dumps(recorded.truth, indent=1) + "\n")
        summary.episodes.append(eid)
        summary.steps += len(recorded.episode.steps)
        if on_episode is not None:
            on_episode(eid)
        summary.templates[template_id] = summary.templates.get(template_id, 0) + 1
        category = recorded.episode.category
        summary.categories[category] = summary.categories.get(category, 0) + 1
        manifest_episodes.append(
            {"episode_id": eid, "task": recorded.task.to_dict(), "seed": task_seed(seed, index)}
        )
    ids = list(summary.episodes)
    random.Random(seed).shuffle(ids)
    n_test = max(1, round(len(ids) * test_fraction)) if len(ids) > 1 else 0
    write_split(out, "random", train=sorted(ids[n_test:]), test=sorted(ids[:n_test]))
    manifest = {
        "schema_version": 1,
        "generator": "guigraph sim record",
        "seed": seed,
        "device": device,
        "version": version,
        "noise": noise,
        "skin": skin,
        "popup_rate": popup_rate_for(noise),
        "holdout_templates": list(holdout),
        "episodes": manifest_episodes,
    }
    (out / "simphone.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return summary


def replay(env: SimPhone, task: Task, seed: int, actions: Sequence[Action]) -> Observation:
    """Replay recorded actions from a fresh reset, waiting out loading screens as a person does."""
    observation = env.reset(task, seed)
    for action in actions:
        while any(e.text == LOADING_TEXT for e in observation.elements or ()):
            observation = env.step(Action(ActionType.WAIT, seconds=1.0)).observation
        result = env.step(action)
        if result.error is not None:
            raise EnvError(f"replayed {action} failed: {result.error}")
        observation = result.observation
    return observation
