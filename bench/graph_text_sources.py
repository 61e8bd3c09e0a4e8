"""Build quality when screens have neither a UI tree nor a description: looks alone vs OCR.

    python bench/graph_text_sources.py --logs LOGS_DIR [--episodes 60] [--no-ocr]

Descriptions are removed from the logs' train episodes in memory, the graph is built without
the UI tree, and the build is scored against the logs' truth (``kb check``'s metrics).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path


def main() -> None:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.graph.build import GraphBuilder
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.settings import KBSettings
    from guigraph.graph.truth import check
    from guigraph.ocr import RapidOcrEngine

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", type=Path, required=True)
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument("--no-ocr", action="store_true", help="measure looks alone only")
    args = parser.parse_args()
    dataset = OdysseyDataset(args.logs)
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
            print(
                f"{name}: jump {report.jump_accuracy:.3f} purity {report.purity:.3f} "
                f"ari {report.ari:.3f} nodes {report.nodes}/{report.true_screens} "
                f"steps {report.steps} in {time.perf_counter() - started:.1f}s",
                flush=True,
            )
            kb.close()


if __name__ == "__main__":
    main()
