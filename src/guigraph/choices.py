"""The named options of a run, one ``StrEnum`` each, for the command line and the code alike.

Typer turns each into the choices of its option (``--policy``, ``--memory``, ``--verify``,
``--history``), and the teams, the factory and the evaluation specs take the same members, so
a new choice is added in one place. Members are strings: they compare equal to, and are
written to JSON manifests as, their values.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TypeVar

from guigraph.errors import ConfigError


class Policy(StrEnum):
    """Who acts: the model-free graph policy, the model team, or the graph with a model."""

    GRAPH = "graph"
    MODEL = "model"
    HYBRID = "hybrid"


class TeamDesign(StrEnum):
    """How a model team is built: guigraph's roles (planners, decider with coordinates,
    verifier, narrator, outcome check) or MGA's (a semantic planner, a grounding step that
    places its targets, a memory that verifies each action)."""

    GUIGRAPH = "guigraph"
    MGA = "mga"


class Memory(StrEnum):
    """What the team remembers of the recorded runs: the workflow graph, or the traces as
    linear scripts (the paper's baseline)."""

    GRAPH = "graph"
    TRACE = "trace"


class EvalMemory(StrEnum):
    """What an evaluation gives the team: a :class:`Memory`, or ``none`` — no knowledge base
    at all, the baseline that shows what the recorded runs are worth."""

    GRAPH = "graph"
    TRACE = "trace"
    NONE = "none"


class Verify(StrEnum):
    """When the verifier checks a proposed action (``adaptive``: model policies only)."""

    ALWAYS = "always"
    ADAPTIVE = "adaptive"
    NEVER = "never"


class History(StrEnum):
    """How the steps so far reach the roles: a narrative, or the bare actions."""

    NARRATIVE = "narrative"
    ATOMIC = "atomic"


class SlotFilling(StrEnum):
    """Who fills a recorded run's slots for a new task: the typed rules, or a model (one
    structured call per task, its values checked by the slots' types, the rules where they
    are refused)."""

    RULE = "rule"
    MODEL = "model"


Choice = TypeVar("Choice", bound=StrEnum)


def choose(kind: type[Choice], value: str, option: str, allowed: Iterable[Choice] = ()) -> Choice:
    """``value`` as a member of ``kind`` (of ``allowed`` when given); otherwise ``ConfigError``
    naming the option and what it takes: ``--memory must be one of graph, trace, got 'tape'``."""
    members = tuple(allowed) or tuple(kind)
    for member in members:
        if member == value:
            return member
    names = ", ".join(m.value for m in members)
    raise ConfigError(f"--{option} must be one of {names}, got {str(value)!r}")
