"""``check_env``: the conformance check every registered environment must pass.

It drives an environment through reset and one action of each supported type, and checks the
contract: typed results, a screenshot in every observation, elements inside the screen, refusal
(not a crash) of an action outside the action space, and identical rollouts for identical seeds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from guigraph.envs.base import Env, StepResult
from guigraph.errors import GuigraphError
from guigraph.geometry import NORM_MAX
from guigraph.types import Action, ActionType, Observation, ScrollDirection, Task


class EnvCheckError(GuigraphError, AssertionError):
    """An environment broke the interface contract."""


#: One harmless example of every action type, in the order a probe runs them (end-of-task last).
EXAMPLE_ACTIONS: dict[ActionType, Action] = {
    ActionType.CLICK: Action.click(500, 500),
    ActionType.LONG_PRESS: Action.long_press(500, 500),
    ActionType.SCROLL: Action.scroll(ScrollDirection.UP),
    ActionType.TYPE: Action.type_text("hello"),
    ActionType.WAIT: Action(ActionType.WAIT, seconds=0.0),
    ActionType.OPEN_APP: Action.open_app("settings"),
    ActionType.PRESS_BACK: Action(ActionType.PRESS_BACK),
    ActionType.PRESS_RECENT: Action(ActionType.PRESS_RECENT),
    ActionType.PRESS_HOME: Action(ActionType.PRESS_HOME),
    ActionType.IMPOSSIBLE: Action(ActionType.IMPOSSIBLE),
    ActionType.COMPLETE: Action(ActionType.COMPLETE),
}


def default_probe_actions(space: frozenset[ActionType]) -> list[Action]:
    """One action per supported type; open_app and impossible are left to the env's own tests."""
    skip = {ActionType.OPEN_APP, ActionType.IMPOSSIBLE}
    return [action for kind, action in EXAMPLE_ACTIONS.items() if kind in space - skip]


def observation_fingerprint(obs: Observation) -> str:
    """A digest of everything an agent can see, to compare rollouts."""
    digest = hashlib.sha256()
    digest.update(obs.png_bytes() if obs.has_screenshot else b"")
    digest.update(repr((obs.screen, obs.elements, obs.app, obs.activity)).encode())
    return digest.hexdigest()


def check_env(
    make_env: Callable[[], Env],
    task: Task,
    seed: int = 0,
    actions: Sequence[Action] | None = None,
) -> None:
    """Raise :class:`EnvCheckError` on the first broken rule; return None when all hold.

    ``make_env`` builds a fresh environment (called twice, for the determinism check).
    """
    env = make_env()
    try:
        probe = list(actions) if actions is not None else default_probe_actions(env.action_space)
        first = _rollout(env, task, seed, probe)
        _check_refuses_outside_space(env, task, seed)
    finally:
        env.close()
        env.close()  # closing twice must be harmless
    second_env = make_env()
    try:
        second = _rollout(second_env, task, seed, probe)
    finally:
        second_env.close()
    if first != second:
        at = next(i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)
        raise EnvCheckError(f"two rollouts with seed {seed} differ at observation {at}")


def _rollout(env: Env, task: Task, seed: int, actions: Sequence[Action]) -> list[str]:
    obs = env.reset(task, seed)
    _check_observation(obs, "reset")
    prints = [observation_fingerprint(obs)]
    for action in actions:
        result = env.step(action)
        if not isinstance(result, StepResult):
            raise EnvCheckError(f"step({action.type}) returned {type(result).__name__}")
        _check_observation(result.observation, f"step({action.type})")
        prints.append(observation_fingerprint(result.observation))
        if result.done:
            break
    return prints


def _check_observation(obs: object, where: str) -> None:
    if not isinstance(obs, Observation):
        raise EnvCheckError(f"{where} returned {type(obs).__name__}, expected Observation")
    if not obs.has_screenshot:
        raise EnvCheckError(f"{where}: observation has no screenshot")
    png = obs.png_bytes()
    if not png.startswith(b"\x89PNG"):
        raise EnvCheckError(f"{where}: screenshot is not a PNG")
    size = obs.image().size
    if size != (obs.screen.width, obs.screen.height):
        raise EnvCheckError(f"{where}: screenshot is {size}, screen says {obs.screen}")
    for element in obs.elements or ():
        box = element.bbox
        if box.x1 < 0 or box.y1 < 0 or box.x2 > NORM_MAX or box.y2 > NORM_MAX:
            raise EnvCheckError(f"{where}: element {element.label!r} lies outside the screen")


def _check_refuses_outside_space(env: Env, task: Task, seed: int) -> None:
    outside = [kind for kind in EXAMPLE_ACTIONS if kind not in env.action_space]
    if not outside:
        return
    env.reset(task, seed)
    result = env.step(EXAMPLE_ACTIONS[outside[0]])
    if not isinstance(result, StepResult) or result.error is None:
        raise EnvCheckError(f"an action outside the space ({outside[0]}) was not refused")
