"""Typing on an Android device without ever giving its shell a command to run.

``adb shell`` hands the command line to the device's ``sh -c``, so every piece of text is a
single shell word made by :func:`shlex.quote` (single quotes, a quote inside as ``'"'"'``):
``;``, ``|``, ``&``, backticks, ``$()``, ``*`` and newlines inside it are literal.

ASCII goes through ``input text``, which has one escape of its own: ``%s`` types a space (and
a real space would split the word on old devices), so spaces are sent as ``%s``, and a text
``%`` followed by ``s`` is split over two ``input text`` calls so that the device never sees
``%s`` it did not mean. A newline is the Enter key, a tab the Tab key.

Anything else (accents, CJK, emoji) goes through ADBKeyboard's broadcast (``ADB_INPUT_B64``,
base64, so no quoting question at all) when that keyboard is installed; without it typing
non-ASCII is a clear step error naming ADBKeyboard.
"""

from __future__ import annotations

import base64
import shlex

ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
KEYCODE_ENTER = 66
KEYCODE_TAB = 61
#: Printable ASCII ``input text`` can type (a space is sent as ``%s``).
_TYPABLE = frozenset(chr(c) for c in range(0x20, 0x7F))


def control_character(text: str) -> str | None:
    """The first control character of ``text`` no keyboard types (NUL, escape, ...: all but
    newline and tab, which are keys), or None."""
    return next((c for c in text if (ord(c) < 0x20 and c not in "\n\t") or c == "\x7f"), None)


def needs_adb_keyboard(text: str) -> bool:
    """True when ``input text`` cannot type ``text`` (it holds non-ASCII or control chars)."""
    return any(c not in _TYPABLE and c not in "\n\t" for c in text)


def input_text_commands(text: str) -> list[str]:
    """The shell commands that type ASCII ``text`` with ``input text`` and key events."""
    commands: list[str] = []
    for kind, piece in _pieces(text):
        if kind == "key":
            commands.append(f"input keyevent {piece}")
        else:
            commands.append("input text " + shlex.quote(piece.replace(" ", "%s")))
    return commands


def _pieces(text: str) -> list[tuple[str, str]]:
    """Runs of text, and key codes for newlines and tabs; a run never holds ``%`` + ``s``."""
    pieces: list[tuple[str, str]] = []
    run = ""
    for char in text:
        if char in "\n\t":
            if run:
                pieces.append(("text", run))
            run = ""
            pieces.append(("key", str(KEYCODE_ENTER if char == "\n" else KEYCODE_TAB)))
            continue
        if char == "s" and run.endswith("%"):
            pieces.append(("text", run))
            run = ""
        run += char
    if run:
        pieces.append(("text", run))
    return pieces


def adb_keyboard_command(text: str) -> str:
    """ADBKeyboard's broadcast typing ``text`` (any Unicode); the message is base64."""
    message = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"am broadcast -a ADB_INPUT_B64 --es msg {shlex.quote(message)}"
