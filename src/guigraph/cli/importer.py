"""``guigraph import ...``: other tools' recordings into the GUIOdyssey layout."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import_app = typer.Typer(
    help="Turn other tools' recordings into GUIOdyssey-layout logs (resumable).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")


@import_app.command("droidbot")
def droidbot(
    folders: Annotated[
        list[Path],
        typer.Argument(help="DroidBot output folders (events/, states/, utg.js), one per run."),
    ],
    out: Annotated[Path, typer.Option("--out", help="Logs folder to write (or resume).")],
) -> None:
    """Import DroidBot explorations: one episode per unbroken chain of events, with truth/
    from DroidBot's state_str_content_free (for `guigraph kb check`)."""
    from guigraph.data.droidbot import import_droidbot
    from guigraph.errors import GuigraphError

    try:
        summary = import_droidbot(folders, out)
    except GuigraphError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    if summary.dropped_elements or summary.clipped_elements:
        typer.echo(
            f"warning: {summary.dropped_elements} views with no area on the screen dropped "
            f"(inverted or off-screen bounds), {summary.clipped_elements} clipped to it",
            err=True,
        )
    for problem in summary.bad_states:
        typer.echo(f"warning: state left out: {problem}", err=True)
    for folder, event, why in summary.cuts:
        typer.echo(f"warning: {folder}/events/{event}: left out, {why}", err=True)
    typer.echo(
        f"imported {len(summary.episodes)} episodes ({summary.steps} steps) into {out}; "
        f"{summary.already_imported} already there"
    )
