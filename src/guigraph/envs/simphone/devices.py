"""Device profiles: the screens SimPhone renders for.

Each profile names a real device of GUIOdyssey (its true resolution is kept for reference) and
the size SimPhone renders at. Rendering at a fraction of the real resolution keeps recording
fast; the observation's screen size is always the rendered size, so normalized coordinates and
screenshots agree. ``dp`` is pixels per layout unit: the tablet has a wider, shorter body, so
the same screen lays out differently in normalized coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass

from guigraph.geometry import ScreenSize
from guigraph.types import DeviceInfo


@dataclass(frozen=True, slots=True)
class DeviceProfile:
    name: str
    product: str
    real_width: int
    real_height: int
    width: int
    height: int
    dp: float
    release_version: str = "14"
    sdk_version: str = "34"

    @property
    def screen(self) -> ScreenSize:
        return ScreenSize(self.width, self.height)

    def info(self) -> DeviceInfo:
        return DeviceInfo(
            name=self.name,
            width=self.width,
            height=self.height,
            product=self.product,
            release_version=self.release_version,
            sdk_version=self.sdk_version,
        )


DEVICES: dict[str, DeviceProfile] = {
    profile.name: profile
    for profile in (
        # Rendered at 1/4 of the real resolution; one dp is one rendered pixel.
        DeviceProfile("Pixel 7 Pro", "cheetah", 1440, 3120, 360, 780, 1.0),
        DeviceProfile("Pixel 8 Pro", "husky", 1344, 2992, 336, 748, 0.95),
        # Small phone: 720x1280 at 1/2.
        DeviceProfile("Small Phone", "sdk_gphone64", 720, 1280, 360, 640, 1.0),
        # Medium phone (the emulator's 1080x2400) at 1/3.
        DeviceProfile("Medium Phone", "sdk_gphone64", 1080, 2400, 360, 800, 1.0),
        # The Fold unfolded: nearly square at 1/4.
        DeviceProfile("Pixel Fold", "felix", 2208, 1840, 552, 460, 1.05),
        # The tablet in landscape: wide and short, so lists show fewer rows.
        DeviceProfile("Pixel Tablet", "tangorpro", 2560, 1600, 800, 500, 1.1),
    )
}

DEFAULT_DEVICE = "Pixel 7 Pro"


def get_device(name: str) -> DeviceProfile:
    """The profile called ``name`` (case-insensitive), or a ValueError listing the known ones."""
    for profile in DEVICES.values():
        if profile.name.lower() == name.lower():
            return profile
    raise ValueError(f"unknown device {name!r}; known: {', '.join(DEVICES)}")
