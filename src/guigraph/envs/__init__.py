"""Worlds an agent can act in. Every one implements :class:`guigraph.envs.base.Env`."""

from guigraph.envs.base import Env, StepResult
from guigraph.envs.check import check_env

__all__ = ["Env", "StepResult", "check_env"]
