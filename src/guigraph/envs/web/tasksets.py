"""The MiniWoB++ task sets the field reports on, shipped with guigraph (``benchmarks.json``).

``browsergym``: the 125 tasks of BrowserGym's ``miniwob`` benchmark; ``synapse``: the 63 of
Synapse's 64 that could be identified; ``suite``: the tasks guigraph's web demo has always
run. A benchmark's figure is the mean over *every* task of its set: a task the team cannot do
counts 0 and stays in the mean. ``resolve`` turns what ``--tasks`` says (a set's name, or
task names separated by commas) into the set's label and its tasks.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from guigraph.errors import ConfigError

#: The published sets, by the name ``--tasks`` takes, and their key in ``benchmarks.json``.
PUBLISHED = {"browsergym": "browsergym_125", "synapse": "synapse_63"}
#: Every named set, in the order reports show their means.
NAMED = ("browsergym", "synapse", "suite")


@dataclass(frozen=True)
class TaskSet:
    """What ``--tasks`` chose: ``label`` is the set's name, or ``list`` for named tasks."""

    label: str
    tasks: tuple[str, ...]


@functools.cache
def _published() -> dict[str, Any]:
    text = resources.files("guigraph.envs.web").joinpath("benchmarks.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def about() -> str:
    """Where the published sets come from (the file's own note)."""
    return str(_published().get("about", ""))


def named(name: str) -> tuple[str, ...]:
    """The tasks of a named set (``browsergym``, ``synapse`` or ``suite``)."""
    if name == "suite":
        from guigraph.envs.web.experts import SUITE

        return tuple(SUITE)
    key = PUBLISHED.get(name)
    if key is None:
        raise ConfigError(f"unknown task set {name!r} (sets: {', '.join(NAMED)})")
    return tuple(str(task) for task in _published()[key])


def resolve(spec: str) -> TaskSet:
    """``browsergym``, ``synapse``, ``suite`` or ``NAME,NAME,...`` (task names of the
    ``miniwob`` package, with or without ``miniwob/``); an unknown name is a ConfigError
    that names it and the closest task."""
    text = spec.strip()
    if text in NAMED:
        return TaskSet(text, named(text))
    names = [part.strip().removeprefix("miniwob/") for part in text.split(",") if part.strip()]
    if not names:
        raise ConfigError(f"--tasks is empty: give {', '.join(NAMED)} or task names")
    from guigraph.envs.web.miniwob import task_url

    for name in names:
        task_url(name)  # ConfigError naming an unknown task (with the closest one)
    return TaskSet("list", tuple(dict.fromkeys(names)))


def mean_over(rates: dict[str, float], tasks: tuple[str, ...]) -> float:
    """The mean SR over every task of ``tasks``; a task without a rate counts 0."""
    return sum(rates.get(task, 0.0) for task in tasks) / len(tasks) if tasks else 0.0
