"""A person at the desktop, scripted: each suite task done with real input (XTEST) while a
recorder listens, as a person would do it — looking at the screen for what to click.

A task's moves are data (:data:`MOVES`): type a text, press a key chord, or click the widget of
a role and name (the n-th of them) found in the focused application's accessibility tree at
that moment. :class:`Person` acts them with pauses between (a recorder captures the screen in
each), over connections of its own (it runs beside the recorder, on another thread).
``hesitate`` makes it mistype a character and correct it with Backspace, and pause longer.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from guigraph.envs.desktop.atspi import AccessibilityBus, Node
from guigraph.envs.desktop.xinput import Keyboard
from guigraph.errors import EnvError
from guigraph.types import Task, key_chord


@dataclass(frozen=True, slots=True)
class Move:
    """``type`` a text, ``key`` a chord (``ctrl+s``), or ``click`` the ``index``-th widget of
    ``role`` named ``value`` ("" matches any name)."""

    kind: str
    value: str
    role: str = ""
    index: int = 0


def _type(text: str) -> Move:
    return Move("type", text)


def _key(chord: str) -> Move:
    return Move("key", chord)


def _click(role: str, name: str = "", index: int = 0) -> Move:
    return Move("click", name, role, index)


def _to_note(operator: str) -> Callable[[Mapping[str, str]], list[Move]]:
    def moves(p: Mapping[str, str]) -> list[Move]:
        return [
            _type(f"{p['a']}{operator}{p['b']}\n"), _key("ctrl+c"), _key("alt+tab"),
            _key("ctrl+v"), _key("ctrl+s"), _type(f"{p['name']}\n"),
        ]  # fmt: skip

    return moves


#: Template id -> the moves that do its task.
MOVES: dict[str, Callable[[Mapping[str, str]], list[Move]]] = {
    "mousepad/save-note": lambda p: [_type(p["text"]), _key("ctrl+s"), _type(f"{p['name']}\n")],
    "mousepad/replace-word": lambda p: [
        _key("ctrl+r"),
        _type(p["old"]),
        _click("text", index=1),
        _type(p["new"]),
        _click("check box", "Replace all in:"),
        _click("push button", "Replace All"),
        _click("push button", "Close"),
        _key("ctrl+s"),
    ],
    "mousepad/append-line": lambda p: [_key("ctrl+end"), _type(p["text"]), _key("ctrl+s")],
    "mousepad/save-copy": lambda p: [
        _key("ctrl+shift+s"),
        _key("ctrl+a"),
        _type(f"{p['copy']}\n"),
    ],
    "galculator/product-to-note": _to_note("*"),
    "galculator/sum-to-note": _to_note("+"),
}


class Person:
    """Does a suite task on ``display`` through XTEST, reading the screen over AT-SPI."""

    def __init__(
        self,
        display: str,
        env: dict[str, str],
        bus_address: str,
        pause_s: float = 1.2,
        hesitate: bool = False,
        seed: int = 0,
    ) -> None:
        self.keyboard = Keyboard(display, env)
        self.bus_address = bus_address
        self.pause_s = pause_s * (1.5 if hesitate else 1.0)
        self.hesitate = hesitate
        self.rng = random.Random(seed)

    def perform(self, task: Task) -> None:
        try:
            moves = MOVES[task.template_id](task.params)
        except KeyError:
            raise EnvError(f"no scripted person for desktop task {task.template_id!r}") from None
        bus = AccessibilityBus(self.bus_address, timeout_s=5.0)
        try:
            # A person mistypes the last thing typed (a name, a word), corrects it, goes on.
            typed = [i for i, m in enumerate(moves) if m.kind == "type"]
            for number, move in enumerate(moves):
                time.sleep(self.pause_s)
                self._do(move, bus, mistype=self.hesitate and number == typed[-1])
        finally:
            bus.close()

    def _do(self, move: Move, bus: AccessibilityBus, mistype: bool) -> None:
        if move.kind == "key":
            self.keyboard.key(key_chord(move.value))
        elif move.kind == "type":
            text = move.value
            if mistype and text.strip():
                cut = max(1, len(text.rstrip("\n")) // 2)
                self.keyboard.type(text[:cut] + self.rng.choice("qxz"))
                time.sleep(self.pause_s / 2)
                self.keyboard.type("\b" + text[cut:])
            else:
                self.keyboard.type(text)
        else:
            x, y, width, height = self._find(move, bus).box
            self.keyboard.click(x + width // 2, y + height // 2)

    def _find(self, move: Move, bus: AccessibilityBus) -> Node:
        deadline = time.monotonic() + 5.0
        while True:
            for app in bus.applications():
                for path, _, _, states in bus.windows(app):
                    if "active" not in states:
                        continue
                    found = [
                        n for n in bus.tree(app, [path])
                        if n.role == move.role and move.value in ("", n.name)
                        and n.box[2] > 1 and n.box[3] > 1
                    ]  # fmt: skip
                    if len(found) > move.index:
                        return found[move.index]
            if time.monotonic() > deadline:
                raise EnvError(f"the person found no {move.role} {move.value!r} on the screen")
            time.sleep(0.2)
