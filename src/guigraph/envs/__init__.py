"""Worlds an agent can act in. Every one implements :class:`guigraph.envs.base.Env`."""

from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.envs.check import check_env
from guigraph.envs.conventions import Conventions
from guigraph.envs.registry import make, names, register

__all__ = [
    "Conventions", "Env", "Evaluation", "StepResult", "check_env", "make", "names", "register",
]  # fmt: skip
