"""Speech-to-text: the development half's reworded and recorded wordings and the demo's seen
tasks, run again all in lower case on a demo folder's KB, beside the same tasks as written.

    .venv/bin/python bench/lowercase.py runs/demo

Prints the SR of each set written and lower-cased (graph memory, episodes on SimPhone).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import episode, seen_runs
from guigraph.compiler.index import GraphView
from guigraph.envs import conventions
from guigraph.envs.simphone.generalize import Half, Kind, item_task, packaged, recorded_item
from guigraph.envs.simphone.skins import skin_conventions
from guigraph.eval.demo import load_results
from guigraph.eval.generalize import RESULTS
from guigraph.graph.kb import KnowledgeBase
from guigraph.types import Task


def dev_tasks(folder: Path) -> list[tuple[Task, int]]:
    items = {item.item_id: item for item in packaged().items}
    rows = load_results(folder / RESULTS.format(half=Half.DEV))
    found = []
    for row in rows:
        if row["memory"] != "graph" or row["kind"] == str(Kind.PAIRING):
            continue
        item = items.get(row["item_id"]) or recorded_item(row["template_id"])
        found.append((item_task(item, row["seed"]), row["seed"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a demo folder `eval generalize` ran in")
    args = parser.parse_args()
    sets = {
        "dev reworded+recorded": dev_tasks(args.run_dir),
        "demo seen": [(item_task(item, seed), seed) for _, item, seed in seen_runs()],
    }
    started = time.perf_counter()
    with (
        KnowledgeBase.open(args.run_dir / "kb") as kb,
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
            print(f"{name}: written {written}/{n} = {written / n:.3f}, "
                  f"lower case {lowered}/{n} = {lowered / n:.3f}")  # fmt: skip
    print(f"({time.perf_counter() - started:.0f} s wall, {time.process_time():.0f} s CPU)")


if __name__ == "__main__":
    main()
