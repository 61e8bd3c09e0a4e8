"""Speech to text: seen tasks and reworded ones, all in lower case, beside the same as written.

    .venv/bin/python bench/lowercase.py                 # demo seen + development half
    .venv/bin/python bench/lowercase.py --frozen        # + the frozen half (the reported figure)
    .venv/bin/python bench/lowercase.py --out runs/demo # on a demo folder's logs and KB
    .venv/bin/python bench/lowercase.py --frozen --episodes 120 --seed 23 \
        --out runs/bench-lowercase-small --figure lowercase-small  # a small KB: most values new

A phone keyboard or a speech-to-text engine writes "remind me to book a table" where a recorded
task says "Remind me to buy a gift". The model-free team (workflow graph, SimPhone, the demo's
knowledge base: 300 episodes, seed 11) runs the demo's seen tasks (33 templates in their
recorded wording, 3 worlds each) and the generalization benchmark's reworded and recorded
wordings (its worlds), each once as written and once all in lower case; SimPhone's checker
judges both. Target: lower case within 0.03 of written, per set. The frozen half is run only
for the reported figure.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchrun
from corpus import episode, seen_runs
from guigraph.compiler.index import GraphView
from guigraph.envs import conventions
from guigraph.envs.simphone.generalize import Half, Kind, item_task, packaged
from guigraph.envs.simphone.skins import skin_conventions
from guigraph.eval.demo import DemoConfig, SilentReporter, prepare_kb
from guigraph.eval.generalize import GeneralizeConfig, plan
from guigraph.graph.kb import KnowledgeBase
from guigraph.types import Task

#: Lower case may lose at most this much SR against the same tasks as written.
MARGIN = 0.03


def half_tasks(half: Half, used_seeds: set[int]) -> list[tuple[Task, int]]:
    """The half's reworded wordings and their templates' recorded wordings, on the worlds
    ``guigraph eval generalize`` runs them on (pairings are no seen task)."""
    config = GeneralizeConfig(half=half, memories=("graph",))
    cases, items = plan(packaged().half(half), half, config, used_seeds)
    return [
        (item_task(items[case.item_id], case.seed), case.seed)
        for case in cases
        if case.kind is not Kind.PAIRING
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=Path("runs/bench-lowercase"),
        help="a demo folder (its logs and KB are made there when missing)",
    )  # fmt: skip
    parser.add_argument("--frozen", action="store_true", help="the frozen half too (once)")
    parser.add_argument(
        "--episodes", type=int, default=DemoConfig.episodes,
        help="episodes recorded for the KB (fewer: a small KB, most values never seen)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=DemoConfig.seed, help="the recording seed")
    parser.add_argument("--figure", default="lowercase", help="the result's name")
    args = parser.parse_args()
    bench = benchrun.start(args.figure)
    config = DemoConfig(episodes=args.episodes, seed=args.seed)
    used_seeds, _ = prepare_kb(args.out, config, SilentReporter())
    sets = {
        "demo seen": [(item_task(item, seed), seed) for _, item, seed in seen_runs()],
        "development half, reworded + recorded": half_tasks(Half.DEV, used_seeds),
    }
    if args.frozen:
        sets["frozen half, reworded + recorded"] = half_tasks(Half.FROZEN, used_seeds)
    rows = []
    started = time.perf_counter()
    with (
        KnowledgeBase.open(args.out / "kb") as kb,
        conventions.using(skin_conventions("standard")),
    ):
        view = GraphView.load(kb)
        for name, tasks in sets.items():
            written = sum(episode(kb, view, task, seed) for task, seed in tasks)
            lowered = sum(
                episode(kb, view, replace(task, instruction=task.instruction.lower()), seed)
                for task, seed in tasks
            )
            n = len(tasks)
            key = name.split(",")[0].split()[0]
            bench.figure(f"{key}:written", round(written / n, 3))
            bench.figure(f"{key}:lower", round(lowered / n, 3))
            rows.append([
                name, n, f"{written / n:.3f} ({written})", f"{lowered / n:.3f} ({lowered})",
                round((lowered - written) / n, 3), lowered / n >= written / n - MARGIN,
            ])  # fmt: skip
            print(f"{name}: written {written}/{n} = {written / n:.3f}, "
                  f"lower case {lowered}/{n} = {lowered / n:.3f}")  # fmt: skip
    bench.table(
        "SR of the graph team, each task as written and all in lower case",
        ["set", "episodes", "written", "lower case", "difference", f"within {MARGIN}"],
        rows,
    )
    print(f"({time.perf_counter() - started:.0f} s wall)")
    bench.save()


if __name__ == "__main__":
    main()
