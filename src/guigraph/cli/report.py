"""``guigraph report RUN...`` (Table I, plots, HTML) and ``guigraph view RUN`` (trajectories)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("report")(report)
    app.command("view")(view)


def _fail(exc: Exception) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(2)


def report(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="Run folders (from guigraph eval or workflow run); several: side by side."
        ),
    ],
    html: Annotated[
        Path | None, typer.Option("--html", help="Write a self-contained HTML report here.")
    ] = None,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the table as Markdown instead.")
    ] = False,
) -> None:
    """AMS and SR per category and overall (the paper's Table I), runs side by side, plots.
    Runs of ``guigraph eval web``: SR per task, and the means over browsergym and synapse."""
    from guigraph.errors import GuigraphError
    from guigraph.report.runs import load_runs
    from guigraph.report.scores import score_run
    from guigraph.report.web import is_web

    workflow_runs = [run for run in runs if (run / "workflow-run.json").is_file()]
    if workflow_runs:
        from guigraph.cli.workflow import report_workflow_run

        for run in workflow_runs:
            report_workflow_run(run)
        runs = [run for run in runs if run not in workflow_runs]
        if not runs:
            return
    try:
        loaded = load_runs(runs)
        if loaded and all(is_web(run) for run in loaded):
            _report_web(loaded, markdown)
            if html is None:
                return
        scores = [score_run(run) for run in loaded]
        if html is not None:
            _write_html(loaded, scores, html)
    except (GuigraphError, OSError, ValueError) as exc:
        raise _fail(exc) from None
    if markdown:
        from guigraph.report.table import markdown as as_markdown

        typer.echo(as_markdown(scores))
    else:
        from rich.console import Console

        from guigraph.report.table import rich_table

        console = Console(highlight=False)
        console.print(rich_table(scores))
        for score in scores:
            for note in score.notes:
                console.print(f"{score.name}: {note}", markup=False, style="yellow")
    if html is not None:
        typer.echo(f"wrote {html}")


def _report_web(loaded: list, markdown: bool) -> None:
    from guigraph.report import web

    scores = [web.score_web(run) for run in loaded]
    if markdown:
        typer.echo(web.markdown(scores))
        return
    from rich.console import Console

    Console(highlight=False).print(web.rich_table(scores))


def _write_html(loaded: list, scores: list, out: Path) -> None:
    from guigraph.report.page import render
    from guigraph.report.plots import all_plots

    page = render(loaded, scores, all_plots(scores), out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")


def view(
    run: Annotated[Path, typer.Argument(help="Run folder (from guigraph eval).")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the pages [default: RUN/viewer]."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N episodes.")
    ] = None,
    link_images: Annotated[
        bool,
        typer.Option(
            "--link-images",
            help="Point at the screenshots instead of embedding them (small pages; the "
            "screenshots must stay where they are).",
        ),
    ] = False,
) -> None:
    """Trajectory viewer: one static HTML page per episode (screenshots, actions drawn,
    proposals, verdicts) and an index; opens from a file, offline."""
    from guigraph.errors import GuigraphError
    from guigraph.report.runs import Run
    from guigraph.report.viewer import write_viewer

    try:
        pages = write_viewer(Run.load(run), out or run / "viewer", limit, link_images)
    except (GuigraphError, OSError, ValueError) as exc:
        raise _fail(exc) from None
    missing = (
        f"; {pages.missing_screenshots} screenshots missing" if pages.missing_screenshots else ""
    )
    typer.echo(f"wrote {pages.episodes} episode pages{missing}; open {pages.index}")
