"""The demo's seen SimPhone templates, run in-process and over ADB: the same SR within 0.03?

    .venv/bin/python bench/adb_parity.py                      # runs/adb-parity, ~5 min
    .venv/bin/python bench/adb_parity.py --seeds 1 --templates tool.wifi shop.search

Records the demo's logs (300 episodes, seed 11, noise 0.1, the recombining templates held
out) with the ``android`` skin, so that the knowledge base holds what a phone reports
(``com.simphone.<app>:id/...`` ids, packages, the uiautomator hierarchy), and builds it as
`guigraph build` does. Then every seen template on new seeds (the demo's ``seen`` cases) is run
by the model-free graph team twice: on SimPhone in-process (``SimPhone(skin="android")``) and
on the Android world (``AndroidEnv``, adbutils) against the fake ADB device whose phone is the
same SimPhone. Success is each world's own verdict (the checker in-process; ``guigraph-check``
over ADB). Prints both SRs, the cases whose outcome differs, and median latency per step; exits
1 when the SRs differ by more than 0.03. Logs and KB are reused when ``--out`` has them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import benchrun
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.choices import Memory
from guigraph.compiler.index import GraphView
from guigraph.envs.base import Env
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.tasks import make_task
from guigraph.eval.demo import DemoConfig, evaluated_templates, held_out_templates
from guigraph.eval.suite import EvalCase, Sizes, plan_cases
from guigraph.graph.kb import KnowledgeBase

TOLERANCE = 0.03


def prepare(out: Path, config: DemoConfig) -> set[int]:
    """Logs (android skin) and KB in ``out``; returns the seeds the logs used."""
    from guigraph.envs.simphone.recorder import record
    from guigraph.graph.from_logs import build_from_logs

    logs = out / "logs"
    if not (logs / "simphone.json").is_file():
        started = time.perf_counter()
        record(
            logs,
            config.episodes,
            config.seed,
            device=config.device,
            noise=config.noise,
            holdout=held_out_templates(),
            skin="android",
        )
        print(f"recorded {config.episodes} episodes in {time.perf_counter() - started:.0f} s")
    if not (out / "kb" / "manifest.json").is_file():
        started = time.perf_counter()
        build_from_logs(logs, out / "kb")
        print(f"built the KB in {time.perf_counter() - started:.0f} s")
    data = json.loads((logs / "simphone.json").read_text())
    return {int(e["seed"]) for e in data["episodes"]}


def run(env: Env, case: EvalCase, kb: KnowledgeBase, view: GraphView) -> dict[str, Any]:
    task = make_task(case.template_id, case.seed)
    team = rule_team(kb, view, TeamOptions(memory=Memory(case.memory)))
    started = time.perf_counter()
    result = run_episode(env, team, task, seed=case.seed, budget=Budget(max_steps=40))
    seconds = time.perf_counter() - started
    verdict = env.evaluate()
    return {
        "key": case.key,
        "template": case.template_id,
        "seed": case.seed,
        "success": bool(verdict and verdict.success),
        "steps": len(result.steps),
        "seconds_per_step": seconds / max(1, len(result.steps) + 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/adb-parity"))
    parser.add_argument("--seeds", type=int, default=3, help="seeds per seen template")
    parser.add_argument("--templates", nargs="*", default=[], help="only these templates")
    args = parser.parse_args()
    from guigraph.envs.android.env import AndroidEnv
    from guigraph.testing.adb_server import FakeAdbServer

    bench = benchrun.start("adb-parity")
    config = DemoConfig()
    used = prepare(args.out, config)
    seen, _ = evaluated_templates(args.templates)
    cases = [
        c
        for c in plan_cases(
            seen,
            [],
            Sizes(seen=args.seeds),
            used,
            config.device,
            config.other_device,
            memories=("graph",),
        )
        if c.condition == "seen"
    ]
    rows: dict[str, list[dict[str, Any]]] = {"in-process": [], "adb": []}
    with (
        KnowledgeBase.open(args.out / "kb") as kb,
        FakeAdbServer(device=config.device, adb_keyboard=True) as server,
    ):
        os.environ["ANDROID_ADB_SERVER_PORT"] = str(server.port)
        view = GraphView.load(kb)
        adb = AndroidEnv(server.device.serial)
        for case in cases:
            rows["in-process"].append(run(SimPhone(case.device, skin="android"), case, kb, view))
            rows["adb"].append(run(adb, case, kb, view))
    report(rows, args.out, bench)


def report(rows: dict[str, list[dict[str, Any]]], out: Path, bench: benchrun.BenchRun) -> None:
    sr = {name: sum(r["success"] for r in group) / len(group) for name, group in rows.items()}
    table = []
    for name, group in rows.items():
        median = statistics.median(r["seconds_per_step"] for r in group)
        won = sum(r["success"] for r in group)
        print(
            f"{name:>10}: SR {sr[name]:.3f} over {len(group)} episodes "
            f"({won} won), median {median * 1000:.0f} ms/step"
        )
        table.append([name, f"{sr[name]:.3f} ({won}/{len(group)})", round(median * 1000)])
    lost = []
    for local, remote in zip(rows["in-process"], rows["adb"], strict=True):
        if local["success"] != remote["success"]:
            print(
                f"  differs: {local['template']} seed {local['seed']}: in-process "
                f"{local['success']}, adb {remote['success']}"
            )
        if not (local["success"] and remote["success"]):
            lost.append([local["template"], local["seed"], local["success"], remote["success"]])
    gap = abs(sr["in-process"] - sr["adb"])
    (out / "parity.json").write_text(json.dumps({"sr": sr, "gap": gap, "rows": rows}, indent=1))
    print(f"gap {gap:.3f} (tolerance {TOLERANCE}): {'ok' if gap <= TOLERANCE else 'FAIL'}")
    bench.figure("sr_in_process", round(sr["in-process"], 3))
    bench.figure("sr_adb", round(sr["adb"], 3))
    bench.figure("gap", round(gap, 3))
    bench.table(
        f"Graph team, seen templates on new seeds; gap {gap:.3f} (tolerance {TOLERANCE})",
        ["world", "SR", "median ms per step"],
        table,
    )
    if lost:
        bench.table("Cases lost", ["template", "seed", "in-process", "over ADB"], lost)
    bench.save()
    if gap > TOLERANCE:
        sys.exit(1)


if __name__ == "__main__":
    main()
