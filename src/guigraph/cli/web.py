"""``guigraph web ...``: the web world's MiniWoB++ tasks (extra ``web``)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

web_app = typer.Typer(
    help="The web world: MiniWoB++ tasks in the system Chromium (extra web).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(web_app, name="web")


@web_app.command("tasks")
def tasks(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    suite_only: Annotated[
        bool, typer.Option("--suite", help="Only the tasks of the demo's suite.")
    ] = False,
) -> None:
    """List the MiniWoB++ tasks the miniwob package ships: the suite's, and why others are out;
    which have a scripted demonstrator, and which the published sets hold."""
    from guigraph.envs.web.experts import EXPERTS, SUITE, task_spec
    from guigraph.envs.web.miniwob import task_names
    from guigraph.envs.web.suite import left_out_reason
    from guigraph.envs.web.tasksets import named
    from guigraph.errors import GuigraphError

    try:
        names = task_names()
    except GuigraphError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    published = {label: set(named(label)) for label in ("browsergym", "synapse")}
    rows = [
        {
            "task": task_spec(name),
            "suite": name in SUITE,
            "demonstrator": name in EXPERTS,
            **{label: name in tasks for label, tasks in published.items()},
            "left_out": "" if name in SUITE else left_out_reason(name) or "not examined",
        }
        for name in names
        if name in SUITE or not suite_only
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    in_suite = sum(1 for row in rows if row["suite"])
    table = Table(title=f"MiniWoB++ tasks ({len(rows)}; {in_suite} in the demo's suite)")
    columns = ("suite", "demonstrator", "browsergym", "synapse")
    for column in ("task", *columns, "why not in the suite"):
        table.add_column(column, overflow="fold")
    for row in rows:
        marks = ("yes" if row[column] else "" for column in columns)
        table.add_row(str(row["task"]), *marks, str(row["left_out"]))
    Console(soft_wrap=True).print(table)
