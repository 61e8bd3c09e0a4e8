"""Applications by their desktop entries (freedesktop ``.desktop`` files), as a menu finds them.

An app is named by its entry's file id (``org.xfce.mousepad``), the last part of it
(``mousepad``), its ``Name`` (``Mousepad``) or its program (``mousepad``), in any case. Its
command is the entry's ``Exec`` with the field codes (``%U``, ``%f``) taken out: files to open
are given after it.
"""

from __future__ import annotations

import configparser
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from guigraph.errors import EnvError

ENTRY_GROUP = "Desktop Entry"


@dataclass(frozen=True, slots=True)
class DesktopEntry:
    file_id: str
    name: str
    command: tuple[str, ...]

    @property
    def names(self) -> frozenset[str]:
        """The lower-case names the app answers to."""
        program = Path(self.command[0]).name if self.command else ""
        return frozenset(
            n.lower() for n in (self.file_id, self.file_id.rsplit(".", 1)[-1], self.name, program)
            if n
        )  # fmt: skip


def application_dirs() -> list[Path]:
    """Where entries live: ``$XDG_DATA_HOME`` then ``$XDG_DATA_DIRS``' ``applications``."""
    home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    dirs = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    return [Path(d) / "applications" for d in [home, *dirs.split(":")] if d]


def read_entry(path: Path) -> DesktopEntry | None:
    """The entry of a ``.desktop`` file, or None for one that is not a launchable app."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError, OSError):
        return None
    if not parser.has_section(ENTRY_GROUP):
        return None
    entry = parser[ENTRY_GROUP]
    if entry.get("Type") != "Application" or entry.get("Hidden", "").lower() == "true":
        return None
    try:
        words = shlex.split(entry.get("Exec", ""))
    except ValueError:
        return None
    command = tuple(w for w in words if not (len(w) == 2 and w.startswith("%")))
    if not command:
        return None
    return DesktopEntry(path.stem, entry.get("Name", path.stem), command)


def installed(dirs: list[Path] | None = None) -> list[DesktopEntry]:
    """Every launchable entry, the first of each file id winning (as menus do)."""
    seen: dict[str, DesktopEntry] = {}
    for folder in dirs if dirs is not None else application_dirs():
        for path in sorted(folder.glob("*.desktop")) if folder.is_dir() else ():
            entry = read_entry(path)
            if entry is not None and entry.file_id not in seen:
                seen[entry.file_id] = entry
    return list(seen.values())


def find(app: str, entries: list[DesktopEntry]) -> DesktopEntry:
    """The entry ``app`` names; an EnvError listing what there is when none does."""
    wanted = app.strip().lower()
    # The file id first, then its last part, the name, the program: "mousepad" is
    # org.xfce.mousepad, not org.xfce.mousepad-settings (whose program is mousepad too).
    for name_of in (
        lambda e: e.file_id, lambda e: e.file_id.rsplit(".", 1)[-1], lambda e: e.name,
        lambda e: Path(e.command[0]).name,
    ):  # fmt: skip
        for entry in entries:
            if name_of(entry).lower() == wanted:
                return entry
    known = ", ".join(sorted(e.name for e in entries)) or "none"
    raise EnvError(f"no desktop application is called {app!r} (installed: {known})")
