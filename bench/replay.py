"""Benchmark: teacher-forced replay of a SimPhone recording's test split, per policy.

    .venv/bin/python bench/replay.py                                   # 300 episodes, seed 11
    .venv/bin/python bench/replay.py --logs /tmp/rp300/logs --kb /tmp/rp300/kb3 --limit 20

Records the logs (``guigraph sim record --episodes 300 --seed 11 --noise 0.1``) and builds the
KB from their train split unless given, then replays the test split with ``--policy graph``
and with every ``--policy model|hybrid`` x ``--verify always|adaptive|never`` against the
loopback model server answering as an oracle that knows the recordings
(tests/eval/replay_oracle.py). The model rows therefore measure the team's plumbing and its
model-call economy, not a model: AMS/SR show what the team loses on top of a perfect model.
Tokens are the server's count (words + 4 per message + 256 per image).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' oracle

from tests.eval.replay_oracle import replay_oracle

import benchrun
from guigraph.agents.factory import team_factory
from guigraph.choices import Verify
from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.simphone.recorder import record
from guigraph.eval.metrics import summarize
from guigraph.eval.replay import replay_to_file
from guigraph.eval.steps import read_steps, score_records
from guigraph.graph.build import GraphBuilder
from guigraph.graph.kb import KnowledgeBase
from guigraph.testing import FakeModelServer
from guigraph.types import ODYSSEY_ACTIONS

CONFIGS = [("graph", "always")] + [
    (policy, verify) for policy in ("model", "hybrid") for verify in ("always", "adaptive", "never")
]


def ensure_kb(logs: Path, kb: Path) -> None:
    if not (logs / "annotations").is_dir():
        record(logs, episodes=300, seed=11, noise=0.1)
    if kb.exists():
        return
    dataset = OdysseyDataset(logs)
    ids = dataset.episode_ids(split="random", part="train")
    with KnowledgeBase.create(kb) as knowledge:
        GraphBuilder(knowledge).build([(i, partial(dataset.load, i)) for i in ids])


def run(
    logs: Path, kb: Path, ids: list[str], policy: str, verify: str, server: FakeModelServer
) -> dict[str, float]:
    dataset = OdysseyDataset(logs)
    out = Path(tempfile.mkdtemp()) / f"{policy}_{verify}.jsonl"
    before = len(server.reported_usage)
    started = time.perf_counter()
    with KnowledgeBase.open(kb) as knowledge, ExitStack() as resources:
        make_team, _ = team_factory(
            policy, knowledge, resources, verify=Verify(verify), model="oracle",
            base_url=server.base_url, action_space=ODYSSEY_ACTIONS,
        )  # fmt: skip
        summary = replay_to_file(dataset, ids, make_team, out, kb=knowledge)
    seconds = time.perf_counter() - started
    usage = server.reported_usage[before:]
    scores = summarize(score_records(read_steps(out)), "pooled")
    steps = max(summary.steps, 1)
    return {
        "ams": scores.ams,
        "sr": scores.sr,
        "calls": len(usage) / steps,
        "prompt": sum(p for p, _ in usage) / steps,
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=Path("/tmp/rp300/logs"))
    parser.add_argument("--kb", type=Path, default=Path("/tmp/rp300/kb"))
    parser.add_argument("--limit", type=int, default=None, help="first N test episodes")
    args = parser.parse_args()
    bench = benchrun.start("replay")
    ensure_kb(args.logs, args.kb)
    dataset = OdysseyDataset(args.logs)
    ids = dataset.episode_ids(split="random", part="test")[: args.limit]
    oracle = replay_oracle(dataset, ids)
    steps = sum(len(dataset.load(i).steps) for i in ids)
    print(f"{len(ids)} test episodes, {steps} steps; KB {args.kb}")
    print("| policy | verify | AMS | SR | model calls/step | prompt tokens/step | wall |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    with FakeModelServer(oracle, models=("oracle",)) as server:
        for policy, verify in CONFIGS:
            row = run(args.logs, args.kb, ids, policy, verify, server)
            shown = verify if policy != "graph" else "always (rule)"
            rows.append(
                [policy, shown, round(row["ams"], 2), round(row["sr"], 2),
                 round(row["calls"], 2), round(row["prompt"]), round(row["seconds"])]
            )  # fmt: skip
            bench.figure(f"{policy}.{verify}.ams", round(row["ams"], 2))
            print(
                f"| {policy} | {verify if policy != 'graph' else 'always (rule)'} | "
                f"{row['ams']:.2f} | {row['sr']:.2f} | {row['calls']:.2f} | "
                f"{row['prompt']:.0f} | {row['seconds']:.0f} s |",
                flush=True,
            )
    bench.table(
        f"{len(ids)} test episodes, {steps} steps, teacher-forced; the model rows against the "
        "loopback oracle that knows the recordings",
        ["policy", "verify", "AMS", "SR", "model calls/step", "prompt tokens/step", "wall (s)"],
        rows,
    )
    bench.save()


if __name__ == "__main__":
    main()
