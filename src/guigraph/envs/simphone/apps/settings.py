"""Settings. Version 2 renames and reorders the top-level entries (as vendor skins do)."""

from __future__ import annotations

from guigraph.envs.simphone.widgets import Handler, Screen, W, app, item, nav_item, screen, toggle
from guigraph.envs.simphone.world import Entry, World

app("settings", "Settings", "settings.main", (84, 110, 122))

#: (key, screen, version-1 label, version-2 label, subtitle)
SECTIONS = (
    ("open_wifi", "settings.wifi", "Network & internet", "Connections", "Wi-Fi, mobile data"),
    ("open_bluetooth", "settings.bluetooth", "Connected devices", "Bluetooth", "Pairing"),
    ("open_display", "settings.display", "Display", "Display & brightness", "Dark theme"),
    ("open_sound", "settings.sound", "Sound & vibration", "Sounds", "Volume, Do Not Disturb"),
    ("open_battery", "settings.battery", "Battery", "Battery care", "Battery Saver"),
    ("open_about", "settings.about", "About phone", "Phone info", "Model, Android version"),
)


def _flip(name: str) -> Handler:
    def handler(world: World) -> None:
        world.data.settings[name] = not world.data.settings[name]

    return handler


def _set(name: str, value: int) -> Handler:
    def handler(world: World) -> None:
        world.data.settings[name] = value

    return handler


def _level_chips(world: World, name: str, levels: tuple[int, ...]) -> list[W]:
    """One chip per percentage of the setting ``name``, the current one checked."""
    current = world.data.settings[name]
    return [
        W("chip", f"{v}%", key=f"{name}_{v}", checked=current == v, tap=_set(name, v))
        for v in levels
    ]


@screen("settings.main")
def main(world: World, entry: Entry) -> Screen:
    v2 = world.version("settings") == 2
    sections = sorted(SECTIONS, key=lambda s: s[3]) if v2 else SECTIONS
    body: list[W] = [
        toggle("Airplane mode", "airplane", world.data.settings["airplane"], _flip("airplane"))
    ]
    body += [nav_item(s[3] if v2 else s[2], s[1], sub=s[4], key=s[0]) for s in sections]
    return Screen("Settings", body=body, up=False)


@screen("settings.wifi")
def wifi(world: World, entry: Entry) -> Screen:
    on = world.data.settings["wifi"]
    body: list[W] = [toggle("Wi-Fi", "wifi_toggle", on, _flip("wifi"))]
    if on:
        body += [W("label", "Available networks")]
        body += [
            W("item", n, sub=s)
            for n, s in (("HomeNet", "Connected"), ("Cafe_Free", "Open"), ("Office-5G", "Secured"))
        ]
    body.append(toggle("Mobile data", "data_toggle", True, lambda w: None))
    return Screen("Wi-Fi" if world.version("settings") == 1 else "Connections", body=body)


@screen("settings.bluetooth")
def bluetooth(world: World, entry: Entry) -> Screen:
    on = world.data.settings["bluetooth"]
    body: list[W] = [toggle("Bluetooth", "bluetooth_toggle", on, _flip("bluetooth"))]
    if on:
        body += [W("label", "Paired devices"), W("item", "Car audio"), W("item", "Earbuds Pro")]
    return Screen("Bluetooth", body=body)


@screen("settings.display")
def display(world: World, entry: Entry) -> Screen:
    level = world.data.settings["brightness"]
    chips = _level_chips(world, "brightness", (30, 50, 70, 100))
    body = [
        toggle("Dark theme", "dark_toggle", world.data.settings["dark_mode"], _flip("dark_mode")),
        W("label", f"Brightness: {level}%", key="brightness_value"),
        W("row", children=chips),
    ]
    return Screen("Display", body=body)


@screen("settings.sound")
def sound(world: World, entry: Entry) -> Screen:
    level = world.data.settings["volume"]
    chips = _level_chips(world, "volume", (0, 20, 40, 60, 80))
    body = [
        W("label", f"Media volume: {level}%", key="volume_value"),
        W("row", children=chips),
        toggle(
            "Do Not Disturb",
            "dnd_toggle",
            world.data.settings["do_not_disturb"],
            _flip("do_not_disturb"),
        ),
    ]
    return Screen("Sound", body=body)


@screen("settings.battery")
def battery(world: World, entry: Entry) -> Screen:
    body = [
        W("big", "82%", sub="about 1 day left"),
        toggle(
            "Battery Saver",
            "saver_toggle",
            world.data.settings["battery_saver"],
            _flip("battery_saver"),
        ),
        toggle("Location", "location_toggle", world.data.settings["location"], _flip("location")),
    ]
    return Screen("Battery", body=body)


@screen("settings.about")
def about(world: World, entry: Entry) -> Screen:
    body = [
        item("Device name", sub="SimPhone"),
        item("Android version", sub="14"),
        item("Build number", sub=f"SP1A.{world.seed % 1000:03d}"),
    ]
    return Screen("About phone", body=body)
