"""Benchmark: the agent loop's own cost per step at a 100k-node knowledge base.

    .venv/bin/python bench/loop.py                       # 100,000 nodes, 30 episodes
    .venv/bin/python bench/loop.py --nodes 20000 --episodes 10 --workdir /tmp/loopbench

Framework overhead = everything an episode spends outside the environment (retrieval,
context building, planning, localization on the graph, the decision, verification, the
narrative, bookkeeping), i.e. the episode's wall time minus the time inside ``env.reset`` and
``env.step``, divided by its steps (wall time, and this process's CPU time, which other jobs
on a shared machine disturb less). The target is a median <= 10 ms per step.

The big KB is grown cheaply from a real one: SimPhone logs are recorded and built with
``guigraph build``'s code, then every screen is copied with a perturbed description and
perturbed exemplar vectors (cosine ~0.85 to the original, so the real screen stays the best
match) and every transition is copied between the copies, through the KB's own tables; each
copy's home screen is linked to the previous copy's, so the graph is one component with the
degree of the real one (no artificial hub). Traces are copied too, up to ``--traces``
(instructions marked as copies). The state index is then rebuilt by the KB itself from
SQLite. Episodes are fresh model-free graph teams on new seeds of recorded templates.

``--faiss-threads 1`` shows what FAISS's OpenMP threads cost on a small, busy machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import benchrun
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.choices import Memory
from guigraph.compiler.index import GraphView
from guigraph.envs.base import Env, StepResult
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.recorder import record
from guigraph.envs.simphone.tasks import TEMPLATES, make_task
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.kb_writer import EdgeRow, NodeRow, TraceRow
from guigraph.types import Action, Observation, Task

HOME_APPS = ("Home", "", None)
PRESS_HOME = {"type": "press_home", "hint": "Go to the home screen"}
VECTOR_NOISE = 0.6  # relative norm of the noise added to a copied exemplar (cosine ~0.85)
EVAL_SEED = 800_000_000


class TimedEnv(Env):
    """Time spent inside the environment (wall and CPU): the rest is the framework's."""

    def __init__(self, env: SimPhone):
        self.env = env
        self.action_space = env.action_space
        self.seconds = 0.0  # wall
        self.cpu = 0.0  # this process's CPU (all threads)

    def reset(self, task: Task, seed: int) -> Observation:
        return self._timed(lambda: self.env.reset(task, seed))

    def step(self, action: Action) -> StepResult:
        return self._timed(lambda: self.env.step(action))

    def _timed(self, call: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return call()
        finally:
            self.seconds += time.perf_counter() - wall
            self.cpu += time.process_time() - cpu

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
    """Copy the KB's screens and transitions until it has ``target_nodes`` nodes."""
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
    homes = [row[0] for row in nodes if row[1] in HOME_APPS]
    press_home = next(r for r in edges if json.loads(r[4]) == [PRESS_HOME])
    copies = math.ceil((target_nodes - len(nodes)) / len(nodes))
    next_node = max(row[0] for row in nodes) + 1
    next_edge = max(row[0] for row in edges) + 1
    n_traces = len(traces)
    previous_home = homes[0]
    for copy in range(1, copies + 1):
        node_map: dict[int, int] = {}
        for row in nodes:
            node_map[row[0]], next_node = next_node, next_node + 1
        edge_map: dict[int, int] = {}
        with kb.transaction() as writer:
            for node_id, app, description, state_text, *rest in nodes:
                elements, screenshot_path, visits, first_episode = rest
                copied = NodeRow(
                    app, f"{description} (copy {copy})", f"{state_text} copy{copy}", elements,
                    screenshot_path, None, first_episode, visits,
                )  # fmt: skip
                writer.add_node(copied, node_id=node_map[node_id])
            for node_id, app, vector in exemplars:
                moved = _perturb(np.frombuffer(vector, np.float32), rng)
                writer.add_exemplar(node_map[node_id], app, moved)
            for r in edges:
                edge_map[r[0]], next_edge = next_edge, next_edge + 1
                writer.add_edge(_edge_row(node_map[r[1]], node_map[r[2]], r), edge_map[r[0]])
            # Home of this copy <-> home of the previous one: one connected graph, no mega hub.
            home = node_map[homes[0]]
            for source, target in ((previous_home, home), (home, previous_home)):
                writer.add_edge(_edge_row(source, target, press_home), next_edge)
                next_edge += 1
            previous_home = home
            if n_traces < max_traces:
                chosen = traces[: max_traces - n_traces]
                for r in chosen:
                    writer.add_trace(_copied_trace(r, copy, node_map, edge_map))
                n_traces += len(chosen)


def _perturb(vector: np.ndarray, rng: np.random.Generator) -> bytes:
    norm = float(np.linalg.norm(vector))
    noise = rng.normal(0.0, VECTOR_NOISE * norm / math.sqrt(vector.size), vector.size)
    moved = vector + noise.astype(np.float32)
    return (moved * (norm / float(np.linalg.norm(moved)))).astype(np.float32).tobytes()


def _edge_row(source: int, target: int, row: tuple[Any, ...]) -> EdgeRow:
    """The edge of ``row`` (as selected above) between two other nodes."""
    signature, actions, slots, target_label, count, episodes = row[3:]
    return EdgeRow(
        source, target, signature, actions, slots, target_label, json.loads(episodes), count
    )


def _copied_trace(
    row: tuple[Any, ...], copy: int, node_map: dict[int, int], edge_map: dict[int, int]
) -> TraceRow:
    episode_id, instruction, category, apps, node_path, edge_path, steps, tail, values = row
    slot_values = {
        (f"{edge_map[int(k.split(':')[0])]}:{k.split(':', 1)[1]}" if k[0].isdigit() else k): v
        for k, v in json.loads(values).items()
    }
    return TraceRow(
        f"{episode_id}c{copy}",
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
    without_retrieval: list[float] = []
    planning: list[float] = []
    per_step_only: list[float] = []  # neither retrieval nor the plan: the loop's own steps
    per_step_cpu: list[float] = []
    steps_total, successes = 0, 0
    for i in range(episodes):
        template = templates[i % len(templates)]
        seed = EVAL_SEED + i
        env = TimedEnv(SimPhone())
        team = rule_team(kb, view, TeamOptions(memory=Memory.GRAPH))
        contexts: list[float] = []
        locates: list[float] = []
        plans: list[float] = []
        team.context = timed(team.context, contexts)
        setattr(team.planner, "plan", timed(team.planner.plan, plans))  # noqa: B010
        assert team.locate is not None
        team.locate = timed(team.locate, locates)
        task = make_task(template, seed)
        cpu = time.process_time()
        result = run_episode(env, team, task, seed=seed, budget=Budget(max_steps=max_steps))
        cpu = time.process_time() - cpu
        successes += env.env.task_succeeded()
        env.close()
        n = max(1, len(result.steps))
        steps_total += len(result.steps)
        per_step.append((result.seconds - env.seconds) / n)
        without_retrieval.append((result.seconds - env.seconds - sum(contexts)) / n)
        per_step_cpu.append((cpu - env.cpu) / n)
        retrieval.append(sum(contexts))
        planning.append(sum(plans))
        per_step_only.append((result.seconds - env.seconds - sum(contexts) - sum(plans)) / n)
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
            "p90": round(1000 * float(np.percentile(per_step, 90)), 2),
        },
        "overhead_cpu_per_step_ms": ms(per_step_cpu),
        "overhead_per_step_without_retrieval_ms": ms(without_retrieval),
        "overhead_per_step_without_retrieval_and_planning_ms": ms(per_step_only),
        "retrieval_per_episode_ms": ms(retrieval),
        "retrieval_per_step_ms": round(1000 * sum(retrieval) / max(1, steps_total), 2),
        "planning_per_episode_ms": ms(planning),
        "planning_per_step_ms": round(1000 * sum(planning) / max(1, steps_total), 2),
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
    parser.add_argument("--faiss-threads", type=int, default=0, help="0: FAISS's default")
    args = parser.parse_args()
    if args.faiss_threads:
        import faiss

        faiss.omp_set_num_threads(args.faiss_threads)
    args.workdir.mkdir(parents=True, exist_ok=True)
    run = benchrun.start("loop")
    started = time.perf_counter()
    base = base_kb(args.workdir, args.log_episodes)
    big = big_kb(args.workdir, base, args.nodes, args.traces)
    print(f"KBs ready in {time.perf_counter() - started:.1f} s: {base} and {big}", flush=True)
    measured = {}
    for label, path in (("base", base), ("big", big)):
        figures = measure(path, args.episodes, args.max_steps)
        measured[label] = figures
        load = round(os.getloadavg()[0], 1)
        print(
            json.dumps({"kb": label, "faiss_threads": args.faiss_threads, "load": load, **figures}),
            flush=True,
        )
    put_figures(run, measured["base"], measured["big"])
    run.save()


#: (row label, key of measure()'s figures; "a.b" reads a nested figure)
ROWS = (
    ("overhead per step, wall (median)", "overhead_per_step_ms.median"),
    ("overhead per step, wall (p90)", "overhead_per_step_ms.p90"),
    ("overhead per step, CPU of the process (median)", "overhead_cpu_per_step_ms"),
    ("without retrieval", "overhead_per_step_without_retrieval_ms"),
    ("without retrieval and the plan", "overhead_per_step_without_retrieval_and_planning_ms"),
    ("retrieval, per episode", "retrieval_per_episode_ms"),
    ("the plan, per episode", "planning_per_episode_ms"),
    ("localization, per call", "localization_per_call_ms"),
    ("verified decision, per step", "decision_per_step_ms"),
    ("reflection, per step", "reflection_per_step_ms"),
    ("environment, per step (for scale)", "env_per_step_ms"),
)


def _read(figures: dict[str, Any], key: str) -> Any:
    value: Any = figures
    for part in key.split("."):
        value = value[part]
    return value


def put_figures(run: benchrun.BenchRun, base: dict[str, Any], big: dict[str, Any]) -> None:
    run.figure("overhead_ms_median", big["overhead_per_step_ms"]["median"])
    run.figure("overhead_cpu_ms_median", big["overhead_cpu_per_step_ms"])
    run.figure("overhead_ms_median_base", base["overhead_per_step_ms"]["median"])
    run.figure("nodes", big["nodes"])
    columns = [f"{kb['nodes']:,} nodes" for kb in (base, big)]
    run.table(
        "Milliseconds (medians over episodes unless marked)",
        ["", *columns],
        [[label, _read(base, key), _read(big, key)] for label, key in ROWS],
    )
    run.table(
        "The knowledge bases and episodes",
        ["", *columns],
        [[what, base[key], big[key]] for what, key in (
            ("edges", "edges"), ("traces", "traces"), ("episodes", "episodes"),
            ("steps", "steps"), ("successes", "successes"))],
    )  # fmt: skip


if __name__ == "__main__":
    main()
