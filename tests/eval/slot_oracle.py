"""A loopback slot filler that knows each task's meaning (its parameters).

The model filler (``compiler.fillers.ModelFiller``) asks once per task for the value of every
slot of the recorded runs the task may follow. This oracle answers as a model that understood
both tasks would: a slot whose recorded value was a parameter of the recorded task (the city
of "What is the weather like in Tokyo?") takes the new task's parameter of the same meaning
(its city), where the new task says it; every other slot (a value read off a screen, a part of
a title typed into a search, a meaning the new task does not have) is null, the rules' to
fill. It knows the recorded tasks from the logs' manifest (``recorded_tasks``). Served by
``guigraph.testing.FakeModelServer`` it is the real OpenAI-compatible protocol, so the
filler's whole path (schema, reply, the slot types' checks) runs as against a real model.

A model that answered by form alone (any name of the task for any name slot) would give the
product of "Email Dana the price of the Zephyr kettle" to an email's subject and a search's
topic too: a wrong model, whose values the slot types cannot tell from right ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from guigraph.testing import Reply
from guigraph.types import Task

_SLOT = re.compile(r'^(slot\d+): in "(.*)" the value was "(.*?)"(?: \(.*\))?$', re.MULTILINE)


def meaning(task: Task, name: str) -> str:
    """What a SimPhone task's parameter is, where templates name alike what differs (a note's,
    an event's and an article's title; a message's, a post's and a reminder's text) or
    differently what is alike (a chat's sender is a contact)."""
    if name == "sender":
        return "contact"
    if name == "title":
        if "Notes" in task.apps:
            return "note"
        return "event" if "Calendar" in task.apps else "article"
    if name == "text":
        return f"text in {task.apps[0] if task.apps else ''}"
    return name


def recorded_tasks(logs: Path) -> list[Task]:
    """The tasks of a SimPhone recording (its ``simphone.json``)."""
    data = json.loads((Path(logs) / "simphone.json").read_text())
    return [Task.from_dict(episode["task"]) for episode in data["episodes"]]


class SlotOracle:
    """A model that knows each task's meaning: for each slot it is asked about, the new task's
    parameter meaning what the recorded value meant in its task, or null."""

    def __init__(self, tasks: Iterable[Task], recorded: Iterable[Task]):
        self.tasks = list(tasks)
        self.recorded: dict[str, Task] = {t.instruction.lower(): t for t in recorded}

    def task_of(self, text: str) -> Task:
        """The task asked about: its own instruction, else (written as the screens write it:
        numbers in digits) the one sharing most words with it."""
        return next((t for t in self.tasks if t.instruction.lower() == text), None) or max(
            self.tasks, key=lambda t: len(set(t.instruction.lower().split()) & set(text.split()))
        )

    def value(self, task: Task, text: str, recorded_instruction: str, recorded: str) -> str | None:
        donor = self.recorded.get(recorded_instruction.lower())
        if donor is None:
            return None
        value = recorded.lower()
        meant = {meaning(donor, k) for k, v in donor.params.items() if v.lower() == value}
        return next(
            (v for k, v in task.params.items() if meaning(task, k) in meant and v.lower() in text),
            None,
        )

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = str(body["messages"][-1]["content"])
        said = re.search(r'New task: "(.*)"', prompt)
        assert said is not None
        text = said.group(1).lower()
        task = self.task_of(text)
        answer = {
            name: self.value(task, text, instruction, recorded)
            for name, instruction, recorded in _SLOT.findall(prompt)
        }
        return Reply.of(json.dumps(answer))
