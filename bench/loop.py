"""Benchmark: the agent loop's own cost per step at a 100k-node knowledge base.

    .venv/bin/python bench/loop.py                       # 100,000 nodes, 30 episodes
    .venv/bin/python bench/loop.py --nodes 20000 --episodes 10 --workdir /tmp/loopbench

Framework overhead = everything an episode spends outside the environment (retrieval,
context building, planning, localization on the graph, the decision, verification, the
narrative, bookkeeping), i.e. the episode's wall time minus the time inside ``env.reset`` and
``env.step``, divided by its steps. The target is a median <= 10 ms per step.

The big KB is grown cheaply from a real one: SimPhone logs are recorded and built with
``guigraph build``'s code, then every non-home screen is copied with a perturbed description
and perturbed exemplar vectors (cosine ~0.85 to the original, so the real screen stays the
best match) and every transition is copied between the copies, through the KB's own tables;
the home screen stays shared, so the graph is one component with a busy hub, as a real
graph of many apps is. The state index is then rebuilt by the KB itself from SQLite.
Episodes are fresh model-free graph teams on new seeds of recorded templates.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from guigraph.agents.graph_policy import GraphView
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.envs.base import Env, StepResult
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.recorder import record
from guigraph.envs.simphone.tasks import TEMPLATES, make_task
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase
from guigraph.types import Action, Observation, Task

HOME_APPS = ("Home", "", None)
VECTOR_NOISE = 0.6  # relative norm of the noise added to a copied exemplar (cosine ~0.85)
EVAL_SEED = 800_000_000


class TimedEnv(Env):
    """Counts the time spent inside the environment, so that the rest is the framework's."""

    def __init__(self, env: SimPhone):
        self.env = env
        self.action_space = env.action_space
        self.seconds = 0.0

    def reset(self, task: Task, seed: int) -> Observation:
        started = time.perf_counter()
        try:
            return self.env.reset(task, seed)
        finally:
            self.seconds += time.perf_counter() - started

    def step(self, action: Action) -> StepResult:
        started = time.perf_counter()
        try:
            return self.env.step(action)
        finally:
            self.seconds += time.perf_counter() - started

    def close(self) -> None:
        self.env.close()


def timed(function: Callable[..., Any], sink: list[float]) -> Callable[..., Any]:
    def wrapper(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args)
        finally:
            sink.append(time.perf_counter() - started)

    return wrapper


# -- growing the KB ---------------------------------------------------------------------------
def base_kb(workdir: Path, episodes: int) -> Path:
    logs, kb = workdir / "logs", workdir / "base_kb"
    if not (logs / "simphone.json").is_file():
        shutil.rmtree(logs, ignore_errors=True)
        record(logs, episodes, seed=5, noise=0.1)
    build_from_logs(logs, kb)
    return kb


def grow(kb: KnowledgeBase, target_nodes: int, max_traces: int, seed: int = 0) -> None:
    """Copy the KB's non-home screens (and their transitions) until it has ``target_nodes``."""
    rng = np.random.default_rng(seed)
    conn = kb.conn
    nodes = conn.execute(
        "SELECT node_id, app, description, state_text, elements, screenshot_path, visits,"
        " first_episode FROM nodes ORDER BY node_id"
    ).fetchall()
    exemplars = conn.execute("SELECT node_id, app, vector FROM exemplars").fetchall()
    edges = conn.execute(
        "SELECT edge_id, source, target, signature, actions, slots, target_label, count,"
        " episodes FROM edges ORDER BY edge_id"
    ).fetchall()
    traces = conn.execute(
        "SELECT episode_id, instruction, category, apps, node_path, edge_path, steps, tail,"
        " slot_values FROM traces ORDER BY seq"
    ).fetchall()
    shared = {row[0] for row in nodes if row[1] in HOME_APPS}
    copies = math.ceil((target_nodes - len(nodes)) / (len(nodes) - len(shared)))
    next_node = max(row[0] for row in nodes) + 1
    next_edge = max(row[0] for row in edges) + 1
    n_traces = len(traces)
    for copy in range(1, copies + 1):
        node_map = {n: n for n in shared}
        for row in nodes:
            if row[0] not in shared:
                node_map[row[0]], next_node = next_node, next_node + 1
        edge_map: dict[int, int] = {}
        with kb.transaction() as tx:
            tx.executemany(
                "INSERT INTO nodes (node_id, app, description, state_text, elements,"
                " screenshot_path, thumbnail, visits, first_episode) VALUES (?,?,?,?,?,?,NULL,?,?)",
                [
                    (node_map[r[0]], r[1], f"{r[2]} (copy {copy})", f"{r[3]} copy{copy}", *r[4:])
                    for r in nodes
                    if r[0] not in shared
                ],
            )
            tx.executemany(
                "INSERT INTO exemplars (node_id, app, vector) VALUES (?, ?, ?)",
                [
                    (node_map[r[0]], r[1], _perturb(np.frombuffer(r[2], np.float32), rng))
                    for r in exemplars
                    if r[0] not in shared
                ],
            )
            rows = []
            for r in edges:
                if r[1] in shared and r[2] in shared:
                    edge_map[r[0]] = r[0]  # home to home: the one shared transition
                    continue
                edge_map[r[0]], next_edge = next_edge, next_edge + 1
                rows.append((edge_map[r[0]], node_map[r[1]], node_map[r[2]], *r[3:]))
            tx.executemany("INSERT INTO edges VALUES (?,?,?,?,?,?,?,?,?)", rows)
            if n_traces < max_traces:
                chosen = traces[: max_traces - n_traces]
                tx.executemany(
                    "INSERT INTO traces VALUES (?,?,?,?,?,?,?,?,?,?)",
                    [
                        _copied_trace(r, copy, n_traces + i, node_map, edge_map)
                        for i, r in enumerate(chosen)
                    ],
                )
                n_traces += len(chosen)


def _perturb(vector: np.ndarray, rng: np.random.Generator) -> bytes:
    norm = float(np.linalg.norm(vector))
    noise = rng.normal(0.0, VECTOR_NOISE * norm / math.sqrt(vector.size), vector.size)
    moved = vector + noise.astype(np.float32)
    return (moved * (norm / float(np.linalg.norm(moved)))).astype(np.float32).tobytes()


def _copied_trace(
    row: tuple[Any, ...], copy: int, seq: int, node_map: dict[int, int], edge_map: dict[int, int]
) -> tuple[Any, ...]:
    episode_id, instruction, category, apps, node_path, edge_path, steps, tail, values = row
    slot_values = {
        (f"{edge_map[int(k.split(':')[0])]}:{k.split(':', 1)[1]}" if k[0].isdigit() else k): v
        for k, v in json.loads(values).items()
    }
    return (
        f"{episode_id}c{copy}",
        seq,
        f"{instruction} (copy {copy})",
        category,
        apps,
        json.dumps([node_map[n] for n in json.loads(node_path)]),
        json.dumps([edge_map[e] for e in json.loads(edge_path)]),
        steps,
        tail,
        json.dumps(slot_values),
    )


def big_kb(workdir: Path, base: Path, nodes: int, traces: int) -> Path:
    path = workdir / f"kb_{nodes}"
    if path.exists():
        with KnowledgeBase.open(path) as kb:
            if kb.stats()["nodes"] >= nodes:
                return path
        shutil.rmtree(path)
    shutil.copytree(base, path)
    (path / "states.faiss").unlink(missing_ok=True)
    with KnowledgeBase.open(path) as kb:
        grow(kb, nodes, traces)
    return path


# -- measuring --------------------------------------------------------------------------------
def measure(kb_path: Path, episodes: int, max_steps: int) -> dict[str, Any]:
    setup: dict[str, float] = {}
    started = time.perf_counter()
    kb = KnowledgeBase.open(kb_path)
    _ = kb.state_index  # rebuilt from SQLite (and cached) the first time
    kb.save_indexes()
    setup["state_index_s"] = time.perf_counter() - started
    started = time.perf_counter()
    view = GraphView.load(kb)
    setup["graph_view_s"] = time.perf_counter() - started
    started = time.perf_counter()
    kb.search_traces("warm up the trace index", 1)
    setup["trace_index_s"] = time.perf_counter() - started
    templates = list(TEMPLATES)
    per_step, retrieval, locate, decide, reflect, env_step = [], [], [], [], [], []
    steps_total, successes = 0, 0
    for i in range(episodes):
        template = templates[i % len(templates)]
        seed = EVAL_SEED + i
        env = TimedEnv(SimPhone())
        team = rule_team(kb, view, TeamOptions(memory="graph"))
        contexts: list[float] = []
        locates: list[float] = []
        team.context = timed(team.context, contexts)
        assert team.locate is not None
        team.locate = timed(team.locate, locates)
        task = make_task(template, seed)
        result = run_episode(env, team, task, seed=seed, budget=Budget(max_steps=max_steps))
        successes += env.env.task_succeeded()
        env.close()
        n = max(1, len(result.steps))
        steps_total += len(result.steps)
        per_step.append((result.seconds - env.seconds) / n)
        retrieval.append(sum(contexts))
        locate.extend(locates)
        env_step.append(env.seconds / n)
        for step in result.steps:
            if step.timings:
                decide.append(step.timings["plan"] + step.timings["decide"])
                reflect.append(step.timings["reflect"])
    stats = kb.stats()
    kb.close()
    ms = lambda values: round(1000 * statistics.median(values), 2)  # noqa: E731
    return {
        "nodes": stats["nodes"],
        "edges": stats["edges"],
        "traces": stats["traces"],
        "episodes": episodes,
        "steps": steps_total,
        "successes": successes,
        "overhead_per_step_ms": {
            "median": ms(per_step),
            "p90": round(1000 * sorted(per_step)[int(0.9 * (len(per_step) - 1))], 2),
        },
        "retrieval_per_episode_ms": ms(retrieval),
        "retrieval_per_step_ms": round(1000 * sum(retrieval) / max(1, steps_total), 2),
        "localization_per_call_ms": ms(locate),
        "decision_per_step_ms": ms(decide),
        "reflection_per_step_ms": ms(reflect),
        "env_per_step_ms": ms(env_step),
        "setup_s": {k: round(v, 2) for k, v in setup.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--traces", type=int, default=10_000, help="traces in the big KB")
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--log-episodes", type=int, default=150, help="recorded for the base KB")
    parser.add_argument("--max-steps", type=int, default=40)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/guigraph-loop-bench"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    base = base_kb(args.workdir, args.log_episodes)
    big = big_kb(args.workdir, base, args.nodes, args.traces)
    print(f"KBs ready in {time.perf_counter() - started:.1f} s: {base} and {big}", flush=True)
    for label, path in (("base", base), ("big", big)):
        figures = measure(path, args.episodes, args.max_steps)
        print(json.dumps({"kb": label, **figures}), flush=True)


if __name__ == "__main__":
    main()
