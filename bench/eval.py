"""Benchmark: `guigraph eval odyssey` at scale against a model server with 1 s per call.

    .venv/bin/python bench/eval.py                         # 500 episodes, concurrency 64, local
    .venv/bin/python bench/eval.py --executor ray          # the same on a local Ray
    .venv/bin/python bench/eval.py --episodes 100 --concurrency 16 --latency 0.5

Records SimPhone logs (300 episodes, seed 11, noise 0.1) and builds the KB from their train
split unless ``--workdir`` has them, then makes a test set of ``--episodes`` episodes by
replaying the 60 recorded test episodes under new ids (their screenshots shared), and runs
``guigraph eval odyssey`` as a subprocess against the loopback model server in its own
process, answering every role from the recordings (tests/eval/replay_oracle.py) after
``--latency`` seconds. The ideal wall time is what a zero-overhead evaluator would need with
the calls the run made: ``max(calls × latency / concurrency, the longest episode's calls ×
latency)``; the ratio of the measured wall time to it is the evaluator's overhead.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import benchrun

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' oracle


def ensure_logs(workdir: Path) -> tuple[Path, Path]:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.envs.simphone.recorder import record
    from guigraph.graph.build import GraphBuilder
    from guigraph.graph.kb import KnowledgeBase

    logs, kb = workdir / "logs", workdir / "kb"
    if not (logs / "simphone.json").exists():
        shutil.rmtree(logs, ignore_errors=True)
        record(logs, episodes=300, seed=11, noise=0.1)
    if not kb.exists():
        dataset = OdysseyDataset(logs)
        ids = dataset.episode_ids(split="random", part="train")
        with KnowledgeBase.create(kb) as knowledge:
            GraphBuilder(knowledge).build([(i, partial(dataset.load, i)) for i in ids])
    return logs, kb


def replicate(logs: Path, out: Path, episodes: int) -> list[str]:
    """``episodes`` test episodes: copies of the logs' test episodes under new ids."""
    from guigraph.data.odyssey import OdysseyDataset

    test = OdysseyDataset(logs).episode_ids(split="random", part="test")
    shutil.rmtree(out, ignore_errors=True)
    (out / "annotations").mkdir(parents=True)
    (out / "splits").mkdir()
    (out / "screenshots").symlink_to((logs / "screenshots").resolve())
    ids = []
    for n in range(episodes):
        source = test[n % len(test)]
        document = json.loads((logs / "annotations" / f"{source}.json").read_text())
        new_id = f"9{n:06d}{source[-9:]}"
        document["episode_id"] = new_id
        (out / "annotations" / f"{new_id}.json").write_text(json.dumps(document))
        ids.append(new_id)
    split = {"train": [], "test": [f"{i}.json" for i in ids]}
    (out / "splits" / "random_split.json").write_text(json.dumps(split))
    return ids


def serve(logs: Path, latency: float) -> None:
    """The oracle server (``--serve``): prints its base URL, serves until stdin closes."""
    from tests.eval.replay_oracle import replay_oracle

    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.testing import FakeModelServer

    dataset = OdysseyDataset(logs)
    oracle = replay_oracle(dataset, dataset.episode_ids(split="random", part="test"))
    with FakeModelServer(oracle, models=("oracle",), latency_s=latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def run(args: argparse.Namespace, bench_logs: Path, kb: Path, executor: str) -> dict[str, Any]:
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(bench_logs), "--latency", str(args.latency)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    base_url = server.stdout.readline().strip()
    out = args.workdir / f"run-{executor}"
    shutil.rmtree(out, ignore_errors=True)
    command = [
        str(Path(sys.executable).with_name("guigraph")), "eval", "odyssey", str(bench_logs),
        "--kb", str(kb), "--out", str(out), "--policy", args.policy, "--verify", args.verify,
        "--model", "oracle", "--base-url", base_url, "--concurrency", str(args.concurrency),
        "--executor", executor,
    ]  # fmt: skip
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    started = time.perf_counter()
    try:
        subprocess.run(command, check=True, env=env)
    finally:
        wall = time.perf_counter() - started
        server.stdin.close()
        server.wait(timeout=30)
    summary = json.loads((out / "summary.json").read_text())
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    calls = summary["usage"]["calls"]
    longest = max(e["calls"] for e in episodes)
    ideal = max(calls * args.latency / args.concurrency, longest * args.latency)
    return {
        "executor": executor,
        "episodes": summary["episodes"],
        "steps": summary["steps"],
        "calls": calls,
        "calls_per_step": round(calls / summary["steps"], 3),
        "longest_episode_calls": longest,
        "ideal_s": round(ideal, 1),
        "wall_s": round(wall, 1),
        "run_wall_s": summary["wall_seconds"],
        "ratio": round(wall / ideal, 3),
        "ams": summary["ams"],
        "sr": summary["sr"],
        "faults": summary["faults"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/evalbench"))
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--policy", default="model")
    parser.add_argument("--verify", default="always")
    parser.add_argument("--executor", choices=("local", "ray", "both"), default="local")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.latency)
        return
    bench = benchrun.start("eval")
    args.workdir.mkdir(parents=True, exist_ok=True)
    logs, kb = ensure_logs(args.workdir)
    bench_logs = args.workdir / f"bench-logs-{args.episodes}"
    replicate(logs, bench_logs, args.episodes)
    executors = ("local", "ray") if args.executor == "both" else (args.executor,)
    rows = []
    for executor in executors:
        load = os.getloadavg()[0]
        result = {**run(args, bench_logs, kb, executor), "load_before": round(load, 2)}
        result["load_after"] = round(os.getloadavg()[0], 2)
        print(json.dumps(result), flush=True)
        rows.append([executor, result["episodes"], result["steps"], result["calls"],
                     result["ideal_s"], result["wall_s"], result["ratio"], result["ams"],
                     result["sr"], result["load_before"]])  # fmt: skip
        bench.figure(f"{executor}.ratio", result["ratio"])
    bench.table(
        f"`guigraph eval odyssey`, --policy {args.policy} --verify {args.verify}, concurrency "
        f"{args.concurrency}, the loopback oracle answering after {args.latency} s",
        ["executor", "episodes", "steps", "model calls", "ideal (s)", "wall (s)",
         "ratio to ideal", "AMS", "SR", "load before"],
        rows,
    )  # fmt: skip
    bench.save()


if __name__ == "__main__":
    main()
