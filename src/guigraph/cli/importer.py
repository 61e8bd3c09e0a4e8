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


@import_app.command("miniwob")
def miniwob(
    demos: Annotated[
        list[Path],
        typer.Argument(
            help="MiniWoB++ demonstrations as record.js saves them (.json or .json.gz), or "
            "folders of them."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Logs folder to write (or resume).")],
) -> None:
    """Import MiniWoB++ demonstrations recorded with the package's own recorder
    (html/core/record.js): taps, typing and scrolls with the page's element tree before each;
    demonstrations with reward <= 0 are skipped, a bad file is named and skipped."""
    from guigraph.envs.web.demos import demo_files, import_demos
    from guigraph.errors import GuigraphError

    if not demo_files(demos):
        typer.echo(f"error: no .json or .json.gz demonstrations in {', '.join(map(str, demos))}",
                   err=True)  # fmt: skip
        raise typer.Exit(2)
    try:
        summary = import_demos(demos, out)
    except GuigraphError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    for line in summary.bad_files:
        typer.echo(f"warning: skipped {line}", err=True)
    for line in summary.warnings:
        typer.echo(f"warning: {line}", err=True)
    typer.echo(
        f"imported {len(summary.imported)} demonstrations ({summary.steps} steps) into {out}; "
        f"{summary.already} already there, {summary.skipped_reward} skipped with reward <= 0, "
        f"{len(summary.bad_files)} bad files"
    )
