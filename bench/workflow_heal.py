"""Workflows exported from recordings, run where the application changed, with healing.

    .venv/bin/python bench/workflow_heal.py [--seeds 3] [--json]           # result workflow-heal
    .venv/bin/python bench/workflow_heal.py --web [--seeds 10] [--json]    # workflow-heal-web

SimPhone: records expert episodes on app version 1 (300, seed 11, noise 0.1, as the demo;
kept in ``runs/bench-workflow``), builds the knowledge base, then for every template that uses
one of the five versioned apps and new world seeds: exports the workflow the model-free team
would follow (``guigraph workflow export``), and runs it without a model on version 1
(nothing may need healing), on version 2 with ``--heal graph`` (renamed ids, renamed and
moved controls) and on version 2 with ``--heal off`` (which must stop at a named step).
Success is SimPhone's checker. A workflow the KB cannot plan counts 0 and stays in the table
with the reason. The runner's own time per action (everything but ``env.step``) is measured
on the version-1 runs that needed no healing. Healed steps count step-level healings and, in
brackets, the graph team taking over where the exported plan itself could not go on.

Web (``--web``): MiniWoB++'s multi-layouts and multi-orderings, whose page rewords,
rearranges and reorders its form on every seed. ``guigraph demo --world web`` records
``--demos`` scripted demonstrations per task through Chromium and builds the KB (kept in
``runs/bench-workflow-web``); one workflow per task is exported on a seed no demonstration
used, and that same file runs on ``--seeds`` further new seeds (the row's values read off
each seed's instruction, worded as the file's), with ``--heal graph`` and ``--heal off``.
Success is the page's own reward > 0.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import Any

import benchrun
from guigraph.compiler.index import GraphView
from guigraph.envs.simphone.env import VERSIONED_APPS
from guigraph.envs.simphone.tasks import TEMPLATES
from guigraph.envs.simphone.widgets import APPS
from guigraph.graph.kb import KnowledgeBase
from guigraph.workflow.batch import RowResult
from guigraph.workflow.export import export_task
from guigraph.workflow.schema import dump_workflow, parse_workflow
from guigraph.workflow.session import Session

#: World seeds of the measured tasks: never recorded (the recording's seeds are small).
FIRST_SEED = 700001
#: Web: the MiniWoB++ tasks whose page rearranges itself between seeds.
WEB_TASKS = ("multi-layouts", "multi-orderings")
#: Web: the seed each task's workflow is exported on, and the first seed it runs on (the
#: demonstrations' seeds are small, ``guigraph demo``'s own evaluation's start at 1,000,000).
WEB_EXPORT_SEED = 2_000_000


def versioned_templates() -> list[str]:
    names = {APPS[app][0] for app in VERSIONED_APPS}
    return sorted(t for t, tpl in TEMPLATES.items() if names & set(tpl.apps))


def knowledge_base(folder: Path, episodes: int, seed: int) -> Path:
    from guigraph.envs.simphone.recorder import record
    from guigraph.graph.from_logs import build_from_logs

    logs, kb = folder / "logs", folder / "kb"
    if not (folder / "kb.done").exists():
        record(logs, episodes, seed, noise=0.1)
        build_from_logs(logs, kb)
        (folder / "kb.done").touch()
    return kb


def run(workflow: Any, kb: KnowledgeBase, view: GraphView, version: int, heal: str) -> RowResult:
    session = Session(workflow, "simphone", {"version": version}, heal, view, kb=kb)
    values = {p.name: p.default or "" for p in workflow.parameters}
    return session.run_row(1, values)


def _by_team(result: RowResult) -> int:
    """Healings where the graph team took over (the exported plan itself could not go on)."""
    return sum(1 for h in result.healings if h.get("healed") and h.get("by") == "graph team")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--web", action="store_true", help="MiniWoB++ in Chromium instead.")
    parser.add_argument("--seeds", type=int, default=0, help="Seeds per task (3; web 10).")
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11, help="Recording seed.")
    parser.add_argument("--demos", type=int, default=5, help="Web: demonstrations per task.")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--json", action="store_true", help="Print the result as JSON.")
    args = parser.parse_args()
    if args.web:
        web(args)
    else:
        simphone(args)


def simphone(args: argparse.Namespace) -> None:
    args.seeds = args.seeds or 3
    args.out = args.out or Path("runs/bench-workflow")
    bench = benchrun.start("workflow-heal")
    args.out.mkdir(parents=True, exist_ok=True)
    kb_path = knowledge_base(args.out, args.episodes, args.seed)
    rows: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    reasons: list[str] = []
    runner_seconds = runner_cpu = actions = 0.0
    with KnowledgeBase.open(kb_path) as kb:
        view = GraphView.load(kb)
        for template in versioned_templates():
            for seed in range(FIRST_SEED, FIRST_SEED + args.seeds):
                row = rows[template]
                row["runs"] += 1
                try:
                    exported = export_task(kb, template, "simphone", seed)
                    workflow = parse_workflow(dump_workflow(exported))
                except Exception as exc:  # any failure to export counts 0, with the reason
                    reasons.append(f"{template}/{seed}: no workflow ({exc})")
                    continue
                one = run(workflow, kb, view, 1, "graph")
                if not one.healings:  # the replay's own cost: healing plans and explores
                    runner_seconds += one.runner_seconds
                    runner_cpu += one.runner_cpu_seconds
                    actions += one.actions
                two = run(workflow, kb, view, 2, "graph")
                off = run(workflow, kb, view, 2, "off")
                row["v1"] += one.ok
                row["v1_healed"] += one.healed
                row["v1_team"] += _by_team(one)
                row["v2_team"] += _by_team(two)
                row["model_calls"] += one.model_calls + two.model_calls
                row["v2"] += two.ok
                row["v2_healed"] += two.healed
                row["v2_off"] += off.ok
                row["off_named"] += (not off.ok) and off.failure.startswith("step ")
                for label, result in (("v1", one), ("v2", two)):
                    if not result.ok:
                        reasons.append(f"{template}/{seed} {label}: {result.failure[:160]}")
    total = {k: sum(r[k] for r in rows.values()) for k in
             ("runs", "v1", "v1_healed", "v1_team", "v2", "v2_healed", "v2_team", "v2_off",
              "off_named", "model_calls")}  # fmt: skip
    runs = total["runs"] or 1
    ms = 1000 * runner_seconds / max(1.0, actions)
    cpu_ms = 1000 * runner_cpu / max(1.0, actions)
    bench.figure("v2_heal_graph.sr", round(total["v2"] / runs, 3))
    bench.figure("runner_cpu_ms_per_action", round(cpu_ms, 3))
    bench.figure("v1.sr", round(total["v1"] / runs, 3))
    bench.figure("v2_heal_off.sr", round(total["v2_off"] / runs, 3))
    bench.figure("v1.healed_steps", total["v1_healed"])
    bench.figure("v1.team_takeovers", total["v1_team"])
    bench.figure("v2.team_takeovers", total["v2_team"])
    bench.figure("v2.healed_steps", total["v2_healed"])
    bench.figure("model_calls", total["model_calls"])
    bench.figure("runner_ms_per_action", round(ms, 3))
    bench.figure("templates", len(rows))
    bench.table(
        "Success (SimPhone's checker) of workflows exported from version-1 recordings",
        ["template", "runs", "v1", "v1 healed steps (team)", "v2 --heal graph",
         "v2 healed steps (team)", "v2 --heal off"],
        [[t, r["runs"], r["v1"], f"{r['v1_healed']} ({r['v1_team']})", r["v2"],
          f"{r['v2_healed']} ({r['v2_team']})", r["v2_off"]]
         for t, r in sorted(rows.items())]
        + [["all", total["runs"], total["v1"], f"{total['v1_healed']} ({total['v1_team']})",
            total["v2"], f"{total['v2_healed']} ({total['v2_team']})", total["v2_off"]]],
    )  # fmt: skip
    bench.note(
        f"{len(rows)} templates x {args.seeds} seeds; KB of {args.episodes} version-1 episodes "
        f"(seed {args.seed}); {total['model_calls']} model calls; --heal off stopped at a named "
        f"step in {total['off_named']} of {runs - total['v2_off']} failed runs; runner "
        f"{ms:.2f} ms wall and {cpu_ms:.2f} ms CPU per action on version 1 (world excluded)"
    )
    for reason in reasons:
        bench.note(reason)
    path = bench.save()
    if args.json:
        print(path.read_text())
    else:
        print(
            f"v1 SR {total['v1'] / runs:.3f} (healed {total['v1_healed']}); v2 --heal graph SR "
            f"{total['v2'] / runs:.3f} (healed {total['v2_healed']}); v2 --heal off SR "
            f"{total['v2_off'] / runs:.3f}; runner {ms:.2f} ms ({cpu_ms:.2f} ms CPU) per "
            f"action; -> {path}"
        )


def web_kb(folder: Path, demos: int) -> Path:
    """``guigraph demo --world web`` on the two tasks: demonstrations and the KB (resumable)."""
    import subprocess
    import sys

    command = [str(Path(sys.executable).with_name("guigraph")), "demo", "--world", "web",
               "--tasks", ",".join(WEB_TASKS), "--demos", str(demos), "--eval-seeds", "1",
               "--memory", "graph", "--out", str(folder)]  # fmt: skip
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return folder / "kb"


def web(args: argparse.Namespace) -> None:
    from guigraph.envs.web.env import WebEnv
    from guigraph.workflow.runner import values_from

    args.seeds = args.seeds or 10
    args.out = args.out or Path("runs/bench-workflow-web")
    bench = benchrun.start("workflow-heal-web")
    kb_path = web_kb(args.out, args.demos)
    table: list[list[Any]] = []
    reasons: list[str] = []
    total: dict[str, float] = defaultdict(float)
    probe = WebEnv()  # reads each seed's instruction (the page draws it)
    try:
        with KnowledgeBase.open(kb_path) as kb:
            view = GraphView.load(kb)
            for task in WEB_TASKS:
                row: dict[str, float] = defaultdict(float)
                try:
                    exported = export_task(kb, f"miniwob/{task}", "web", WEB_EXPORT_SEED)
                    workflow = parse_workflow(dump_workflow(exported))
                except Exception as exc:  # a task the KB cannot plan counts 0, with the reason
                    reasons.append(f"{task}: no workflow ({exc})")
                    workflow = None
                for seed in range(WEB_EXPORT_SEED + 1, WEB_EXPORT_SEED + 1 + args.seeds):
                    row["runs"] += 1
                    if workflow is None:
                        continue
                    instruction = probe.make_task(f"miniwob/{task}", seed).instruction
                    values = values_from(workflow, instruction)
                    if values is None:
                        reasons.append(f"{task}/{seed}: {instruction!r} is worded otherwise")
                        continue
                    world = workflow.world.model_copy(update={"seed": seed, "values": values})
                    one = workflow.model_copy(update={"world": world})
                    for heal in ("graph", "off"):
                        result = Session(one, "web", {}, heal, view, kb=kb).run_row(1, values)
                        row[heal] += result.ok
                        if heal == "graph":
                            row["healed"] += result.healed
                            row["model_calls"] += result.model_calls
                            row["runner_seconds"] += result.runner_seconds
                            row["actions"] += result.actions
                            if not result.ok:
                                reasons.append(f"{task}/{seed}: {result.failure[:160]}")
                        elif not result.ok and result.failure.startswith("step "):
                            row["off_named"] += 1
                for key, value in row.items():
                    total[key] += value
                table.append([task, int(row["runs"]), int(row["graph"]), int(row["healed"]),
                              int(row["off"])])  # fmt: skip
    finally:
        probe.close()
    runs = total["runs"] or 1
    ms = 1000 * total["runner_seconds"] / max(1.0, total["actions"])
    table.append(["all", int(total["runs"]), int(total["graph"]), int(total["healed"]),
                  int(total["off"])])  # fmt: skip
    bench.figure("heal_graph.sr", round(total["graph"] / runs, 3))
    bench.figure("heal_off.sr", round(total["off"] / runs, 3))
    bench.figure("healed_steps", int(total["healed"]))
    bench.figure("model_calls", int(total["model_calls"]))
    bench.figure("runner_ms_per_action", round(ms, 3))
    bench.table(
        "Success (the page's reward) of one exported workflow per task on new seeds",
        ["task", "runs", "--heal graph", "healed steps", "--heal off"], table,
    )  # fmt: skip
    bench.note(
        f"{len(WEB_TASKS)} tasks x {args.seeds} seeds; KB of at most {args.demos} scripted "
        f"demonstrations per task; workflows exported on seed {WEB_EXPORT_SEED}; "
        f"{int(total['model_calls'])} model calls; --heal off stopped at a named step in "
        f"{int(total['off_named'])} of {int(runs - total['off'])} failed runs; runner "
        f"{ms:.2f} ms per action (world excluded)"
    )
    for reason in reasons:
        bench.note(reason)
    path = bench.save()
    if args.json:
        print(path.read_text())
    else:
        print(
            f"web --heal graph SR {total['graph'] / runs:.3f} (healed {int(total['healed'])}); "
            f"--heal off SR {total['off'] / runs:.3f}; runner {ms:.2f} ms/action; -> {path}"
        )


if __name__ == "__main__":
    main()
