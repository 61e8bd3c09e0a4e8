"""``guigraph build``: recorded logs (GUIOdyssey layout) → workflow-graph knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("build")(build)


def build(
    logs_dir: Annotated[
        Path, typer.Argument(help="Logs in the GUIOdyssey layout (annotations/, ...).")
    ],
    kb: Annotated[Path, typer.Option("--kb", help="Knowledge-base folder (created, or grown).")],
    sample: Annotated[
        float, typer.Option("--sample", help="Share of episodes to use (paper: 0.02).")
    ] = 1.0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the episode sampling.")] = 0,
    judge: Annotated[str, typer.Option("--judge", help="Page-jump judge: rule or llm.")] = "rule",
    split: Annotated[
        str,
        typer.Option(
            "--split", help="Part of the split to build from: train, test, or all episodes."
        ),
    ] = "train",
    split_file: Annotated[
        str, typer.Option("--split-file", help="Which split: splits/<NAME>_split.json of the logs.")
    ] = "random",
    ocr: Annotated[
        bool,
        typer.Option(
            "--ocr", help="Read text off screens with no UI tree and no description (extra ocr)."
        ),
    ] = False,
    ignore_ui: Annotated[
        bool,
        typer.Option(
            "--ignore-ui", help="Use screenshots and descriptions only (as real GUIOdyssey)."
        ),
    ] = False,
) -> None:
    """Build (or grow) a knowledge base from the train part of the logs' split."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.errors import GuigraphError, require
    from guigraph.graph.build import GraphBuilder, sample_ids
    from guigraph.graph.judge import judge_from_name
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.settings import KBSettings

    try:
        page_judge = judge_from_name(judge)
        if ocr:
            require("rapidocr_onnxruntime", "ocr")  # fail now, not once per episode
        dataset = OdysseyDataset(logs_dir)
        ids = _episode_ids(dataset, split_file, split)
        chosen = sample_ids(ids, sample, seed)
        knowledge = KnowledgeBase.create(kb, KBSettings(use_ui=not ignore_ui, judge=judge, ocr=ocr))
    except (GuigraphError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    sources = [(i, lambda i=i: dataset.load(i)) for i in chosen]
    with knowledge, Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
        TimeRemainingColumn(), transient=True,
    ) as progress:  # fmt: skip
        task = progress.add_task("building", total=len(sources))
        builder = GraphBuilder(knowledge, judge=page_judge)
        summary = builder.build(sources, on_episode=lambda _: progress.advance(task))
        stats = knowledge.stats()
    for episode_id, reason in summary.skipped:
        typer.echo(f"warning: skipped episode {episode_id}: {reason}", err=True)
    typer.echo(
        f"built {summary.added} episodes ({summary.steps} steps, "
        f"{summary.steps_per_second:.0f} steps/s); {summary.already_built} already in the KB; "
        f"{len(summary.skipped)} skipped. KB: {stats['nodes']} nodes, {stats['edges']} edges, "
        f"{stats['traces']} traces"
    )


def _episode_ids(dataset: object, split: str, part: str) -> list[str]:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.errors import DatasetError

    assert isinstance(dataset, OdysseyDataset)
    if part == "all":
        return dataset.episode_ids()
    if not dataset.split_path(split).is_file():
        raise DatasetError(
            dataset.split_path(split), None, f"a split file, so that only its {part} part is used"
        )
    return dataset.episode_ids(split=split, part=part)
