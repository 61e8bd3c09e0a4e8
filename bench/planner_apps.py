"""Benchmark: which apps a real model's plan names, with and without the KB's apps in the
planner's schema, on the generalization benchmark's development half.

    .venv/bin/python bench/planner_apps.py runs/demo --base-url http://127.0.0.1:8011/v1 \
        --model smollm2 --text-only

The hybrid team follows the graph through the apps its model plans; a plan naming an app no
recorded run visited drops the graph. Under guided decoding (llama.cpp, vLLM) the planner's
schema bounds what the model can say, so ``schemas.planner(apps)`` lists the KB's apps. This
asks the hybrid team's model planner once per development item (its first world), through
the retrieval context the team builds, with the schema as the team sends it and with a free
``app`` string, and counts plans whose apps are the task's (in order), and plans that name an
app the KB never saw. Reads the development half only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import benchrun
from guigraph.agents import schemas
from guigraph.agents.hybrid import HybridPlanner
from guigraph.agents.model_team import ModelTeamOptions, model_team
from guigraph.choices import Policy, Verify
from guigraph.compiler.index import GraphView
from guigraph.envs.simphone.generalize import Half, item_task, packaged
from guigraph.graph.kb import KnowledgeBase
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.hub import ModelHub


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a demo folder (its kb/)")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--text-only", action="store_true")
    parser.add_argument("--limit", type=int, default=0, help="first N items only")
    args = parser.parse_args()
    bench = benchrun.start("planner-apps")
    rows: list[list[object]] = []
    items = list(packaged().half(Half.DEV))[: args.limit or None]
    config = ModelConfig(
        model=args.model, base_url=args.base_url, timeout_s=120, max_tokens=160,
        max_attempts=2, vision=not args.text_only,
    )  # fmt: skip
    options = ModelTeamOptions(
        policy=Policy.HYBRID, verify=Verify.NEVER, screenshots=not args.text_only
    )
    with KnowledgeBase.open(args.run_dir / "kb") as kb, ModelHub(RoleModels(default=config)) as hub:
        view = GraphView.load(kb)
        known = {app.lower() for app in view.app_counts}
        for bounded in (True, False):
            right = unknown = 0
            started = time.perf_counter()
            for item in items:
                task = item_task(item, 900030000)
                team = model_team(kb, view, hub, options)
                planner = team.planner
                assert isinstance(planner, HybridPlanner)
                if not bounded:
                    planner.model.schema = schemas.planner()
                plan = planner.model.plan(task, team.context(task))
                apps = plan.apps()
                right += apps == [app.lower() for app in task.apps]
                unknown += any(app not in known for app in apps)
            took = time.perf_counter() - started
            schema = "KB apps in the schema" if bounded else "free app string"
            rows.append([schema, f"{right}/{len(items)}", unknown, round(took)])
            bench.figure(f"{'bounded' if bounded else 'free'}.right", right)
            print(
                f"{'KB apps in the schema' if bounded else 'free app string':>22}: "
                f"{right}/{len(items)} plans with the task's apps, {unknown} naming an app "
                f"no run visited ({took:.0f} s)"
            )
    bench.table(
        f"Model {args.model}, {len(items)} development items, one plan each",
        ["planner schema", "plans with the task's apps", "plans naming an unvisited app",
         "wall (s)"],
        rows,
    )  # fmt: skip
    bench.save()


if __name__ == "__main__":
    main()
