"""The same demonstrations through MiniWoB++'s recorder and guigraph's: do their KBs agree?

    .venv/bin/python bench/import_parity.py [--tasks suite] [--demos 3] [--seeds 5]

For every task of the set with a scripted demonstrator, the scripted person demonstrates the
same seeds twice in Chromium: once through guigraph's own recorder (``RecordEpisodes``:
screenshots and the web world's elements) and once with the page's ``record.js`` on
(``RecordJsWebEnv``: raw DOM events and element trees, posted to a loopback collector), which
``guigraph import miniwob`` then reads. A knowledge base is built from each, and a fresh
model-free team (workflow graph) runs the same new seeds with each. Target: the import's mean SR
within 0.05 of the own recorder's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import benchrun
from guigraph.compiler.index import GraphView
from guigraph.envs.web.demos import import_demos
from guigraph.envs.web.env import WebEnv
from guigraph.envs.web.experts import EXPERTS, demonstrate, resolve_tasks
from guigraph.envs.web.recordjs import Collector, RecordJsWebEnv
from guigraph.envs.wrappers import RecordEpisodes
from guigraph.eval.world_demo import EVAL_SEED_BASE, run_world_case
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase


def record_both(tasks: list[str], demos: int, root: Path) -> dict[str, int]:
    """Each (task, seed) demonstrated once per recorder; how many each kept."""
    kept = {"own": 0, "record.js": 0}
    own = RecordEpisodes(WebEnv(), root / "own-logs")
    try:
        for task in tasks:
            for seed in range(demos):
                _, verdict = demonstrate(own, task, seed)
                kept["own"] += bool(verdict and verdict.success)
    finally:
        own.close()
    with Collector(root / "recordjs") as collector:
        env = RecordJsWebEnv(collector)
        try:
            for task in tasks:
                for seed in range(demos):
                    demonstrate(env, task, seed)
        finally:
            env.close()
    summary = import_demos([root / "recordjs"], root / "import-logs")
    kept["record.js"] = len(summary.imported)
    return kept


def evaluate(kb_dir: Path, tasks: list[str], seeds: int, env: WebEnv) -> dict[str, float]:
    rates = {}
    with KnowledgeBase.open(kb_dir) as kb:
        view = GraphView.load(kb)
        for task in tasks:
            wins = [
                run_world_case(env, kb, view, f"miniwob/{task}", "graph", EVAL_SEED_BASE + i, 10)[
                    "success"
                ]
                for i in range(seeds)
            ]
            rates[task] = sum(wins) / len(wins)
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="suite")
    parser.add_argument("--demos", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    label, chosen = resolve_tasks(args.tasks)
    tasks = [t for t in chosen if t in EXPERTS]
    bench = benchrun.start("import-parity")
    with tempfile.TemporaryDirectory(prefix="import-parity-") as scratch:
        root = Path(scratch)
        kept = record_both(tasks, args.demos, root)
        for name in ("own", "import"):
            build_from_logs(root / f"{name}-logs", root / f"{name}-kb")
        env = WebEnv()
        try:
            rates = {name: evaluate(root / f"{name}-kb", tasks, args.seeds, env)
                     for name in ("own", "import")}  # fmt: skip
        finally:
            env.close()
    mean: dict[str, Any] = {n: sum(r.values()) / len(r) for n, r in rates.items()}
    gap = mean["import"] - mean["own"]
    print(f"{label}: own recorder {mean['own']:.3f}, record.js import {mean['import']:.3f}, "
          f"gap {gap:+.3f}; kept {kept}")  # fmt: skip
    bench.figure("sr_own", round(mean["own"], 4))
    bench.figure("sr_import", round(mean["import"], 4))
    bench.figure("gap", round(gap, 4))
    bench.table(
        f"Graph SR on {args.seeds} new seeds per task, KBs from the same {args.demos} "
        f"demonstrations per task ({label}: {len(tasks)} tasks with a demonstrator)",
        ["task", "own recorder", "record.js import", "gap"],
        [[t, rates["own"][t], rates["import"][t], round(rates["import"][t] - rates["own"][t], 3)]
         for t in tasks]
        + [["mean", round(mean["own"], 4), round(mean["import"], 4), round(gap, 4)]],
    )  # fmt: skip
    bench.note(f"demonstrations kept: {kept}")
    bench.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
