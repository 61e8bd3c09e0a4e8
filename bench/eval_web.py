"""The web figure as the field runs it: `guigraph eval web --tasks browsergym`, every task.

    .venv/bin/python bench/eval_web.py [--seeds 20] [--baseline-seeds N] [--demos 10]
                                       [--concurrency 1]

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
without a demonstrator, why. Each evaluation's wall time is set beside what its episodes alone
would take, (episodes x median episode time) / concurrency: the target is within 1.3x (the
browser start-up, the KB load and the workers' idle ends are the rest). A resumed evaluation's
wall time covers only what it ran, so that check needs a run folder that starts empty.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import benchrun

MEMORIES = ("graph", "trace", "none")
WALL_TARGET = 1.3  # eval web's wall time over (episodes x median episode time) / concurrency


def guigraph(*args: str) -> str:
    """Run ``guigraph ARGS`` (progress on stderr); its standard output."""
    command = [str(Path(sys.executable).with_name("guigraph")), *args]
    print("$ guigraph", " ".join(args), flush=True)
    return subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument(
        "--baseline-seeds", type=int, default=None,
        help="Seeds for the trace and no-graph baselines (default: --seeds).",
    )  # fmt: skip
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
    seeds = {m: args.seeds if m == "graph" else args.baseline_seeds or args.seeds for m in MEMORIES}
    timings = []
    for memory in MEMORIES:
        kb = [] if memory == "none" else ["--kb", str(demo / "kb")]
        started = time.perf_counter()
        guigraph("eval", "web", *kb, "--out", str(args.out / memory), "--tasks", args.tasks,
                 "--seeds", str(seeds[memory]), "--memory", memory,
                 "--concurrency", str(args.concurrency))  # fmt: skip
        wall = time.perf_counter() - started
        summaries[memory] = json.loads((args.out / memory / "summary.json").read_text("utf-8"))
        timings.append(wall_against_episodes(memory, wall, args.out / memory, args.concurrency))
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
        f"Mean SR over every task of the set ({args.seeds} new seeds per task"
        + (f", {seeds['trace']} for the baselines" if seeds["trace"] != args.seeds else "")
        + f", at most 10 steps; at most {args.demos} demonstrations per task)",
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
    bench.table(
        f"eval web's wall time against (episodes x median episode time) / concurrency "
        f"(--concurrency {args.concurrency}; target: within {WALL_TARGET}x)",
        ["memory", "seeds", "episodes", "median episode", "expected wall", "wall", "ratio"],
        [[m, seeds[m], *row] for m, row in zip(MEMORIES, timings, strict=True)],
    )
    for memory, row in zip(MEMORIES, timings, strict=True):
        bench.figure(f"{memory}.wall_ratio", row[-1])
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


def wall_against_episodes(memory: str, wall: float, run: Path, concurrency: int) -> list[Any]:
    """[episodes, median s, expected wall s, wall s, ratio] of one evaluation's run folder."""
    lines = (run / "episodes.jsonl").read_text("utf-8").splitlines()
    seconds = [json.loads(line)["seconds"] for line in lines if line.strip()]
    median = statistics.median(seconds) if seconds else 0.0
    expected = len(seconds) * median / concurrency
    ratio = round(wall / expected, 2) if expected else None
    print(f"{memory}: {len(seconds)} episodes, wall {wall:.0f} s vs {expected:.0f} s", flush=True)
    return [len(seconds), round(median, 2), round(expected, 1), round(wall, 1), ratio]


if __name__ == "__main__":
    sys.exit(main())
