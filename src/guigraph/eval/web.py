"""``guigraph eval web``: MiniWoB++ as the field runs it, every task of a named set counted.

The cases are every task of the set (``--tasks``) on ``seeds`` new seeds each, seed-major (all
tasks on the first seed, then on the next), so that a run cut short still covers every task.
Seeds start at ``EVAL_SEED_BASE``, far from the demonstrations' (``world_demo``: 0 up).

The headline is the mean over the tasks of the named set of each task's success rate: a task
the team cannot do counts 0 and is never dropped from the mean, and so is a task the run has
not reached (a ``--limit`` run). Beside it, the same mean over each published set
(``browsergym``: 125 tasks, ``synapse``: 63), with the tasks this run did not evaluate at 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guigraph.envs.web import tasksets
from guigraph.eval.worker import WebJob
from guigraph.eval.world_demo import EVAL_SEED_BASE

Row = dict[str, Any]


def plan_jobs(tasks: Sequence[str], seeds: int) -> list[WebJob]:
    """Every (task, seed) case, seed-major."""
    return [WebJob(task, EVAL_SEED_BASE + n) for n in range(seeds) for task in tasks]


def per_task(episodes: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """SR (0..1), episodes, successes and mean reward of each task that ran."""
    grouped: dict[str, list[Row]] = {}
    for row in episodes:
        grouped.setdefault(str(row.get("task") or row.get("category") or ""), []).append(row)
    table: dict[str, dict[str, Any]] = {}
    for task, rows in sorted(grouped.items()):
        wins = sum(bool(r.get("success")) for r in rows)
        rewards = [float(r["reward"]) for r in rows if isinstance(r.get("reward"), int | float)]
        table[task] = {
            "sr": round(wins / len(rows), 4),
            "episodes": len(rows),
            "successes": wins,
            "mean_reward": round(sum(rewards) / len(rewards), 4) if rewards else None,
        }
    return table


def means(rates: dict[str, float], chosen: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The mean SR over the chosen tasks and over each published set, every task counted."""
    out = {"chosen": _mean(rates, tuple(chosen))}
    for name in tasksets.PUBLISHED:
        out[name] = _mean(rates, tasksets.named(name))
    return out


def _mean(rates: dict[str, float], tasks: tuple[str, ...]) -> dict[str, Any]:
    return {
        "mean_sr": round(tasksets.mean_over(rates, tasks), 4),
        "tasks": len(tasks),
        "evaluated": sum(task in rates for task in tasks),
    }


def summary(episodes: Sequence[Row], config: dict[str, Any]) -> dict[str, Any]:
    """The web part of summary.json: per task, the headline and the published sets' means."""
    table = per_task(episodes)
    chosen = [str(t) for t in config.get("tasks") or table]
    rates = {task: row["sr"] for task, row in table.items()}
    means_ = means(rates, chosen)
    return {
        "task_set": config.get("task_set", "list"),
        "mean_sr": means_["chosen"]["mean_sr"],
        "means": means_,
        "per_task": {task: table.get(task, _NOT_RUN) for task in chosen},
    }


_NOT_RUN: dict[str, Any] = {"sr": 0.0, "episodes": 0, "successes": 0, "mean_reward": None}
