"""An Android device's apps known by package and by launcher label.

Logs name an app as their people saw it (GUIOdyssey, a phone's launcher: "Settings") or as the
device reports it (``com.android.settings``); a knowledge base from the one must run on a device
that speaks the other. :class:`AppDirectory` knows both names of the device's apps:

- its packages: ``pm list packages``;
- a label's package: a package of that name (the label is the package itself, or its last name
  part: "Settings" -> ``...settings``); else the launcher is asked: the label's icon on the home
  screen is tapped, the package in front is read (``dumpsys window``) and the home screen comes
  back. What it learned is kept for the device's lifetime in this object.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from guigraph.types import UIElement

#: Reads the home screen's elements (after pressing HOME).
HomeScreen = Callable[[], tuple[UIElement, ...]]
#: Taps an element, then tells the package in front.
TapAndRead = Callable[[UIElement], str]


@dataclass
class AppDirectory:
    """The device's packages and the labels learned for them (``label`` -> package)."""

    packages: tuple[str, ...]
    home_screen: HomeScreen
    tap_and_read: TapAndRead
    launcher_packages: frozenset[str] = frozenset()
    by_label: dict[str, str | None] = field(default_factory=dict)

    def package_for(self, name: str) -> str | None:
        """The package an app ``name`` (a package or a launcher label) is, or None."""
        name = name.strip()
        if not name:
            return None
        if name in self.packages:
            return name
        key = _key(name)
        if key not in self.by_label:
            self.by_label[key] = self._by_name(key) or self._from_launcher(key)
        return self.by_label[key]

    def launcher_icon(self, name: str) -> UIElement | None:
        """The home screen's icon labelled ``name``."""
        key = _key(name)
        for element in self.home_screen():
            if element.clickable and key in (_key(element.text), _key(element.content_desc)):
                return element
        return None

    def names_for(
        self, known: Collection[str], aliases: Mapping[str, Sequence[str]] | None = None
    ) -> Mapping[str, str]:
        """The device's name of each app in ``known`` that the device calls otherwise:
        ``{package: label}`` for the labels of ``known`` whose package ``known`` lacks.
        ``aliases``: packages already learned for labels (by a knowledge base); the first one
        this device has is the label's, and the launcher is not asked."""
        for name, others in (aliases or {}).items():
            key = _key(name)
            if key and self.by_label.get(key) is None:
                found = next((other for other in others if other in self.packages), None)
                if found is not None and found not in self.launcher_packages:
                    self.by_label[key] = found
        names: dict[str, str] = {}
        for name in known:
            package = None if name in self.packages else self.package_for(name)
            if package and package not in known and package not in self.launcher_packages:
                names.setdefault(package, name)
        return names

    def _by_name(self, key: str) -> str | None:
        found = [p for p in self.packages if _key(p.rsplit(".", 1)[-1]) == key]
        return found[0] if len(found) == 1 else None

    def _from_launcher(self, key: str) -> str | None:
        icon = self.launcher_icon(key)
        if icon is None:
            return None
        package = self.tap_and_read(icon)
        return package if package and package not in self.launcher_packages else None


def _key(name: str) -> str:
    return "".join(name.lower().split())
