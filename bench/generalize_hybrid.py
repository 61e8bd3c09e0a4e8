"""Benchmark: the hybrid team on the generalization benchmark's development half, with a model
that knows what each task means (the loopback oracle), with and without the graph following
another recorded way through the apps the model names.

    .venv/bin/python bench/generalize_hybrid.py runs/demo    # a folder `eval generalize` ran in
    .venv/bin/python bench/generalize_hybrid.py runs/demo --only shop.buy social.share_photo
    .venv/bin/python bench/generalize_hybrid.py /tmp/small --episodes 150 --seed 13   # made so

The oracle (tests/agents/oracle.py) answers every role from the expert's rollout of the task
(its screens rendered as the prompts render them), so the rows measure what the graph carries
once the meaning is known, not a model: SR, model calls per episode (the server's count), and
the episodes the graph planned (its plan agreed with the model's apps). ``--no-follow`` runs
the team as it was before ``GraphPolicy.follow_apps``: the graph's plan is dropped when its
best guess goes to other apps. ``--verify adaptive`` (the default here) asks the model
verifier only for the model's own steps. Reads the development half only; graph memory only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' oracle

from tests.agents.oracle import Oracle

import benchrun
from guigraph.agents.hybrid import HybridPlanner
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.model_team import ModelTeamOptions, model_team
from guigraph.choices import Memory, Policy, Verify
from guigraph.compiler.index import GraphView
from guigraph.compiler.policy import GraphPolicy
from guigraph.envs import make
from guigraph.envs.simphone.generalize import Half, item_task, packaged
from guigraph.eval.demo import DemoConfig, SilentReporter, prepare_kb
from guigraph.eval.generalize import GeneralizeConfig, plan
from guigraph.graph.kb import KnowledgeBase
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.testing import FakeModelServer
from guigraph.types import Task


def run(folder: Path, tasks: list[tuple[str, Task, int]], server: FakeModelServer,
        follow: bool, verify: Verify,
        oracle_for: Callable[[Task, int], None]) -> dict[str, Any]:  # fmt: skip
    """Every task once with the hybrid team; per kind: successes, episodes, calls, planned."""
    original, planning = GraphPolicy.follow_apps, HybridPlanner.plan
    planned: list[bool] = []

    def plan_and_note(self: HybridPlanner, task: Task, context: object) -> Any:
        chosen = planning(self, task, context)
        planned.append(self.on_graph)  # the graph's plan agreed with the model's apps
        return chosen

    HybridPlanner.plan = plan_and_note  # type: ignore[method-assign]
    if not follow:
        GraphPolicy.follow_apps = lambda self, apps: None  # type: ignore[method-assign]
    totals: dict[str, Counter[str]] = {}
    failed: list[str] = []
    started = time.perf_counter()
    try:
        with ExitStack() as resources:
            kb = resources.enter_context(KnowledgeBase.open(folder / "kb"))
            view = GraphView.load(kb)
            oracle = ModelConfig(model="oracle", base_url=server.base_url).resolved()
            hub = resources.enter_context(ModelHub(RoleModels(default=oracle)))
            options = ModelTeamOptions(policy=Policy.HYBRID, verify=verify, memory=Memory.GRAPH)
            for kind, task, seed in tasks:
                oracle_for(task, seed)
                before = server.request_count
                team = model_team(kb, view, hub, options)
                env = make("simphone")
                try:
                    run_episode(env, team, task, seed=seed, budget=Budget(max_steps=40))
                    verdict = env.evaluate()
                finally:
                    env.close()
                count = totals.setdefault(kind, Counter())
                count["episodes"] += 1
                count["successes"] += int(verdict is not None and verdict.success)
                count["calls"] += server.request_count - before
                count["planned"] += int(bool(planned) and planned[-1])
                planned.clear()
                if not (verdict is not None and verdict.success):
                    failed.append(f"{kind}: {task.instruction} (world {seed})")
    finally:
        GraphPolicy.follow_apps = original  # type: ignore[method-assign]
        HybridPlanner.plan = planning  # type: ignore[method-assign]
    return {"kinds": totals, "failed": failed, "seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a folder `guigraph eval generalize` ran in")
    parser.add_argument("--only", nargs="*", default=[], help="kinds, template or item ids")
    parser.add_argument("--no-follow", action="store_true", help="only the run without it")
    parser.add_argument("--verify", default="adaptive", choices=[str(v) for v in Verify])
    parser.add_argument("--failures", action="store_true", help="print each failed case")
    parser.add_argument("--episodes", type=int, default=300, help="the folder's logs (as made)")
    parser.add_argument("--seed", type=int, default=11, help="the folder's logs' seed")
    args = parser.parse_args()
    bench = benchrun.start("generalize-hybrid")
    rows: list[list[object]] = []
    demo = DemoConfig(episodes=args.episodes, seed=args.seed)
    config = GeneralizeConfig(demo, Half.DEV, memories=("graph",))
    used_seeds, _ = prepare_kb(args.run_dir, config.demo, SilentReporter())
    cases, items = plan(packaged().half(Half.DEV), Half.DEV, config, used_seeds)
    tasks = []
    for case in cases:
        item = items[case.item_id]
        wanted = {str(case.kind), item.template_id, item.item_id}
        if not args.only or wanted & set(args.only):
            tasks.append((str(case.kind), item_task(item, case.seed), case.seed))
    print(f"{len(tasks)} development cases", flush=True)
    print("| graph follows the model's apps | kind | SR | model calls / episode | planned "
          "by the graph | wall |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- |")
    # One oracle per episode: two worlds may give a wording the same words ("When is Dentist?
    # ...") and different answers (the event's time), and an oracle knows a task by its words.
    current = Oracle([])

    def oracle_for(task: Task, seed: int) -> None:
        nonlocal current
        current = Oracle([], worded=[(task, seed)])

    with FakeModelServer(lambda body: current(body), models=("oracle",)) as server:
        for follow in (False,) if args.no_follow else (False, True):
            result = run(args.run_dir, tasks, server, follow, Verify(args.verify), oracle_for)
            for kind, count in sorted(result["kinds"].items()):
                n = count["episodes"]
                rows.append([
                    "yes" if follow else "no", kind,
                    f"{count['successes'] / n:.3f} ({count['successes']}/{n})",
                    round(count["calls"] / n, 1), f"{count['planned']}/{n}",
                    round(result["seconds"]),
                ])  # fmt: skip
                if follow:
                    bench.figure(f"{kind}.sr", round(count["successes"] / n, 3))
                    bench.figure(f"{kind}.calls_per_episode", round(count["calls"] / n, 1))
                print(
                    f"| {'yes' if follow else 'no'} | {kind} | {count['successes'] / n:.3f} "
                    f"({count['successes']}/{n}) | {count['calls'] / n:.1f} | "
                    f"{count['planned']}/{n} | {result['seconds']:.0f} s |",
                    flush=True,
                )
            for line in result["failed"] if args.failures else []:
                print(f"  failed: {line}")
    bench.table(
        f"Hybrid team, verify {args.verify}, development half ({len(tasks)} cases), the "
        "loopback oracle knowing each task's meaning",
        ["graph follows the model's apps", "kind", "SR", "model calls / episode",
         "planned by the graph", "wall (s)"],
        rows,
    )  # fmt: skip
    bench.save()


if __name__ == "__main__":
    main()
