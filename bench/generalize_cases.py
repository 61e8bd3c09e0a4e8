"""Re-run the generalization benchmark's development-half cases with the current code.

    .venv/bin/python bench/generalize_cases.py runs/demo                  # every graph case
    .venv/bin/python bench/generalize_cases.py runs/demo --only pairing tool.timer --failures

The tuning loop for binding and retrieval under paraphrase, as ``bench/demo_cases.py`` is for
the demo: each case of the folder's ``generalize-dev.jsonl`` is run again exactly as
``guigraph eval generalize`` runs it, on the folder's KB; a case whose success changed is
printed with the plan's notes, and ``--failures`` prints every failing case with its steps.
It reads the development half only: the frozen half is not for tuning.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from demo_cases import show
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.compiler.index import GraphView
from guigraph.envs import make
from guigraph.envs.simphone.generalize import Half, Kind, item_task, packaged, recorded_item
from guigraph.eval.demo import load_results
from guigraph.eval.generalize import RESULTS
from guigraph.graph.kb import KnowledgeBase


def rerun(row: dict[str, Any], kb: KnowledgeBase, view: GraphView) -> tuple[bool, Any, Any]:
    items = {item.item_id: item for item in packaged().items}
    item = items.get(row["item_id"]) or recorded_item(row["template_id"])
    task = item_task(item, row["seed"])
    # The device and skin the benchmark ran on (rows written before they were recorded ran on
    # the defaults): the same env as ``eval.suite.run_task`` builds.
    device, skin = row.get("device", "Pixel 7 Pro"), row.get("skin", "standard")
    env = make("simphone", device=device, skin=skin)
    try:
        team = rule_team(kb, view, TeamOptions(memory=row["memory"]))
        result = run_episode(env, team, task, seed=row["seed"], budget=Budget(max_steps=40))
        verdict = env.evaluate()
    finally:
        env.close()
    return verdict is not None and verdict.success, result, team


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a folder `guigraph eval generalize` ran in")
    parser.add_argument("--memory", default="graph", choices=("graph", "trace"))
    parser.add_argument("--only", nargs="*", default=[], help="kinds, template or item ids")
    parser.add_argument("--failures", action="store_true", help="print every failing case")
    args = parser.parse_args()
    path = args.run_dir / RESULTS.format(half=Half.DEV)
    only = set(args.only)
    rows = [
        r for r in load_results(path)
        if r["memory"] == args.memory
        and (not only or only & {r["kind"], r["template_id"], r["item_id"]})
    ]  # fmt: skip
    if not rows:
        sys.exit(f"{path}: no {args.memory} cases to re-run")
    started = time.perf_counter()
    wins: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    with KnowledgeBase.open(args.run_dir / "kb") as kb:
        view = GraphView.load(kb)
        for row in rows:
            ok, result, team = rerun(row, kb, view)
            wins[row["kind"]] += ok
            runs[row["kind"]] += 1
            if ok != row["success"] or (args.failures and not ok):
                shown = {**row, "condition": row["kind"]}
                show(shown, ok, result, team, steps=args.failures and not ok)
    for kind in Kind:
        if runs[kind]:
            print(f"{kind}: {wins[kind]}/{runs[kind]} = {wins[kind] / runs[kind]:.3f}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
