"""``guigraph build``: recorded logs (GUIOdyssey layout) → workflow-graph knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from guigraph.cli.encoder import check_encoder
from guigraph.graph.settings import DEFAULT_ENCODER


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
    encoder: Annotated[
        str,
        typer.Option(
            "--encoder",
            help="Text encoder of a new KB: hashing[:DIM] (default, no extra), minilm, "
            "model2vec[:DIMS] (extra embed) or st:MODEL. A KB grows only with the one it was "
            "built with.",
        ),
    ] = DEFAULT_ENCODER,
) -> None:
    """Build (or grow) a knowledge base from the train part of the logs' split."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from guigraph.errors import GuigraphError
    from guigraph.graph.from_logs import LogsSelection, build_from_logs

    check_encoder(encoder)
    with Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
        TimeRemainingColumn(), transient=True,
    ) as progress:  # fmt: skip
        task = progress.add_task("building", total=None)
        try:
            selection = LogsSelection(split_file, split, sample, seed)
            summary, stats = build_from_logs(
                logs_dir,
                kb,
                selection,
                judge=judge,
                use_ui=not ignore_ui,
                ocr=ocr,
                encoder=encoder,
                on_total=lambda total: progress.update(task, total=total),
                on_episode=lambda _: progress.advance(task),
            )
        except (GuigraphError, ValueError) as exc:
            progress.stop()
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
    for episode_id, reason in summary.skipped:
        typer.echo(f"warning: skipped episode {episode_id}: {reason}", err=True)
    typer.echo(
        f"built {summary.added} episodes ({summary.steps} steps, "
        f"{summary.steps_per_second:.0f} steps/s); {summary.already_built} already in the KB; "
        f"{len(summary.skipped)} skipped. KB: {stats['nodes']} nodes, {stats['edges']} edges, "
        f"{stats['traces']} traces"
    )
