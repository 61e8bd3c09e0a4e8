"""``guigraph record``: record a person using a device into GUIOdyssey-layout episodes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("record")(record)


def record(
    instruction: Annotated[
        str, typer.Option("--instruction", help="What the person is doing (the task's words).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder to write (GUIOdyssey layout).")],
    env: Annotated[
        str, typer.Option("--env", help="The world: android, desktop or web.")
    ] = "android",
    app: Annotated[
        str | None,
        typer.Option("--app", help="desktop: the application to record in (its desktop entry)."),
    ] = None,
    task: Annotated[
        str | None,
        typer.Option("--task", help="desktop: a suite task to set up (files, apps) and record."),
    ] = None,
    url: Annotated[
        str | None, typer.Option("--url", help="web: the page the person starts on.")
    ] = None,
    headless: Annotated[
        bool,
        typer.Option("--headless", help="web: no window (the person's input comes over CDP)."),
    ] = False,
    serial: Annotated[
        str | None, typer.Option("--serial", help="The device (default: the only one).")
    ] = None,
    category: Annotated[
        str, typer.Option("--category", help="GUIOdyssey category of the task.")
    ] = "General_Tool",
) -> None:
    """Record what a person does on the device (touches, keys) until Ctrl-C, as one episode
    with the screen before every action; `guigraph build --kb KB DIR` takes the folder."""
    from guigraph.envs import make
    from guigraph.envs.android.env import AndroidEnv
    from guigraph.envs.android.recorder import PersonRecorder
    from guigraph.errors import GuigraphError

    if env == "desktop":
        _record_desktop(instruction, out, app, task, category)
        return
    if env == "web":
        _record_web(instruction, out, url, headless, category)
        return
    if env != "android":
        typer.echo(
            f"error: recording a person needs --env android, desktop or web, not {env!r}",
            err=True,
        )
        raise typer.Exit(2)
    try:
        world = make(env, **({"serial": serial} if serial else {}))
        assert isinstance(world, AndroidEnv)
        recorder = PersonRecorder(world, instruction, out, category=category)
        typer.echo(f"recording {world.serial}: do the task on the device, then press Ctrl-C")
        recording = recorder.run()
    except (GuigraphError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if recording.path is None:
        typer.echo("nothing was done on the device: no episode written")
        return
    typer.echo(
        f"{out}: episode {recording.episode_id}, {len(recording.actions)} actions "
        f"({', '.join(a.type.value for a in recording.actions)})"
    )


def _record_desktop(
    instruction: str, out: Path, app: str | None, task: str | None, category: str
) -> None:
    from guigraph.envs.desktop.env import DesktopEnv
    from guigraph.envs.desktop.recorder import DesktopRecorder
    from guigraph.errors import GuigraphError

    if not app and not task:
        typer.echo("error: recording at the desktop needs --app APP (or --task ID)", err=True)
        raise typer.Exit(2)
    world = None
    try:
        world = DesktopEnv()
        suite_task = world.make_task(task, 0) if task else None
        if task and not (suite_task and suite_task.template_id):
            raise ValueError(f"--task {task!r} is not a desktop suite task")
        recorder = DesktopRecorder(
            world, app or "", instruction, out, category=category, task=suite_task
        )
        recording = recorder.run(on_ready=_announce)
    except (GuigraphError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        if world is not None:
            world.close()
    if recording.path is None:
        typer.echo("nothing was done at the desktop: no episode written")
        return
    typer.echo(
        f"{out}: episode {recording.episode_id}, {len(recording.actions)} actions "
        f"({', '.join(a.type.value for a in recording.actions)})"
    )


def _announce(display: str) -> None:
    typer.echo(
        f"recording on display {display} (watch and act there, e.g. x11vnc -display {display} "
        "and a VNC viewer): do the task, then press Ctrl-C"
    )


def _record_web(
    instruction: str, out: Path, url: str | None, headless: bool, category: str
) -> None:
    from guigraph.envs.web.env import WebEnv
    from guigraph.envs.web.recorder import WebPersonRecorder
    from guigraph.errors import GuigraphError

    if not url:
        typer.echo("error: --env web needs --url (the page to start on)", err=True)
        raise typer.Exit(2)
    world: WebEnv | None = None
    try:
        world = WebEnv(headless=headless)
        recorder = WebPersonRecorder(world, url, instruction, out, category=category)
        recording = recorder.run(on_ready=lambda: _ready(url))
    except (GuigraphError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        if world is not None:
            world.close()
    if recording.path is None:
        typer.echo("nothing was done in the browser: no episode written")
        return
    typer.echo(
        f"{out}: episode {recording.episode_id}, {len(recording.actions)} actions "
        f"({', '.join(a.type.value for a in recording.actions)})"
    )


def _ready(url: str) -> None:
    typer.echo(f"recording {url}: do the task in the browser, then close it or press Ctrl-C")
