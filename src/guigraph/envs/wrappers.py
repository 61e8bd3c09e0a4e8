"""Gymnasium-style wrappers: a step limit, recording every run, resized screenshots.

A wrapper is itself an :class:`Env` that forwards to the world it wraps, so wrappers stack and
the agent loop never knows which are there. Recording writes the GUIOdyssey layout the graph
is built from, so any world's runs can grow a knowledge base (``guigraph build --kb KB DIR``).
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.envs.conventions import Conventions
from guigraph.types import Action, ActionType, DeviceInfo, Episode, Observation, Step, Task


class EnvWrapper(Env):
    """Forwards everything to ``env``; subclasses override what they change."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.action_space = env.action_space

    @property
    def conventions(self) -> Conventions:
        return self.env.conventions

    def reset(self, task: Task, seed: int) -> Observation:
        return self.env.reset(task, seed)

    def step(self, action: Action) -> StepResult:
        return self.env.step(action)

    def close(self) -> None:
        self.env.close()

    def evaluate(self) -> Evaluation | None:
        return self.env.evaluate()

    def app_names(
        self, known: Collection[str], aliases: Mapping[str, Sequence[str]] | None = None
    ) -> Mapping[str, str]:
        return self.env.app_names(known, aliases)

    def make_task(self, spec: str, seed: int) -> Task:
        return self.env.make_task(spec, seed)

    @property
    def unwrapped(self) -> Env:
        inner = self.env
        return inner.unwrapped if isinstance(inner, EnvWrapper) else inner


class StepLimit(EnvWrapper):
    """Ends the episode after ``max_steps`` actions (the result says why)."""

    def __init__(self, env: Env, max_steps: int) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        super().__init__(env)
        self.max_steps = max_steps
        self.steps = 0

    def reset(self, task: Task, seed: int) -> Observation:
        self.steps = 0
        return super().reset(task, seed)

    def step(self, action: Action) -> StepResult:
        result = super().step(action)
        self.steps += 1
        if self.steps >= self.max_steps and not result.done:
            info = {**result.info, "truncated": True}
            return replace(result, done=True, info=info)
        return result


class ResizeScreenshot(EnvWrapper):
    """Screenshots scaled so their longer side is at most ``max_side`` pixels.

    Element boxes and actions are in the normalized 0..1000 space, so they need no change; only
    the screenshot and the screen size the observation reports shrink.
    """

    def __init__(self, env: Env, max_side: int) -> None:
        if max_side < 16:
            raise ValueError(f"max_side must be >= 16, got {max_side}")
        super().__init__(env)
        self.max_side = max_side

    def reset(self, task: Task, seed: int) -> Observation:
        return self._resize(super().reset(task, seed))

    def step(self, action: Action) -> StepResult:
        result = super().step(action)
        return replace(result, observation=self._resize(result.observation))

    def _resize(self, obs: Observation) -> Observation:
        from PIL import Image

        from guigraph.geometry import ScreenSize

        longest = max(obs.screen.width, obs.screen.height)
        if not obs.has_screenshot or longest <= self.max_side:
            return obs
        scale = self.max_side / longest
        size = (max(1, round(obs.screen.width * scale)), max(1, round(obs.screen.height * scale)))
        with Image.open(io.BytesIO(obs.png_bytes())) as image:
            small = image.convert("RGB").resize(size, Image.Resampling.BILINEAR)
        buffer = io.BytesIO()
        small.save(buffer, format="PNG")
        return replace(
            obs, screen=ScreenSize(*size), screenshot=buffer.getvalue(), screenshot_path=None
        )


class RecordEpisodes(EnvWrapper):
    """Writes every episode run through it to ``out`` in the GUIOdyssey layout.

    Each step keeps the screen *before* the action (screenshot and UI elements), the action and
    the instruction, as the dataset does; the episode is written when it ends (done, or the
    next reset, or close), and its id is added to ``splits/random_split.json``'s train part so
    ``guigraph build`` takes it. An episode of no steps is not written.
    """

    def __init__(self, env: Env, out: Path, device: DeviceInfo | None = None) -> None:
        super().__init__(env)
        self.out = Path(out)
        self.device = device
        self.written: list[Path] = []
        self._task: Task | None = None
        self._seed = 0
        self._before: Observation | None = None
        self._steps: list[Step] = []

    def reset(self, task: Task, seed: int) -> Observation:
        self._flush()
        obs = super().reset(task, seed)
        self._task, self._seed, self._before, self._steps = task, seed, obs, []
        return obs

    def step(self, action: Action) -> StepResult:
        before = self._before
        result = super().step(action)
        if before is not None and self._task is not None:
            self._steps.append(Step(index=len(self._steps), observation=before, action=action))
        self._before = result.observation
        if result.done or action.type in (ActionType.COMPLETE, ActionType.IMPOSSIBLE):
            self._flush()
        return result

    def discard(self) -> None:
        """Drop the episode in progress (a failed demonstration): nothing of it is written."""
        self._task, self._steps, self._before = None, [], None

    def close(self) -> None:
        try:
            self._flush()
        finally:
            super().close()

    def _flush(self) -> None:
        task, steps = self._task, self._steps
        self._task, self._steps, self._before = None, [], None
        if task is None or not steps:
            return
        from guigraph.data.odyssey import write_episode

        first = steps[0].observation
        device = self.device or DeviceInfo(
            name=type(self.unwrapped).__name__, width=first.screen.width,
            height=first.screen.height,
        )  # fmt: skip
        episode = Episode(
            episode_id=self._episode_id(task),
            instruction=task.instruction,
            category=task.category or "General_Tool",
            device=device,
            steps=tuple(steps),
            apps=task.apps or tuple(dict.fromkeys(s.observation.app or "" for s in steps)),
            meta_task=task.template_id,
            world=self.unwrapped.conventions.name,
        )
        self.written.append(write_episode(self.out, episode))
        _add_to_train_split(self.out, episode.episode_id)

    def _episode_id(self, task: Task) -> str:
        """Unique per run: the task, the seed and the time, as 16 digits like GUIOdyssey's."""
        key = f"{task.task_id}/{self._seed}/{time.time_ns()}/{len(self.written)}"
        return str(int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10**16).zfill(16)


def _add_to_train_split(root: Path, episode_id: str) -> None:
    from guigraph.data.odyssey import write_split

    path = root / "splits" / "random_split.json"
    parts: dict[str, list[str]] = {"train": [], "test": []}
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        parts = {k: [str(e).removesuffix(".json") for e in data.get(k, [])] for k in parts}
    if episode_id not in parts["train"]:
        parts["train"].append(episode_id)
    write_split(root, "random", parts["train"], parts["test"])
