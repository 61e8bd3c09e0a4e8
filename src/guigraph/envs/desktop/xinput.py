"""Input to the display through the XTEST extension, by ``xdotool``.

Key chords are guigraph's (``("ctrl", "s")``, lower-case names: ``types.key_chord``); here
they become X keysym names. Text is typed as characters (``\\n`` is Return, ``\\t`` Tab).
"""

from __future__ import annotations

import shutil
import subprocess
import time

from guigraph.errors import ConfigError, EnvError
from guigraph.types import ScrollDirection

XDOTOOL = "xdotool"
LONG_PRESS_S = 0.8
DOUBLE_CLICK_MS = 80
#: Milliseconds between typed characters: a quick typist's pace (a calculator drops keys
#: that come faster than it draws its buttons).
TYPE_DELAY_MS = 120
REPEAT_GAP_S = 0.3
KEY_AFTER_TEXT_S = 0.3
#: Wheel clicks one scroll moves.
SCROLL_CLICKS = 5
#: A chord's key names -> X keysyms (single characters and F-keys map by rule).
KEYSYMS = {
    "ctrl": "ctrl", "alt": "alt", "shift": "shift", "super": "super",
    "enter": "Return", "escape": "Escape", "backspace": "BackSpace", "tab": "Tab",
    "delete": "Delete", "insert": "Insert", "home": "Home", "end": "End",
    "page_up": "Prior", "page_down": "Next", "up": "Up", "down": "Down", "left": "Left",
    "right": "Right", "space": "space", "menu": "Menu",
    "+": "plus", "-": "minus", "=": "equal", "*": "asterisk", "/": "slash", ".": "period",
    ",": "comma", ";": "semicolon", "'": "apostrophe", "[": "bracketleft", "]": "bracketright",
    "\\": "backslash", "`": "grave",
}  # fmt: skip
#: Characters of typed text that are keys.
TYPED_KEYS = {"\n": "Return", "\t": "Tab", "\b": "BackSpace", "\x1b": "Escape"}
#: The wheel button that moves content the way a finger moving this way would.
WHEEL = {
    ScrollDirection.UP: 5,  # the finger goes up: content further down comes in
    ScrollDirection.DOWN: 4,
    ScrollDirection.LEFT: 7,
    ScrollDirection.RIGHT: 6,
}


def keysym(name: str) -> str:
    if name in KEYSYMS:
        return KEYSYMS[name]
    if len(name) > 1 and name[0] == "f" and name[1:].isdigit():
        return name.upper()
    return name


class Keyboard:
    """XTEST input on one display."""

    def __init__(self, display: str, env: dict[str, str]) -> None:
        self.program = shutil.which(XDOTOOL)
        if self.program is None:
            raise ConfigError("the desktop world needs xdotool: apt-get install xdotool")
        self.env = dict(env, DISPLAY=display)

    def _run(self, *args: str) -> None:
        assert self.program is not None
        try:
            done = subprocess.run(
                [self.program, *args], env=self.env, capture_output=True, timeout=30, check=False
            )
        except subprocess.TimeoutExpired as exc:
            raise EnvError(f"xdotool {args[0]} did not finish in 30 s") from exc
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip().splitlines()
            raise EnvError(f"xdotool {args[0]} failed: {why[-1] if why else done.returncode}")

    def click(self, x: int, y: int, repeat: int = 1) -> None:
        args = ["mousemove", str(x), str(y), "click"]
        if repeat > 1:
            args += ["--repeat", str(repeat), "--delay", str(DOUBLE_CLICK_MS)]
        self._run(*args, "1")

    def long_press(self, x: int, y: int) -> None:
        self._run("mousemove", str(x), str(y), "mousedown", "1")
        time.sleep(LONG_PRESS_S)
        self._run("mouseup", "1")

    def scroll(self, x: int, y: int, direction: ScrollDirection) -> None:
        self._run(
            "mousemove", str(x), str(y), "click", "--repeat", str(SCROLL_CLICKS),
            "--delay", "20", str(WHEEL[direction]),
        )  # fmt: skip

    def type(self, text: str) -> None:
        # Runs between control characters, which are keys (xdotool types "\n" as Linefeed,
        # a key GTK's text views ignore), and between a character and its repeat: an
        # application may take a key pressed again at once for one press (galculator drops the
        # second 3 of "334" typed within 0.2 s), as a person's fingers never quite do.
        chunk = ""
        for char in text:
            if chunk and char == chunk[-1]:
                self._run("type", "--delay", str(TYPE_DELAY_MS), "--", chunk)
                chunk = ""
                time.sleep(REPEAT_GAP_S)
            if char in TYPED_KEYS:
                if chunk:
                    self._run("type", "--delay", str(TYPE_DELAY_MS), "--", chunk)
                    chunk = ""
                    # A field may still be completing what was typed (a file chooser's name
                    # field): Enter right away would take the completion, not the name.
                    time.sleep(KEY_AFTER_TEXT_S)
                self._run("key", TYPED_KEYS[char])
            else:
                chunk += char
        if chunk:
            self._run("type", "--delay", str(TYPE_DELAY_MS), "--", chunk)

    def key(self, chord: tuple[str, ...]) -> None:
        self._run("key", "--clearmodifiers", "+".join(keysym(k) for k in chord))

    def activate(self, program: str) -> None:
        """Bring the first visible window of ``program`` (its X class) to the front."""
        self._run(
            "search", "--onlyvisible", "--limit", "1", "--class", program, "windowactivate",
            "--sync",
        )  # fmt: skip
