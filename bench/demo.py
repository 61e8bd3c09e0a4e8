"""The demo's figures: `guigraph demo` in a fresh folder, its report as a result file.

    .venv/bin/python bench/demo.py                          # SimPhone, what `make demo` runs
    .venv/bin/python bench/demo.py --skin no-ids            # result demo-no-ids
    .venv/bin/python bench/demo.py --world web              # MiniWoB++ in Chromium: demo-web
    .venv/bin/python bench/demo.py --episodes 150 --seed 13 # result demo-e150-s13

Runs the command a user runs (the `guigraph` entry point of this interpreter's environment,
``--fresh --json``) so that the wall and CPU time are the whole job's: recording, building
the knowledge base, the team's episodes and (SimPhone) the teacher-forced replay of the
logs' test split. The folder (``runs/bench-<name>`` unless ``--out``) is kept: its KB serves
``bench/fresh_pairings.py`` and ``bench/demo_cases.py``. ``--resume`` continues a folder a
killed bench left (the result then says its times are the resume's).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import benchrun

CONDITIONS = {
    "seen": "seen templates",
    "unseen_templates": "held-out templates",
    "other_device": "other device (Pixel Tablet)",
}
SETUP_FIELDS = ("demos_per_task", "seeds_per_task", "recorded")
MEMORIES = {"graph": "workflow graph", "trace": "trace baseline", "none": "no graph"}


def result_name(world: str, skin: str, episodes: int | None, seed: int | None) -> str:
    name = "demo" if world == "simphone" else f"demo-{world}"
    if skin != "standard":
        name += f"-{skin}"
    if episodes is not None or seed is not None:
        name += f"-e{episodes or 300}-s{11 if seed is None else seed}"
    return name


def rate(entry: dict[str, Any]) -> str:
    if not entry.get("episodes"):
        return "–"
    won = entry.get("successes")
    if won is None:
        won = round(entry["sr"] * entry["episodes"])
    return f"{entry['sr']:.2f} ({won}/{entry['episodes']})"


def simphone_tables(bench: benchrun.BenchRun, report: dict[str, Any], folder: Path) -> None:
    memories = [m for m in MEMORIES if m in report["seen"]]
    bench.table(
        "Success rate (SimPhone's checker), model-free team",
        ["memory", *CONDITIONS.values()],
        [[MEMORIES[m], *(rate(report[c][m]) for c in CONDITIONS)] for m in memories],
    )
    for condition in CONDITIONS:
        for memory in memories:
            bench.figure(f"{condition}.{memory}.sr", round(report[condition][memory]["sr"], 3))
    split = report["setup"].get("test_split", {})
    if split:
        bench.table(
            "The logs' test split replayed teacher-forced (official matcher)",
            ["memory", "AMS", "SR", "episodes", "steps"],
            [[MEMORIES[m], s["ams"], s["sr"], s["episodes"], s["steps"]] for m, s in split.items()],
        )
        for memory, scores in split.items():
            bench.figure(f"test_split.{memory}.ams", scores["ams"])
    held = per_template(folder / "results.jsonl", "unseen_templates")
    if held:
        bench.table(
            "Held-out templates, one row each (successes / episodes)",
            ["template", *(MEMORIES[m] for m in memories)],
            [[t, *(held[t].get(m, "–") for m in memories)] for t in sorted(held)],
        )
    kb = scalars(report["setup"].get("kb", {}))
    if kb:
        bench.table("The knowledge base", list(kb), [list(kb.values())])


def scalars(fields: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The numbers and texts of a report's object, nested objects' under ``outer inner``."""
    flat: dict[str, Any] = {}
    for key, value in fields.items():
        name = f"{prefix}{key}".replace("_", " ")
        if isinstance(value, dict):
            flat.update(scalars(value, prefix=f"{name} "))
        elif value is None or isinstance(value, str | int | float | bool):
            flat[name] = value
    return flat


def per_template(results: Path, condition: str) -> dict[str, dict[str, str]]:
    """``{template: {memory: "won/episodes"}}`` of one condition, from the folder's rows."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    if not results.is_file():
        return {}
    for line in results.read_text().splitlines():
        row = json.loads(line)
        if row.get("condition") != condition:
            continue
        tally = counts[(row["template_id"], row["memory"])]
        tally[0] += bool(row["success"])
        tally[1] += 1
    table: dict[str, dict[str, str]] = defaultdict(dict)
    for (template, memory), (won, total) in counts.items():
        table[template][memory] = f"{won}/{total}"
    return table


def world_tables(bench: benchrun.BenchRun, report: dict[str, Any]) -> None:
    memories = list(report["mean_sr"])
    rows = [[task, *(rate(report["tasks"][task][m]) for m in memories)] for task in report["tasks"]]
    rows.append(
        [
            f"mean ({len(report['tasks'])} tasks)",
            *(round(report["mean_sr"][m], 3) for m in memories),
        ]
    )
    bench.table(
        "Success rate per task (the page's own reward > 0)",
        ["task", *(MEMORIES.get(m, m) for m in memories)],
        rows,
    )
    for memory, sr in report["mean_sr"].items():
        bench.figure(f"mean_sr.{memory}", round(sr, 3))
    bench.figure("tasks", len(report["tasks"]))
    setup = report.get("setup", {})
    kept = scalars({k: v for k, v in setup.items() if k in SETUP_FIELDS})
    kb = setup.get("kb", {})
    kept.update({f"kb {k}": kb[k] for k in ("nodes", "edges", "traces") if k in kb})
    if kept:
        bench.table("Setup", list(kept), [list(kept.values())])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", default="simphone")
    parser.add_argument("--skin", default="standard")
    parser.add_argument("--episodes", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--resume", action="store_true", help="resume the folder (its times are the resume's)"
    )
    args = parser.parse_args()
    name = result_name(args.world, args.skin, args.episodes, args.seed)
    out = args.out or Path("runs") / f"bench-{name}"
    command = [str(Path(sys.executable).parent / "guigraph"), "demo", "--out", str(out)]
    command += ["--json", "--world", args.world] + ([] if args.resume else ["--fresh"])
    if args.skin != "standard":
        command += ["--skin", args.skin]
    if args.episodes is not None:
        command += ["--episodes", str(args.episodes)]
    if args.seed is not None:
        command += ["--seed", str(args.seed)]
    bench = benchrun.start(name)
    if args.resume:
        bench.note("resumed a folder: wall and CPU time are the resume's, not the whole job's")
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        print(f"bench/demo.py: `{' '.join(command)}` exited {done.returncode}", file=sys.stderr)
        return 1
    report = json.loads(done.stdout)
    if args.world == "simphone":
        simphone_tables(bench, report, out)
    else:
        world_tables(bench, report)
    bench.figure("demo_seconds", report.get("setup", {}).get("seconds"))
    bench.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
