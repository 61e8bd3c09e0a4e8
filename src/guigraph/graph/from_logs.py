"""Build (or grow) a knowledge base from a logs folder: the one code path of ``guigraph build``.

``guigraph build`` and ``guigraph demo`` both call :func:`build_from_logs`, so the demo's KB is
exactly what a user gets from the command line (train part of the split, rule judge, UI tree).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from guigraph.graph.build import BuildSummary, EpisodeSource, GraphBuilder, sample_ids
from guigraph.graph.settings import DEFAULT_ENCODER

#: The lock file a build holds in the KB folder: one writer at a time.
BUILD_LOCK = "build.lock"

#: The parts of a split one can build from; "all" ignores the split file.
PARTS = ("train", "test", "all")


@dataclass(frozen=True)
class LogsSelection:
    """Which episodes of a logs folder to build from."""

    split_file: str = "random"  # splits/<NAME>_split.json
    part: str = "train"
    sample: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.part not in PARTS:
            raise ValueError(f"--split must be one of {', '.join(PARTS)}, got {self.part!r}")


def episode_sources(
    logs_dir: Path, selection: LogsSelection, elements: bool = True
) -> list[EpisodeSource]:
    """(episode id, loader) pairs of the selected episodes; nothing is loaded yet."""
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.errors import DatasetError

    dataset = OdysseyDataset(Path(logs_dir))
    if selection.part == "all":
        ids = dataset.episode_ids()
    else:
        if not dataset.split_path(selection.split_file).is_file():
            raise DatasetError(
                dataset.split_path(selection.split_file),
                None,
                f"a split file, so that only its {selection.part} part is used",
            )
        ids = dataset.episode_ids(split=selection.split_file, part=selection.part)
    chosen = sample_ids(ids, selection.sample, selection.seed)
    return [(i, partial(dataset.load, i, elements=elements)) for i in chosen]


def build_from_logs(
    logs_dir: Path,
    kb_dir: Path,
    selection: LogsSelection | None = None,
    judge: str = "rule",
    use_ui: bool = True,
    ocr: bool = False,
    encoder: str = DEFAULT_ENCODER,
    on_total: Callable[[int], None] | None = None,
    on_episode: Callable[[str], None] | None = None,
) -> tuple[BuildSummary, dict[str, Any]]:
    """Build the selected episodes into ``kb_dir`` (created, or grown); returns the KB stats.

    Episodes already in the KB are skipped, so a killed build resumes where it stopped.
    ``encoder`` is the text encoder spec a new KB is made with (``embed.encoder_from_spec``);
    an existing KB made with another one is refused.
    Bad input (no logs, no split file, unknown judge) raises before anything is written.
    """
    from guigraph.errors import require
    from guigraph.graph.judge import judge_from_name
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.settings import KBSettings
    from guigraph.locks import folder_lock

    page_judge = judge_from_name(judge)
    if ocr:
        require("rapidocr_onnxruntime", "ocr")  # fail now, not once per episode
    # A build that ignores UI trees does not parse them (a real tree is a hundred views).
    sources = episode_sources(logs_dir, selection or LogsSelection(), elements=use_ui)
    if on_total is not None:
        on_total(len(sources))
    settings = KBSettings(encoder=encoder, use_ui=use_ui, judge=judge, ocr=ocr)
    with (
        folder_lock(kb_dir, BUILD_LOCK, "another build is writing this knowledge base"),
        KnowledgeBase.create(kb_dir, settings) as knowledge,
    ):
        summary = GraphBuilder(knowledge, judge=page_judge).build(sources, on_episode=on_episode)
        return summary, knowledge.stats()
