"""The desktop figure: the model-free graph team on the desktop suite's workflows, learned from
a few demonstrations of a person recorded through the person recorder, tried on new values.

    nice -n 10 .venv/bin/python bench/desktop.py                    # 6 demos, 6 new-value seeds
    nice -n 10 .venv/bin/python bench/desktop.py --tasks mousepad/save-note --demos 3 --seeds 2 \
        --part dev --recording-seed 1 --out runs/bench-desktop-dev

For every task of ``envs.desktop.tasks``: ``--demos`` demonstrations (values from the
development half of each pool) by the scripted person of ``envs.desktop.experts`` acting
through XTEST on the world's display while ``DesktopRecorder`` records it, every other one
hesitating (a typo corrected with Backspace, longer pauses); a demonstration the world's
checker rejects is not kept. The knowledge base is built from the kept ones by the code
``guigraph build`` runs; then a fresh model-free team runs each task on ``--seeds`` seeds whose
values come from the held-out half (``<task>@new``: names, texts and numbers no demonstration
showed), with the workflow graph and with the trace baseline. Success is the checker's
reading of the files the applications wrote. The folder (``runs/bench-desktop``) keeps the
recordings, the KB and ``results.jsonl``: a killed run resumes.

``--part dev`` tries other new-value seeds than the reported (frozen) part, for work on the
team; ``--recording-seed N`` records other demonstrations (other values, other hesitations),
to check a change on a second recording.
"""

from __future__ import annotations

import argparse
import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import benchrun
from guigraph.envs.desktop import tasks
from guigraph.envs.desktop.env import DesktopEnv
from guigraph.envs.desktop.experts import Person
from guigraph.envs.desktop.recorder import DesktopRecorder
from guigraph.eval.world_demo import EVAL_SEED_BASE, case_key, run_world_case, summarize

MEMORIES = {"graph": "workflow graph", "trace": "trace baseline"}


#: Where the development part's new-value seeds start (the frozen part's: EVAL_SEED_BASE).
DEV_SEED_BASE = 2_000_000
#: Demonstration seeds of recording seed N start at N * RECORDING_STRIDE.
RECORDING_STRIDE = 100


def demonstrate(env: DesktopEnv, template_id: str, seed: int, folder: Path) -> bool:
    """Record the scripted person doing ``template_id`` on ``seed`` into ``folder``."""
    task = tasks.make(template_id, seed)
    assert task is not None
    recorder = DesktopRecorder(env, "", task.instruction, folder, task=task)
    stop = threading.Event()
    failed: list[BaseException] = []

    def person() -> None:
        try:
            if not recorder.ready.wait(120):
                raise TimeoutError("the recorder did not start")
            session = env.session
            assert session is not None
            actor = Person(
                env.display.name, session.env(), session.bus_address, hesitate=seed % 2 == 1,
                seed=seed,
            )  # fmt: skip
            actor.perform(task)
            time.sleep(1.0)
        except BaseException as exc:  # reported below
            failed.append(exc)
        finally:
            stop.set()

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    try:
        recorder.run(stop)
    except Exception as exc:  # a demonstration that broke off is rejected, never fatal
        failed.append(exc)
        stop.set()
    thread.join(timeout=60)
    verdict = env.evaluate()
    if failed:
        print(f"  demonstration {template_id} seed {seed}: the person failed: {failed[0]}")
    return not failed and verdict is not None and verdict.success


def record(
    env: DesktopEnv, names: list[str], demos: int, out: Path, recording_seed: int = 0
) -> dict[str, int]:
    from guigraph.envs.wrappers import _add_to_train_split

    logs = out / "logs"
    ledger_path = out / "recorded.json"
    ledger: dict[str, bool] = json.loads(ledger_path.read_text()) if ledger_path.is_file() else {}
    for name in names:
        for number in range(demos):
            seed = recording_seed * RECORDING_STRIDE + number
            key = f"{name}|{seed}"
            if key in ledger:
                continue
            folder = out / "demos" / f"{name.replace('/', '_')}-{seed}"
            shutil.rmtree(folder, ignore_errors=True)
            ok = demonstrate(env, name, seed, folder)
            if ok:
                for part in ("annotations", "screenshots"):
                    shutil.copytree(folder / part, logs / part, dirs_exist_ok=True)
                for annotation in (folder / "annotations").glob("*.json"):
                    _add_to_train_split(logs, annotation.stem)
            print(f"  demonstration {name} seed {seed}: {'kept' if ok else 'REJECTED'}")
            ledger[key] = ok
            ledger_path.write_text(json.dumps(ledger, indent=0))
    return {"kept": sum(ledger.values()), "rejected": sum(not v for v in ledger.values())}


def evaluate(
    env: DesktopEnv, names: list[str], seeds: int, memories: list[str], out: Path, steps: int,
    seed_base: int = EVAL_SEED_BASE,
) -> list[dict[str, Any]]:  # fmt: skip
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase

    path = out / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    done = {row["key"] for row in rows}
    with KnowledgeBase.open(out / "kb") as kb, path.open("a") as sink:
        view = GraphView.load(kb)
        for name in names:
            for memory in memories:
                for i in range(seeds):
                    seed = seed_base + i
                    if case_key(name, memory, seed) in done:
                        continue
                    spec = name + tasks.NEW_VALUES
                    row = run_world_case(env, kb, view, spec, memory, seed, steps, name)
                    print(
                        f"  {name} {memory} seed {seed}: {'ok' if row['success'] else 'FAILED'}"
                        f" ({row['steps']} steps, {row['reason']}) {row['error']}"
                    )
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                    rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/bench-desktop"))
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    parser.add_argument("--demos", type=int, default=6, help="demonstrations per task (<= 6)")
    parser.add_argument("--seeds", type=int, default=6, help="new-value episodes per task")
    parser.add_argument("--max-steps", type=int, default=15)
    parser.add_argument("--memories", default="graph,trace")
    parser.add_argument(
        "--part", choices=("frozen", "dev"), default="frozen",
        help="new-value seeds: the reported (frozen) ones or the development ones",
    )  # fmt: skip
    parser.add_argument("--recording-seed", type=int, default=0, help="which demonstrations")
    parser.add_argument(
        "--record-only", action="store_true",
        help="record the demonstrations and stop (a later run resumes with the rest)",
    )  # fmt: skip
    args = parser.parse_args()
    names = [t.strip() for t in args.tasks.split(",") if t.strip()] or sorted(tasks.TEMPLATES)
    for name in names:
        tasks.template(name)
    memories = [m.strip() for m in args.memories.split(",") if m.strip()]
    run = benchrun.start("desktop")
    args.out.mkdir(parents=True, exist_ok=True)
    env = DesktopEnv()
    try:
        print("recording demonstrations ...")
        recorded = record(env, names, min(args.demos, 6), args.out, args.recording_seed)
        if args.record_only:
            print(f"recorded: {recorded}")
            return
        if not (args.out / "kb").is_dir():
            from guigraph.graph.from_logs import build_from_logs

            print("building the knowledge base ...")
            build_from_logs(args.out / "logs", args.out / "kb")
        print("evaluating the team on new values ...")
        base = DEV_SEED_BASE if args.part == "dev" else EVAL_SEED_BASE
        rows = evaluate(env, names, args.seeds, memories, args.out, args.max_steps, base)
    finally:
        env.close()
    summary = summarize(rows, names, memories)
    for memory in memories:
        run.figure(f"{memory}_sr", round(summary["mean_sr"][memory], 3))
    run.figure("demonstrations_kept", recorded["kept"])
    run.table(
        f"Success rate on new values (the checker reads the files written), ≤ {args.demos} "
        "recorded demonstrations per task",
        ["task", *(MEMORIES.get(m, m) for m in memories)],
        [[name, *(_rate(summary["tasks"][name][m]) for m in memories)] for name in names]
        + [["mean", *(round(summary["mean_sr"][m], 2) for m in memories)]],
    )
    run.note(
        f"{recorded['kept']} demonstrations kept, {recorded['rejected']} rejected by the "
        f"checker (recording seed {args.recording_seed}); {args.seeds} new-value episodes per "
        f"task and memory ({args.part} part)"
    )
    run.save()
    print(json.dumps(summary["mean_sr"]))


def _rate(entry: dict[str, Any]) -> str:
    won = round(entry["sr"] * entry["episodes"])
    return f"{entry['sr']:.2f} ({won}/{entry['episodes']})"


if __name__ == "__main__":
    main()
