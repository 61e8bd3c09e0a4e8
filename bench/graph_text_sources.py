"""Build quality when screens have neither a UI tree nor a description: looks alone vs OCR.

    python bench/graph_text_sources.py [--logs LOGS_DIR] [--episodes 60] [--no-ocr]

Descriptions are removed from the logs' train episodes in memory, the graph is built without
the UI tree, and the build is scored against the logs' truth (``kb check``'s metrics).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import benchrun
from build import DEFAULT_LOGS, ensure_logs


def main() -> None:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.graph.build import GraphBuilder
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.settings import KBSettings
    from guigraph.graph.truth import check
    from guigraph.ocr import RapidOcrEngine

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--logs", type=Path, default=DEFAULT_LOGS,
        help="logs with SimPhone truth (default: the demo's, recorded there once)",
    )  # fmt: skip
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument("--no-ocr", action="store_true", help="measure looks alone only")
    args = parser.parse_args()
    bench = benchrun.start("graph-text-sources")
    ensure_logs(args.logs)
    dataset = OdysseyDataset(args.logs)
    rows: list[list[object]] = []
    ids = dataset.episode_ids(split="random", part="train")[: args.episodes]

    def load(episode_id: str) -> object:
        episode = dataset.load(episode_id)
        return replace(episode, steps=tuple(replace(s, description="") for s in episode.steps))

    runs = [("looks alone", None)] + ([] if args.no_ocr else [("ocr", RapidOcrEngine())])
    with tempfile.TemporaryDirectory() as folder:
        for name, ocr in runs:
            kb = KnowledgeBase.create(
                Path(folder) / name.replace(" ", "_"), KBSettings(use_ui=False)
            )
            started = time.perf_counter()
            GraphBuilder(kb, ocr=ocr).build([(i, lambda i=i: load(i)) for i in ids])  # type: ignore[misc]
            report = check(kb, args.logs)
            seconds = time.perf_counter() - started
            rows.append([name, round(report.jump_accuracy, 3), round(report.purity, 3),
                         round(report.ari, 3), f"{report.nodes} / {report.true_screens}",
                         report.steps, round(seconds, 1)])  # fmt: skip
            bench.figure(f"{name.replace(' ', '_')}.purity", round(report.purity, 3))
            print(
                f"{name}: jump {report.jump_accuracy:.3f} purity {report.purity:.3f} "
                f"ari {report.ari:.3f} nodes {report.nodes}/{report.true_screens} "
                f"steps {report.steps} in {time.perf_counter() - started:.1f}s",
                flush=True,
            )
            kb.close()
    bench.table(
        f"No UI tree, no description: {len(ids)} train episodes of {args.logs}, scored against "
        "SimPhone's truth (`kb check`'s metrics)",
        ["text source", "jump accuracy", "purity", "ARI", "nodes / true screens", "steps",
         "build + check (s)"],
        rows,
    )  # fmt: skip
    bench.save()


if __name__ == "__main__":
    main()
