"""A loopback slot filler that knows each task's meaning (its parameters).

The model filler (``compiler.fillers.ModelFiller``) asks once per task for the value of every
slot of the recorded runs the task may follow. This oracle answers as a model that understood
the task would: for each slot, the task's parameter whose value the task says and whose form
(shape and word count) is the recorded value's; null where the task has none. Served by
``guigraph.testing.FakeModelServer`` it is the real OpenAI-compatible protocol, so the
filler's whole path (schema, reply, the slot types' checks) runs as against a real model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from guigraph.graph.slot_types import shape_of, word_count
from guigraph.testing import Reply
from guigraph.types import Task


class SlotOracle:
    """A model that knows each task's meaning (its parameters): for each slot it is asked
    about, the parameter the task says whose form is the recorded value's."""

    def __init__(self, tasks: Iterable[Task]):
        self.tasks = list(tasks)

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = str(body["messages"][-1]["content"])
        said = re.search(r'New task: "(.*)"', prompt)
        assert said is not None
        text = said.group(1).lower()
        # The task asked about: its own instruction, else (written as the screens write it:
        # numbers in digits) the one sharing most words with it.
        task = next((t for t in self.tasks if t.instruction.lower() == text), None) or max(
            self.tasks, key=lambda t: len(set(t.instruction.lower().split()) & set(text.split()))
        )
        answer: dict[str, str | None] = {}
        for name, recorded in re.findall(r'(slot\d+): in ".*?" the value was "(.*?)"', prompt):
            answer[name] = next(
                (
                    value for value in map(str, task.params.values())
                    if value.lower() in text and shape_of(value) == shape_of(recorded)
                    and word_count(value) == word_count(recorded)
                ),
                None,
            )  # fmt: skip
        return Reply.of(json.dumps(answer))
