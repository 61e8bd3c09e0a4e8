"""SimPhone as an Android device's shell: what ``adb shell <command>`` answers and does.

The fake ADB server (``guigraph.testing.adb_server``) hands every shell command here. It
answers the commands guigraph's Android world and recorder send (``screencap -p``,
``uiautomator dump``, ``input ...``, ``dumpsys``, ``wm size``, ``getprop``, ``getevent``,
``am``/``monkey``, ``pm list packages``, ``ime``) as a phone would, from the SimPhone behind it
(with the ``android`` skin's XML), and two commands only it knows: ``guigraph-reset <seed>
<task json>`` sets up a task and ``guigraph-check`` prints the task checker's verdict.

Every command is logged as received (``commands``), and what the phone's ``sh`` would have run
is kept apart (``executed``): a command with unquoted ``;``, ``|``, ``&``, backticks or ``$(``
would run more than one program, and is logged as such, so a test can prove that no text ever
reached the shell unquoted. Time is counted in ticks as SimPhone counts it: one input, or one
``sleep``, is one tick (a loading screen finishes after it).

A person's touches are :meth:`SimDevice.perform` d: they move the phone and stream to every
``getevent -lt`` reader as a touch screen's events, in raw units of 0..32767 as an emulator's.
"""

from __future__ import annotations

import base64
import json
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.uixml import app_of_package, hierarchy_xml, package_of
from guigraph.envs.simphone.widgets import APPS
from guigraph.errors import GuigraphError
from guigraph.geometry import CoordSpace, Point
from guigraph.types import Action, ActionType, Task

ADB_IME = "com.android.adbkeyboard/.AdbIME"
LATIN_IME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
KEYCODES = {"3": "HOME", "4": "BACK", "66": "ENTER", "187": "APP_SWITCH", "61": "TAB", "67": "DEL"}
#: Faults a test can switch on: each makes one command misbehave as broken devices do.
FAULTS = frozenset({"dump-fails", "dump-broken", "screencap-size", "unplugged"})


@dataclass
class ShellResult:
    output: bytes
    stream: Callable[[Callable[[bytes], bool]], None] | None = None  # for getevent -lt


@dataclass
class SimDevice:
    """One fake device: a serial, a SimPhone and what its shell has seen."""

    serial: str = "emulator-5554"
    device: str = "Pixel 7 Pro"
    version: int = 1
    popup_rate: float = 0.1
    adb_keyboard: bool = False
    faults: set[str] = field(default_factory=set)
    #: Unplug the device after this many shell commands (a cable pulled mid-run).
    unplug_after: int | None = None
    commands: list[str] = field(default_factory=list)
    executed: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.phone = SimPhone(self.device, self.version, self.popup_rate, skin="android")
        self.phone.reset(Task("free/0", "(no task)"), 0)
        self.files: dict[str, bytes] = {}
        self.ime = LATIN_IME
        self.clock = 1000.0  # seconds, for getevent's time stamps
        self.lock = threading.RLock()
        self._listeners: list[Callable[[bytes], bool]] = []
        self._changes = 0  # counts what may change the screen; keys the cached screenshot
        self._png: tuple[int, bytes] | None = None

    @property
    def profile(self):
        return self.phone.device

    def set_task(self, task: Task, seed: int) -> None:
        """Set ``task`` up on the phone (what ``guigraph-reset`` does)."""
        with self.lock:
            self.phone.reset(task, seed)
            self._changes += 1

    # The shell -----------------------------------------------------------------------------
    def shell(self, command: str) -> ShellResult:
        with self.lock:
            self.commands.append(command)
            if self.unplug_after is not None and len(self.commands) >= self.unplug_after:
                self.faults.add("unplugged")  # this command still runs; the next finds no device
            try:
                parts = _split_commands(command)
            except ValueError as exc:
                return ShellResult(f"/system/bin/sh: syntax error: {exc}\n".encode())
            self.executed.extend(parts)
            out = b""
            for argv in parts:
                result = self._run(argv)
                if result.stream is not None:
                    return result
                out += result.output
            return ShellResult(out)

    def _run(self, argv: list[str]) -> ShellResult:
        if not argv:
            return ShellResult(b"")
        name, args = argv[0], argv[1:]
        handler = _HANDLERS.get(name)
        if handler is None:
            return ShellResult(f"/system/bin/sh: {name}: inaccessible or not found\n".encode())
        out = handler(self, args)
        return out if isinstance(out, ShellResult) else ShellResult(out.encode())

    # Plain answers -------------------------------------------------------------------------
    def props(self) -> dict[str, str]:
        p = self.profile
        return {
            "ro.product.model": p.name,
            "ro.product.device": p.product,
            "ro.product.manufacturer": "SimPhone",
            "ro.build.version.release": p.release_version,
            "ro.build.version.sdk": p.sdk_version,
            "ro.serialno": self.serial,
            "ro.guigraph.simphone": "1",
        }

    def foreground(self) -> tuple[str, str]:
        view = self.phone.view()
        package = package_of(view.app)
        activity = ".MainActivity" if view.app != "system" else ".uioverrides.QuickstepLauncher"
        return package, activity

    def png(self) -> bytes:
        from guigraph.envs.simphone import phone

        if self._png is None or self._png[0] != self._changes:
            view = self.phone.view()
            self._png = (self._changes, phone.render(self.phone.world, self.profile, view))
        png = self._png[1]
        if "screencap-size" in self.faults:
            return _shrunk(png)
        return png

    def dump_xml(self) -> str:
        return hierarchy_xml(self.phone.view(), self.profile)

    # Acting --------------------------------------------------------------------------------
    def act(self, action: Action) -> str:
        """Apply an action to the phone (an input command, or a person's gesture)."""
        self._changes += 1
        result = self.phone.step(action)
        return result.error or ""

    def to_norm(self, x: float, y: float) -> Point:
        return Point(x, y, CoordSpace.PIXEL).to_norm(self.profile.screen)

    def tap_key(self, key: str) -> None:
        """A key of the on-screen keyboard (only ``kb_enter`` has a widget)."""
        view = self.phone.view()
        placed = next((p for p in view.visible() if p.widget.key == key), None)
        if placed is not None:
            x1, y1, x2, y2 = placed.box
            self.act(Action(ActionType.CLICK, point=self.to_norm((x1 + x2) / 2, (y1 + y2) / 2)))

    # A person at the phone -----------------------------------------------------------------
    def perform(self, gesture: dict[str, object]) -> None:
        """A person's gesture: ``{"tap": (x, y)}`` / ``{"long": (x, y)}`` / ``{"swipe": (x1, y1,
        x2, y2)}`` in pixels, ``{"text": "..."}`` typed on a keyboard, ``{"key": "BACK"}``. The
        phone reacts and ``getevent -lt`` readers get the events."""
        from guigraph.envs.simphone.gestures import gesture_action, gesture_events

        with self.lock:
            lines, self.clock = gesture_events(gesture, self.profile.screen, self.clock)
            for action in gesture_action(gesture, self.profile.screen):
                if action.type is ActionType.TYPE and action.text == "\n":
                    self.tap_key("kb_enter")
                else:
                    self.act(action)
            data = "".join(lines).encode()
            self._listeners = [listen for listen in self._listeners if listen(data)]

    def listen(self, write: Callable[[bytes], bool]) -> None:
        with self.lock:
            self._listeners.append(write)

    def unlisten(self, write: Callable[[bytes], bool]) -> None:
        with self.lock:
            if write in self._listeners:
                self._listeners.remove(write)


def _shrunk(png: bytes) -> bytes:
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        small = image.resize((image.width // 2, image.height // 2))
    buffer = io.BytesIO()
    small.save(buffer, format="PNG")
    return buffer.getvalue()


def _split_commands(command: str) -> list[list[str]]:
    """The programs ``sh -c command`` would run: quoted text is one word; unquoted ``;``, ``&``,
    ``|`` and newlines separate commands; a backtick or ``$(`` outside single quotes is a
    command substitution (run too, so it is logged as a command of its own)."""
    parts: list[list[str]] = []
    quote = ""
    for i, char in enumerate(command):
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "'" and quote == "":
            quote = "'"
        elif char == '"':
            quote = "" if quote == '"' else '"'
        elif char == "`" or (char == "$" and command[i + 1 : i + 2] == "("):
            parts.append(["<command substitution>", command[i:]])
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    current: list[str] = []
    for token in lexer:
        if token and set(token) <= set(";&|\n"):
            if current:
                parts.append(current)
            current = []
        else:
            current.append(token)
    if current:
        parts.append(current)
    return parts


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


_HANDLERS: dict[str, Callable[[SimDevice, list[str]], str | ShellResult]] = {
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
