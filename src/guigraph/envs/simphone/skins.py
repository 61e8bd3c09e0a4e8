"""Skins: the same SimPhone screens as other platforms would report them.

The phone's behaviour never changes; only what its observations say about elements does. They
keep code above ``envs/`` honest about platform conventions: a rule that works only because
SimPhone's ids read ``shop:id/price`` fails on the ``html-ids`` skin, and one that needs ids at
all fails on ``no-ids`` (elements carry text, role and bounds only, as on many web pages).

- ``standard``: ``<app>:id/<name>`` ids, Android's conventions (the default);
- ``html-ids``: DOM-style ids (``shop-price``) read with the web profile's id scheme;
- ``no-ids``: no resource ids at all;
- ``android``: what an Android phone's ``uiautomator dump`` reports (``envs.simphone.uixml``):
  the whole nested hierarchy with framework containers, ``com.simphone.<app>:id/<name>`` ids,
  packages, and the app in front named by its package and activity. It is exactly what the
  Android world reads from the fake ADB device (``guigraph sim adb-server``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from guigraph.envs.conventions import ANDROID, Conventions, IdScheme
from guigraph.types import UIElement

if TYPE_CHECKING:
    from guigraph.envs.simphone.devices import DeviceProfile
    from guigraph.envs.simphone.phone import PhoneView

#: SimPhone's home screen is an app of its own name; pop-ups and loading as on Android, and
#: its browser's cookie banner, whose one button ("Accept") closes it.
SIMPHONE = replace(ANDROID, name="simphone", dismiss_labels=ANDROID.dismiss_labels | {"accept"})

SKINS: dict[str, Conventions] = {
    "standard": SIMPHONE,
    "html-ids": replace(SIMPHONE, name="simphone/html-ids", id_scheme=IdScheme.HTML),
    "no-ids": replace(SIMPHONE, name="simphone/no-ids", id_scheme=IdScheme.NONE),
    "android": replace(SIMPHONE, name="simphone/android"),
}

#: Skins whose elements come from the whole view (the others rename the standard elements).
VIEW_SKINS = frozenset({"android"})


def skin_conventions(skin: str) -> Conventions:
    try:
        return SKINS[skin]
    except KeyError:
        raise ValueError(f"unknown skin {skin!r}; available: {', '.join(SKINS)}") from None


def apply_skin(skin: str, elements: tuple[UIElement, ...]) -> tuple[UIElement, ...]:
    """The elements as ``skin`` reports them."""
    if skin == "standard":
        return elements
    if skin == "html-ids":
        return tuple(replace(e, resource_id=_html_id(e.resource_id)) for e in elements)
    if skin == "no-ids":
        return tuple(replace(e, resource_id="") for e in elements)
    if skin in VIEW_SKINS:
        raise ValueError(f"skin {skin!r} is made from the view: use android_elements()")
    raise ValueError(f"unknown skin {skin!r}; available: {', '.join(SKINS)}")


def _html_id(resource_id: str) -> str:
    """``shop:id/product_3`` -> ``shop-product_3`` (a DOM id; the app survives as a prefix)."""
    app, sep, name = resource_id.partition(":id/")
    return f"{app}-{name}" if sep else resource_id


def android_elements(view: PhoneView, device: DeviceProfile) -> tuple[UIElement, ...]:
    """The ``android`` skin: the view dumped as uiautomator XML and read back as the Android
    world reads a phone's dump, so both give the very same elements."""
    from guigraph.envs.android.uixml import parse_hierarchy
    from guigraph.envs.simphone.uixml import hierarchy_xml

    return parse_hierarchy(hierarchy_xml(view, device), device.screen)
