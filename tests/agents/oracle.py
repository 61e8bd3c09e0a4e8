"""A loopback model that answers every role correctly, computed from the request alone.

It knows each task's expert rollout on SimPhone (screens rendered as the prompts render them,
and the expert's action on each). A request names its role (``Role: decider.``), the task and
the screen's element list; the oracle finds the screen in the rollout (the occurrence nearest
the step count the prompt states) and answers as that role should. ``overrides`` queue raw
replies per role, served first, to script garbled or wrong answers.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from guigraph.agents.grounding import role_fits, text_score
from guigraph.agents.mga import render_screen
from guigraph.agents.observer import RuleObserver
from guigraph.agents.prompting import render_elements
from guigraph.agents.roles import SemanticState
from guigraph.compiler.script import is_dismissal
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.expert import Expert
from guigraph.envs.simphone.tasks import make_task, plan_for
from guigraph.llm.coords import ModelCoords
from guigraph.testing import Reply
from guigraph.types import Action, ActionType, Task

COORDS = ModelCoords.from_name("qwen3-vl")
_ROLE = re.compile(r"^Role: ([a-z -]+)\.", re.MULTILINE)
_TASK = re.compile(r"^Task: (.*)$", re.MULTILINE)
_HISTORY = re.compile(r"^(?:Verified history|History) \((\d+) steps", re.MULTILINE)
_PROPOSED = re.compile(r"^Proposed action: (\{.*\})$", re.MULTILINE)
_ELEMENT = re.compile(r"^\[\d+\] .*$", re.MULTILINE)


@dataclass(frozen=True)
class Frame:
    screen: str
    state: SemanticState
    action: Action
    next_app: str | None

    @property
    def semantic_screen(self) -> str:
        """The screen as MGA's planner and memory are shown it (no coordinates)."""
        return render_screen(self.state)


def rollout(task: Task, seed: int) -> list[Frame]:
    env = SimPhone()
    observation = env.reset(task, seed)
    expert = Expert(env, plan_for(task, env.world), seed)
    frames: list[Frame] = []
    observer = RuleObserver()
    while True:
        state = observer.observe(observation, None)
        action = expert.next_action()
        result = env.step(action)
        next_app = result.observation.app
        frames.append(Frame(render_elements(state, COORDS), state, action, next_app))
        observation = result.observation
        if result.done:
            assert env.task_succeeded(), f"the expert failed {task.task_id}"
            return frames


def answer_for(action: Action, state: SemanticState) -> dict[str, Any]:
    screen = state.observation.screen
    data: dict[str, Any] = {"action": action.type.value}
    if action.point is not None:
        data["coordinate"] = [round(v) for v in COORDS.from_point(action.point, screen)]
    if action.type is ActionType.SCROLL and action.end is not None:
        data["coordinate2"] = [round(v) for v in COORDS.from_point(action.end, screen)]
    if action.type is ActionType.SCROLL and action.point is None:
        data["direction"] = str(action.direction)
    if action.text is not None:
        data["text"] = action.text
    if action.app is not None:
        data["app_name"] = action.app
    if action.seconds is not None:
        data["seconds"] = action.seconds
    return data


def semantic_answer(action: Action, state: SemanticState) -> dict[str, Any]:
    """The expert's action as MGA's planner says it: a described target, or a value."""
    verbs = {
        ActionType.PRESS_BACK: "back", ActionType.PRESS_HOME: "home",
        ActionType.PRESS_RECENT: "recent",
        ActionType.COMPLETE: "done", ActionType.IMPOSSIBLE: "fail",
    }  # fmt: skip
    data: dict[str, Any] = {"action": verbs.get(action.type, action.type.value)}
    if action.point is not None and action.type is not ActionType.SCROLL:
        view = state.element_at(action.point)
        if view is None:  # a tap on no element: the nearest words a person would name
            return {"action": data["action"], "target": {"text": "(nothing there)"}}
        alike = [
            v for v in state.elements
            if role_fits(v, view.role) and text_score(v, view.label) == 100.0
        ]  # fmt: skip
        target: dict[str, Any] = {"text": view.label, "role": view.role}
        if len(alike) > 1:
            target["ordinal"] = alike.index(view) + 1
        data["target"] = target
    if action.type is ActionType.SCROLL:
        data["direction"] = str(action.direction)
    if action.text is not None:
        data["text"] = action.text
    if action.app is not None:
        data["app"] = action.app
    if action.seconds is not None:
        data["seconds"] = action.seconds
    if action.keys is not None:
        data["keys"] = "+".join(action.keys)
    return data


class Oracle:
    def __init__(self, tasks: list[tuple[str, int]], worded: Sequence[tuple[Task, int]] = ()):
        """``tasks``: template instances; ``worded``: tasks as given (a template's task in
        other words), each with its world's seed."""
        self.rollouts: dict[str, list[Frame]] = {}
        for template_id, seed in tasks:
            task = make_task(template_id, seed)
            self.rollouts[task.instruction] = rollout(task, seed)
        for task, seed in worded:
            self.rollouts[task.instruction] = rollout(task, seed)
        self.overrides: dict[str, list[str]] = defaultdict(list)
        self.calls: Counter[str] = Counter()

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = _prompt_text(body)
        role_match = _ROLE.search(text)
        role = role_match.group(1) if role_match else "unknown"
        self.calls[role] += 1
        if self.overrides[role]:
            return Reply.of(self.overrides[role].pop(0))
        handler = getattr(self, "_" + role.replace(" ", "_").replace("-", "_"), None)
        return Reply.of(handler(text) if handler else "I do not know this role.")

    # -- lookups ----------------------------------------------------------------------------
    def _frames(self, text: str) -> list[Frame]:
        task = _TASK.search(text)
        return self.rollouts.get(task.group(1).strip(), []) if task else []

    def _matches(self, text: str, screen: str) -> list[int]:
        return [i for i, f in enumerate(self._frames(text)) if f.screen == screen]

    def _best(self, text: str, screen: str) -> Frame | None:
        matches = self._matches(text, screen)
        history = _HISTORY.search(text)
        done = int(history.group(1)) if history else 0
        if not matches:
            return None
        return self._frames(text)[min(matches, key=lambda i: (abs(i - done), i))]

    # -- roles ------------------------------------------------------------------------------
    def _global_planner(self, text: str) -> str:
        apps: list[str] = []
        for frame in self._frames(text):
            app = frame.state.app
            if app and app != "Home" and (not apps or apps[-1] != app):
                apps.append(app)
        subgoals = [{"description": f"do the task's part in {a}", "app": a} for a in apps]
        return json.dumps({"subgoals": subgoals, "rationale": "apps in order"})

    def _progress_tracker(self, text: str) -> str:
        frame = self._best(text, _screen(text))
        if frame is None:
            return json.dumps({"complete": False, "subgoal": "get back on track", "app": None})
        app = frame.next_app if frame.next_app != "Home" else None
        return json.dumps(
            {
                "complete": frame.action.type is ActionType.COMPLETE,
                "subgoal": f"next: {frame.action.type.value}",
                "app": app,
            }
        )

    def _decider(self, text: str) -> str:
        screen = _screen(text)
        frame = self._best(text, screen)
        if frame is not None:
            action = answer_for(frame.action, frame.state)
        elif "Loading" in screen:
            action = {"action": "wait", "seconds": 1}
        else:
            action = _dismiss(screen) or {"action": "press_back"}
        if _banned(text, action, frame):
            # As a model reading its feedback would: try something else.
            action = {"action": "press_back"}
            if _banned(text, action, frame):
                action = {"action": "press_home"}
        return json.dumps({"thought": "the expert would do this", "action": action})

    def _verifier(self, text: str) -> str:
        proposed = json.loads(_PROPOSED.search(text).group(1))  # type: ignore[union-attr]
        frames = [self._frames(text)[i] for i in self._matches(text, _screen(text))]
        if not frames or any(_same(proposed, f) for f in frames):
            return json.dumps({"approved": True})
        expected = frames[0].action.type.value
        return json.dumps({"approved": False, "feedback": f"wrong: the step needs a {expected}"})

    def _outcome_checker(self, text: str) -> str:
        after = _screen(text.split("Screen after", 1)[1])
        known = any(f.screen == after for f in self._frames(text))
        if known or "Loading" in after or _dismiss(after):
            return json.dumps({"status": "success", "note": "on the expected path"})
        return json.dumps(
            {
                "status": "failure",
                "note": "this page is off the path",
                "recovery": {"action": "back"},
            }
        )

    # -- MGA's roles ------------------------------------------------------------------------
    def _semantic_planner(self, text: str) -> str:
        screen = _screen(text)
        frames = self._frames(text)
        matches = [i for i, f in enumerate(frames) if f.semantic_screen == screen]
        history = _HISTORY.search(text)
        done = int(history.group(1)) if history else 0
        if matches:
            frame = frames[min(matches, key=lambda i: (abs(i - done), i))]
            action = semantic_answer(frame.action, frame.state)
        elif "Loading" in screen:
            action = {"action": "wait", "seconds": 1}
        else:
            action = _semantic_dismiss(screen) or {"action": "back"}
        return json.dumps({"thought": "the expert would do this", "action": action})

    def _memory(self, text: str) -> str:
        after = _screen(text.split("Screen after", 1)[1])
        known = any(f.semantic_screen == after for f in self._frames(text))
        if known or "Loading" in after or _semantic_dismiss(after):
            return json.dumps({"verdict": "success", "change": "on the expected path"})
        return json.dumps({"verdict": "failure", "change": "this page is off the path"})

    def _narrator(self, text: str) -> str:
        return "The step was carried out as planned."

    def _observer(self, text: str) -> str:
        return "A phone screen with a few buttons."


def _prompt_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content", "")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(p.get("text", "") for p in content if p.get("type") == "text")
    return "\n".join(parts)


def _screen(text: str) -> str:
    return "\n".join(
        _ELEMENT.findall(text.split("Proposed action:", 1)[0].split("Screen after")[0])
    )


def _dismiss(screen: str) -> dict[str, Any] | None:
    for line in screen.splitlines():
        match = re.match(r"^\[\d+\] button '(.*)' at \((\d+), (\d+)\)", line)
        if match and is_dismissal(match.group(1)):
            return {"action": "click", "coordinate": [int(match.group(2)), int(match.group(3))]}
    return None


def _semantic_dismiss(screen: str) -> dict[str, Any] | None:
    for line in screen.splitlines():
        match = re.match(r"^\[\d+\] button '(.*)'", line)
        if match and is_dismissal(match.group(1)):
            return {"action": "click", "target": {"text": match.group(1), "role": "button"}}
    return None


def _banned(text: str, answer: dict[str, Any], frame: Frame | None) -> bool:
    """Whether the prompt's feedback forbids ``answer`` (compared as the loop compares)."""
    line = next((ln for ln in text.splitlines() if ln.startswith("- do not propose again: ")), "")
    if not line:
        return False
    from guigraph.llm.actions import parse_action

    screen = frame.state.observation.screen if frame else None
    if screen is None:
        return answer["action"] in line
    action = parse_action(json.dumps(answer), COORDS, screen)
    return json.dumps(action.to_dict()) in line


def _same(proposed: dict[str, Any], frame: Frame) -> bool:
    expected = frame.action
    if proposed.get("type") != expected.type.value:
        return False
    if expected.point is not None and "point" in proposed:
        x, y = proposed["point"]
        point = COORDS.to_point(x, y, frame.state.observation.screen)
        return frame.state.element_at(point) == frame.state.element_at(expected.point)
    if expected.type is ActionType.TYPE:
        return bool(proposed.get("text") == expected.text)
    if expected.type is ActionType.SCROLL:
        return bool(proposed.get("direction") == str(expected.direction))
    return True
