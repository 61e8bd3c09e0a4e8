"""``--executor ray``: the evaluation's workers as Ray actors (extra ``ray``).

Without an address, Ray starts locally (2 CPUs, no dashboard, usage statistics off, listening
on 127.0.0.1 only) and is shut down at the end; with ``--ray-address`` it joins that cluster
and leaves it running. The KB and the data must be readable at the same paths on every node
(a shared file system), and model workers read the API key from their own environment.

Model policies get a few threaded actors (episodes wait on the server): ``concurrency``
episodes in flight split between them, each actor's clients limited to its share, so the
server still sees at most ``concurrency`` requests. The model-free graph policy gets one
single-threaded actor per CPU. Only the driver writes the run folder: an episode's lines
come back with it, steps first.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

from guigraph.choices import Policy
from guigraph.errors import ConfigError, GuigraphError, require
from guigraph.eval.runfolder import RunFolder
from guigraph.eval.worker import EvalSpec, Job, Row, Worker

#: Environment of a local Ray: no usage statistics sent, nothing listening beyond loopback.
RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
LOCAL_CPUS = 2


class RayWorker:
    """A Worker inside an actor; ``run`` returns the episode's step lines and its line."""

    def __init__(self, spec: EvalSpec, concurrency: int) -> None:
        self.worker = Worker(spec, concurrency)

    def run(self, job: Job) -> tuple[list[Row], Row] | str:
        steps: list[Row] = []
        try:
            row = self.worker.run(job, steps.append)
        except GuigraphError as exc:
            return f"{type(exc).__name__}: {exc}"
        return steps, row

    def close(self) -> None:
        self.worker.close()


def _init(ray: Any, address: str | None) -> bool:
    """Start or join Ray; True when this call started it (and must shut it down)."""
    if ray.is_initialized():
        return False
    for key, value in RAY_ENV.items():
        os.environ.setdefault(key, value)
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address:
            ray.init(address=address, **quiet)
        else:
            ray.init(num_cpus=LOCAL_CPUS, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(f"cannot start or reach Ray ({address or 'local'}): {exc}") from exc
    return True


def _shares(concurrency: int, actors: int) -> list[int]:
    return [concurrency // actors + (i < concurrency % actors) for i in range(actors)]


def run_on_ray(
    spec: EvalSpec,
    jobs: Sequence[Job],
    folder: RunFolder,
    concurrency: int,
    address: str | None,
    on_episode: Any,
) -> None:
    ray = require("ray", "ray")
    started = _init(ray, address)
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        if spec.policy is Policy.GRAPH:
            shares = [1] * max(1, min(concurrency, cpus, len(jobs)))
            actor_class = ray.remote(num_cpus=1)(RayWorker)
        else:
            shares = _shares(concurrency, max(1, min(concurrency, cpus, len(jobs))))
            actor_class = ray.remote(num_cpus=0)(RayWorker)
        actors = [
            actor_class.options(max_concurrency=share).remote(spec, share) for share in shares
        ]
        _dispatch(ray, actors, shares, list(jobs), folder, on_episode)
        ray.get([actor.close.remote() for actor in actors])
        for actor in actors:
            ray.kill(actor)
    finally:
        if started:
            ray.shutdown()


def _dispatch(
    ray: Any,
    actors: list[Any],
    shares: list[int],
    jobs: list[Job],
    folder: RunFolder,
    on_episode: Any,
) -> None:
    """Keep each actor at its share of episodes in flight; write results as they return."""
    pending: dict[Any, int] = {}  # object ref -> actor index
    free = list(shares)
    queue = list(reversed(jobs))
    while queue or pending:
        for index, actor in enumerate(actors):
            while free[index] > 0 and queue:
                pending[actor.run.remote(queue.pop())] = index
                free[index] -= 1
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            free[pending.pop(ref)] += 1
            try:
                result = ray.get(ref)
            except ray.exceptions.RayError as exc:  # a crashed actor or a bug inside it
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc)
                raise GuigraphError(f"a Ray worker failed: {first}") from None
            if isinstance(result, str):
                raise GuigraphError(result)
            steps, row = result
            folder.append_steps(steps)
            folder.append_episode(row)
            on_episode(row)
