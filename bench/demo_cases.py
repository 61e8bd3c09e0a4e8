"""Re-run a finished demo's cases with the current code and show what changed, per template.

    .venv/bin/python bench/demo_cases.py runs/demo                    # every graph case
    .venv/bin/python bench/demo_cases.py runs/demo --only unseen_templates multi.trip_plan
    .venv/bin/python bench/demo_cases.py runs/demo --memory trace --failures

The tuning loop for the model-free team: change the binding, stitching or acting code, then
replay the demo's 213 graph cases on the demo's own knowledge base in ~20 s instead of
re-running the whole demo (which records and builds anew, ~1 min). Each case is run exactly
as the demo runs it (`guigraph.eval.suite.run_case`); a case whose success differs from the
folder's `results.jsonl` is printed with the plan's notes, and `--failures` prints every
failing case with its steps. The KB was built by the code that made the folder: re-run the
demo itself when the builder changed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.compiler.index import GraphView
from guigraph.envs import make
from guigraph.eval.demo import RESULTS_FILE, load_results
from guigraph.graph.kb import KnowledgeBase


def rerun(row: dict[str, Any], kb: KnowledgeBase, view: GraphView) -> tuple[bool, Any, Any]:
    # The skin the demo ran on (``--skin``): the same env as ``eval.suite.run_case`` builds.
    env = make(
        "simphone",
        device=row["device"],
        version=row.get("version", 1),
        skin=row.get("skin", "standard"),
    )
    try:
        task = env.make_task(row["template_id"], row["seed"])
        team = rule_team(kb, view, TeamOptions(memory=row["memory"]))
        result = run_episode(env, team, task, seed=row["seed"], budget=Budget(max_steps=40))
        verdict = env.evaluate()
    finally:
        env.close()
    return verdict is not None and verdict.success, result, team


def show(row: dict[str, Any], ok: bool, result: Any, team: Any, steps: bool) -> None:
    notes = getattr(getattr(team.planner, "policy", None), "notes", [])[:3]
    change = "" if ok == row["success"] else ("now ok  " if ok else "now FAIL")
    print(f"{change:8} {row['condition']} {row['template_id']} {row['seed']}: "
          f"{result.task.instruction} | {result.reason} | {notes}")  # fmt: skip
    for step in result.steps if steps else ():
        action = step.executed.action.to_dict()
        print(f"    {step.step:2} {step.node_id} {action} {step.executed.reason} "
              f"{step.outcome.status.value}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a finished `guigraph demo --out` folder")
    parser.add_argument("--memory", default="graph", choices=("graph", "trace"))
    parser.add_argument("--only", nargs="*", default=[], help="conditions or template ids")
    parser.add_argument("--failures", action="store_true", help="print every failing case")
    args = parser.parse_args()
    rows = [
        r for r in load_results(args.run_dir / RESULTS_FILE)
        if r["memory"] == args.memory
        and (not args.only or r["condition"] in args.only or r["template_id"] in args.only)
    ]  # fmt: skip
    if not rows:
        sys.exit(f"{args.run_dir / RESULTS_FILE}: no {args.memory} cases to re-run")
    started = time.perf_counter()
    wins: Counter[tuple[str, str]] = Counter()
    runs: Counter[tuple[str, str]] = Counter()
    with KnowledgeBase.open(args.run_dir / "kb") as kb:
        view = GraphView.load(kb)
        for row in rows:
            ok, result, team = rerun(row, kb, view)
            group = (row["condition"], row["template_id"])
            wins[group] += ok
            runs[group] += 1
            if ok != row["success"] or (args.failures and not ok):
                show(row, ok, result, team, steps=args.failures and not ok)
    for condition in dict.fromkeys(c for c, _ in runs):
        won = sum(n for (c, _), n in wins.items() if c == condition)
        total = sum(n for (c, _), n in runs.items() if c == condition)
        print(f"{condition}: {won}/{total} = {won / total:.3f}")
    short = {f"{c}/{t}": f"{wins[c, t]}/{n}" for (c, t), n in runs.items() if wins[c, t] < n}
    print(f"not every case succeeds: {short or 'none'} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
