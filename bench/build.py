"""Build throughput, peak memory and top-4 retrieval latency of the workflow-graph KB.

    python bench/build.py [--logs LOGS_DIR] [--steps 1000 10000 100000] [--ignore-ui]
                          [--retrieval-nodes 100000]

LOGS_DIR is a GUIOdyssey-layout folder (by default the demo's SimPhone logs, recorded once);
its episodes are replicated under new ids until each target step count is reached, so the
build does the real work (reading JSON and PNGs, judging, matching, writing SQLite) at every
size. Each size runs in its own process so its peak RSS is its own. Retrieval is measured on
a state index filled with ``--retrieval-nodes`` synthetic exemplars (one per node).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import benchrun

if TYPE_CHECKING:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.types import Episode

DEFAULT_LOGS = Path("runs/bench-logs-300-s11")


def replicated_sources(
    logs: Path, steps: int, elements: bool = True
) -> Iterator[tuple[str, Callable[[], object]]]:
    """Episodes of the logs' train part, then again under new ids, until ``steps`` steps."""
    from guigraph.data.odyssey import OdysseyDataset

    dataset = OdysseyDataset(logs)
    ids = dataset.episode_ids(split="random", part="train")
    lengths = {
        i: len(json.loads((dataset.annotations / f"{i}.json").read_text())["steps"]) for i in ids
    }
    total, copy = 0, 0
    while True:
        for episode_id in ids:
            if total >= steps:
                return
            total += lengths[episode_id]
            new_id = episode_id if copy == 0 else f"{episode_id}-r{copy}"
            yield new_id, partial(_renamed, dataset, episode_id, new_id, elements)
        copy += 1


def _renamed(dataset: OdysseyDataset, episode_id: str, new_id: str, elements: bool) -> Episode:
    """Episode ``episode_id`` of the logs, under the id ``new_id``."""
    return replace(dataset.load(episode_id, elements=elements), episode_id=new_id)


def build_once(logs: Path, steps: int, ignore_ui: bool) -> dict[str, float]:
    from guigraph.graph.build import GraphBuilder
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.settings import KBSettings

    with tempfile.TemporaryDirectory() as folder:
        kb = KnowledgeBase.create(Path(folder) / "kb", KBSettings(use_ui=not ignore_ui))
        _warm_up(kb)  # one-time imports (faiss, scikit-learn) are start-up, not throughput
        started, cpu_started = time.perf_counter(), time.process_time()
        sources = replicated_sources(logs, steps, elements=not ignore_ui)
        summary = GraphBuilder(kb).build(sources)  # type: ignore[arg-type]
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        stats = kb.stats()
        size = sum(p.stat().st_size for p in (Path(folder) / "kb").iterdir())
        kb.close()
    return {
        "steps": summary.steps,
        "episodes": summary.added,
        "skipped": len(summary.skipped),
        "seconds": round(seconds, 2),
        "steps_per_s": round(summary.steps / seconds, 1),
        # CPU time of this process: what one core delivers when others share the machine.
        "steps_per_cpu_s": round(summary.steps / cpu, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "nodes": stats["nodes"],
        "edges": stats["edges"],
        "kb_mb": round(size / 2**20, 2),
    }


def _warm_up(kb: object) -> None:
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.matcher import structure_vectors

    assert isinstance(kb, KnowledgeBase)
    kb.encoder.encode(["warm up"])
    structure_vectors([["warm"]], kb.encoder.dim)
    _ = kb.state_index


def retrieval(nodes: int, queries: int = 1000, seed: int = 0) -> dict[str, float]:
    """Mean and p95 milliseconds of one top-4 search among ``nodes`` exemplars."""
    import numpy as np

    from guigraph.graph.matcher import StateDescriptor, StateIndex
    from guigraph.graph.screen import VISUAL_DIM

    rng = np.random.default_rng(seed)
    text_dim = 256

    def unit(n: int, d: int) -> np.ndarray:
        v = rng.standard_normal((n, d)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    texts, visuals = unit(nodes, text_dim), unit(nodes, VISUAL_DIM)
    index = StateIndex(text_dim, 0.5)
    started = time.perf_counter()
    for i in range(nodes):
        index.add(i, StateDescriptor("x", texts[i], visuals[i]))
    fill = time.perf_counter() - started
    picks = rng.integers(0, nodes, queries)
    noisy_t = texts[picks] + 0.3 * unit(queries, text_dim) / np.sqrt(text_dim) * 4
    noisy_v = visuals[picks] + 0.3 * unit(queries, VISUAL_DIM) / np.sqrt(VISUAL_DIM) * 4
    times, hits = [], 0
    for q in range(queries):
        t = noisy_t[q] / np.linalg.norm(noisy_t[q])
        v = noisy_v[q] / np.linalg.norm(noisy_v[q])
        descriptor = StateDescriptor("x", t.astype(np.float32), v.astype(np.float32))
        begin = time.perf_counter()
        found = index.search(descriptor, 4)
        times.append(time.perf_counter() - begin)
        hits += bool(found) and found[0].node_id == picks[q]
    ms = np.array(times) * 1000
    return {
        "nodes": nodes,
        "fill_seconds": round(fill, 1),
        "mean_ms": round(float(ms.mean()), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
        "top1_recall": round(hits / queries, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--logs", type=Path, default=DEFAULT_LOGS,
        help="GUIOdyssey-layout logs folder (default: SimPhone's, recorded there once)",
    )  # fmt: skip
    parser.add_argument("--steps", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--ignore-ui", action="store_true")
    parser.add_argument("--retrieval-nodes", type=int, default=100000)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child process: one size
    args = parser.parse_args()
    if args.one:
        print(json.dumps(build_once(args.logs, args.one, args.ignore_ui)))
        return
    bench = benchrun.start("build-ignore-ui" if args.ignore_ui else "build")
    ensure_logs(args.logs)
    rows = []
    for steps in args.steps:
        command = [sys.executable, __file__, "--logs", str(args.logs), "--one", str(steps)]
        if args.ignore_ui:
            command.append("--ignore-ui")
        out = subprocess.run(command, capture_output=True, text=True, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append([row[k] for k in BUILD_COLUMNS])
        bench.figure(f"steps_per_s.{steps}", row["steps_per_s"])
        print(json.dumps(row), flush=True)
    mode = "screenshots only (--ignore-ui)" if args.ignore_ui else "UI tree"
    bench.table(f"Build from scratch, {mode}, one process per size", list(BUILD_COLUMNS), rows)
    if args.retrieval_nodes:
        found = retrieval(args.retrieval_nodes)
        print(json.dumps(found), flush=True)
        bench.figure("retrieval_mean_ms", found["mean_ms"])
        bench.table(
            "Top-4 retrieval among synthetic exemplars (FAISS HNSW, one thread)",
            list(found), [list(found.values())],
        )  # fmt: skip
    bench.save()


BUILD_COLUMNS = ("steps", "episodes", "seconds", "steps_per_s", "steps_per_cpu_s",
                 "peak_rss_mb", "nodes", "edges", "kb_mb")  # fmt: skip


def ensure_logs(logs: Path) -> None:
    """The demo's SimPhone logs (300 episodes, seed 11, noise 0.1) unless ``logs`` has some."""
    if (logs / "annotations").is_dir():
        return
    from guigraph.envs.simphone.recorder import record

    record(logs, episodes=300, seed=11, noise=0.1)


if __name__ == "__main__":
    main()
