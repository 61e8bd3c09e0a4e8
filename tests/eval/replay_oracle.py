"""A loopback model that answers every role from the *recorded* episodes of a replay.

It is the agent tests' oracle (tests/agents/oracle.py) with the expert's rollouts replaced by
the recordings: a request's screen (its element list, as the prompts render it) is looked up
among the recorded screens of the task, and each role answers as it should there. The decider
replies with GUIOdyssey command strings (``CLICK: (x, y)`` in the model's coordinates), the
form a model trained on GUIOdyssey writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from guigraph.agents.observer import RuleObserver
from guigraph.agents.prompting import render_elements
from guigraph.data.commands import action_to_command
from guigraph.data.odyssey import OdysseyDataset
from guigraph.types import ActionType
from tests.agents.oracle import COORDS, Frame, Oracle, _screen


class CommandOracle(Oracle):
    def _decider(self, text: str) -> str:
        frame = self._best(text, _screen(text))
        if frame is None:
            return "PRESS_BACK"
        action = frame.action
        if action.point is None:
            return action_to_command(action)
        x, y = COORDS.from_point(action.point, frame.state.observation.screen)
        kind = "CLICK" if action.type is ActionType.CLICK else "LONG_PRESS"
        return f"{kind}: ({round(x)}, {round(y)})"


def replay_oracle(dataset: OdysseyDataset, ids: Sequence[str]) -> CommandOracle:
    """The oracle knowing the episodes ``ids`` of ``dataset`` (keyed by their instruction)."""
    oracle = CommandOracle([])
    observer = RuleObserver()
    for episode_id in ids:
        episode = dataset.load(episode_id)
        frames = []
        for index, step in enumerate(episode.steps):
            state = observer.observe(step.observation, None)
            later = episode.steps[index + 1 :]
            next_app = later[0].observation.app if later else state.app
            frames.append(Frame(render_elements(state, COORDS), state, step.action, next_app))
        oracle.rollouts[episode.instruction] = frames
    return oracle
