"""``guigraph kb stats|export|check``: look into a workflow-graph knowledge base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

kb_app = typer.Typer(help="Inspect, export and score a knowledge base.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(kb_app, name="kb")


def _open(path: Path):
    from guigraph.errors import KnowledgeBaseError
    from guigraph.graph.kb import KnowledgeBase

    try:
        return KnowledgeBase.open(path)
    except KnowledgeBaseError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


@kb_app.command("stats")
def stats(
    kb_dir: Annotated[Path, typer.Argument(help="Knowledge-base folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Nodes, edges, traces, apps and average degree."""
    from guigraph.retrieval.context import node_label

    with _open(kb_dir) as kb:
        figures = kb.stats()
        busiest = sorted(kb.nodes(), key=lambda n: -n.visits)[:_BUSIEST]
    if as_json:
        typer.echo(json.dumps(figures, indent=1))
        return
    typer.echo(
        f"nodes {figures['nodes']}  edges {figures['edges']}  traces {figures['traces']}  "
        f"steps {figures['steps']}  average degree {figures['average_degree']}\n"
        f"apps ({len(figures['apps'])}): {', '.join(figures['apps']) or '-'}"
    )
    if busiest:
        typer.echo("most visited nodes:")
        for node in busiest:
            typer.echo(f"  {node.visits:>5}  {node_label(node, width=80)}")


#: How many of the most visited nodes ``kb stats`` names.
_BUSIEST = 10


@kb_app.command("export")
def export(
    kb_dir: Annotated[Path, typer.Argument(help="Knowledge-base folder.")],
    out: Annotated[Path, typer.Option("--out", help="File to write.")],
    fmt: Annotated[str, typer.Option("--format", help="graphml, json or html.")] = "json",
    highlight_task: Annotated[
        str | None,
        typer.Option(
            "--highlight-task",
            help="html: mark the subgraph graph RAG retrieves for this task when the page opens.",
        ),
    ] = None,
    k: Annotated[
        int, typer.Option("-k", "--top-k", min=1, help="Traces retrieved for --highlight-task.")
    ] = 4,
) -> None:
    """Write the graph as GraphML, JSON or a self-contained interactive HTML page."""
    from guigraph.errors import ConfigError
    from guigraph.graph.export import export as write

    with _open(kb_dir) as kb:
        try:
            highlight = _retrieved(kb, highlight_task, k) if highlight_task else None
            path = write(kb, fmt, out, highlight)
        except (ConfigError, OSError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
    typer.echo(f"wrote {path}")


def _retrieved(kb, task: str, k: int):
    """The states and transitions graph RAG hands the team for ``task``."""
    from guigraph.graph.explorer import Highlight
    from guigraph.retrieval.context import retrieve_said

    context = retrieve_said(kb, task, k=k)
    return Highlight(
        label=f"retrieved for: {task}",
        nodes=sorted(context.nodes),
        edges=sorted(context.edges),
        traces=[item.trace.episode_id for item in context.traces],
    )


@kb_app.command("check")
def check(
    kb_dir: Annotated[Path, typer.Argument(help="Knowledge-base folder.")],
    truth: Annotated[
        Path, typer.Option("--truth", help="Logs folder with truth/<episode_id>.json.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Score the build against SimPhone's truth: jump accuracy, node purity, ARI."""
    from guigraph.errors import DatasetError
    from guigraph.graph.truth import check as score

    with _open(kb_dir) as kb:
        try:
            report = score(kb, truth)
        except DatasetError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=1))
        return
    typer.echo(
        f"jump accuracy {report.jump_accuracy:.3f} ({report.judged_steps} judged steps)\n"
        f"purity        {report.purity:.3f}\nARI           {report.ari:.3f}\n"
        f"{report.steps} steps of {report.episodes} episodes; {report.nodes} nodes for "
        f"{report.true_screens} true screens"
    )
