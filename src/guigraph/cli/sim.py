"""``guigraph sim ...``: the simulated phone (task list, a rendered screen, log recording)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

sim_app = typer.Typer(
    help="SimPhone, the embedded simulated phone: tasks, screens and recorded logs.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(sim_app, name="sim")


@sim_app.command("tasks")
def tasks(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List the task templates with their category and apps."""
    from guigraph.envs.simphone.tasks import template_table

    rows = template_table()
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"SimPhone task templates ({len(rows)})")
    for column in ("template", "category", "apps", "example"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row["template_id"], row["category"], ", ".join(row["apps"]), row["example"])
    Console(soft_wrap=True).print(table)


@sim_app.command("show")
def show(
    task: Annotated[str, typer.Option("--task", help="Template id (see `guigraph sim tasks`).")],
    out: Annotated[Path, typer.Option("--out", help="PNG file to write.")],
    seed: Annotated[int, typer.Option("--seed", help="World and task seed.")] = 0,
    step: Annotated[
        int,
        typer.Option(
            "--step",
            help="Show the screen after this many expert actions; "
            "-1 = the last screen before COMPLETE.",
        ),
    ] = -1,
    device: Annotated[str, typer.Option("--device", help="Device profile name.")] = "Pixel 7 Pro",
    version: Annotated[int, typer.Option("--version", help="App version (1 or 2).")] = 1,
    screen: Annotated[
        str,
        typer.Option(
            "--screen",
            help="Show this screen type instead of the expert's way, "
            "e.g. shop.cart or camera.popup_permission.",
        ),
    ] = "",
) -> None:
    """Render one screen of a task, as the expert reaches it (or a named screen), to a PNG."""
    from guigraph.envs.simphone.showcase import screen_of_task

    try:
        png, identity, instruction = screen_of_task(task, seed, step, device, version, screen)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(png)
    typer.echo(f"{instruction}\n{out}: {identity}")


@sim_app.command("record")
def record(
    out: Annotated[Path, typer.Option("--out", help="Folder to write (GUIOdyssey layout).")],
    episodes: Annotated[int, typer.Option("--episodes", min=1)] = 50,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    device: Annotated[str, typer.Option("--device", help="Device profile name.")] = "Pixel 7 Pro",
    version: Annotated[int, typer.Option("--version", help="App version (1 or 2).")] = 1,
    noise: Annotated[
        float,
        typer.Option(
            "--noise",
            min=0.0,
            max=1.0,
            help="Chance per step of an expert mistake (wrong tap then back, a "
            "scroll too far); also raises the pop-up rate.",
        ),
    ] = 0.0,
    holdout: Annotated[
        str, typer.Option("--holdout-templates", help="Comma-separated template ids to leave out.")
    ] = "",
    skin: Annotated[
        str,
        typer.Option(
            "--skin", help="How screens report elements: standard, html-ids, no-ids, android."
        ),
    ] = "standard",
) -> None:
    """Record expert episodes on seeded tasks, with ground truth in DIR/truth/."""
    from guigraph.envs.simphone.devices import get_device
    from guigraph.envs.simphone.recorder import record as run
    from guigraph.envs.simphone.skins import skin_conventions

    held = [t.strip() for t in holdout.split(",") if t.strip()]
    try:
        get_device(device)
        skin_conventions(skin)
        started = time.perf_counter()
        summary = run(out, episodes, seed, device, version, noise, held, skin=skin)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    seconds = time.perf_counter() - started
    typer.echo(f"{out}: {len(summary.episodes)} episodes, {summary.steps} steps in {seconds:.1f} s")
    for category, count in sorted(summary.categories.items()):
        typer.echo(f"  {category}: {count}")
    if summary.failures:
        typer.echo(f"checker failed on: {', '.join(summary.failures)}", err=True)
        raise typer.Exit(1)


@sim_app.command("adb-server")
def adb_server(
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="TCP port on 127.0.0.1 (0: any).")
    ] = 5037,
    serial: Annotated[str, typer.Option("--serial", help="The device's serial.")] = (
        "emulator-5554"
    ),
    device: Annotated[str, typer.Option("--device", help="Device profile name.")] = "Pixel 7 Pro",
    version: Annotated[int, typer.Option("--version", help="App version (1 or 2).")] = 1,
    adb_keyboard: Annotated[
        bool, typer.Option("--adb-keyboard", help="Have ADBKeyboard installed (non-ASCII text).")
    ] = False,
) -> None:
    """Serve SimPhone as an Android device over the ADB protocol, until stopped (Ctrl-C or
    `adb -P PORT kill-server`). `adb -P PORT devices` lists it; guigraph's Android world uses
    it with ANDROID_ADB_SERVER_PORT=PORT."""
    from guigraph.envs.simphone.devices import get_device
    from guigraph.testing.adb_server import FakeAdbServer

    try:
        get_device(device)
        server = FakeAdbServer(port, serial=serial, device=device, version=version,
                               adb_keyboard=adb_keyboard)  # fmt: skip
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    except OSError as exc:
        typer.echo(f"error: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"ADB server on 127.0.0.1:{server.port}: device {serial} is SimPhone ({device}); "
               f"use ANDROID_ADB_SERVER_PORT={server.port} or adb -P {server.port}", )  # fmt: skip
    try:
        server.wait()
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        server.close()
