"""Print how the model-free team ranked its options for one instruction on a KB.

    .venv/bin/python bench/explain_plan.py runs/demo/kb "Get me the Pique kettle and pay"

The debugging view behind ``bench/generalize_cases.py``: each option's score, the donor
instructions it follows and the words it claims (value words weigh more), best first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.compiler.index import GraphView
from guigraph.envs import make
from guigraph.graph.kb import KnowledgeBase
from guigraph.types import Task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", type=Path)
    parser.add_argument("instruction")
    parser.add_argument("--top", type=int, default=6)
    parser.add_argument("--memory", default="graph", choices=("graph", "trace"))
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.kb)
    view = GraphView.load(kb)
    by_id = {t.episode_id: t.instruction for t in view.traces}
    env = make("simphone")
    try:
        team = rule_team(kb, view, TeamOptions(memory=args.memory))
        task = Task("explain", args.instruction)
        run_episode(env, team, task, seed=0, budget=Budget(max_steps=1))
    finally:
        env.close()
    state = team.planner.policy.state  # type: ignore[attr-defined]
    options = [state.choice, *state.alternatives][: args.top]
    for option in options:
        if option is None:
            continue
        how = "stitched" if option.stitched else "single"
        claimed = ", ".join(f"{w}:{c:.1f}" for w, c in sorted(option.claimed.items()))
        print(f"{option.score:6.2f} {how:8} {claimed}")
        for donor in option.donors:
            print(f"         {by_id.get(donor, donor)}")


if __name__ == "__main__":
    main()
