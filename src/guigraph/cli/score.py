"""``guigraph score STEPS.jsonl``: official GUIOdyssey AMS / SR of a run's step records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from guigraph.eval.metrics import Summary


def register(app: typer.Typer) -> None:
    app.command("score")(score)


def score(
    steps_file: Annotated[Path, typer.Argument(help="STEPS.jsonl: one scored step per line.")],
    aggregate: Annotated[
        str,
        typer.Option(
            "--aggregate",
            help="pooled (task/app/device splits) or category-mean (random split: mean of the "
            "six categories).",
        ),
    ] = "pooled",
    mode: Annotated[
        str,
        typer.Option("--mode", help="official (the evaluator's quirks) or strict (quirks fixed)."),
    ] = "official",
    verdicts: Annotated[
        Path | None,
        typer.Option("--verdicts", help="Write one verdict per step to this JSONL file."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as a JSON object.")
    ] = False,
) -> None:
    """Score predicted actions against the ground truth with GUIOdyssey's official matcher."""
    from guigraph.errors import GuigraphError
    from guigraph.eval.metrics import AGGREGATES, summarize
    from guigraph.eval.steps import score_file

    if aggregate not in AGGREGATES:
        raise typer.BadParameter(f"use one of {', '.join(AGGREGATES)}", param_hint="--aggregate")
    if mode not in ("official", "strict"):
        raise typer.BadParameter("use official or strict", param_hint="--mode")
    try:
        tally = score_file(steps_file, mode, verdicts)  # type: ignore[arg-type]
        summary = summarize(tally, aggregate, mode)  # type: ignore[arg-type]
    except (GuigraphError, OSError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(summary.to_dict(), indent=2))
    else:
        _print_table(summary, steps_file)


def _print_table(summary: Summary, source: Path) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(soft_wrap=True)
    table = Table(
        title=f"GUIOdyssey scores of {escape(str(source))}\n"
        f"{summary.mode} matching, {summary.aggregate}",
        caption="episodes: judged by SR; ok: all steps right; incompl.: steps missing",
    )
    table.add_column("category", no_wrap=True)
    for column in ("AMS", "SR", "steps", "episodes", "ok", "incompl."):
        table.add_column(column, justify="right")
    for name, group in summary.per_category.items():
        table.add_row(
            escape(name),  # the file's own text, not rich markup
            f"{group.ams:.2f}",
            f"{group.sr:.2f}",
            str(group.steps),
            str(group.episodes),
            str(group.successes),
            str(group.incomplete),
        )
    table.add_section()
    table.add_row(
        "overall",
        f"{summary.ams:.2f}",
        f"{summary.sr:.2f}",
        str(summary.steps),
        str(summary.episodes),
        str(summary.successes),
        str(len(summary.incomplete_episodes)),
        style="bold",
    )
    console.print(table)
    console.print(
        f"action type: {summary.action_type_correct} / {summary.steps} = "
        f"{summary.action_type_accuracy:.2f}"
    )
    if summary.text_accuracy is not None:
        console.print(
            f"text: {summary.text_correct} / {summary.text_total} = {summary.text_accuracy:.2f}"
        )
    console.print("verdicts: " + ", ".join(f"{k} {v}" for k, v in summary.verdict_counts.items()))
    if summary.aggregate == "category-mean" and len(summary.per_category) != 6:
        console.print(
            f"[yellow]note: category-mean over {len(summary.per_category)} categories, "
            "not the six of GUIOdyssey[/yellow]"
        )
    for episode in summary.incomplete_episodes:
        console.print(
            f"[yellow]incomplete episode {escape(episode.episode_id)}: {episode.present} of "
            f"{episode.step_length} steps, missing {list(episode.missing)}; left out of SR"
            "[/yellow]"
        )
