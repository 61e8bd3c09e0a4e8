"""``guigraph data ...``: working with GUIOdyssey-layout folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from guigraph.data.fields import Problem

data_app = typer.Typer(
    help="GUIOdyssey-layout folders (a download, or logs the recorder wrote).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(data_app, name="data")


@data_app.command("check")
def check(
    folder: Annotated[
        Path, typer.Argument(help="Folder with annotations/, screenshots/, splits/.")
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the problems as a JSON list.")
    ] = False,
) -> None:
    """Validate a whole folder and report every problem; exit code 1 if there are any."""
    from guigraph.data.check import check_dataset

    warnings: list[Problem] = []
    problems = check_dataset(folder, warnings)
    if as_json:
        typer.echo(json.dumps([p.to_dict() for p in problems], indent=2))
    else:
        _print_warnings(warnings)
        _print_problems(folder, problems)
    if problems:
        raise typer.Exit(1)


#: Warnings listed one by one up to this many; the rest are counted.
_SHOWN_WARNINGS = 10


def _print_warnings(warnings: list[Problem]) -> None:
    """Repairs the readers make (clipped or dropped elements, JPEGs): not problems."""
    for warning in warnings[:_SHOWN_WARNINGS]:
        field = f" {warning.field}" if warning.field else ""
        typer.echo(f"warning: {warning.path}{field}: {warning.message}", err=True)
    if len(warnings) > _SHOWN_WARNINGS:
        files = len({w.path for w in warnings})
        typer.echo(f"warning: ... {len(warnings)} warnings in {files} file(s) in all", err=True)


def _print_problems(folder: Path, problems: list[Problem]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(soft_wrap=True)
    episodes = len(list((folder / "annotations").glob("*.json")))
    if not problems:
        console.print(
            f"[green]{escape(str(folder))}: {episodes} episodes, no problems found[/green]"
        )
        return
    table = Table(title=f"Problems in {escape(str(folder))}")
    for column in ("file", "field", "problem"):
        table.add_column(column, overflow="fold")
    for problem in problems:
        # Escaped: file names and values are the user's text, not rich markup.
        cells = (_relative(problem.path, folder), problem.field or "", problem.message)
        table.add_row(*(escape(cell) for cell in cells))
    console.print(table)
    files = len({p.path for p in problems})
    console.print(
        f"[red]{len(problems)} problem(s) in {files} file(s); {episodes} episodes checked[/red]"
    )


def _relative(path: str, folder: Path) -> str:
    try:
        return str(Path(path).relative_to(folder))
    except ValueError:
        return path
