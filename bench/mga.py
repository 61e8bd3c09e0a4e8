"""The MGA figure: `--team mga` against the loopback oracle on the SimPhone suite and the
desktop suite, beside guigraph's model team on the same oracle.

    nice -n 10 .venv/bin/python bench/mga.py                         # both suites, 1 seed each
    nice -n 10 .venv/bin/python bench/mga.py --suites simphone --seeds 2 --failures

Every SimPhone template (``envs.simphone.tasks.TEMPLATES``) and every desktop task
(``envs.desktop.tasks.TEMPLATES``: Mousepad and Galculator under Xvfb) runs on ``--seeds`` new
seeds with each model team, no knowledge base, the model being the loopback oracle: on
SimPhone it answers from the expert's rollout of the task (tests/agents/oracle.py), on the
desktop from the scripted person's moves (tests/agents/desktop_oracle.py). The oracle knows
what to do; the figure is what each team makes of it: MGA's planner names targets by their
words and role and its grounding step places them (its misses counted), guigraph's decider
gives coordinates. Success is each world's checker. Calls are model requests per step.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' oracles

from tests.agents.desktop_oracle import DesktopOracle
from tests.agents.oracle import Oracle

import benchrun
from guigraph.agents.grounding import GroundingCounts
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.model_team import ModelTeamOptions, model_team
from guigraph.choices import TeamDesign
from guigraph.envs.base import Env
from guigraph.eval.suite import EVAL_SEED_BASE
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.testing import FakeModelServer, Reply
from guigraph.types import Task

TEAMS = ("guigraph", "mga")
STEP_CAP = 40


@dataclass
class Tally:
    episodes: int = 0
    successes: int = 0
    steps: int = 0
    calls: int = 0
    grounding: GroundingCounts = field(default_factory=GroundingCounts)
    failed: list[str] = field(default_factory=list)


def run_team(
    team: str,
    env: Env,
    tasks: list[tuple[Task, int]],
    answer: Callable[[dict[str, Any]], Reply],
    learn: Callable[[Task, int], None],
) -> Tally:
    tally = Tally()
    with FakeModelServer(answer, models=("oracle",)) as server:
        config = ModelConfig(model="oracle", base_url=server.base_url, max_attempts=1)
        for task, seed in tasks:
            learn(task, seed)
            with ModelHub(RoleModels(default=config)) as hub:
                options = ModelTeamOptions(
                    team=TeamDesign(team),
                    use_graph=False,
                    action_space=env.action_space,
                )
                agents = model_team(None, None, hub, options, tally.grounding)
                result = run_episode(env, agents, task, seed, Budget(STEP_CAP))
                verdict = env.evaluate()
                calls = hub.ledger.total().calls
            success = bool(verdict and verdict.success)
            tally.episodes += 1
            tally.successes += success
            tally.steps += len(result.steps)
            tally.calls += calls
            if not success:
                why = verdict.detail if verdict else result.reason
                tally.failed.append(f"{team} {task.template_id} seed {seed}: {why}")
            print(f"  {team:8} {task.template_id:32} {'ok' if success else 'FAIL'} "
                  f"{len(result.steps)} steps {calls} calls", flush=True)  # fmt: skip
    return tally


@contextmanager
def simphone() -> Iterator[tuple[Env, Callable[[int], list[tuple[Task, int]]]]]:
    from guigraph.envs.simphone.env import SimPhone
    from guigraph.envs.simphone.tasks import TEMPLATES, make_task

    def tasks(seeds: int) -> list[tuple[Task, int]]:
        return [
            (make_task(template, EVAL_SEED_BASE + n), EVAL_SEED_BASE + n)
            for template in sorted(TEMPLATES)
            for n in range(seeds)
        ]

    yield SimPhone(), tasks


@contextmanager
def desktop() -> Iterator[tuple[Env, Callable[[int], list[tuple[Task, int]]]]]:
    from guigraph.envs.desktop import tasks as suite
    from guigraph.envs.desktop.env import DesktopEnv

    env = DesktopEnv()

    def tasks(seeds: int) -> list[tuple[Task, int]]:
        return [
            (env.make_task(template, EVAL_SEED_BASE + n), EVAL_SEED_BASE + n)
            for template in sorted(suite.TEMPLATES)
            for n in range(seeds)
        ]

    try:
        yield env, tasks
    finally:
        env.close()


def measure(suite: str, seeds: int) -> dict[str, Tally]:
    opened = simphone() if suite == "simphone" else desktop()
    tallies: dict[str, Tally] = {}
    with opened as (env, tasks_of):
        chosen = tasks_of(seeds)
        for team in TEAMS:
            if suite == "simphone":
                # One oracle per episode: it knows a task by its words.
                current = [Oracle([])]

                def learn(task: Task, seed: int, current: list[Oracle] = current) -> None:
                    current[0] = Oracle([], worded=[(task, seed)])

                def answer(body: dict[str, Any], current: list[Oracle] = current) -> Reply:
                    return current[0](body)

                tallies[team] = run_team(team, env, chosen, answer, learn)
            else:
                oracle = DesktopOracle()
                tallies[team] = run_team(team, env, chosen, oracle, _adding_to(oracle))
    return tallies


def _adding_to(oracle: DesktopOracle) -> Callable[[Task, int], None]:
    return lambda task, seed: oracle.add(task)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", nargs="+", default=["simphone", "desktop"],
                        choices=["simphone", "desktop"])  # fmt: skip
    parser.add_argument("--seeds", type=int, default=1, help="new seeds per task")
    parser.add_argument("--failures", action="store_true", help="print each failed episode")
    args = parser.parse_args()
    bench = benchrun.start("mga")
    rows: list[list[benchrun.Cell]] = []
    for suite in args.suites:
        started = time.perf_counter()
        tallies = measure(suite, args.seeds)
        wall = time.perf_counter() - started
        for team, tally in tallies.items():
            sr = tally.successes / tally.episodes if tally.episodes else 0.0
            placed = tally.grounding.tree + tally.grounding.model
            rows.append([
                suite, team, tally.episodes, f"{sr:.3f} ({tally.successes}/{tally.episodes})",
                round(tally.steps / max(1, tally.episodes), 1),
                round(tally.calls / max(1, tally.steps), 2),
                placed if team == "mga" else None,
                tally.grounding.missed if team == "mga" else None,
            ])  # fmt: skip
            bench.figure(f"{suite}.{team}.sr", round(sr, 3))
            bench.figure(
                f"{suite}.{team}.calls_per_step", round(tally.calls / max(1, tally.steps), 2)
            )
            if team == "mga":
                bench.figure(f"{suite}.mga.grounding_missed", tally.grounding.missed)
                bench.figure(f"{suite}.mga.grounding_placed", placed)
            for line in tally.failed if args.failures else []:
                print(f"  failed: {line}")
        bench.note(f"{suite}: {wall:.0f} s wall for both teams")
    bench.table(
        f"Model teams against the loopback oracle, {args.seeds} new seed(s) per task, no KB, "
        f"step cap {STEP_CAP}",
        ["suite", "team", "episodes", "SR", "steps / episode", "model calls / step",
         "targets placed (MGA)", "grounding misses (MGA)"],
        rows,
    )  # fmt: skip
    bench.save()
    for row in rows:
        print(" | ".join(str(c) for c in row))


if __name__ == "__main__":
    main()
