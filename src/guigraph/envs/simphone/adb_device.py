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

A person's touches go through :meth:`SimDevice.perform`: they move the phone and stream to every
``getevent -lt`` reader as a touch screen's events, in raw units of 0..32767 as an emulator's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.uixml import hierarchy_xml, package_of
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
        from guigraph.envs.simphone.adb_commands import HANDLERS

        handler = HANDLERS.get(name)
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
    """The programs ``sh -c command`` would run, each as its words.

    As sh reads it: single quotes keep everything literal, double quotes all but ``$`` and
    backticks, a backslash escapes the next character; outside quotes blanks separate words and
    ``;``, ``&``, ``|``, ``<``, ``>`` and newlines separate commands. A backtick or ``$(``
    outside single quotes is a command substitution: it would run too, so it is reported as a
    command of its own (``<command substitution>``).
    """
    parts: list[list[str]] = []
    words: list[str] = []
    word: str | None = None  # None: no word started (an empty '' still makes a word)
    quote, i = "", 0
    while i < len(command):
        char = command[i]
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                word = (word or "") + char
        elif char == "\\" and i + 1 < len(command) and quote == "":
            word = (word or "") + command[i + 1]
            i += 1
        elif char in "'\"" and quote in ("", char):
            quote = "" if quote == char else char
            word = word or ""
        elif char == "`" or (char == "$" and command[i + 1 : i + 2] == "("):
            parts.append(["<command substitution>", command[i:]])
            word = (word or "") + char
        elif quote == '"':
            word = (word or "") + char
        elif char in " \t\r":
            if word is not None:
                words.append(word)
            word = None
        elif char in ";&|<>\n":
            if word is not None:
                words.append(word)
            if words:
                parts.append(words)
            words, word = [], None
        else:
            word = (word or "") + char
        i += 1
    if quote:
        raise ValueError(f"unterminated {quote} quote")
    if word is not None:
        words.append(word)
    if words:
        parts.append(words)
    return parts
