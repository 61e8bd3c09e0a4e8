"""The web figure as the field runs it: `guigraph eval web --tasks browsergym`, every task.

    .venv/bin/python bench/eval_web.py [--seeds 20] [--demos 10] [--concurrency 1]

Runs the commands a user runs, in ``runs/bench-eval-web`` (kept, resumable):

1. ``guigraph demo --world web --tasks browsergym --demos D`` records at most D scripted
   demonstrations of every task of the set that has a demonstrator, through the real
   Chromium and guigraph's recorder, and builds the knowledge base (its own one-seed check of
   the graph is a by-product);
2. ``guigraph eval web --kb KB --tasks browsergym --seeds N --memory M`` for the workflow
   graph, the trace baseline and no graph (``--memory none``, no KB): every one of the 125
   tasks on N new seeds, at most 10 steps, success = the page's own reward > 0.

The headline is each memory's mean SR over all 125 tasks and over Synapse's 63 (a task the
team cannot do counts 0); the table lists every task with its SR per memory and, for a task
without a demonstrator, why.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import benchrun

MEMORIES = ("graph", "trace", "none")


def guigraph(*args: str) -> str:
    """Run ``guigraph ARGS`` (progress on stderr); its standard output."""
    command = [str(Path(sys.executable).with_name("guigraph")), *args]
    print("$ guigraph", " ".join(args), flush=True)
    return subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--demos", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--tasks", default="browsergym")
    parser.add_argument("--out", type=Path, default=Path("runs/bench-eval-web"))
    args = parser.parse_args()
    bench = benchrun.start("eval-web")
    demo = args.out / "demo"
    printed = guigraph("demo", "--world", "web", "--tasks", args.tasks, "--demos",
                       str(args.demos), "--eval-seeds", "1", "--memory", "graph", "--out",
                       str(demo), "--json")  # fmt: skip
    report = json.loads(printed[printed.index("{") :])
    summaries: dict[str, dict[str, Any]] = {}
    for memory in MEMORIES:
        kb = [] if memory == "none" else ["--kb", str(demo / "kb")]
        guigraph("eval", "web", *kb, "--out", str(args.out / memory), "--tasks", args.tasks,
                 "--seeds", str(args.seeds), "--memory", memory,
                 "--concurrency", str(args.concurrency))  # fmt: skip
        summaries[memory] = json.loads((args.out / memory / "summary.json").read_text("utf-8"))
    from guigraph.envs.web import tasksets
    from guigraph.envs.web.experts import EXPERTS, why_not_demonstrated

    synapse = set(tasksets.named("synapse"))
    tasks = list(summaries["graph"]["per_task"])
    for memory, summary in summaries.items():
        for name in tasksets.PUBLISHED:
            bench.figure(f"{memory}.{name}", summary["means"][name]["mean_sr"])
    rows = [
        [task, task in synapse, task in EXPERTS,
         *(summaries[m]["per_task"][task]["sr"] for m in MEMORIES),
         "" if task in EXPERTS else why_not_demonstrated(task)]
        for task in tasks
    ]  # fmt: skip
    bench.table(
        f"Mean SR over every task of the set ({args.seeds} new seeds per task, at most 10 "
        f"steps; at most {args.demos} demonstrations per task)",
        ["memory", "browsergym (125)", "synapse (63)"],
        [[m, summaries[m]["means"]["browsergym"]["mean_sr"],
          summaries[m]["means"]["synapse"]["mean_sr"]] for m in MEMORIES],
    )  # fmt: skip
    bench.table(
        "SR per task (graph = workflow graph, trace = most similar recorded trace, none = no "
        "knowledge base)",
        ["task", "synapse", "demonstrator", *MEMORIES, "without a demonstrator: why"],
        rows,
    )
    with_demos = sum(task in EXPERTS for task in tasks)
    bench.note(
        f"{with_demos} of {len(tasks)} tasks have a scripted demonstrator; the others are run "
        "all the same and count what the team reaches (0 when it cannot)."
    )
    setup, kb = report["setup"], report["setup"]["kb"]
    bench.note(
        f"demonstrations: {setup['recorded']['episodes']} kept, {setup['recorded']['failed']} "
        f"failed (at most {args.demos} per task); KB: {kb['nodes']} nodes, {kb['edges']} edges, "
        f"{kb['traces']} traces"
    )
    bench.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
