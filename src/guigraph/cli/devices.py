"""``guigraph devices``: the Android devices the ADB server sees."""

from __future__ import annotations

import json
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("devices")(devices)


def devices(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
) -> None:
    """List attached Android devices: serial, model, Android version and screen size (the ADB
    server at ANDROID_ADB_SERVER_PORT, 5037 by default)."""
    from guigraph.envs.android.device import AdbDevice, DeviceSummary, list_devices
    from guigraph.errors import GuigraphError

    try:
        rows = []
        for serial, state in list_devices():
            if state != "device":
                rows.append(DeviceSummary(serial, state))
                continue
            rows.append(AdbDevice(serial).summary())
    except GuigraphError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps([row.to_dict() for row in rows], indent=1))
        return
    if not rows:
        typer.echo("no Android device is attached")
        return
    for row in rows:
        data = row.to_dict()
        typer.echo(
            f"{data['serial']}\t{data['state']}\t{data['model'] or '-'}\t"
            f"Android {data['android'] or '?'}\t{data['screen'] or '-'}"
        )
