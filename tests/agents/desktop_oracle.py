"""A loopback model that answers on the desktop suite from the scripted person's moves
(``envs.desktop.experts.MOVES``), for MGA's team and for guigraph's model team alike.

MGA: the planner's next semantic action is the move after the ones the verified history says
succeeded; the memory says an executed move succeeded (uncertain when nothing visible
changed). guigraph's team: the decider's next action is the move after the steps its history
counts, a click at the centre of the element the move names, read off the prompt's element
list; the progress tracker says complete after the last move; verifier, outcome check and
narrator agree.

The moves are already what a person means ("click the push button 'Replace All'", "press
ctrl+s"), so the oracle only renames the accessibility roles as the team's screen shows them.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from typing import Any

from guigraph.envs.desktop.experts import MOVES, Move
from guigraph.testing import Reply
from guigraph.types import Task

_ROLE = re.compile(r"^Role: ([a-z -]+)\.", re.MULTILINE)
_TASK = re.compile(r"^Task: (.*)$", re.MULTILINE)
_DONE = re.compile(r"^\d+\. .* -> (?:success|uncertain):", re.MULTILINE)
_HISTORY = re.compile(r"^History \((\d+) steps\)", re.MULTILINE)
_ELEMENT = re.compile(r"^\[\d+\] (\w+) '(.*)' at \((\d+), (\d+)\)", re.MULTILINE)
#: Accessibility roles as the team's observer names them.
_ROLES = {"push button": "button", "check box": "toggle", "text": "field"}


def semantic_move(move: Move) -> dict[str, Any]:
    if move.kind == "type":
        return {"action": "type", "text": move.value}
    if move.kind == "key":
        return {"action": "key", "keys": move.value}
    target: dict[str, Any] = {"text": move.value, "role": _ROLES.get(move.role, move.role)}
    if move.index:
        target["ordinal"] = move.index + 1
    return {"action": "click", "target": target}


class DesktopOracle:
    def __init__(self) -> None:
        self.moves: dict[str, list[Move]] = {}
        self.overrides: dict[str, list[str]] = defaultdict(list)
        self.calls: Counter[str] = Counter()

    def add(self, task: Task) -> None:
        self.moves[task.instruction] = MOVES[task.template_id](task.params)

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = "\n".join(
            part if isinstance(part, str) else part.get("text", "")
            for message in body.get("messages", [])
            for part in (
                [message["content"]] if isinstance(message["content"], str) else message["content"]
            )
        )
        found = _ROLE.search(text)
        role = found.group(1) if found else "unknown"
        self.calls[role] += 1
        if self.overrides[role]:
            return Reply.of(self.overrides[role].pop(0))
        answer = self._answer(role, text)
        if answer is not None:
            return Reply.of(answer)
        if role == "semantic planner":
            return Reply.of(self._plan(text))
        if role == "memory":  # a chord like ctrl+c shows nothing: the screens cannot tell
            if "Evidence: the two screens are identical" in text:
                return Reply.of(json.dumps({"verdict": "uncertain", "change": "nothing visible"}))
            return Reply.of(json.dumps({"verdict": "success", "change": "as the move meant"}))
        return Reply.of("I do not know this role.")

    # -- guigraph's model team ---------------------------------------------------------------
    def _moves(self, text: str) -> list[Move]:
        task = _TASK.search(text)
        return self.moves.get(task.group(1).strip(), []) if task else []

    def _steps(self, text: str) -> int:
        found = _HISTORY.search(text)
        return int(found.group(1)) if found else 0

    def _progress(self, text: str) -> str:
        complete = self._steps(text) >= len(self._moves(text))
        return json.dumps({"complete": complete, "subgoal": "the next move", "app": None})

    def _decider(self, text: str) -> str:
        moves, done = self._moves(text), self._steps(text)
        if done >= len(moves):
            action: dict[str, Any] = {"action": "complete"}
        elif moves[done].kind == "click":
            action = _click_at(moves[done], text) or {"action": "wait", "seconds": 1}
        else:
            action = semantic_move(moves[done])
        return json.dumps({"thought": "the person's next move", "action": action})

    def _answer(self, role: str, text: str) -> str | None:
        fixed = {
            "global planner": json.dumps({"subgoals": [{"description": "do the person's moves"}]}),
            "verifier": json.dumps({"approved": True}),
            "outcome checker": json.dumps({"status": "success", "note": "ok"}),
            "narrator": "The person's move was made.",
            "observer": "A desktop application.",
        }
        if role == "progress tracker":
            return self._progress(text)
        if role == "decider":
            return self._decider(text)
        return fixed.get(role)

    def _plan(self, text: str) -> str:
        task = _TASK.search(text)
        moves = self.moves.get(task.group(1).strip(), []) if task else []
        history = text.split("Remembered values:", 1)[0]
        done = len(_DONE.findall(history))
        action = semantic_move(moves[done]) if done < len(moves) else {"action": "done"}
        return json.dumps({"thought": "the person's next move", "action": action})


def _click_at(move: Move, text: str) -> dict[str, Any] | None:
    """A click on the element the move names, at its centre as the decider's prompt lists it."""
    screen = text.split("Actions you can take", 1)[0]
    role = _ROLES.get(move.role, move.role)
    found = [  # a named widget by its name (the list may call a check box a button)
        (int(x), int(y))
        for kind, label, x, y in _ELEMENT.findall(screen)
        if ((label == move.value) if move.value else (kind == role))
    ]
    if len(found) <= move.index:
        return None
    return {"action": "click", "coordinate": list(found[move.index])}
