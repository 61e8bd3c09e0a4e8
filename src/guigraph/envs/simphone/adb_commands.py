"""What each shell command does on the SimPhone device (``adb_device.SimDevice``): one
handler per program, taking the device and the program's arguments, answering as Android's
own tool prints (``input``, ``uiautomator``, ``dumpsys``, ``am``, ``pm``, ``ime``, ...)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from guigraph.envs.simphone.adb_device import ADB_IME, KEYCODES, LATIN_IME, ShellResult
from guigraph.envs.simphone.uixml import app_of_package, package_of
from guigraph.envs.simphone.widgets import APPS
from guigraph.errors import GuigraphError
from guigraph.types import Action, ActionType, Task

if TYPE_CHECKING:
    from guigraph.envs.simphone.adb_device import SimDevice


# Command handlers ------------------------------------------------------------------------------
def _echo(dev: SimDevice, args: list[str]) -> str:
    return " ".join(args) + "\n"


def _getprop(dev: SimDevice, args: list[str]) -> str:
    props = dev.props()
    if args:
        return props.get(args[0], "") + "\n"
    return "".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items()))


def _wm(dev: SimDevice, args: list[str]) -> str:
    p = dev.profile
    if args[:1] == ["size"]:
        return f"Physical size: {p.width}x{p.height}\n"
    if args[:1] == ["density"]:
        return "Physical density: 160\n"
    return "usage: wm [size|density]\n"


def _dumpsys(dev: SimDevice, args: list[str]) -> str:
    package, activity = dev.foreground()
    what = args[0] if args else ""
    if what == "window":
        return (
            f"  mCurrentRotation=ROTATION_0\n"
            f"  mCurrentFocus=Window{{4f1c2a u0 {package}/{package}{activity}}}\n"
            f"  mFocusedApp=ActivityRecord{{9d3e1b u0 {package}/{activity} t12}}\n"
        )
    if what == "activity":
        return f"  topResumedActivity=ActivityRecord{{9d3e1b u0 {package}/{activity} t12}}\n"
    if what == "input":
        return "    SurfaceOrientation: 0\n"
    return f"Can't find service: {what}\n"


def _screencap(dev: SimDevice, args: list[str]) -> ShellResult:
    if "unplugged" in dev.faults:
        return ShellResult(b"")
    return ShellResult(dev.png())


def _uiautomator(dev: SimDevice, args: list[str]) -> str:
    if args[:1] != ["dump"]:
        return "Usage: uiautomator dump [--compressed] [file]\n"
    if "dump-fails" in dev.faults:
        return "ERROR: could not get idle state.\n"
    path = next((a for a in args[1:] if not a.startswith("--")), "/sdcard/window_dump.xml")
    xml = dev.dump_xml()
    if "dump-broken" in dev.faults:
        xml = xml[: len(xml) // 2]
    if path == "/dev/tty":
        return xml + "UI hierchary dumped to: /dev/tty\n"
    dev.files[path] = xml.encode()
    return f"UI hierchary dumped to: {path}\n"


def _cat(dev: SimDevice, args: list[str]) -> ShellResult:
    out = b""
    for path in args:
        data = dev.files.get(path)
        out += data if data is not None else f"cat: {path}: No such file or directory\n".encode()
    return ShellResult(out)


def _rm(dev: SimDevice, args: list[str]) -> str:
    for path in args:
        dev.files.pop(path, None)
    return ""


def _input(dev: SimDevice, args: list[str]) -> str:
    if args and args[0] in ("touchscreen", "keyboard"):
        args = args[1:]
    kind, rest = (args[0], args[1:]) if args else ("", [])
    try:
        if kind == "tap":
            x, y = float(rest[0]), float(rest[1])
            return dev.act(Action(ActionType.CLICK, point=dev.to_norm(x, y)))
        if kind == "swipe":
            x1, y1, x2, y2 = (float(v) for v in rest[:4])
            millis = float(rest[4]) if len(rest) > 4 else 300.0
            start, end = dev.to_norm(x1, y1), dev.to_norm(x2, y2)
            if abs(x2 - x1) + abs(y2 - y1) < 4 and millis >= 500:
                return dev.act(Action(ActionType.LONG_PRESS, point=start))
            return dev.act(Action.swipe(start, end))
        if kind == "text":
            return dev.act(Action.type_text(_device_text(rest[0])))
        if kind == "keyevent":
            for key in rest:
                _keyevent(dev, key.removeprefix("KEYCODE_"))
            return ""
    except (IndexError, ValueError) as exc:
        return f"Error: bad input arguments {rest!r} ({exc})\n"
    return "Usage: input [<source>] <command> [<arg>...]\n"


def _device_text(text: str) -> str:
    """What Android's ``input text`` types: ``%s`` is a space, all else as given."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "%" and text[i + 1 : i + 2] == "s":
            out.append(" ")
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _keyevent(dev: SimDevice, key: str) -> None:
    name = KEYCODES.get(key, key)
    if name == "BACK":
        dev.act(Action(ActionType.PRESS_BACK))
    elif name == "HOME":
        dev.act(Action(ActionType.PRESS_HOME))
    elif name == "APP_SWITCH":
        dev.act(Action(ActionType.PRESS_RECENT))
    elif name == "ENTER":
        dev.tap_key("kb_enter")


def _launch(dev: SimDevice, package: str) -> str:
    app = app_of_package(package)
    if app is None or (app not in APPS and app != "system"):
        return "** No activities found to run, monkey aborted.\n"
    if app == "system":
        dev.act(Action(ActionType.PRESS_HOME))
    else:
        dev.act(Action.open_app(app))
    return "Events injected: 1\n"


def _monkey(dev: SimDevice, args: list[str]) -> str:
    package = args[args.index("-p") + 1] if "-p" in args else ""
    return _launch(dev, package)


def _am(dev: SimDevice, args: list[str]) -> str:
    if args[:1] == ["start"] and "-n" in args:
        component = args[args.index("-n") + 1]
        out = _launch(dev, component.split("/", 1)[0])
        if out.startswith("**"):
            return f"Error: Activity class {{{component}}} does not exist.\n"
        return f"Starting: Intent {{ cmp={component} }}\n"
    if args[:1] == ["broadcast"] and "-a" in args and "--es" in args:
        if not dev.adb_keyboard or dev.ime != ADB_IME:
            return "Broadcasting: Intent { act=... }\nBroadcast completed: result=0\n"
        action, value = args[args.index("-a") + 1], args[args.index("--es") + 2]
        text = base64.b64decode(value).decode() if action == "ADB_INPUT_B64" else value
        dev.act(Action.type_text(text))
        return "Broadcasting: Intent { act=" + action + " }\nBroadcast completed: result=0\n"
    if args[:1] == ["force-stop"]:
        return ""
    return "Error: unknown am command\n"


def _pm(dev: SimDevice, args: list[str]) -> str:
    if args[:2] == ["list", "packages"]:
        packages = ["com.android.launcher3", "com.android.systemui"]
        packages += [package_of(app) for app in APPS]
        if dev.adb_keyboard:
            packages.append("com.android.adbkeyboard")
        return "".join(f"package:{p}\n" for p in packages)
    return "Error: unknown pm command\n"


def _ime(dev: SimDevice, args: list[str]) -> str:
    if args[:1] == ["list"]:
        imes = [LATIN_IME] + ([ADB_IME] if dev.adb_keyboard else [])
        return "".join(f"{i}\n" for i in imes)
    if args[:1] in (["set"], ["enable"]) and len(args) > 1:
        if args[1] == ADB_IME and not dev.adb_keyboard:
            return f"Unknown input method {args[1]} cannot be selected for user #0\n"
        if args[0] == "set":
            dev.ime = args[1]
        return f"Input method {args[1]} selected for user #0\n"
    return "usage: ime list|set|enable\n"


def _settings(dev: SimDevice, args: list[str]) -> str:
    if args[:3] == ["get", "secure", "default_input_method"]:
        return dev.ime + "\n"
    return "null\n"


def _sleep(dev: SimDevice, args: list[str]) -> str:
    dev.act(Action(ActionType.WAIT, seconds=0.0))  # a tick: loading screens finish
    return ""


def _getevent(dev: SimDevice, args: list[str]) -> ShellResult:
    from guigraph.envs.simphone.gestures import describe_devices

    flags = "".join(a.lstrip("-") for a in args if a.startswith("-"))
    if "p" in flags:
        return ShellResult(describe_devices(labels="l" in flags).encode())

    def stream(write: Callable[[bytes], bool]) -> None:
        dev.listen(write)

    return ShellResult(b"", stream=stream)


def _reset(dev: SimDevice, args: list[str]) -> str:
    try:
        dev.set_task(Task.from_dict(json.loads(args[1])), int(args[0]))
    except (IndexError, ValueError, KeyError, GuigraphError) as exc:
        return f"guigraph-reset: {exc}\n"
    return "ok\n"


def _check(dev: SimDevice, args: list[str]) -> str:
    verdict = dev.phone.evaluate()
    if verdict is None:
        return "none\n"
    return "success\n" if verdict.success else "failure\n"


HANDLERS: dict[str, Callable[[SimDevice, list[str]], str | ShellResult]] = {
    "echo": _echo,
    "getprop": _getprop,
    "wm": _wm,
    "dumpsys": _dumpsys,
    "screencap": _screencap,
    "uiautomator": _uiautomator,
    "cat": _cat,
    "rm": _rm,
    "input": _input,
    "monkey": _monkey,
    "am": _am,
    "pm": _pm,
    "ime": _ime,
    "settings": _settings,
    "sleep": _sleep,
    "getevent": _getevent,
    "guigraph-reset": _reset,
    "guigraph-check": _check,
}
