"""Benchmark: model calls and prompt tokens per step of the model-backed team.

    .venv/bin/python bench/team.py                       # 60 recorded episodes, 1 task/template
    .venv/bin/python bench/team.py --episodes 120 --per-template 2

Records SimPhone logs, builds a knowledge base from their train split, then runs new
instances of the seen templates with every ``--policy model|hybrid`` x ``--verify
always|adaptive|never`` against the loopback model server answering as an oracle (the expert's
rollout, looked up from the request: see tests/agents/oracle.py). Tokens are the server's own
count (words + 4 per message + 256 per image). Targets: hybrid + adaptive <= 2 calls and
<= 3,000 prompt tokens per step, SR not lower than model + always.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' oracle

from tests.agents.oracle import Oracle

import benchrun
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.model_team import ModelTeamOptions, model_team
from guigraph.choices import Policy, Verify
from guigraph.compiler.index import GraphView
from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.recorder import record
from guigraph.envs.simphone.tasks import make_task
from guigraph.graph.build import GraphBuilder
from guigraph.graph.kb import KnowledgeBase
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.testing import FakeModelServer

CONFIGS = [(p, v) for p in ("model", "hybrid") for v in ("always", "adaptive", "never")]


def build_kb(root: Path, episodes: int, seed: int) -> tuple[KnowledgeBase, list[str]]:
    record(root / "logs", episodes=episodes, seed=seed)
    dataset = OdysseyDataset(root / "logs")
    ids = dataset.episode_ids(split="random", part="train")
    kb = KnowledgeBase.create(root / "kb")
    with kb:
        GraphBuilder(kb).build([(i, partial(dataset.load, i)) for i in ids])
    templates = sorted(set(_train_templates(root / "logs", ids)))
    return KnowledgeBase.open(root / "kb"), templates


def _train_templates(logs: Path, train_ids: list[str]) -> list[str]:
    manifest = json.loads((logs / "simphone.json").read_text())
    train = set(train_ids)
    return [e["task"]["template_id"] for e in manifest["episodes"] if e["episode_id"] in train]


def run_config(
    server: FakeModelServer,
    kb: KnowledgeBase,
    view: GraphView,
    tasks: list[tuple[str, int]],
    policy: str,
    verify: str,
) -> dict[str, float]:
    successes = steps = calls = prompt = 0
    for template_id, seed in tasks:
        before = len(server.reported_usage)
        config = ModelConfig(model="test-model", base_url=server.base_url, max_attempts=1)
        with ModelHub(RoleModels(default=config)) as hub:
            options = ModelTeamOptions(policy=Policy(policy), verify=Verify(verify))
            team = model_team(kb, view, hub, options)
            env = SimPhone()
            result = run_episode(env, team, make_task(template_id, seed), seed, Budget(30))
            successes += env.task_succeeded()
        steps += len(result.steps)
        usage = server.reported_usage[before:]
        calls += len(usage)
        prompt += sum(p for p, _ in usage)
    return {
        "sr": successes / len(tasks),
        "steps": steps / len(tasks),
        "calls_per_step": calls / steps,
        "prompt_per_step": prompt / steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=60, help="recorded episodes for the KB")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--per-template", type=int, default=1, help="new tasks per template")
    args = parser.parse_args()
    bench = benchrun.start("team")
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        kb, templates = build_kb(Path(tmp), args.episodes, args.seed)
        view = GraphView.load(kb)
        tasks = [(t, 9000 + k) for t in templates for k in range(args.per_template)]
        oracle = Oracle(tasks)
        print(f"KB from {args.episodes} episodes; {len(tasks)} tasks of {len(templates)} seen "
              f"templates ({time.perf_counter() - started:.0f} s to set up)")  # fmt: skip
        print("| policy | verify | SR | steps/episode | model calls/step | prompt tokens/step |")
        print("| --- | --- | --- | --- | --- | --- |")
        with FakeModelServer(oracle) as server:
            for policy, verify in CONFIGS:
                row = run_config(server, kb, view, tasks, policy, verify)
                rows.append(
                    [policy, verify, round(row["sr"], 3), round(row["steps"], 1),
                     round(row["calls_per_step"], 2), round(row["prompt_per_step"])]
                )  # fmt: skip
                bench.figure(f"{policy}.{verify}.calls_per_step", round(row["calls_per_step"], 2))
                bench.figure(f"{policy}.{verify}.prompt_per_step", round(row["prompt_per_step"]))
                print(f"| {policy} | {verify} | {row['sr']:.1%} | {row['steps']:.1f} | "
                      f"{row['calls_per_step']:.2f} | {row['prompt_per_step']:.0f} |",
                      flush=True)  # fmt: skip
        kb.close()
    print(f"total {time.perf_counter() - started:.0f} s")
    bench.table(
        f"{len(tasks)} new tasks of {len(templates)} seen templates, KB from {args.episodes} "
        f"episodes (seed {args.seed}); the loopback oracle answers every role",
        ["policy", "verify", "SR", "steps/episode", "model calls/step", "prompt tokens/step"],
        rows,
    )
    bench.save()


if __name__ == "__main__":
    main()
